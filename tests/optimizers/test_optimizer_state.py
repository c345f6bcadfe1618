"""Optimizer state: get_state/set_state (and the .npz round trip) resume
training bit for bit, for every optimizer; mismatches raise."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import optimizers

CONFIGS = [
    ("SGD", {"momentum": 0.9, "nesterov": True}),
    ("Adam", {"amsgrad": True}),
    ("AdamW", {}),
    ("Adamax", {}),
    ("Nadam", {}),
    ("RMSprop", {"momentum": 0.5, "centered": True}),
    ("Adagrad", {}),
    ("Adadelta", {"learning_rate": 1.0}),
    ("Lion", {}),
    ("Ftrl", {"l1_regularization_strength": 0.01}),
    ("Adam", {"use_ema": True, "learning_rate": optimizers.schedules.ExponentialDecay(
        0.01, 3, 0.5)}),
]


def _model(rng):
    # a tiny variable (NumPy path) and a large one (parallel kernel)
    return [tf.Variable(rng.normal(size=(3,)).astype(np.float32), name="dense/bias"),
            tf.Variable(rng.normal(size=(60, 50)).astype(np.float32), name="dense/kernel")]


def _grads(rng, variables, steps):
    return [[rng.normal(size=v.shape).astype(np.float32) for v in variables]
            for _ in range(steps)]


def _run(opt, variables, grads):
    for gs in grads:
        opt.apply_gradients(zip([tf.constant(g) for g in gs], variables))


@pytest.mark.parametrize("name,cfg", CONFIGS, ids=[f"{n}{i}" for i, (n, _) in
                                                  enumerate(CONFIGS)])
def test_resume_matches_uninterrupted_run(name, cfg, tmp_path):
    rng = np.random.default_rng(0)
    model = _model(rng)
    init = [v.numpy().copy() for v in model]
    grads = _grads(rng, model, 6)

    straight = getattr(optimizers, name)(**cfg)
    _run(straight, model, grads)
    expected = [v.numpy().copy() for v in model]

    first = [tf.Variable(x, name=v._name) for x, v in zip(init, model)]
    opt = getattr(optimizers, name)(**cfg)
    _run(opt, first, grads[:3])
    path = tmp_path / "ckpt.npz"
    np.savez(path, **{f"w{i}": v.numpy() for i, v in enumerate(first)},
             **{f"opt:{k}": a for k, a in opt.get_state().items()})

    with np.load(path) as data:
        resumed = [tf.Variable(data[f"w{i}"], name=v._name) for i, v in enumerate(model)]
        state = {k[4:]: data[k] for k in data.files if k.startswith("opt:")}
    fresh = getattr(optimizers, name)(**cfg)
    fresh.set_state(state, var_list=resumed)
    assert int(fresh.iterations) == 3
    _run(fresh, resumed, grads[3:])
    for got, want in zip(resumed, expected):
        np.testing.assert_array_equal(got.numpy(), want)
    for a, b in zip(fresh.variables, straight.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_state_layout():
    rng = np.random.default_rng(1)
    model = _model(rng)
    opt = optimizers.Adam()
    _run(opt, model, _grads(rng, model, 1))
    state = opt.get_state()
    assert list(state) == ["iterations", "learning_rate", "0/momentum", "1/momentum",
                           "0/velocity", "1/velocity"]
    assert state["iterations"].dtype == np.int64 and state["iterations"] == 1
    assert state["1/velocity"].shape == (60, 50)
    store = {}
    opt.save_own_variables(store)
    assert store.keys() == state.keys()
    nadam = optimizers.Nadam()
    _run(nadam, model, _grads(rng, model, 1))
    assert "u_product" in nadam.get_state()


def test_restored_learning_rate():
    v = tf.Variable([1.0])
    opt = optimizers.SGD(0.5)
    opt.apply_gradients([(tf.constant([1.0]), v)])
    state = opt.get_state()
    other = optimizers.SGD(0.1)
    other.set_state(state, var_list=[v])
    assert float(other.learning_rate) == 0.5


def test_set_state_mismatches():
    rng = np.random.default_rng(2)
    model = _model(rng)
    opt = optimizers.Adam()
    _run(opt, model, _grads(rng, model, 1))
    state = opt.get_state()
    with pytest.raises(ValueError, match="not built: pass var_list"):
        optimizers.Adam().set_state(state)
    with pytest.raises(ValueError, match=r"missing \['0/momentum'"):
        optimizers.Adam().set_state({k: v for k, v in state.items() if k != "0/momentum"},
                                    var_list=model)
    bad = dict(state)
    bad["1/velocity"] = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match=r"'1/velocity' has shape \(2, 2\).*\(60, 50\)"):
        optimizers.Adam().set_state(bad, var_list=model)
    with pytest.raises(ValueError, match="unexpected"):
        optimizers.SGD().set_state(state, var_list=model)


@pytest.mark.parametrize("name,cfg", CONFIGS, ids=[f"{n}{i}" for i, (n, _) in
                                                  enumerate(CONFIGS)])
def test_state_of_an_optimizer_before_its_first_step_restores_unbuilt(name, cfg):
    rng = np.random.default_rng(3)
    model = _model(rng)
    init = [v.numpy().copy() for v in model]
    grads = _grads(rng, model, 2)
    state = getattr(optimizers, name)(**cfg).get_state()  # saved before any step
    assert not any("/" in k for k in state)
    fresh = getattr(optimizers, name)(**cfg)
    fresh.set_state(state, var_list=model)
    assert not fresh.built and int(fresh.iterations) == 0
    _run(fresh, model, grads)  # builds on first use, as a new optimizer does
    expected = [tf.Variable(x, name=v._name) for x, v in zip(init, model)]
    _run(getattr(optimizers, name)(**cfg), expected, grads)
    for got, want in zip(model, expected):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_state_without_slots_into_a_built_optimizer_says_so():
    rng = np.random.default_rng(4)
    model = _model(rng)
    built = optimizers.Adam()
    _run(built, model, _grads(rng, model, 1))
    with pytest.raises(ValueError, match=r"missing \['0/momentum'.*had taken no step"):
        built.set_state(optimizers.Adam().get_state(), var_list=model)
