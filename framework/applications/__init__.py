"""applications/ is `tf.keras.applications`: Keras's ImageNet models, built with
exactly Keras's layers (names, order of creation, shapes, parameter counts), so
that Keras's weights files fit them, and each family's `preprocess_input` and
`decode_predictions`. One module per family; `vgg16`, `vgg19`, `resnet50` and
`resnet_v2` are Keras's submodule names over them. Loaded on first access of
`tf.keras.applications`.
"""

from . import (densenet, efficientnet, imagenet_utils, inception_v3, mobilenet,
               mobilenet_v2, resnet, resnet50, resnet_v2, vgg16, vgg19, xception)
from .densenet import DenseNet121, DenseNet169, DenseNet201
from .efficientnet import (EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3,
                           EfficientNetB4, EfficientNetB5, EfficientNetB6, EfficientNetB7)
from .inception_v3 import InceptionV3
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from .resnet import ResNet50, ResNet101, ResNet152, ResNet50V2, ResNet101V2, ResNet152V2
from .vgg import VGG16, VGG19
from .xception import Xception

__all__ = [
    "VGG16", "VGG19", "ResNet50", "ResNet101", "ResNet152", "ResNet50V2", "ResNet101V2",
    "ResNet152V2", "MobileNet", "MobileNetV2", "Xception", "DenseNet121", "DenseNet169",
    "DenseNet201",
    "EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3", "EfficientNetB4",
    "EfficientNetB5", "EfficientNetB6", "EfficientNetB7", "InceptionV3",
    "densenet", "efficientnet", "imagenet_utils", "inception_v3", "mobilenet", "mobilenet_v2",
    "resnet", "resnet50", "resnet_v2", "vgg16", "vgg19", "xception",
]
