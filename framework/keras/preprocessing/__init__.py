"""`keras.preprocessing` as Keras 2 programs import it: `sequence.pad_sequences`,
`image.img_to_array` / `array_to_img` / `load_img`, `text.Tokenizer`.
Re-exports only: the code is in tapeflow.utils."""

from . import image, sequence, text

__all__ = ["image", "sequence", "text"]
