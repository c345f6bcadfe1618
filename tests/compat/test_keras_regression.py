"""Basic regression: Predict fuel efficiency.

Source: https://www.tensorflow.org/tutorials/keras/regression
(github.com/tensorflow/docs, site/en/tutorials/keras/regression.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf` (so `from tapeflow import keras`, `from tapeflow.keras
import layers`); the Auto MPG download replaced by synthetic data of the same shapes
(392 cars, the 9 feature columns after the tutorial's one-hot of Origin, MPG a noisy
function of them) held in NumPy arrays instead of pandas DataFrames (column
`train_features['Horsepower']` is `train_features[:, 2]`); 30 epochs instead of 100; the
plots and the seaborn pair plot left out; the model saved in a temporary directory.
"""

import numpy as np

import tapeflow as tf


def _auto_mpg(rng, n=392):
    cylinders = rng.choice([4, 6, 8], size=n, p=[0.5, 0.2, 0.3]).astype(float)
    displacement = cylinders * 40 + rng.normal(0, 20, n)
    horsepower = displacement * 0.45 + 20 + rng.normal(0, 10, n)
    weight = 1500 + displacement * 7 + rng.normal(0, 200, n)
    acceleration = 20 - horsepower * 0.04 + rng.normal(0, 1.5, n)
    year = rng.integers(70, 83, n).astype(float)
    origin = rng.choice(3, size=n, p=[0.62, 0.18, 0.2])
    one_hot = np.eye(3)[origin]  # Europe, Japan, USA as the tutorial's columns
    features = np.column_stack([cylinders, displacement, horsepower, weight,
                                acceleration, year, one_hot])
    mpg = 46 - 0.007 * weight + 0.75 * (year - 76) - 0.05 * horsepower + rng.normal(0, 2.5, n)
    return features.astype(np.float64), np.clip(mpg, 9, 47)


def test_keras_regression(tmp_path):
    from tapeflow import keras
    from tapeflow.keras import layers
    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    features, mpg = _auto_mpg(rng)
    order = rng.permutation(len(mpg))  # dataset.sample(frac=0.8, random_state=0)
    train, test = order[:314], order[314:]
    train_features, test_features = features[train], features[test]
    train_labels, test_labels = mpg[train], mpg[test]

    normalizer = tf.keras.layers.Normalization(axis=-1)
    normalizer.adapt(np.array(train_features))
    np.testing.assert_allclose(normalizer.mean.numpy().ravel(), train_features.mean(axis=0), rtol=1e-4)
    first = np.array(train_features[:1])
    normalized = normalizer(first).numpy()
    np.testing.assert_allclose(normalized, (first - train_features.mean(0)) / train_features.std(0),
                               rtol=1e-3, atol=1e-3)

    horsepower = np.array(train_features[:, 2])
    horsepower_normalizer = layers.Normalization(input_shape=[1,], axis=None)
    horsepower_normalizer.adapt(horsepower)
    horsepower_model = tf.keras.Sequential([
        horsepower_normalizer,
        layers.Dense(units=1)
    ])
    horsepower_model.summary()
    assert horsepower_model.predict(horsepower[:10], verbose=0).shape == (10, 1)
    horsepower_model.compile(
        optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
        loss='mean_absolute_error')
    history = horsepower_model.fit(
        train_features[:, 2],
        train_labels,
        epochs=30,
        verbose=0,
        validation_split = 0.2)
    test_results = {}
    test_results['horsepower_model'] = horsepower_model.evaluate(
        test_features[:, 2],
        test_labels, verbose=0)
    x = tf.linspace(0.0, 250, 251)
    y = horsepower_model.predict(x, verbose=0)
    assert y.shape == (251, 1) and y[0, 0] > y[-1, 0]  # fewer MPG with more horsepower

    linear_model = tf.keras.Sequential([
        normalizer,
        layers.Dense(units=1)
    ])
    assert linear_model.predict(train_features[:10], verbose=0).shape == (10, 1)
    assert linear_model.layers[1].kernel.shape == (9, 1)
    linear_model.compile(
        optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
        loss='mean_absolute_error')
    history = linear_model.fit(
        train_features,
        train_labels,
        epochs=30,
        verbose=0,
        validation_split = 0.2)
    test_results['linear_model'] = linear_model.evaluate(
        test_features, test_labels, verbose=0)

    def build_and_compile_model(norm):
      model = keras.Sequential([
          norm,
          layers.Dense(64, activation='relu'),
          layers.Dense(64, activation='relu'),
          layers.Dense(1)
      ])
      model.compile(loss='mean_absolute_error',
                    optimizer=tf.keras.optimizers.Adam(0.001))
      return model

    dnn_model = build_and_compile_model(normalizer)
    dnn_model.summary()
    history = dnn_model.fit(
        train_features,
        train_labels,
        validation_split=0.2,
        verbose=0, epochs=30)
    losses = history.history['loss']
    assert losses[-1] < losses[0], losses
    test_results['dnn_model'] = dnn_model.evaluate(test_features, test_labels, verbose=0)

    test_predictions = dnn_model.predict(test_features, verbose=0).flatten()
    error = test_predictions - test_labels
    dnn_model.save(str(tmp_path / 'dnn_model.keras'))
    reloaded = tf.keras.models.load_model(str(tmp_path / 'dnn_model.keras'))
    test_results['reloaded'] = reloaded.evaluate(
        test_features, test_labels, verbose=0)

    # The text: the linear and DNN models reach a mean absolute error of a few MPG,
    # well under the horsepower-only model's; the reloaded model gives the same error.
    spread = np.mean(np.abs(test_labels - test_labels.mean()))
    assert test_results['linear_model'] < 0.6 * spread, (test_results, spread)
    assert test_results['linear_model'] < test_results['horsepower_model'], test_results
    assert np.mean(np.abs(error)) < spread
    np.testing.assert_allclose(test_results['reloaded'], test_results['dnn_model'], rtol=1e-5)
