"""`keras.preprocessing.text`: Keras 2's Tokenizer and helpers (tapeflow.utils.text)."""

from ...utils.text import Tokenizer, hashing_trick, one_hot, text_to_word_sequence

__all__ = ["Tokenizer", "text_to_word_sequence", "one_hot", "hashing_trick"]
