"""signatures.py owns the serving signatures of tapeflow's SavedModel: how a
signature is written (the name of a method of the saved object, or a Keras
model's own call) and the callables `loaded.signatures[...]` holds. Saving and
loading the object is save_load.py's."""

from collections.abc import Mapping

from ..core import nest
from ..core.tensor_spec import TensorSpec

__all__ = ["SignatureMap", "describe_signatures", "load_signatures"]

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"


def _method_name(obj, fn, key):
    """The name of the method of `obj` that `fn` is (a bound method, a tf.function
    wrapper of one, or a concrete function carrying its method's name)."""
    bound = getattr(fn, "python_function", None)  # a function object wrapping a method
    if getattr(fn, "__self__", None) is None and getattr(bound, "__self__", None) is obj:
        fn = bound
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if owner is obj and name and getattr(obj, name, None) is not None:
        return name
    name = getattr(fn, "_tapeflow_method_name", None)
    if name is not None and callable(getattr(obj, name, None)):
        return name
    for name, value in vars(obj).items():  # a function stored as an attribute
        if value is fn:
            return name
    raise ValueError(f"tapeflow's SavedModel stores a signature as the name of a method (or "
                     f"function attribute) of the saved object, which load calls again; "
                     f"signature {key!r} is {fn!r}, neither of {type(obj).__name__}. Pass e.g. "
                     "`obj.__call__`, or set the function as an attribute in `__init__` (a "
                     "deliberate difference from TF, which saves traced graphs).")


def _is_keras_model(obj):
    return hasattr(obj, "output_names") and hasattr(obj, "compile")


def describe_signatures(obj, signatures):
    """The JSON description of `signatures` (None, a callable or a dict of them).

    Raises:
        ValueError: for a signature that is not a method of `obj`.
    """
    if signatures is None:
        if _is_keras_model(obj):
            return {DEFAULT_SERVING_SIGNATURE_DEF_KEY: {"keras_call": True}}
        return {}
    if not isinstance(signatures, Mapping):
        signatures = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    described = {}
    for key, fn in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Signature keys must be strings, got {key!r}.")
        described[key] = {"method": _method_name(obj, fn, key)}
    return described


class _MethodSignature:
    """A loaded signature: calls a method of the loaded object and returns a dict
    (a single output named 'output_0', as TF names it)."""

    def __init__(self, obj, method):
        self._obj, self._method = obj, method

    def __call__(self, *args, **kwargs):
        method = getattr(self._obj, self._method, None)
        if method is None:
            raise AttributeError(f"Signature calls {type(self._obj).__name__}.{self._method}, "
                                 "which the loaded object does not have: tapeflow's SavedModel "
                                 "keeps a function attribute only when the class's __init__ "
                                 "sets it.")
        outputs = method(*args, **kwargs)
        if isinstance(outputs, Mapping):
            return dict(outputs)
        if isinstance(outputs, (list, tuple)):
            return {f"output_{i}": v for i, v in enumerate(outputs)}
        return {"output_0": outputs}

    def __repr__(self):
        return f"<signature: {type(self._obj).__name__}.{self._method}>"


class _KerasSignature:
    """A Keras model's 'serving_default': inputs by the model's input names (or
    positionally), outputs in a dict keyed by `model.output_names`."""

    def __init__(self, model):
        self._model = model

    def __call__(self, *args, **kwargs):
        model = self._model
        if args and kwargs:
            raise TypeError("Pass a signature's inputs either positionally or by name.")
        if kwargs:
            names = [getattr(t, "name", None) for t in nest.flatten(model.inputs or [])]
            if len(kwargs) == 1:
                inputs = next(iter(kwargs.values()))
            elif all(name in kwargs for name in names):
                inputs = [kwargs[name] for name in names]
            else:
                raise TypeError(f"The signature's inputs are named {names}; got "
                                f"{sorted(kwargs)}.")
        else:
            inputs = args[0] if len(args) == 1 else list(args)
        outputs = nest.flatten(model(inputs, training=False))
        return dict(zip(_output_keys(outputs), outputs))

    @property
    def structured_outputs(self):
        """Output name -> TensorSpec, from a functional model's symbolic outputs."""
        model = self._model
        if model.outputs is None:
            raise AttributeError("structured_outputs needs a functional or Sequential model "
                                 "with known outputs; a subclassed model's are known only "
                                 "once traced, which tapeflow never does.")
        flat = nest.flatten(model.outputs)
        return {name: TensorSpec(t.shape, t.dtype, name=name)
                for name, t in zip(_output_keys(flat), flat)}

    def __repr__(self):
        return f"<signature: {type(self._model).__name__} serving_default>"


class SignatureMap(Mapping):
    """`loaded.signatures`: signature key -> callable returning a dict of outputs."""

    def __init__(self, functions):
        self._functions = dict(functions)

    def __getitem__(self, key):
        return self._functions[key]

    def __iter__(self):
        return iter(self._functions)

    def __len__(self):
        return len(self._functions)

    def __repr__(self):
        return f"_SignatureMap({sorted(self._functions)})"


def load_signatures(obj, described):
    """The SignatureMap of a loaded `obj` from `describe_signatures`' description."""
    functions = {}
    for key, spec in described.items():
        functions[key] = (_KerasSignature(obj) if spec.get("keras_call")
                          else _MethodSignature(obj, spec["method"]))
    return SignatureMap(functions)


def _output_keys(outputs):
    """The keys TF 2.16+ (Keras 3) gives a Keras model's serving outputs: output_0, ...
    (tf.keras 2 used the output layers' names)."""
    return [f"output_{i}" for i in range(len(outputs))]
