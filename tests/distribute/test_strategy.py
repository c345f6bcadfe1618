"""tf.distribute in one process (a world of one, no MPI needed): the API programs
call, the sharding arithmetic, the fused buckets, and the error when a launcher
started several ranks but mpi4py is missing (issue 21)."""

import builtins

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.distribute import collectives, strategy as strategy_module, world as world_module


def test_one_replica_strategy_api():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1 and strategy.is_chief
    assert strategy.cluster_resolver.task_type == "worker"
    assert strategy.cluster_resolver.task_id == 0
    assert not tf.distribute.has_strategy()
    with strategy.scope():
        assert tf.distribute.has_strategy() and tf.distribute.get_strategy() is strategy
        assert tf.distribute.in_cross_replica_context()
    assert tf.distribute.get_strategy().num_replicas_in_sync == 1
    result = strategy.run(lambda a, b: a * b, args=(tf.constant(3.0), tf.constant(2.0)))
    assert float(result) == 6.0
    assert float(strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant(5.0), axis=None)) == 5.0
    mean = strategy.reduce("MEAN", tf.constant([[1.0, 2.0], [3.0, 6.0]]), axis=0)
    np.testing.assert_allclose(mean.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(strategy.gather(tf.constant([1, 2]), axis=0).numpy(), [1, 2])
    assert strategy.experimental_local_results(7) == (7,)


def test_replica_context_in_run():
    strategy = tf.distribute.MirroredStrategy()

    def step():
        context = tf.distribute.get_replica_context()
        return context.replica_id_in_sync_group, context.num_replicas_in_sync

    assert strategy.run(step) == (0, 1)


def test_distributed_dataset_of_one_replica_is_the_dataset():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    dataset = tf.data.Dataset.from_tensor_slices(np.arange(10)).batch(4)
    got = [b.numpy().tolist() for b in strategy.experimental_distribute_dataset(dataset)]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    contexts = []
    strategy.distribute_datasets_from_function(lambda ctx: contexts.append(ctx) or dataset)
    assert contexts[0].num_input_pipelines == 1 and contexts[0].input_pipeline_id == 0
    assert contexts[0].get_per_replica_batch_size(64) == 64


@pytest.mark.parametrize("n, size, expected", [
    (8, 2, [(0, 4), (4, 8)]), (10, 4, [(0, 3), (3, 6), (6, 8), (8, 10)]),
    (2, 4, [(0, 1), (1, 2), (2, 2), (2, 2)]), (0, 2, [(0, 0), (0, 0)]),
])
def test_shards_are_balanced_and_cover_the_batch(n, size, expected):
    assert [strategy_module.shard_bounds(n, r, size) for r in range(size)] == expected


def test_shard_of_a_batch_structure():
    batch = ({"a": np.arange(10).reshape(5, 2)}, tf.constant(np.arange(5)), None)
    part = strategy_module._shard(batch, 1, 2)
    np.testing.assert_array_equal(part[0]["a"], [[6, 7], [8, 9]])
    np.testing.assert_array_equal(part[1].numpy(), [3, 4])
    assert part[2] is None


def test_input_context_batch_size_must_divide():
    context = tf.distribute.InputContext(2, 0, 2)
    assert context.get_per_replica_batch_size(8) == 4
    with pytest.raises(ValueError, match="not divisible"):
        context.get_per_replica_batch_size(7)


def test_buckets_group_same_dtype_arrays_up_to_the_bucket_size(monkeypatch):
    monkeypatch.setattr(collectives, "BUCKET_BYTES", 100)
    arrays = [np.zeros(10, np.float32), np.zeros(10, np.float32), np.zeros(10, np.float32),
              np.zeros(3, np.float64), np.zeros(30, np.float32)]
    assert list(collectives._buckets(arrays)) == [[0, 1], [2], [3], [4]]


def test_compute_average_loss_and_regularization_scaling():
    np.testing.assert_allclose(tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0, 4.0])), 2.5)
    np.testing.assert_allclose(tf.nn.compute_average_loss(
        tf.constant([1.0, 2.0]), sample_weight=tf.constant([2.0, 0.0]), global_batch_size=4), 0.5)
    np.testing.assert_allclose(tf.nn.scale_regularization_loss(tf.constant(3.0)), 3.0)


def test_several_ranks_without_mpi4py_name_the_extra(monkeypatch):
    monkeypatch.setenv("PMI_SIZE", "4")
    real_import = builtins.__import__

    def no_mpi(name, *args, **kwargs):
        if name.startswith("mpi4py"):
            raise ImportError("No module named 'mpi4py'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mpi)
    with pytest.raises(ImportError, match=r"one of 4 ranks.*pip install 'tapeflow\[mpi\]'"):
        world_module._make_world()


def test_a_lone_process_needs_no_mpi(monkeypatch):
    for name in world_module._SIZE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    real_import = builtins.__import__

    def no_mpi(name, *args, **kwargs):
        if name.startswith("mpi4py"):
            raise ImportError("No module named 'mpi4py'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mpi)
    made = world_module._make_world()
    assert (made.rank, made.size, made.comm) == (0, 1, None)


def test_import_tapeflow_does_not_import_mpi4py():
    import subprocess
    import sys
    code = "import sys, tapeflow as tf; tf.distribute; print('mpi4py' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_fit_under_a_one_replica_scope_trains_as_without():
    x = np.random.default_rng(0).random((16, 3), dtype=np.float32)
    y = x.sum(axis=1, keepdims=True)
    results = []
    for scoped in (False, True):
        tf.random.set_seed(1)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        if scoped:
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile("sgd", "mse")
            assert model.distribute_strategy is strategy
        else:
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile("sgd", "mse")
        model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        results.append(model.get_weights())
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
