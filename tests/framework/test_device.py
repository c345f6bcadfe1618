"""tf.device and tf.DeviceSpec: TF's device strings parse as TF parses them,
malformed ones raise ValueError naming the part, and ops inside any device
context run on the CPU."""

import numpy as np
import pytest

import tapeflow as tf

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.mark.parametrize("name", ["/CPU:0", "/cpu:0", "/device:CPU:0", "/GPU:0", "/gpu:1",
                                  "/device:GPU:0", CPU, "/job:worker/task:1", "CPU:0", "", None,
                                  "/device:CPU:*"])
def test_device_accepts_tf_strings_and_runs_on_the_cpu(name):
    with tf.device(name):
        x = tf.constant([1.0, 2.0]) * 2.0
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [4.0, 8.0])
    assert x.device == CPU


@pytest.mark.parametrize("name, match", [
    ("/foo:0", "Unknown attribute 'foo'"),
    ("/CPU:0/GPU:0", "Multiple device types"),
    ("/device:GPU:x", "must be an integer"),
    ("/replica:a", "must be an integer"),
])
def test_malformed_device_strings_raise_value_error(name, match):
    with pytest.raises(ValueError, match=match):
        tf.device(name)


def test_device_rejects_functions_and_non_strings():
    with pytest.raises(RuntimeError, match="does not support functions"):
        tf.device(lambda op: "/CPU:0")
    with pytest.raises(TypeError, match="must be a string"):
        tf.device(3)


def test_device_spec():
    spec = tf.DeviceSpec.from_string(CPU)
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == (
        "localhost", 0, 0, "CPU", 0)
    assert spec.to_string() == CPU
    assert tf.DeviceSpec.from_string("/gpu:1").to_string() == "/device:GPU:1"
    assert tf.DeviceSpec(job="ps", device_type="cpu").to_string() == "/job:ps/device:CPU:*"
    merged = spec.make_merged_spec(tf.DeviceSpec(device_type="GPU", device_index=2))
    assert merged.to_string() == "/job:localhost/replica:0/task:0/device:GPU:2"
    assert spec.replace(task=3).task == 3 and spec.task == 0
    assert spec == tf.DeviceSpec.from_string(CPU) and len({spec, spec.replace()}) == 1
    with tf.device(spec) as entered:
        assert entered is spec
