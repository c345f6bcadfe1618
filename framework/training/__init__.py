"""training/: what `Model.compile`, `fit`, `evaluate` and `predict` use --
compile utilities (losses and metrics per output, compile_utils.py), the data
adapter (arrays, datasets, generators into batches, data_adapter.py) and the
loops that drive them (epochs, batches, validation, callbacks, loops.py). The
step itself is the model's `train_step`; nothing here imports models/."""
