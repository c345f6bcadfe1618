"""example.py owns tf.train's Example protos (tensorflow/core/example/
example.proto and feature.proto) as plain Python classes with the protobuf
API programs use: keyword construction, attribute and map access, `value`
lists, `SerializeToString` / `FromString` / `ParseFromString`, `__eq__`, and
protobuf's text format as `str()` (value_lists.py has the shared base).

The bytes are protobuf's, so an Example written here is what
`tf.io.parse_example` reads and what TF writes. Map entries are written in
sorted key order (protobuf's `deterministic=True`); TF's own map order may
differ without it, which no parser minds. `str()` lists them as inserted.
"""

from ..io.example import feature_values
from ..io.raw import message_fields
from .value_lists import BytesList, FloatList, Int64List, Message, escape, length_delimited

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
           "FeatureLists", "Example", "SequenceExample"]


# -- Feature and the containers of Features ------------------------------------------------

def _message(cls, value, where):
    """A message of `cls` from an instance or a dict of its fields (protobuf allows both)."""
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        return cls(**value)
    raise TypeError(f"{where}: expected a tf.train.{cls.__name__} (or a dict of its fields), "
                    f"got {type(value).__name__}.")


class Feature(Message):
    """tf.train.Feature: one of `bytes_list`, `float_list`, `int64_list` (the oneof `kind`)."""

    __slots__ = ("_kind", "_lists")
    _KINDS = {"bytes_list": (1, BytesList, "string"), "float_list": (2, FloatList, "float"),
              "int64_list": (3, Int64List, "int64")}
    _BY_PARSED = {parsed: name for name, (_, _, parsed) in _KINDS.items()}

    def __init__(self, bytes_list=None, float_list=None, int64_list=None):
        self._kind, self._lists = None, {}
        for name, value in (("bytes_list", bytes_list), ("float_list", float_list),
                            ("int64_list", int64_list)):
            if value is not None:
                self._set(name, _message(self._KINDS[name][1], value, f"Feature.{name}"))

    def _set(self, name, child):
        self._kind, self._lists = name, {name: child}

    def _child(self, name):
        child = self._lists.get(name)
        if child is None:
            child = self._lists[name] = self._KINDS[name][1]()
        return child

    bytes_list = property(lambda self: self._child("bytes_list"))
    float_list = property(lambda self: self._child("float_list"))
    int64_list = property(lambda self: self._child("int64_list"))

    def WhichOneof(self, oneof_group):  # noqa: N802
        """The name of the list this Feature holds ('kind'), or None."""
        if oneof_group != "kind":
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        for name, child in self._lists.items():  # a list filled since wins, as in protobuf
            if name != self._kind and child.value:
                self._set(name, child)
        return self._kind

    def HasField(self, field_name):  # noqa: N802
        if field_name not in self._KINDS and field_name != "kind":
            raise ValueError(f'Protocol message Feature has no non-repeated field '
                             f'"{field_name}"')
        kind = self.WhichOneof("kind")
        return kind is not None and (field_name == "kind" or kind == field_name)

    def Clear(self):  # noqa: N802
        self._kind, self._lists = None, {}

    def _merge(self, data):
        parsed, values = feature_values(data)
        if parsed is not None:
            name = self._BY_PARSED[parsed]
            child = self._lists.get(name) if self._kind == name else None
            if child is None:
                child = self._KINDS[name][1]()
                self._set(name, child)
            child.value.extend(values)

    def _encode(self):
        kind = self.WhichOneof("kind")
        if kind is None:
            return b""
        return length_delimited(self._KINDS[kind][0], self._lists[kind]._encode())

    def _text(self, indent):
        kind = self.WhichOneof("kind")
        if kind is None:
            return []
        return _block(kind, self._lists[kind], indent)


def _block(name, child, indent):
    pad = " " * indent
    return [f"{pad}{name} {{\n", *child._text(indent + 2), f"{pad}}}\n"]


class _MessageMap(dict):
    """A protobuf map<string, message>: reading a missing key adds an empty message."""

    def __init__(self, cls, entries, where):
        super().__init__()
        self._cls, self._where = cls, where
        for key, value in dict(entries or {}).items():
            self[key] = value

    def __setitem__(self, key, value):
        if isinstance(key, bytes):
            key = key.decode("utf-8")
        if not isinstance(key, str):
            raise TypeError(f"{self._where}: map keys are strings, got {key!r}.")
        super().__setitem__(key, _message(self._cls, value, f"{self._where}[{key!r}]"))

    def __missing__(self, key):
        self[key] = self._cls()
        return dict.__getitem__(self, key.decode("utf-8") if isinstance(key, bytes) else key)

    def get_or_create(self, key):
        return self[key]

    def _encode(self, field):
        return b"".join(
            length_delimited(field, length_delimited(1, key.encode("utf-8"))
                              + length_delimited(2, self[key]._encode()))
            for key in sorted(self))

    def _merge(self, data):
        key, value = "", b""
        for number, _, payload in message_fields(data):
            if number == 1:
                key = bytes(payload).decode("utf-8")
            elif number == 2:
                value = bytes(payload)
        self[key]._merge(value)

    def _text(self, name, indent):
        pad = " " * indent
        lines = []
        for key in self:  # insertion (wire) order, as protobuf prints a map
            lines += [f"{pad}{name} {{\n", f'{pad}  key: "{escape(key.encode("utf-8"))}"\n',
                      *_block("value", self[key], indent + 2), f"{pad}}}\n"]
        return lines


class _MapMessage(Message):
    """A message with one map field (Features.feature, FeatureLists.feature_list)."""

    __slots__ = ("_map",)

    def __init__(self, **fields):
        (name, value), = fields.items()
        self._map = _MessageMap(self._VALUE, value, f"{type(self).__name__}.{name}")

    def Clear(self):  # noqa: N802
        self._map.clear()

    def _merge(self, data):
        for number, _, payload in message_fields(data):
            if number == 1:
                self._map._merge(bytes(payload))

    def _encode(self):
        return self._map._encode(1)

    def _text(self, indent):
        return self._map._text(self._FIELD, indent)


class Features(_MapMessage):
    """tf.train.Features: `feature`, a map from a name to its Feature."""

    __slots__ = ()
    _VALUE, _FIELD = Feature, "feature"

    def __init__(self, feature=None):
        super().__init__(feature=feature)

    feature = property(lambda self: self._map)


class _RepeatedFeatures(list):
    """FeatureList.feature: a list of Features with protobuf's `add()`."""

    def __init__(self, values=()):
        super().__init__(_message(Feature, v, "FeatureList.feature") for v in values)

    def add(self, **fields):
        self.append(Feature(**fields))
        return self[-1]

    def append(self, value):
        super().append(_message(Feature, value, "FeatureList.feature"))

    def extend(self, values):
        super().extend(_message(Feature, v, "FeatureList.feature") for v in values)


class FeatureList(Message):
    """tf.train.FeatureList: `feature`, a list of Features (one per time step)."""

    __slots__ = ("_features",)

    def __init__(self, feature=()):
        self._features = _RepeatedFeatures(feature)

    feature = property(lambda self: self._features)

    def Clear(self):  # noqa: N802
        del self._features[:]

    def _merge(self, data):
        for number, _, payload in message_fields(data):
            if number == 1:
                self._features.add()._merge(bytes(payload))

    def _encode(self):
        return b"".join(length_delimited(1, f._encode()) for f in self._features)

    def _text(self, indent):
        return [line for f in self._features for line in _block("feature", f, indent)]


class FeatureLists(_MapMessage):
    """tf.train.FeatureLists: `feature_list`, a map from a name to its FeatureList."""

    __slots__ = ()
    _VALUE, _FIELD = FeatureList, "feature_list"

    def __init__(self, feature_list=None):
        super().__init__(feature_list=feature_list)

    feature_list = property(lambda self: self._map)


# -- the records ---------------------------------------------------------------------------

class _Record(Message):
    """A message of singular message fields, each present once set or filled."""

    __slots__ = ("_fields", "_present")
    _FIELDS = {}  # name -> (field number, class)

    def __init__(self, **fields):
        self._fields, self._present = {}, set()
        for name, value in fields.items():
            if value is not None:
                self._fields[name] = _message(self._FIELDS[name][1], value,
                                              f"{type(self).__name__}.{name}")
                self._present.add(name)

    def _child(self, name):
        child = self._fields.get(name)
        if child is None:
            child = self._fields[name] = self._FIELDS[name][1]()
        return child

    def HasField(self, field_name):  # noqa: N802
        if field_name not in self._FIELDS:
            raise ValueError(f'Protocol message {type(self).__name__} has no non-repeated '
                             f'field "{field_name}"')
        child = self._fields.get(field_name)
        return field_name in self._present or (child is not None and bool(child._encode()))

    def Clear(self):  # noqa: N802
        self._fields, self._present = {}, set()

    def _merge(self, data):
        numbers = {number: name for name, (number, _) in self._FIELDS.items()}
        for number, _, payload in message_fields(data):
            name = numbers.get(number)
            if name is not None:
                self._child(name)._merge(bytes(payload))
                self._present.add(name)

    def _encode(self):
        return b"".join(length_delimited(number, self._fields[name]._encode())
                        for name, (number, _) in self._FIELDS.items() if self.HasField(name))

    def _text(self, indent):
        return [line for name in self._FIELDS if self.HasField(name)
                for line in _block(name, self._fields[name], indent)]


class Example(_Record):
    """tf.train.Example: `features`, the record's named Features."""

    __slots__ = ()
    _FIELDS = {"features": (1, Features)}

    def __init__(self, features=None):
        super().__init__(features=features)

    features = property(lambda self: self._child("features"))


class SequenceExample(_Record):
    """tf.train.SequenceExample: `context` Features and per-step `feature_lists`."""

    __slots__ = ()
    _FIELDS = {"context": (1, Features), "feature_lists": (2, FeatureLists)}

    def __init__(self, context=None, feature_lists=None):
        super().__init__(context=context, feature_lists=feature_lists)

    context = property(lambda self: self._child("context"))
    feature_lists = property(lambda self: self._child("feature_lists"))
