"""device.py holds `tf.device` and `tf.DeviceSpec`: TF's device strings are
parsed and checked as TF does, and every op runs on the one CPU device
(tapeflow has no other); the placement a string asks for changes nothing."""

import contextlib

__all__ = ["device", "DeviceSpec"]

# TF's registered device types; any of them is accepted and runs on the CPU.
_DEVICE_TYPES = frozenset(["CPU", "GPU", "TPU", "XLA_CPU", "XLA_GPU", "TPU_SYSTEM",
                           "CUSTOM"])


def _index(text, what, spec):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"The {what} in the device spec '{spec}' must be an integer, got "
                         f"{text!r}.") from None


class DeviceSpec:
    """A parsed device name: job, replica, task, device_type, device_index, each
    None when the string leaves it out, as tf.DeviceSpec.

    >>> tf.DeviceSpec.from_string("/job:localhost/device:GPU:0").to_string()
    '/job:localhost/device:GPU:0'
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None,
                 device_index=None):
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = None if device_type is None else (
            str(device_type).upper() if str(device_type).upper() in ("CPU", "GPU")
            else str(device_type))
        self._device_index = None if device_index is None else int(device_index)

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    @classmethod
    def from_string(cls, spec):
        """Parse `/job:<name>/replica:<id>/task:<id>/device:<TYPE>:<id>` (every part
        optional; `/CPU:0` and `/gpu:1` are short for the device part).

        Raises:
            ValueError: for an unknown part or two device types, as TF.
        """
        if not isinstance(spec, str):
            raise TypeError(f"A device spec must be a string, got {type(spec).__name__}: "
                            f"{spec!r}.")
        parts = {}
        for piece in spec.split("/"):
            fields = piece.split(":")
            head = fields[0]
            if len(fields) == 2 and head in ("job", "replica", "task"):
                parts[head] = fields[1] if head == "job" else _index(fields[1], head, spec)
            elif (len(fields) in (1, 2) and head.upper() in _DEVICE_TYPES) or (
                    len(fields) == 3 and head == "device"):
                if "device_type" in parts:
                    raise ValueError(f"Multiple device types are not allowed while parsing "
                                     f"the device spec: {spec}.")
                kind, index = (fields[1:] + [None])[:2] if head == "device" else \
                    (head.upper(), fields[1] if len(fields) == 2 else None)
                parts["device_type"] = kind
                if index not in (None, "*"):
                    parts["device_index"] = _index(index, "device index", spec)
            elif head:
                raise ValueError(f"Unknown attribute '{head}' is encountered while parsing "
                                 f"the device spec: '{spec}'.")
        return cls(**parts)

    def to_string(self):
        """The canonical name, e.g. '/job:localhost/replica:0/task:0/device:CPU:0'."""
        out = ""
        for key in ("job", "replica", "task"):
            value = getattr(self, key)
            if value is not None:
                out += f"/{key}:{value}"
        if self._device_type is not None:
            index = "*" if self._device_index is None else self._device_index
            out += f"/device:{self._device_type}:{index}"
        return out

    def replace(self, **kwargs):
        """A copy with the given fields replaced."""
        fields = {k: getattr(self, k) for k in ("job", "replica", "task", "device_type",
                                                  "device_index")}
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def make_merged_spec(self, dev):
        """A copy with the fields `dev` sets taking precedence."""
        return self.replace(**{k: getattr(dev, k) for k in ("job", "replica", "task",
                                                            "device_type", "device_index")
                               if getattr(dev, k) is not None})

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"<DeviceSpec {self.to_string()!r}>"


@contextlib.contextmanager
def _placement(spec):
    yield spec


def device(device_name):
    """A context in which ops would be placed on `device_name`, as tf.device.

    tapeflow runs every op on the CPU: a GPU or TPU string is accepted and its
    ops run on the CPU, as TF does with soft placement when no such device is
    present; `Tensor.device` stays '/job:localhost/replica:0/task:0/device:CPU:0'.

    Args:
        device_name: a device string ('/CPU:0', '/device:GPU:1',
            '/job:localhost/replica:0/task:0/device:CPU:0'), a DeviceSpec, or
            None (no placement).

    Raises:
        ValueError: for a malformed device string (the message names the part).
        RuntimeError: for a function, which TF accepts only in graph mode.
    """
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions when eager execution is "
                           "enabled.")
    if device_name is None or isinstance(device_name, DeviceSpec):
        return _placement(device_name)
    return _placement(DeviceSpec.from_string(device_name))
