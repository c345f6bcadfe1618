"""text.py is Keras 2's `keras.preprocessing.text`: `Tokenizer`,
`text_to_word_sequence`, `one_hot` and `hashing_trick`, still common in text
tutorials (Keras 3 replaces them with the TextVectorization layer)."""

import hashlib
from collections import OrderedDict, defaultdict

import numpy as np

__all__ = ["Tokenizer", "text_to_word_sequence", "one_hot", "hashing_trick"]

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text, filters=_FILTERS, lower=True, split=" "):
    """The words of a text: lowercased, `filters` characters taken as separators.

    >>> text_to_word_sequence("Hello, World!")
    ['hello', 'world']
    """
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in input_text.split(split) if word]


def hashing_trick(text, n, hash_function=None, filters=_FILTERS, lower=True, split=" ",
                  analyzer=None):
    """Each word hashed to an index in [1, n - 1] (0 is kept for padding).

    `hash_function` None is Python's `hash` (varies between runs unless
    PYTHONHASHSEED is set, as in Keras); 'md5' is stable.
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(word):
            return int(hashlib.md5(word.encode()).hexdigest(), 16)
    words = (text_to_word_sequence(text, filters=filters, lower=lower, split=split)
             if analyzer is None else analyzer(text))
    return [hash_function(word) % (n - 1) + 1 for word in words]


def one_hot(input_text, n, filters=_FILTERS, lower=True, split=" ", analyzer=None):
    """`hashing_trick` with Python's hash (Keras 2's `one_hot`: word indices, not vectors)."""
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower,
                         split=split, analyzer=analyzer)


class Tokenizer:
    """Keras 2's word (or character) index over a corpus.

    `fit_on_texts` counts words; indices start at 1 in order of decreasing
    count (ties in order of first appearance), after `oov_token` if given.
    `texts_to_sequences` keeps the words whose index is below `num_words`.

    Args:
        num_words: keep the `num_words - 1` most frequent words (all if None).
        filters: characters removed from texts.
        lower: lowercase texts.
        split: the word separator.
        char_level: index characters instead of words.
        oov_token: the word that replaces out-of-vocabulary words (index 1).
        analyzer: a callable text -> words, replacing the filter/split steps.
    """

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ",
                 char_level=False, oov_token=None, analyzer=None, document_count=0, **kwargs):
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
        self.num_words, self.filters, self.lower, self.split = num_words, filters, lower, split
        self.char_level, self.oov_token, self.analyzer = char_level, oov_token, analyzer
        self.document_count = document_count
        self.word_counts = OrderedDict()
        self.word_docs = defaultdict(int)
        self.index_docs = defaultdict(int)
        self.word_index, self.index_word = {}, {}

    def _words(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                return [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower,
                                     split=self.split)

    def fit_on_texts(self, texts):
        """Count the words of `texts` (strings, or lists of words) and rebuild the index."""
        for text in texts:
            self.document_count += 1
            words = self._words(text)
            for word in words:
                self.word_counts[word] = self.word_counts.get(word, 0) + 1
            for word in set(words):
                self.word_docs[word] += 1
        ordered = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = ([self.oov_token] if self.oov_token is not None else []) + [
            word for word, _ in ordered]
        self.word_index = {word: i for i, word in enumerate(vocabulary, start=1)}
        self.index_word = {i: word for word, i in self.word_index.items()}
        self.index_docs = defaultdict(int, {self.word_index[w]: c
                                            for w, c in self.word_docs.items()})

    def _keep(self, index):
        return not self.num_words or index < self.num_words

    def texts_to_sequences(self, texts):
        """Each text as the list of its words' indices."""
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        sequences = []
        for text in texts:
            sequence = []
            for word in self._words(text):
                index = self.word_index.get(word)
                if index is not None and self._keep(index):
                    sequence.append(index)
                elif oov is not None:
                    sequence.append(oov)
            sequences.append(sequence)
        return sequences

    def sequences_to_texts(self, sequences):
        """Each sequence of indices back as a text of words joined by spaces."""
        oov_word = self.oov_token if self.oov_token in self.word_index else None
        texts = []
        for sequence in sequences:
            words = []
            for index in sequence:
                word = self.index_word.get(index)
                if word is not None and self._keep(index):
                    words.append(word)
                elif oov_word is not None:
                    words.append(oov_word)
            texts.append(" ".join(words))
        return texts

    def texts_to_matrix(self, texts, mode="binary"):
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """A (len(sequences), num_words) matrix: 'binary', 'count', 'freq' or 'tfidf'.

        Raises:
            ValueError: for an unknown mode, or without `num_words` before fitting,
                or 'tfidf' before fitting.
        """
        if mode not in ("binary", "count", "tfidf", "freq"):
            raise ValueError(f"Unknown vectorization mode: {mode}")
        if not self.num_words and not self.word_index:
            raise ValueError("Specify a dimension (`num_words` argument), or fit on some "
                             "text data first.")
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        width = self.num_words or len(self.word_index) + 1
        out = np.zeros((len(sequences), width))
        for row, sequence in enumerate(sequences):
            counts = defaultdict(int)
            for index in sequence:
                if index < width:
                    counts[index] += 1
            for index, count in counts.items():
                if mode == "count":
                    out[row, index] = count
                elif mode == "freq":
                    out[row, index] = count / len(sequence)
                elif mode == "binary":
                    out[row, index] = 1
                else:
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(index, 0)))
                    out[row, index] = (1 + np.log(count)) * idf
        return out

    def get_config(self):
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower,
                "split": self.split, "char_level": self.char_level,
                "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": dict(self.word_counts), "word_index": dict(self.word_index)}
