"""tf.strings: every function against TF 2.21's values (the API pages' examples
and values printed by TF itself), over scalars, vectors, matrices and
RaggedTensors, with TF's errors."""

import random
import re
import string

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.strings.farmhash import fingerprint64

S = tf.strings
E = "é".encode()  # b'\xc3\xa9'


def value(x):
    """A result as plain Python: bytes/ints/bools, nested lists, ragged as lists."""
    if isinstance(x, tf.RaggedTensor):
        return x.to_list()
    array = x.numpy()
    return array.tolist() if isinstance(array, np.ndarray) else (
        array if isinstance(array, bytes) else array.item())


CASES = [
    # (call, expected) -- expected values are TF 2.21's
    (lambda: S.lower(["CamelCase", "ÉCOLE"]), [b"camelcase", "École".encode()]),
    (lambda: S.lower(["CamelCase", "ÉCOLE"], encoding="utf-8"), [b"camelcase", b"\xc3\xa9cole"]),
    (lambda: S.lower(b"A\xff", encoding="utf-8"), b"a\xef\xbf\xbd"),
    (lambda: S.upper("abc é"), b"ABC " + E),
    (lambda: S.strip(["\n\t hi \x0b\x0c", "  "]), [b"hi", b""]),
    (lambda: S.strip("\u00a0a\u00a0"), "\u00a0a\u00a0".encode()),  # ASCII whitespace only
    (lambda: S.length(["hello", "é", ""]), [5, 2, 0]),
    (lambda: S.length(["hello", "é", "\xff"], unit="UTF8_CHAR"), [5, 1, 1]),
    (lambda: S.length([b"\xff\xfe", b"a\xc3"], unit="UTF8_CHAR"), [2, 2]),
    (lambda: S.substr(["Hello", "World"], 1, 3), [b"ell", b"orl"]),
    (lambda: S.substr("Hello", -3, 2), b"ll"),
    (lambda: S.substr(["Hello", "World"], [1, 2], [2, 3]), [b"el", b"rld"]),
    (lambda: S.substr("Hello", 1, 100), b"ello"),
    (lambda: S.substr("Hello", 1, -1), b"ello"),
    (lambda: S.substr("Hello", 5, 1), b""),
    (lambda: S.substr("Hello", -5, 2), b"He"),
    (lambda: S.substr("Héllo", 1, 2, unit="UTF8_CHAR"), E + b"l"),
    (lambda: S.substr("Hello", [0, 1], [1, 2]), [b"H", b"el"]),
    (lambda: S.substr([["ab", "cd"], ["ef", "gh"]], [0, 1], [1, 1]), [[b"a", b"d"], [b"e", b"h"]]),
    (lambda: S.regex_replace("Text with tags.<br /><b>contains html</b>", "<[^>]+>", " "),
     b"Text with tags.  contains html "),
    (lambda: S.regex_replace(["abc-123"], r"(\w+)-(\d+)", r"\2_\1"), [b"123_abc"]),
    (lambda: S.regex_replace("abc", "b", r"[\0]"), b"a[b]c"),
    (lambda: S.regex_replace("aaa", "a", "b", replace_global=False), b"baa"),
    (lambda: S.regex_replace("é", ".", "x"), b"x"),  # '.' is one character, as RE2's UTF-8
    (lambda: S.regex_replace("éa_1", r"\w", "x"), E + b"xxx"),  # \w is ASCII, as RE2's
    (lambda: S.regex_replace("abc", "b", r"\3"), b"abc"),  # a missing group: no replacement
    (lambda: S.regex_replace("a.b", r"\.", r"\\"), b"a\\b"),
    (lambda: S.regex_replace("ab", "b", "$1"), b"a$1"),
    (lambda: S.regex_replace("abc", "x*", "-"), b"-a-b-c-"),
    (lambda: S.regex_replace(["ab", "cb"], tf.constant("b"), "x"), [b"ax", b"cx"]),
    (lambda: S.regex_full_match(["TF lib", "lib TF"], ".*lib$"), [True, False]),
    (lambda: S.regex_full_match(["", "a"], "a*"), [True, True]),
    (lambda: S.split("hello world"), [b"hello", b"world"]),
    (lambda: S.split(["hello world", "a  b c"]), [[b"hello", b"world"], [b"a", b"b", b"c"]]),
    (lambda: S.split(["1<>2<><>3"], "<>"), [[b"1", b"2", b"", b"3"]]),
    (lambda: S.split("a b c d", maxsplit=2), [b"a", b"b", b"c d"]),
    (lambda: S.split("a,b,c", ",", maxsplit=1), [b"a", b"b,c"]),
    (lambda: S.split([["a b"], ["c"]]), [[[b"a", b"b"]], [[b"c"]]]),
    (lambda: S.split(""), []),
    (lambda: S.split("", ","), [b""]),
    (lambda: S.split("a  b", " "), [b"a", b"", b"b"]),
    (lambda: S.split(["a b"], ""), [[b"a", b"b"]]),
    (lambda: S.split(tf.ragged.constant([["a b"], ["c d", "e"]])),
     [[[b"a", b"b"]], [[b"c", b"d"], [b"e"]]]),
    (lambda: S.join(["abc", "def"]), b"abcdef"),
    (lambda: S.join([["a", "b"], ["c", "d"]], separator="-"), [b"a-c", b"b-d"]),
    (lambda: S.join([["a", "b"], "x"], separator="-"), [b"a-x", b"b-x"]),
    (lambda: S.join(["a", "b", "c"], separator=" "), b"a b c"),
    (lambda: S.join([]), b""),
    (lambda: S.join(tf.constant(["a", "b"])), b"ab"),
    (lambda: S.reduce_join([["abc", "123"], ["def", "456"]]), b"abc123def456"),
    (lambda: S.reduce_join([["abc", "123"], ["def", "456"]], axis=-1, separator="."),
     [b"abc.123", b"def.456"]),
    (lambda: S.reduce_join([["abc", "123"], ["def", "456"]], axis=0, keepdims=True),
     [[b"abcdef", b"123456"]]),
    (lambda: S.reduce_join(tf.constant([], tf.string)), b""),
    (lambda: S.reduce_join([["a", "b"], ["c", "d"]], axis=[0, 1]), b"acbd"),
    (lambda: S.reduce_join([["a", "b"], ["c", "d"]], axis=-2), [b"ac", b"bd"]),
    (lambda: S.reduce_join("a"), b"a"),
    (lambda: S.reduce_join(tf.reshape(tf.constant([], tf.string), [2, 0]), axis=1),
     [b"", b""]),
    (lambda: S.as_string([3.14, 2.0]), [b"3.140000", b"2.000000"]),
    (lambda: S.as_string([3, -2]), [b"3", b"-2"]),
    (lambda: S.as_string([3.14159, 2.71828], precision=2), [b"3.14", b"2.72"]),
    (lambda: S.as_string(3.14159, scientific=True), b"3.141590e+00"),
    (lambda: S.as_string([3.14159, 100000000.0, 0.1], shortest=True),
     [b"3.14159", b"1e+08", b"0.1"]),
    (lambda: S.as_string([3, 42], width=3), [b"  3", b" 42"]),
    (lambda: S.as_string([3, 42], width=4, fill="0"), [b"0003", b"0042"]),
    (lambda: S.as_string([-3], width=4, fill="0"), [b"-003"]),
    (lambda: S.as_string([-3.5], width=10, fill="0", precision=1), [b"-0000003.5"]),
    (lambda: S.as_string(1, width=3, fill="-"), b"1  "),
    (lambda: S.as_string([True, False]), [b"true", b"false"]),
    (lambda: S.as_string([True], width=6), [b"true"]),
    (lambda: S.as_string(tf.constant([1 / 3], tf.float32), precision=10), [b"0.3333333433"]),
    (lambda: S.as_string(tf.constant([0.1], tf.float16)), [b"0.099976"]),
    (lambda: S.as_string(tf.constant([1 + 2j], tf.complex64)), [b"(1.000000,2.000000)"]),
    (lambda: S.as_string(tf.constant([1.5 + 2j], tf.complex128), precision=1), [b"(1.5,2.0)"]),
    (lambda: S.as_string([np.nan, np.inf, -np.inf]), [b"nan", b"inf", b"-inf"]),
    (lambda: S.as_string([1e20]), [b"100000002004087734272.000000"]),
    (lambda: S.as_string(tf.constant([2**40], tf.int64)), [b"1099511627776"]),
    (lambda: S.as_string(tf.constant([200], tf.uint8)), [b"200"]),
    (lambda: S.as_string("a"), b"a"),
    (lambda: S.as_string(tf.ragged.constant([[1], [2, 3]])), [[b"1"], [b"2", b"3"]]),
    (lambda: tf.as_string(1), b"1"),
    (lambda: S.to_number(["12", "-3"], out_type=tf.int32), [12, -3]),
    (lambda: S.to_number(["+1", " 2", "3 ", "010", "-0"], out_type=tf.int32), [1, 2, 3, 10, 0]),
    (lambda: S.to_number(["9223372036854775807"], out_type=tf.int64), [9223372036854775807]),
    (lambda: S.to_number(["18446744073709551615"], out_type=tf.uint64), [18446744073709551615]),
    (lambda: S.to_number(["0.1"], out_type=tf.float64), [0.1]),
    (lambda: S.to_number(["1e40", "3.4028236e38", "1e-400"]), [np.inf, np.inf, 0.0]),
    (lambda: S.unicode_split("héllo", "UTF-8"), [b"h", E, b"l", b"l", b"o"]),
    (lambda: S.unicode_split(["hé", "abc"], "UTF-8"), [[b"h", E], [b"a", b"b", b"c"]]),
    (lambda: S.unicode_split(b"a\xffb", "UTF-8"), [b"a", b"\xef\xbf\xbd", b"b"]),
    (lambda: S.unicode_split([["ab"], ["c"]], "UTF-8"), [[[b"a", b"b"]], [[b"c"]]]),
    (lambda: S.unicode_split("ab", "UTF-16-BE"), [b"ab"]),
    (lambda: S.unicode_decode("héllo", "UTF-8"), [104, 233, 108, 108, 111]),
    (lambda: S.unicode_decode(["hé", "abc"], "UTF-8"), [[104, 233], [97, 98, 99]]),
    (lambda: S.unicode_decode(b"a\xffb", "UTF-8"), [97, 65533, 98]),
    (lambda: S.unicode_decode(b"a\xffb", "UTF-8", errors="ignore"), [97, 98]),
    (lambda: S.unicode_decode("a\x01", "UTF-8", replace_control_characters=True), [97, 65533]),
    (lambda: S.unicode_encode([104, 233, 108], "UTF-8"), b"h\xc3\xa9l"),
    (lambda: S.unicode_encode(tf.ragged.constant([[104, 233], [108]]), "UTF-8"),
     [b"h\xc3\xa9", b"l"]),
    (lambda: S.unicode_encode([[104, 233], [108, 108]], "UTF-8"), [b"h\xc3\xa9", b"ll"]),
    (lambda: S.unicode_encode([104, 0x110000], "UTF-8"), b"h\xef\xbf\xbd"),
    (lambda: S.unicode_encode([104, -1], "UTF-8", errors="ignore"), b"h"),
    (lambda: S.bytes_split("hello"), [b"h", b"e", b"l", b"l", b"o"]),
    (lambda: S.bytes_split(["hé", "ab"]), [[b"h", b"\xc3", b"\xa9"], [b"a", b"b"]]),
    (lambda: S.format("x = {}, y = {}", [tf.constant([1, 2]), tf.constant(3.5)]),
     b"x = [1 2], y = 3.5"),
    (lambda: S.format("{}", [tf.constant(["a", "b"])]), b'["a" "b"]'),
    (lambda: S.format("{}", [tf.range(10)]), b"[0 1 2 ... 7 8 9]"),
    (lambda: S.format("{}", [tf.range(10)], summarize=2), b"[0 1 ... 8 9]"),
    (lambda: S.format("a %s b", [1], placeholder="%s"), b"a 1 b"),
    (lambda: S.format("{}", [1.5]), b"1.5"),
    (lambda: S.format("{}", [tf.constant([[1, 2], [3, 4]])]), b"[[1 2]\n [3 4]]"),
    (lambda: S.format("{}", [tf.zeros([2, 2, 2])]),
     b"[[[0 0]\n  [0 0]]\n\n [[0 0]\n  [0 0]]]"),
    (lambda: S.format("{}", [tf.constant([True, False])]), b"[1 0]"),
    (lambda: S.format("{}", tf.constant(1)), b"1"),
    (lambda: S.format("hello", []), b"hello"),
    (lambda: S.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3), [0, 2, 2]),
    (lambda: S.ngrams(["A", "B", "C", "D"], 2), [b"A B", b"B C", b"C D"]),
    (lambda: S.ngrams(["A", "B", "C", "D"], (2, 3), separator="|"),
     [b"A|B", b"B|C", b"C|D", b"A|B|C", b"B|C|D"]),
    (lambda: S.ngrams(["A", "B", "C"], 2, pad_values=("LP", "RP")),
     [b"LP A", b"A B", b"B C", b"C RP"]),
    (lambda: S.ngrams(["A", "B", "C"], 3, pad_values="P", padding_width=1),
     [b"P A B", b"A B C", b"B C P"]),
    (lambda: S.ngrams(["A", "B"], 3), []),
    (lambda: S.ngrams(["A", "B"], 3, preserve_short_sequences=True), [b"A B"]),
    (lambda: S.ngrams([["A", "B", "C"], ["D", "E", "F"]], 2), [[b"A B", b"B C"], [b"D E", b"E F"]]),
    (lambda: S.ngrams(tf.ragged.constant([["A", "B", "C"], ["D"]]), 2), [[b"A B", b"B C"], []]),
    (lambda: S.length(tf.ragged.constant([["a"], ["bb", "c"]])), [[1], [2, 1]]),
    (lambda: S.lower(tf.ragged.constant([["A"], ["B", "C"]])), [[b"a"], [b"b", b"c"]]),
]


@pytest.mark.parametrize("call, expected", CASES, ids=[str(i) for i in range(len(CASES))])
def test_values_equal_tf(call, expected):
    assert value(call()) == expected


def test_result_types_shapes_and_dtypes():
    assert S.length("ab").dtype == tf.int32 and S.length("ab").shape == ()
    assert S.regex_full_match("a", "a").dtype == tf.bool
    assert S.to_hash_bucket_fast("a", 5).dtype == tf.int64
    assert S.to_number(["1"], tf.float64).dtype == tf.float64
    assert S.unicode_decode("ab", "UTF-8").dtype == tf.int32
    assert isinstance(S.split(["a b"]), tf.RaggedTensor) and isinstance(S.split("a b"), tf.Tensor)
    assert S.split([["a b"], ["c"]]).shape.as_list() == [2, None, None]
    assert S.lower(tf.constant([["A", "B"]])).shape == (1, 2)


def test_to_number_matches_tf_parsing():
    parsed = S.to_number(["1.5", "-2", "1e3", " 3", "inf", "nan", "0x10", "+1", "1.", ".5",
                          "INF", "-Infinity", "NaN", "0x1p3", "0X1A", "\t2\n"]).numpy()
    np.testing.assert_array_equal(parsed, np.array(
        [1.5, -2, 1000, 3, np.inf, np.nan, 16, 1, 1, 0.5, np.inf, -np.inf, np.nan, 8, 26, 2],
        np.float32))
    assert S.to_number(["-1e-50"]).numpy()[0] == 0.0 and np.signbit(
        S.to_number(["-1e-50"]).numpy()[0])


@pytest.mark.parametrize("text, out_type", [
    ("abc", tf.float32), ("1_0", tf.float32), ("1e", tf.float64), ("1 2", tf.float32),
    ("١", tf.float32), ("", tf.float32), ("1.5", tf.int32), ("0x10", tf.int32),
    ("1e3", tf.int32), ("2147483648", tf.int32), (" ", tf.int32), ("+-1", tf.int32),
    ("-1", tf.uint32)])
def test_to_number_names_the_bad_string(text, out_type):
    message = "StringToNumberOp could not correctly convert string: " + re.escape(text)
    with pytest.raises(InvalidArgumentError, match=message):
        S.to_number(["1", text], out_type=out_type)


def test_fingerprint64_equals_tf_on_every_length_branch():
    # TF 2.21's tf.strings.to_hash_bucket_fast(x, 2**62) for strings of 0..200 bytes,
    # which cover the 0-16, 17-32, 33-64 and looping (>64) branches of Fingerprint64.
    strings = [b"", b"a", b"ab" * 10, b"abc" * 15, b"x" * 100, b"y" * 64, b"z" * 65, b"w" * 200]
    expected = [1936946117179621455, 3694432073954588131, 906141753060109542,
                4451593137122490248, 1978794067220662815, 4471793200125962424,
                3688229565335330613, 526236191678461824]
    assert [fingerprint64(s) % 2**62 for s in strings] == expected
    assert S.to_hash_bucket_fast(strings, 2**62).numpy().tolist() == expected


def test_fingerprint64_equals_tf_on_302_random_strings():
    # TF 2.21's to_hash_bucket_fast(data, 2**63 - 1) for random bytes of every length
    # 0..299, 1000 and 4097, folded into one number (first and last listed as well).
    random_bytes = random.Random(0).randrange
    data = [bytes(random_bytes(256) for _ in range(n)) for n in [*range(300), 1000, 4097]]
    hashes = [fingerprint64(s) % (2**63 - 1) for s in data]
    assert hashes[:3] == [1936946117179621456, 3190392007408739807, 5653549088389514231]
    assert hashes[-1] == 1892568122334683462
    folded = 0
    for h in hashes:
        folded = (folded * 1000003 + h) % (2**61 - 1)
    assert folded == 2294691624930108288


@pytest.mark.parametrize("call, error, match", [
    (lambda: S.length("a", unit="CHAR"), InvalidArgumentError, "'unit' of 'CHAR'"),
    (lambda: S.substr(["Hello", "Hi"], 3, 2), InvalidArgumentError,
     "pos 3 out of range for string b'Hi' at index 1"),
    (lambda: S.substr("Hello", -6, 2), InvalidArgumentError, "pos -6 out of range"),
    (lambda: S.substr("Hé", 3, 1, unit="UTF8_CHAR"), InvalidArgumentError,
     "pos 3 out of range for string at index 0"),
    (lambda: S.substr([["ab", "cd"]], [0, 1], 1), InvalidArgumentError,
     r"pos and len should have the same shape, got: \[2\] vs. \[\]"),
    (lambda: S.regex_replace("aaa", "(", "b"), InvalidArgumentError, "Invalid pattern: \\("),
    (lambda: S.regex_full_match("a", "("), InvalidArgumentError, "Invalid pattern"),
    (lambda: S.join([["a", "b"], ["x", "y", "z"]]), InvalidArgumentError,
     r"Input shapes do not match: \[2\] vs. \[3\]"),
    (lambda: S.join([[["a"], ["b"]], ["x", "y"]]), InvalidArgumentError,
     r"\[2, 1\] vs. \[2\]"),
    (lambda: S.join(["a", 1]), TypeError, "Cannot convert 1 to a tensor of dtype string"),
    (lambda: S.lower(1), TypeError, "Cannot convert 1 to a tensor of dtype string"),
    (lambda: S.lower(tf.constant([1.0])), TypeError, "string tensor.*float32.*as_string"),
    (lambda: S.reduce_join([["a", "b"]], axis=2), InvalidArgumentError,
     "Invalid reduction dimension 2 for input with 2 dimension"),
    (lambda: S.reduce_join("a", axis=0), InvalidArgumentError, "dimension 0 for input with 0"),
    (lambda: S.reduce_join(["a"], separator=tf.constant("-")), TypeError,
     "Expected string for argument 'separator'"),
    (lambda: S.as_string([3], precision=2), InvalidArgumentError,
     "precision not supported for datatype int32"),
    (lambda: S.as_string(1.0, scientific=True, shortest=True), InvalidArgumentError,
     "Cannot select both scientific and shortest"),
    (lambda: S.as_string(1, fill="ab"), InvalidArgumentError, "one or fewer characters"),
    (lambda: S.as_string(1, fill="x"), InvalidArgumentError, 'Fill argument not supported: "x"'),
    (lambda: S.to_number(["1"], out_type=tf.int8), InvalidArgumentError,
     "'out_type' of int8 is not in the list"),
    (lambda: S.split("a", ["a", "b"]), InvalidArgumentError, r"sep must be a scalar.*\[2\]"),
    (lambda: S.unicode_decode(b"a\xffb", "UTF-8", errors="strict"), InvalidArgumentError,
     "Invalid formatting on input string"),
    (lambda: S.unicode_decode("a", "no-such-codec"), InvalidArgumentError, "no-such-codec"),
    (lambda: S.unicode_encode([104, -1], "UTF-8", errors="strict"), InvalidArgumentError,
     "out of range for Unicode"),
    (lambda: S.unicode_encode(104, "UTF-8"), ValueError, "rank must be at least 1"),
    (lambda: S.format("{} {}", [1]), ValueError,
     "template expects 2 tensors, but the inputs only has 1"),
    (lambda: S.to_hash_bucket_fast("a", 0), InvalidArgumentError, "num_buckets must be >= 1"),
    (lambda: S.lower("A", encoding="latin-1"), InvalidArgumentError, "'' \\(ASCII\\) or 'utf-8'"),
])
def test_bad_input_raises_tf_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_text_pipeline_of_a_tutorial():
    """The standardisation of TF's text-classification tutorial, on its own example."""
    text = tf.constant(["I <br />LOVED this Film!", "Worst. Movie. Ever."])
    stripped = S.regex_replace(S.lower(text), "<br />", " ")
    clean = S.regex_replace(stripped, "[%s]" % re.escape(string.punctuation), "")
    assert value(clean) == [b"i  loved this film", b"worst movie ever"]
    words = S.split(clean)
    assert value(words) == [[b"i", b"loved", b"this", b"film"], [b"worst", b"movie", b"ever"]]
    assert value(S.reduce_join(S.split(clean[1]), separator="_")) == b"worst_movie_ever"
    assert value(S.length(words)) == [[1, 5, 4, 4], [5, 5, 4]]
