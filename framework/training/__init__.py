"""training/: what `Model.compile` and `fit` use -- compile utilities (losses
and metrics per output) and the data adapter (arrays, datasets, generators into
batches)."""
