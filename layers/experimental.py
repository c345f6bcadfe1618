"""`tf.keras.layers.experimental.preprocessing`: where TF 2.3 to 2.5 kept the
preprocessing layers, which programs of that time still name
(`layers.experimental.preprocessing.Rescaling`). The same classes as
`tf.keras.layers.Rescaling` etc.; aliases only."""

import types

from . import preprocessing as _numeric
from . import preprocessing_affine as _affine
from . import preprocessing_hashing as _hashing
from . import preprocessing_lookup as _lookup
from . import preprocessing_text as _text
from . import preprocessing_image as _image

__all__ = ["preprocessing"]

preprocessing = types.SimpleNamespace(**{
    name: getattr(module, name)
    for module in (_numeric, _image, _affine, _hashing, _lookup, _text) for name in module.__all__
    if isinstance(getattr(module, name), type) and name != "ImagePreprocessingLayer"})
