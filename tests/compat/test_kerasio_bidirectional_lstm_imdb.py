"""Bidirectional LSTM on IMDB (keras-io).

Source: https://keras.io/examples/nlp/bidirectional_lstm_imdb/
(github.com/keras-team/keras-io, examples/nlp/bidirectional_lstm_imdb.py, "Last
modified: 2020/05/03", the tf.keras version, taken from the fork chenmoneygithub/keras-io
at commit 274278c55b204acbf9438ae7130f3edff58a7e41, which is upstream's 'fixed typos
(#1302)' of 2023-04-16; Apache License 2.0).

Changes: `from tapeflow import keras`, `from tapeflow.keras import layers`; no download:
`keras.datasets.imdb.load_data(num_words=max_features)` becomes `load_data(...)` below,
which returns what the real one does (object arrays of Python lists of word ids, each
review starting with 1, `start_char`, ids below `num_words`, labels 0 and 1) for seeded
synthetic reviews of 30 to 400 words, 480 training and 120 validation reviews instead of
25,000 and 25,000; the sentiment is learnable: about one word in fifteen is one of ten
"positive" ids (10-19) in a positive review and one of ten "negative" ids (20-29) in a
negative one, the rest random ids up to 20,000. Batch size and the 2 epochs are the
page's. What the page shows is asserted: the summary's shapes and parameter counts, the
(n, 200) padded arrays (`pad_sequences`' 'pre' padding and truncation), the model taking
sequences of any length, the loss going down, validation accuracy above chance.
"""

import numpy as np

from tapeflow import keras
from tapeflow.keras import layers

POSITIVE_WORDS = np.arange(10, 20)
NEGATIVE_WORDS = np.arange(20, 30)


def _reviews(n, num_words, rng):
    x = np.empty(n, dtype=object)  # as imdb.load_data: an object array of lists
    y = rng.randint(0, 2, size=n)
    for i in range(n):
        length = rng.randint(30, 401)
        words = rng.randint(30, num_words, size=length)
        k = max(3, length // 15)
        at = rng.choice(np.arange(1, length), size=k, replace=False)
        words[at] = rng.choice(POSITIVE_WORDS if y[i] else NEGATIVE_WORDS, size=k)
        words[0] = 1  # start_char
        x[i] = words.tolist()
    return x, y


def load_data(num_words, seed=113):
    """Stands for keras.datasets.imdb.load_data: ((x_train, y_train), (x_test, y_test))."""
    rng = np.random.RandomState(seed)
    return _reviews(480, num_words, rng), _reviews(120, num_words, rng)


def test_bidirectional_lstm_imdb(summary_rows):
    keras.backend.clear_session()  # fresh layer names: the summary would shorten long ones
    keras.utils.set_random_seed(0)

    max_features = 20000  # Only consider the top 20k words
    maxlen = 200  # Only consider the first 200 words of each movie review

    # Build the model

    # Input for variable-length sequences of integers
    inputs = keras.Input(shape=(None,), dtype="int32")
    # Embed each integer in a 128-dimensional vector
    x = layers.Embedding(max_features, 128)(inputs)
    # Add 2 bidirectional LSTMs
    x = layers.Bidirectional(layers.LSTM(64, return_sequences=True))(x)
    x = layers.Bidirectional(layers.LSTM(64))(x)
    # Add a classifier
    outputs = layers.Dense(1, activation="sigmoid")(x)
    model = keras.Model(inputs, outputs)
    model.summary()

    # The page's summary: (None, None, 128) 2,560,000; (None, None, 128) 98,816;
    # (None, 128) 98,816; (None, 1) 129; total 2,757,761.
    assert summary_rows(model) == [
        ("InputLayer", "(None, None)", 0),
        ("Embedding", "(None, None, 128)", 2560000),
        ("Bidirectional", "(None, None, 128)", 98816),
        ("Bidirectional", "(None, 128)", 98816),
        ("Dense", "(None, 1)", 129),
    ]
    assert model.count_params() == 2757761

    # Load the IMDB movie review sentiment data
    (x_train, y_train), (x_val, y_val) = load_data(
        num_words=max_features
    )
    print(len(x_train), "Training sequences")
    print(len(x_val), "Validation sequences")
    raw_train = x_train
    # Use pad_sequence to standardize sequence length:
    # this will truncate sequences longer than 200 words and zero-pad sequences shorter than 200 words.
    x_train = keras.preprocessing.sequence.pad_sequences(x_train, maxlen=maxlen)
    x_val = keras.preprocessing.sequence.pad_sequences(x_val, maxlen=maxlen)

    assert (len(raw_train), len(x_val)) == (480, 120)
    assert x_train.shape == (480, 200) and x_val.shape == (120, 200)
    assert x_train.dtype == np.int32 and x_train.max() < max_features
    long_review = next(i for i, r in enumerate(raw_train) if len(r) > maxlen)
    short_review = next(i for i, r in enumerate(raw_train) if len(r) < maxlen)
    # 'pre' truncation keeps the last 200 words; 'pre' padding puts the zeros first.
    assert x_train[long_review].tolist() == raw_train[long_review][-maxlen:]
    n = len(raw_train[short_review])
    assert x_train[short_review, : maxlen - n].tolist() == [0] * (maxlen - n)
    assert x_train[short_review, maxlen - n :].tolist() == raw_train[short_review]

    # Train and evaluate the model
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(
        x_train, y_train, batch_size=32, epochs=2, validation_data=(x_val, y_val)
    )

    losses = history.history["loss"]
    assert len(losses) == 2 and losses[1] < losses[0], history.history
    assert history.history["val_accuracy"][-1] > 0.65, history.history

    # "Input for variable-length sequences of integers": any number of words.
    assert model.predict(x_val[:5, -50:]).shape == (5, 1)
