"""W8 recurrent: keras-io's Bidirectional LSTM IMDB model (Embedding(20000, 128)
- Bidirectional(LSTM(64, return_sequences=True)) - Bidirectional(LSTM(64)) -
Dense(1), binary cross-entropy from logits, Adam, batch 32, 200 seeded
synthetic token ids per sample), and a single LSTM(64) over 50 steps of 32
features, batch 32, Dense(1), mean squared error, SGD; training steps/s of
tapeflow's fit beside Keras's fit and PyTorch's nn.LSTM when installed,
interleaved chunk by chunk."""

import numpy as np

from _harness import missing
from _harness import measure as _measure
from workloads.w2_mlp import _Chunks, _fit_chunk, _stepwise, _timed_chunk

ID = "W8"
VOCAB, EMBED, UNITS, SEQ_LEN, BATCH = 20_000, 128, 64, 200, 32
SMALL_STEPS, SMALL_FEATURES = 50, 32
TAPEFLOW_NEEDS = ("keras.Sequential", "keras.layers.LSTM", "keras.layers.Bidirectional",
                  "keras.layers.Embedding", "keras.optimizers.Adam", "keras.optimizers.SGD")


def keras_imdb(keras):
    """keras-io's text_classification_with_bidirectional_lstm model, logits out."""
    model = keras.Sequential([
        keras.layers.Embedding(VOCAB, EMBED),
        keras.layers.Bidirectional(keras.layers.LSTM(UNITS, return_sequences=True)),
        keras.layers.Bidirectional(keras.layers.LSTM(UNITS)),
        keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(),
                  loss=keras.losses.BinaryCrossentropy(from_logits=True))
    return model


def keras_small(keras):
    model = keras.Sequential([keras.layers.LSTM(UNITS), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
    return model


def torch_imdb(torch):
    nn = torch.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, EMBED)
            self.lstm1 = nn.LSTM(EMBED, UNITS, batch_first=True, bidirectional=True)
            self.lstm2 = nn.LSTM(2 * UNITS, UNITS, batch_first=True, bidirectional=True)
            self.dense = nn.Linear(2 * UNITS, 1)

        def forward(self, ids):
            seq, _ = self.lstm1(self.embed(ids))
            _, (h, _) = self.lstm2(seq)
            return self.dense(torch.cat([h[0], h[1]], dim=1))[:, 0]

    model = Model()
    opt = torch.optim.Adam(model.parameters(), eps=1e-7)
    loss_fn = nn.BCEWithLogitsLoss()

    def step(xb, yb):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(torch.from_numpy(xb)), torch.from_numpy(yb))
        loss.backward()
        opt.step()
    return step


def torch_small(torch):
    nn = torch.nn
    lstm, dense = nn.LSTM(SMALL_FEATURES, UNITS, batch_first=True), nn.Linear(UNITS, 1)
    opt = torch.optim.SGD(list(lstm.parameters()) + list(dense.parameters()), lr=0.01)

    def step(xb, yb):
        opt.zero_grad(set_to_none=True)
        _, (h, _) = lstm(torch.from_numpy(xb))
        loss = ((dense(h[0])[:, 0] - torch.from_numpy(yb)) ** 2).mean()
        loss.backward()
        opt.step()
    return step


def _impls(ctx, x, y, steps, keras_builder, torch_builder):
    impls = []

    def add(name, family, train_chunk):
        impls.append((name, family, _timed_chunk(_Chunks(x, y, BATCH, steps), train_chunk)))

    import tapeflow as tf
    absent = missing(tf, *TAPEFLOW_NEEDS)
    if absent:
        ctx.note(f"W8: tapeflow skipped: {', '.join(absent)} not available yet.")
    else:
        tf.random.set_seed(0)
        add("tapeflow fit", "tapeflow", _fit_chunk(keras_builder(tf.keras), BATCH))
    torch = ctx.peer("torch")
    if torch is not None:
        torch.manual_seed(0)
        add("PyTorch nn.LSTM eager", "torch", _stepwise(torch_builder(torch), BATCH))
    tens = ctx.peer("tensorflow")
    if tens is not None:
        tens.keras.utils.set_random_seed(0)
        add("TF Keras fit", "tensorflow", _fit_chunk(keras_builder(tens.keras), BATCH))
    return impls


def run(ctx):
    rng = np.random.default_rng(0)
    seq_len = 20 if ctx.quick else SEQ_LEN
    steps = 1 if ctx.quick else 4  # a chunk of IMDB steps is about 1-2 s
    n = BATCH * steps * 8
    ids = rng.integers(1, VOCAB, (n, seq_len)).astype(np.int64)
    labels = rng.integers(0, 2, n).astype(np.float32)
    rows = _measure(ctx, ID, f"IMDB BiLSTM, batch {BATCH}, {seq_len} steps", "steps/s",
                    _impls(ctx, ids, labels, steps, keras_imdb, torch_imdb),
                    higher_is_better=True)
    small_steps = 2 if ctx.quick else 20
    x = rng.standard_normal((BATCH * small_steps * 8, SMALL_STEPS, SMALL_FEATURES)).astype(
        np.float32)
    y = rng.standard_normal(x.shape[0]).astype(np.float32)
    rows += _measure(ctx, ID, f"LSTM(64), batch {BATCH}, {SMALL_STEPS} steps", "steps/s",
                     _impls(ctx, x, y, small_steps, keras_small, torch_small),
                     higher_is_better=True)
    return rows
