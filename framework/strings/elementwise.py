"""elementwise.py: the tf.strings functions that map each string to one value
(lower, upper, strip, length, substr, regex_replace, regex_full_match), over
string tensors of any shape and over RaggedTensors' flat values.

Regular expressions are TF's RE2 syntax run by Python's `re` on the UTF-8 text
(invalid bytes kept through surrogate escapes), with `re.ASCII` so that \\w, \\d,
\\s and \\b are ASCII-only as in RE2. Differences: Python accepts more than RE2
(lookarounds, backreferences), rejects RE2's \\pL-style Unicode classes and \\C,
and `(?i)` folds only ASCII letters."""

import builtins
import functools
import re

import numpy as np

from ..core.errors import InvalidArgumentError
from .text import each, over_ragged, scalar_text, string_array, tensor_of

__all__ = ["lower", "upper", "strip", "length", "substr", "regex_replace", "regex_full_match"]

_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 trail bytes: not the start of a character


def _encoding_transform(name, ascii_fn, unicode_fn):
    def transform(input, encoding="", name=None):  # noqa: A002 -- TF's names
        array = string_array(input, name_)
        if encoding == "":
            return tensor_of(each(ascii_fn, array))
        if str(encoding).lower().replace("-", "") != "utf8":
            raise InvalidArgumentError(f"tf.strings.{name_}: encoding must be '' (ASCII) or "
                                       f"'utf-8', got {encoding!r}.")
        return tensor_of(each(lambda s: unicode_fn(s.decode("utf-8", "replace")).encode(),
                              array))
    name_ = name
    transform.__name__ = name
    return transform


lower = over_ragged(_encoding_transform("lower", bytes.lower, str.lower))
lower.__doc__ = """Lowercase each string, as tf.strings.lower: ASCII letters only unless
    `encoding='utf-8'`, which lowercases Unicode (invalid bytes become U+FFFD).

    >>> tf.strings.lower(["CamelCase"]).numpy()
    array([b'camelcase'], dtype=object)
    """
upper = over_ragged(_encoding_transform("upper", bytes.upper, str.upper))
upper.__doc__ = "Uppercase each string, as tf.strings.upper (see `lower` for `encoding`)."


@over_ragged
def strip(input, name=None):  # noqa: A002 -- TF's name
    """Remove leading and trailing ASCII whitespace, as tf.strings.strip."""
    return tensor_of(each(bytes.strip, string_array(input)))


def _char_count(s):
    """Characters of UTF-8 `s`: the bytes that are not trail bytes (as TF counts)."""
    return len(s.translate(None, delete=_CONTINUATION))


@over_ragged
def length(input, unit="BYTE", name=None):  # noqa: A002 -- TF's name
    """int32 length of each string in bytes (`unit="BYTE"`) or in UTF-8 characters
    (`unit="UTF8_CHAR"`), as tf.strings.length.

    >>> tf.strings.length(["hello", "é"]).numpy()
    array([5, 2], dtype=int32)
    """
    array = string_array(input)
    if unit == "BYTE":
        return tensor_of(each(len, array, np.int32))
    if unit == "UTF8_CHAR":
        return tensor_of(each(_char_count, array, np.int32))
    raise InvalidArgumentError(f"Value for attr 'unit' of {unit!r} is not in the list of "
                               "allowed values: \"BYTE\", \"UTF8_CHAR\" [Op:StringLength]")


def _char_starts(s):
    """Byte offsets where each UTF-8 character of `s` starts, then len(s)."""
    return [i for i, b in enumerate(s) if b & 0xC0 != 0x80] + [len(s)]


@over_ragged
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 -- TF's names
    """The substring of `len` units from `pos` of each string, as tf.strings.substr.

    A negative `pos` counts from the end; `len` is clipped at the end of the
    string (a negative `len` runs to the end). `pos` and `len` have one shape,
    broadcast against `input`.

    Raises:
        InvalidArgumentError: if a `pos` is outside [-length, length] of its string
            (naming the string and its index), or `pos` and `len` differ in shape.
    """
    array = string_array(input)
    positions, lengths = np.asarray(_ints(pos, "pos")), np.asarray(_ints(len, "len"))
    if positions.shape != lengths.shape:
        raise InvalidArgumentError(f"pos and len should have the same shape, got: "
                                   f"{list(positions.shape)} vs. {list(lengths.shape)} "
                                   "[Op:Substr]")
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(f"Value for attr 'unit' of {unit!r} is not in the list of "
                                   "allowed values: \"BYTE\", \"UTF8_CHAR\" [Op:Substr]")
    try:
        strings, positions, lengths = np.broadcast_arrays(array, positions, lengths)
    except ValueError:
        raise InvalidArgumentError(f"Substr: input of shape {list(array.shape)} does not "
                                   f"broadcast with pos of shape {list(positions.shape)} "
                                   "[Op:Substr]") from None
    out = np.empty(strings.shape, object)
    flat = out.reshape(-1)
    for i, (s, p, n) in enumerate(zip(strings.reshape(-1), positions.reshape(-1).tolist(),
                                      lengths.reshape(-1).tolist())):
        starts = _char_starts(s) if unit == "UTF8_CHAR" else None
        size = builtins.len(starts) - 1 if starts else builtins.len(s)
        if not -size <= p <= size:
            shown = "" if unit == "UTF8_CHAR" else f" {s!r}"
            raise InvalidArgumentError(f"pos {p} out of range for string{shown} at index {i} "
                                       "[Op:Substr]")
        p = p + size if p < 0 else p
        end = size if n < 0 else min(size, p + n)
        flat[i] = s[starts[p]:starts[end]] if starts else s[p:end]
    return tensor_of(out)


def _ints(value, what):
    array = np.asarray(getattr(value, "_value", value))
    if array.dtype.kind not in "iu":
        raise TypeError(f"tf.strings.substr: {what} must be integers, got {array.dtype}.")
    return array.astype(np.int64)


@functools.lru_cache(maxsize=256)
def _compiled(pattern):
    try:
        return re.compile(pattern.decode("utf-8", "surrogateescape"), re.ASCII)
    except re.error as error:
        raise InvalidArgumentError(f"Invalid pattern: {pattern.decode('utf-8', 'replace')}, "
                                   f"error: {error}") from None


def _rewrite(template, groups):
    """RE2's rewrite string as a function of a match: \\0..\\9 are groups, \\\\ a
    backslash, all else literal. None when it names a group the pattern lacks (RE2
    then replaces nothing)."""
    parts, i, text = [], 0, template.decode("utf-8", "surrogateescape")
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1].isdigit():
            if int(text[i + 1]) > groups:
                return None
            parts.append(int(text[i + 1]))
            i += 2
        elif text[i] == "\\" and i + 1 < len(text) and text[i + 1] == "\\":
            parts.append("\\")
            i += 2
        else:
            parts.append(text[i])
            i += 1
    return lambda m: "".join(m.group(p) or "" if isinstance(p, int) else p for p in parts)


@over_ragged
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replace the matches of the RE2 `pattern` in each string by `rewrite` (\\1 is
    group 1, \\0 the match), every match or only the first (`replace_global=False`),
    as tf.strings.regex_replace. See the module docstring for the RE2 subset.

    >>> tf.strings.regex_replace("Text with tags.<br /><b>contains html</b>",
    ...                          "<[^>]+>", " ").numpy()
    b'Text with tags.  contains html '

    Raises:
        InvalidArgumentError: for a pattern that does not compile.
    """
    array = string_array(input)
    regex = _compiled(scalar_text(pattern, "pattern"))
    replace = _rewrite(scalar_text(rewrite, "rewrite"), regex.groups)
    if replace is None:
        return tensor_of(array.copy())
    count = 0 if replace_global else 1
    return tensor_of(each(lambda s: regex.sub(replace, s.decode("utf-8", "surrogateescape"),
                                              count=count).encode("utf-8", "surrogateescape"),
                          array))


@over_ragged
def regex_full_match(input, pattern, name=None):  # noqa: A002 -- TF's name
    """bool: whether each whole string matches the RE2 `pattern`, as
    tf.strings.regex_full_match.

    >>> tf.strings.regex_full_match(["TF lib", "lib TF"], ".*lib$").numpy()
    array([ True, False])
    """
    array = string_array(input)
    regex = _compiled(scalar_text(pattern, "pattern"))
    return tensor_of(each(lambda s: regex.fullmatch(s.decode("utf-8", "surrogateescape"))
                          is not None, array, np.bool_))
