"""`keras.preprocessing.sequence`: `pad_sequences` (tapeflow.utils.arrays)."""

from ...utils.arrays import pad_sequences

__all__ = ["pad_sequences"]
