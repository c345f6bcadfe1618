"""tf.train.Example and friends (train/example.py, train/value_lists.py).

The hex strings are TF 2.21's `SerializeToString(deterministic=True)` of the
same messages, and the text is its `str()` (run once, pasted here)."""

import numpy as np
import pytest

import tapeflow as tf

T = tf.train

_EXAMPLE_HEX = (
    "0a6e0a0b0a05656d707479120212000a1d0a0369647312161a140a1201ffffffffffffffffff018080808080"
    "20000a170a046e616d65120f0a0d0a036361740a000a04610a22ff0a080a046e6f6e6512000a1d0a0573636f"
    "7265121412120a10cdcccc3d0000803f000020c0ec78ad60")
_SEQUENCE_HEX = "0a0c0a0a0a016c12051a030a010312130a110a0174120c0a0812060a040000c03f0a00"


def _example():
    return T.Example(features=T.Features(feature={
        "name": T.Feature(bytes_list=T.BytesList(value=[b"cat", b"", b"a\n\"\xff"])),
        "score": T.Feature(float_list=T.FloatList(value=[0.1, 1.0, -2.5, 1e20])),
        "ids": T.Feature(int64_list=T.Int64List(value=[1, -1, 2 ** 40, 0])),
        "empty": T.Feature(float_list=T.FloatList()),
        "none": T.Feature(),
    }))


def _sequence_example():
    return T.SequenceExample(
        context=T.Features(feature={"l": T.Feature(int64_list=T.Int64List(value=[3]))}),
        feature_lists=T.FeatureLists(feature_list={"t": T.FeatureList(feature=[
            T.Feature(float_list=T.FloatList(value=[1.5])), T.Feature()])}))


def test_bytes_equal_tfs():
    assert _example().SerializeToString().hex() == _EXAMPLE_HEX
    assert _sequence_example().SerializeToString().hex() == _SEQUENCE_HEX
    assert T.Example().SerializeToString() == b""
    assert T.Example(features=T.Features()).SerializeToString() == b"\n\x00"


def test_round_trip_and_equality():
    ex = _example()
    back = T.Example.FromString(bytes.fromhex(_EXAMPLE_HEX))
    assert back == ex and back != T.Example()
    assert back.features.feature["score"].float_list.value == [
        0.10000000149011612, 1.0, -2.5, 1.0000000200408773e+20]  # float32s, as protobuf's
    assert back.features.feature["ids"].int64_list.value == [1, -1, 2 ** 40, 0]
    assert back.features.feature["empty"].WhichOneof("kind") == "float_list"
    assert back.features.feature["none"].WhichOneof("kind") is None
    seq = T.SequenceExample()
    assert seq.ParseFromString(bytes.fromhex(_SEQUENCE_HEX)) == len(_SEQUENCE_HEX) // 2
    assert seq == _sequence_example()
    assert seq.feature_lists.feature_list["t"].feature[0].float_list.value == [1.5]


def test_building_by_mutation_as_protobuf():
    ex = T.Example()
    assert not ex.HasField("features")
    ex.features.feature["x"].float_list.value.append(3.0)
    ex.features.feature["x"].float_list.value.extend([4.0])
    assert ex.HasField("features")
    assert ex.SerializeToString().hex() == "0a130a110a0178120c120a0a080000404000008040"  # TF's
    f = T.Feature(float_list=T.FloatList(value=[1.0]))
    f.int64_list.value.append(5)  # filling another list of the oneof switches to it
    assert f.WhichOneof("kind") == "int64_list"
    assert f.SerializeToString().hex() == "1a030a0105"  # TF's


def test_text_format_as_tfs():
    ex = T.Example(features=T.Features(feature={
        "x": T.Feature(float_list=T.FloatList(value=[0.3, 100.0, 1e-7]))}))
    assert str(ex) == ('features {\n  feature {\n    key: "x"\n    value {\n      float_list {\n'
                       '        value: 0.3\n        value: 100\n        value: 1e-07\n      }\n'
                       '    }\n  }\n}\n')
    assert str(T.BytesList(value=[b'a\n"\xff'])) == 'value: "a\\n\\"\\377"\n'
    assert str(T.Feature()) == ""


def test_wrong_value_types_as_tf():
    with pytest.raises(TypeError, match="expected bytes, str found"):
        T.BytesList(value=["s"])
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        T.Int64List(value=[1.5])
    with pytest.raises(TypeError, match="must be real number, not str"):
        T.FloatList(value=["a"])
    with pytest.raises(TypeError, match="tf.train.Features"):
        T.Example(features=[1])


def test_parse_example_reads_what_example_writes():
    ex = T.Example(features=T.Features(feature={
        "x": T.Feature(int64_list=T.Int64List(value=[7])),
        "y": T.Feature(float_list=T.FloatList(value=[0.5, 1.5])),
        "s": T.Feature(bytes_list=T.BytesList(value=[b"hi"]))}))
    out = tf.io.parse_single_example(ex.SerializeToString(), {
        "x": tf.io.FixedLenFeature([], tf.int64), "y": tf.io.FixedLenFeature([2], tf.float32),
        "s": tf.io.FixedLenFeature([], tf.string)})
    assert out["x"].numpy() == 7 and out["s"].numpy() == b"hi"
    np.testing.assert_array_equal(out["y"].numpy(), [0.5, 1.5])


def test_decode_error_for_garbage():
    with pytest.raises(ValueError, match="Error parsing message"):
        T.Example.FromString(b"\x0a\x05ab")
