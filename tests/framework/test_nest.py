"""tf.nest: flatten and pack_sequence_as round trips, TF's error on a count
mismatch, and no reference cycles (which would keep a step's gradients alive
until the garbage collector runs)."""

import collections
import gc

import numpy as np
import pytest

import tapeflow as tf

Point = collections.namedtuple("Point", "x y")


def test_flatten_takes_dict_values_in_sorted_key_order():
    structure = {"b": (1, [2, 3]), "a": Point(4, {"z": 5, "y": 6})}
    assert tf.nest.flatten(structure) == [4, 6, 5, 1, 2, 3]


def test_pack_sequence_as_rebuilds_every_container_type():
    structure = {"b": (1, [2, 3]), "a": Point(4, {"z": 5, "y": 6})}
    packed = tf.nest.pack_sequence_as(structure, ["p", "q", "r", "s", "t", "u"])
    assert packed == {"a": Point("p", {"y": "q", "z": "r"}), "b": ("s", ["t", "u"])}
    assert isinstance(packed["a"], Point) and isinstance(packed["b"][1], list)
    assert list(packed) == ["b", "a"]  # the dict keeps the structure's own key order


def test_a_leaf_structure_packs_to_its_one_value():
    assert tf.nest.pack_sequence_as(7, [8]) == 8


@pytest.mark.parametrize("values", [[1], [1, 2, 3]])
def test_count_mismatch_raises_tf_message(values):
    with pytest.raises(ValueError, match=rf"Structure had 2 atoms, but flat_sequence had "
                                         rf"{len(values)} items"):
        tf.nest.pack_sequence_as([0, (0,)], values)


def test_map_structure_applies_to_every_leaf():
    assert tf.nest.map_structure(lambda v: v * 10, {"a": [1, 2], "b": (3,)}) == \
        {"a": [10, 20], "b": (30,)}


def _cyclic_garbage_after(fn):
    """The number of objects only the cycle collector could free after fn()."""
    gc.collect()
    gc.disable()
    try:
        fn()
        return gc.collect()
    finally:
        gc.enable()


def test_pack_sequence_as_leaves_no_reference_cycle():
    leaves = [np.ones(3) for _ in range(4)]
    assert _cyclic_garbage_after(
        lambda: tf.nest.pack_sequence_as({"a": [0, 0], "b": (0, 0)}, leaves)) == 0
