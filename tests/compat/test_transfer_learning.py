"""Transfer learning and fine-tuning (MobileNetV2 on cats and dogs).

Source: https://www.tensorflow.org/tutorials/images/transfer_learning
(github.com/tensorflow/docs, site/en/tutorials/images/transfer_learning.ipynb at commit
01b5a054498bd0cfa3c0c4e754b534dacaedac1a).

Changes: `import tapeflow as tf`; `weights=None` for MobileNetV2 (ImageNet's weights are
a download); the cats-and-dogs download replaced by 8 synthetic uint8 images of
160x160x3 (the left half brighter for one class), batches of 4, one epoch at each
stage instead of 10; `RMSprop(learning_rate=...)` for `RMSprop(lr=...)`, which
Keras 3 (TF 2.21) no longer takes; the plots and summaries' printing left out. The
figures asserted are the page's: 154 layers in the base model, 2 trainable variables
with the base frozen, 56 once the layers from the 100th on are unfrozen (TF 2.21
prints the same for this code).
"""

import warnings

import numpy as np

import tapeflow as tf


def _synthetic_pets(n, rng):
    labels = rng.integers(0, 2, size=n).astype(np.int32)
    images = rng.uniform(0, 160, size=(n, 160, 160, 3))
    images[labels == 1, :, :80] += 90  # the left half brighter for class 1
    return tf.data.Dataset.from_tensor_slices((images.astype(np.uint8), labels)).batch(4)


def test_feature_extraction_then_fine_tuning():
    tf.random.set_seed(0)
    train_dataset = _synthetic_pets(8, np.random.default_rng(0))
    validation_dataset = _synthetic_pets(8, np.random.default_rng(1))
    data_augmentation = tf.keras.Sequential([
        tf.keras.layers.experimental.preprocessing.RandomFlip('horizontal'),
        tf.keras.layers.experimental.preprocessing.RandomRotation(0.2),
    ])
    preprocess_input = tf.keras.applications.mobilenet_v2.preprocess_input

    IMG_SIZE = (160, 160)
    IMG_SHAPE = IMG_SIZE + (3,)
    base_model = tf.keras.applications.MobileNetV2(input_shape=IMG_SHAPE,
                                                   include_top=False,
                                                   weights=None)
    image_batch, label_batch = next(iter(train_dataset))
    feature_batch = base_model(image_batch)
    assert feature_batch.shape == (4, 5, 5, 1280)

    base_model.trainable = False
    global_average_layer = tf.keras.layers.GlobalAveragePooling2D()
    feature_batch_average = global_average_layer(feature_batch)
    assert feature_batch_average.shape == (4, 1280)
    prediction_layer = tf.keras.layers.Dense(1)
    assert prediction_layer(feature_batch_average).shape == (4, 1)

    inputs = tf.keras.Input(shape=(160, 160, 3))
    x = data_augmentation(inputs)
    x = preprocess_input(x)
    x = base_model(x, training=False)
    x = global_average_layer(x)
    x = tf.keras.layers.Dropout(0.2)(x)
    outputs = prediction_layer(x)
    model = tf.keras.Model(inputs, outputs)

    base_learning_rate = 0.0001
    model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=base_learning_rate),
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    assert len(model.trainable_variables) == 2  # the Dense layer's kernel and bias
    assert model.layers[2] is base_model  # Keras: InputLayer, Sequential, Functional, ...
    assert [type(layer).__name__ for layer in model.layers[:2] + model.layers[3:]] == [
        "InputLayer", "Sequential", "GlobalAveragePooling2D", "Dropout", "Dense"]
    frozen = [w.numpy() for w in base_model.weights[:3]]
    loss0, accuracy0 = model.evaluate(validation_dataset, verbose=0)
    assert np.isfinite(loss0) and 0 <= accuracy0 <= 1
    initial_epochs = 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(train_dataset, epochs=initial_epochs,
                            validation_data=validation_dataset, verbose=0)
    # the augmentation layers trace: the train step runs compiled, not eagerly
    assert not [w for w in caught if "runs eagerly" in str(w.message)]
    assert np.isfinite(history.history['loss'][0])
    for before, after in zip(frozen, base_model.weights[:3]):
        np.testing.assert_array_equal(before, after.numpy())  # the base did not move

    base_model.trainable = True
    assert len(base_model.layers) == 154  # "Number of layers in the base model:  154"
    fine_tune_at = 100
    for layer in base_model.layers[:fine_tune_at]:
        layer.trainable = False
    model.compile(loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                  optimizer=tf.keras.optimizers.RMSprop(learning_rate=base_learning_rate / 10),
                  metrics=['accuracy'])
    assert len(model.trainable_variables) == 56
    assert base_model.layers[fine_tune_at].name == "block_11_expand_relu"
    tuned = base_model.get_layer("block_16_project")
    before = tuned.kernel.numpy()
    fine_tune_epochs = 1
    total_epochs = initial_epochs + fine_tune_epochs
    history_fine = model.fit(train_dataset, epochs=total_epochs,
                             initial_epoch=history.epoch[-1],
                             validation_data=validation_dataset, verbose=0)
    assert np.isfinite(history_fine.history['loss']).all()
    assert not np.array_equal(before, tuned.kernel.numpy())  # a top layer was tuned
    predictions = model.predict_on_batch(image_batch).flatten()
    predictions = tf.where(tf.nn.sigmoid(predictions) < 0.5, 0, 1)
    assert predictions.shape == (4,)
