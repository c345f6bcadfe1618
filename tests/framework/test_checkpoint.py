"""tf.train (framework/train/): Checkpoint save/write/read/restore by object
path, the restore status checks, deferred restoration (attributes assigned
later, unbuilt Keras layers, optimizer slots), CheckpointManager and the
directory's state file, the readers by key, atomic saves and the errors.
TF's "Training checkpoints" guide is ported where it shows values."""

import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.train import checkpoint_file


class Linear(tf.Module):
    def __init__(self, n_in=3, n_out=2, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(np.arange(n_in * n_out, dtype="float32").reshape(n_in, n_out))
        self.b = tf.Variable(np.zeros(n_out, "float32"))

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class Net(tf.keras.Model):
    """The guide's linear model."""

    def __init__(self):
        super().__init__()
        self.l1 = tf.keras.layers.Dense(5)

    def call(self, x):
        return self.l1(x)


def _step(net, opt, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.abs(net(x) - y))
    variables = net.trainable_variables
    opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return float(loss)


_X = np.arange(6, dtype="float32").reshape(3, 2)
_Y = _X[:, :1] * 5.0 + np.arange(5, dtype="float32")


# -- save, write, read, restore --------------------------------------------------------

def test_save_numbers_prefixes_and_restores_by_path(tmp_path):
    m = Linear()
    ckpt = tf.train.Checkpoint(step=tf.Variable(7), model=m)
    prefix = str(tmp_path / "ckpt")
    assert ckpt.save(prefix) == prefix + "-1"
    m.w.assign(np.ones((3, 2), "float32"))
    assert ckpt.save(prefix) == prefix + "-2"
    assert int(ckpt.save_counter) == 2
    assert os.path.isfile(prefix + "-2.index")

    m2 = Linear()
    m2.w.assign(np.zeros((3, 2), "float32"))
    step = tf.Variable(0)
    new = tf.train.Checkpoint(step=step, model=m2)
    new.restore(prefix + "-1").assert_consumed()
    np.testing.assert_array_equal(m2.w.numpy(), np.arange(6).reshape(3, 2))
    assert int(step) == 7
    assert int(new.save_counter) == 1  # restored, so the next save is numbered 2
    new.restore(prefix + "-2")
    np.testing.assert_array_equal(m2.w.numpy(), np.ones((3, 2)))


def test_write_does_not_number_nor_touch_the_state_file(tmp_path):
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    path = ckpt.write(str(tmp_path / "plain"))
    assert path == str(tmp_path / "plain")
    assert not os.path.exists(tmp_path / "checkpoint")
    assert ckpt._save_counter is None  # write does not create the counter
    v.assign([0.0, 0.0])
    ckpt.read(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    # TF's documented difference: restore() creates save_counter, which write() did not save
    with pytest.raises(AssertionError, match="save_counter"):
        tf.train.Checkpoint(v=tf.Variable([0.0, 0.0])).restore(path).assert_consumed()


def test_state_file_is_tf_text_format_and_latest_checkpoint_reads_it(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path / "missing")) is None
    ckpt.save(str(tmp_path / "ckpt"))
    path = ckpt.save(str(tmp_path / "ckpt"))
    text = (tmp_path / "checkpoint").read_text()
    assert text.splitlines()[:2] == ['model_checkpoint_path: "ckpt-2"',
                                     'all_model_checkpoint_paths: "ckpt-2"']
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == path
    os.remove(path + ".index")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # named but gone


def test_nested_lists_dicts_and_shared_variables(tmp_path):
    shared = tf.Variable(3.0)
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.0)]
    save.listed.append(tf.Variable(2.0))
    save.mapped = {"one": save.listed[0], "s": shared}
    save.other = tf.train.Checkpoint(s=shared)
    path = save.save(str(tmp_path / "list"))
    keys = [k for k, _ in tf.train.list_variables(path)]
    assert "listed/0/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "mapped/s/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "other/s/.ATTRIBUTES/VARIABLE_VALUE" not in keys  # one value per Variable

    v_two, v_shared = tf.Variable(0.0), tf.Variable(0.0)
    restore = tf.train.Checkpoint()
    restore.other = tf.train.Checkpoint(s=v_shared)  # reached by another path: still restored
    restore.mapped = {"one": v_two}
    restore.restore(path)
    assert v_two.numpy() == 1.0 and v_shared.numpy() == 3.0


# -- the guide's deferred restorations ------------------------------------------------

def test_guide_restore_by_path_then_deferred_attribute_list_and_dict(tmp_path):
    net, opt = Net(), tf.keras.optimizers.Adam(0.1)
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net)
    _step(net, opt, _X, _Y)
    path = ckpt.save(str(tmp_path / "ckpt"))

    to_restore = tf.Variable(tf.zeros([5]))
    fake_layer = tf.train.Checkpoint(bias=to_restore)
    new_root = tf.train.Checkpoint(net=tf.train.Checkpoint(l1=fake_layer))
    status = new_root.restore(tf.train.latest_checkpoint(str(tmp_path)))
    np.testing.assert_array_equal(to_restore.numpy(), net.l1.bias.numpy())
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="kernel"):
        status.assert_consumed()

    deferred = tf.Variable(tf.zeros([2, 5]))
    fake_layer.kernel = deferred  # restored when assigned
    np.testing.assert_array_equal(deferred.numpy(), net.l1.kernel.numpy())

    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.0)]
    save.listed.append(tf.Variable(2.0))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    list_path = save.save(str(tmp_path / "tf_list_example"))
    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.0)
    restore.mapped = {"two": v2}
    restore.restore(list_path)
    assert v2.numpy() == 2.0
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])"
    v1 = tf.Variable(0.0)
    restore.listed.append(v1)  # restores v1 from the restore() above
    assert v1.numpy() == 1.0


def test_unbuilt_model_and_optimizer_slots_resume_exactly(tmp_path):
    """Restored into a new, unbuilt model and a fresh Adam, the next step equals
    the original's next step: kernel, bias and Adam's slots and step all restored."""
    net, opt = Net(), tf.keras.optimizers.Adam(0.1)
    ckpt = tf.train.Checkpoint(optimizer=opt, net=net)
    for _ in range(3):
        _step(net, opt, _X, _Y)
    path = ckpt.save(str(tmp_path / "ckpt"))

    net2, opt2 = Net(), tf.keras.optimizers.Adam(0.1)
    status = tf.train.Checkpoint(optimizer=opt2, net=net2).restore(path)
    assert int(opt2.iterations) == 3
    with pytest.raises(AssertionError, match="net/l1/kernel"):
        status.assert_consumed()  # the kernel does not exist yet
    loss2 = _step(net2, opt2, _X, _Y)  # builds l1 (values restored), then Adam's slots
    loss1 = _step(net, opt, _X, _Y)
    assert loss2 == loss1
    np.testing.assert_array_equal(net2.l1.kernel.numpy(), net.l1.kernel.numpy())
    for v1, v2 in zip(opt.variables, opt2.variables):
        np.testing.assert_array_equal(v1.numpy(), v2.numpy())
    status.assert_consumed()


def test_slots_of_an_already_built_optimizer_are_restored_at_once(tmp_path):
    m = Linear()
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    opt.apply_gradients(zip([tf.ones((3, 2)), tf.ones(2)], [m.w, m.b]))
    path = tf.train.Checkpoint(m=m, opt=opt).write(str(tmp_path / "c"))
    m2, opt2 = Linear(), tf.keras.optimizers.SGD(0.1, momentum=0.9)
    opt2.apply_gradients(zip([tf.zeros((3, 2)), tf.zeros(2)], [m2.w, m2.b]))
    tf.train.Checkpoint(m=m2, opt=opt2).read(path).assert_consumed()
    # SGD with momentum after one step on ones: momentum = -lr * g = -0.1
    np.testing.assert_allclose(opt2.get_slot(m2.w, "momentum").numpy(), -0.1 * np.ones((3, 2)))


# -- status checks ---------------------------------------------------------------------

def test_status_checks_fail_as_tf(tmp_path):
    path = tf.train.Checkpoint(a=tf.Variable(1.0)).write(str(tmp_path / "a"))
    extra = tf.train.Checkpoint(a=tf.Variable(0.0), b=tf.Variable(0.0))
    status = extra.restore(path)
    status.assert_nontrivial_match()
    with pytest.raises(AssertionError, match="'b'"):
        status.assert_existing_objects_matched()
    assert status.expect_partial() is status

    unrelated = tf.train.Checkpoint(z=tf.Variable(0.0)).read(path)
    with pytest.raises(AssertionError, match="Nothing except the root"):
        unrelated.assert_nontrivial_match()

    none = tf.train.Checkpoint(a=tf.Variable(0.0)).restore(None)
    for check in (none.assert_consumed, none.assert_existing_objects_matched,
                  none.assert_nontrivial_match):
        with pytest.raises(AssertionError, match="No checkpoint specified"):
            check()
    assert none.expect_partial() is none


# -- CheckpointManager -------------------------------------------------------------------

def test_manager_keeps_the_newest_and_a_new_manager_continues(tmp_path):
    v = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(v=v)
    directory = str(tmp_path / "ckpts")
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    for i in range(1, 4):
        v.assign(float(i))
        assert manager.save() == os.path.join(directory, f"ckpt-{i}")
    expected = [os.path.join(directory, "ckpt-2"), os.path.join(directory, "ckpt-3")]
    assert manager.checkpoints == expected
    assert sorted(os.listdir(directory)) == ["checkpoint", "ckpt-2.index", "ckpt-3.index"]
    assert tf.train.latest_checkpoint(directory) == expected[-1]

    again = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), directory, max_to_keep=2)
    assert again.checkpoints == expected and again.latest_checkpoint == expected[-1]
    assert again.save(checkpoint_number=10) == os.path.join(directory, "ckpt-10")
    assert again.checkpoints == [expected[-1], os.path.join(directory, "ckpt-10")]
    assert not os.path.exists(os.path.join(directory, "ckpt-2.index"))

    restored = tf.Variable(0.0)
    tf.train.Checkpoint(v=restored).restore(again.latest_checkpoint)
    assert restored.numpy() == 3.0


def test_manager_arguments_are_checked(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(0.0))
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)
    keep_all = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None,
                                          checkpoint_name="model")
    for _ in range(3):
        keep_all.save()
    assert [os.path.basename(p) for p in keep_all.checkpoints] == ["model-1", "model-2",
                                                                    "model-3"]


# -- killed saves --------------------------------------------------------------------------

def _die_half_way(monkeypatch):
    real = checkpoint_file.atomic_write

    def half_then_die(filepath, write):
        import io
        buffer = io.BytesIO()
        write(buffer)
        data = buffer.getvalue()

        def partial(f):
            f.write(data[:len(data) // 2])
            raise KeyboardInterrupt("killed")

        real(filepath, partial)

    monkeypatch.setattr(checkpoint_file, "atomic_write", half_then_die)


def test_a_save_killed_half_way_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    first = manager.save()
    v.assign(2.0)
    _die_half_way(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        manager.save()
    with pytest.raises(KeyboardInterrupt):
        ckpt.write(first)  # over the same prefix: the old file stays whole
    monkeypatch.undo()
    assert tf.train.latest_checkpoint(str(tmp_path)) == first
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]
    restored = tf.Variable(0.0)
    tf.train.Checkpoint(v=restored).restore(first).assert_consumed()
    assert restored.numpy() == 1.0


# -- readers -------------------------------------------------------------------------------

def test_load_checkpoint_reader_by_directory_and_key(tmp_path):
    net = Net()
    net(_X)
    ckpt = tf.train.Checkpoint(net=net)
    tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3).save()
    reader = tf.train.load_checkpoint(str(tmp_path))
    key = "net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert reader.get_variable_to_shape_map()[key] == [2, 5]
    assert reader.get_variable_to_dtype_map()[key].name == "float32"
    np.testing.assert_array_equal(reader.get_tensor(key), net.l1.kernel.numpy())
    np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path), key),
                                  net.l1.kernel.numpy())
    assert ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []) in tf.train.list_variables(
        str(tmp_path))
    with pytest.raises(tf.errors.NotFoundError, match="net/nope"):
        reader.get_tensor("net/nope")


# -- errors --------------------------------------------------------------------------------

def test_errors_name_the_path_and_shapes(tmp_path):
    missing = str(tmp_path / "nothing-1")
    with pytest.raises(tf.errors.NotFoundError, match="nothing-1"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(missing)
    with pytest.raises(tf.errors.NotFoundError, match="directory"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path))
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.load_checkpoint(str(tmp_path))

    path = tf.train.Checkpoint(model=Linear()).write(str(tmp_path / "lin"))
    wrong = Linear(n_in=4)
    with pytest.raises(ValueError, match=r"model/w.*\(3, 2\).*\(4, 2\)"):
        tf.train.Checkpoint(model=wrong).restore(path)

    with pytest.raises(ValueError, match="trackable"):
        tf.train.Checkpoint(step=1)
    with pytest.raises(TypeError, match="path"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).save(3)

    # the end of a TF 2 index file (an SSTable): its magic number, little-endian
    (tmp_path / "tf_ckpt-1.index").write_bytes(b"\x00" * 40 + bytes.fromhex("57fb808b247547db"))
    with pytest.raises(ValueError, match="TensorFlow checkpoint"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "tf_ckpt-1"))

    (tmp_path / "junk.index").write_bytes(b"not an archive")
    with pytest.raises(ValueError, match="corrupted"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "junk"))


def test_module_dependencies_name_attributes_lists_and_dicts():
    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Linear(), Linear()]
            self.extra = {"a.b/c": tf.Variable(1.0)}
            self._private = tf.Variable(2.0)

    names = [name for name, _ in Holder()._checkpoint_dependencies()]
    # public attributes first (sorted), then private ones; TF's escaping of '.' and '/'
    assert names == ["extra/a..b.Sc", "layers/0", "layers/1", "_private"]


def test_a_python_iterator_is_skipped_with_a_warning(tmp_path, caplog):
    with caplog.at_level("WARNING", logger="tapeflow"):
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0), iterator=(i for i in range(3)))
    assert "'iterator' is an iterator whose position" in caplog.text
    path = ckpt.save(str(tmp_path / "c"))
    assert [k for k, _ in tf.train.list_variables(path)] == [
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE", "v/.ATTRIBUTES/VARIABLE_VALUE"]
    ckpt.restore(path).assert_consumed()


def test_a_process_killed_while_saving_leaves_a_restorable_latest_checkpoint(tmp_path):
    """SIGKILL a process that saves large checkpoints in a loop, at some moment
    during its saves: the newest checkpoint the state file names restores whole."""
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import numpy as np, tapeflow as tf, sys\n"
        "v = tf.Variable(np.zeros(2_000_000, 'float32'))\n"
        "m = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), sys.argv[1], max_to_keep=2)\n"
        "i = 0\n"
        "while True:\n"
        "    i += 1\n"
        "    v.assign(np.full(2_000_000, i, 'float32'))\n"
        "    m.save()\n"
        "    print(i, flush=True)\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(3):  # let it finish a few saves, then kill it during the next ones
            assert proc.stdout.readline(), "the saving process stopped early"
        time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    latest = tf.train.latest_checkpoint(str(tmp_path))
    assert latest is not None
    restored = tf.Variable(np.zeros(2_000_000, "float32"))
    tf.train.Checkpoint(v=restored).restore(latest).assert_consumed()
    number = int(latest.rsplit("-", 1)[1])
    assert number >= 3
    np.testing.assert_array_equal(restored.numpy()[[0, -1]], [number, number])


def test_an_unbuilt_layer_waiting_for_values_copies_and_pickles(tmp_path):
    import copy
    import pickle

    net = Net()
    net(_X)
    path = tf.train.Checkpoint(net=net).write(str(tmp_path / "c"))
    waiting = Net()
    status = tf.train.Checkpoint(net=waiting).read(path)
    clone = copy.deepcopy(waiting.l1)
    clone(_X)  # builds the copy alone: its build is the plain method
    assert not waiting.l1.built
    pickle.loads(pickle.dumps(waiting.l1))
    waiting(_X)
    np.testing.assert_array_equal(waiting.l1.kernel.numpy(), net.l1.kernel.numpy())
    assert "build" not in vars(waiting.l1)
    status.assert_consumed()


def test_deferred_values_survive_a_dropped_checkpoint_and_status(tmp_path):
    import gc

    net, opt = Net(), tf.keras.optimizers.Adam(0.1)
    for _ in range(2):
        _step(net, opt, _X, _Y)
    path = tf.train.Checkpoint(net=net, optimizer=opt).save(str(tmp_path / "c"))
    net2, opt2 = Net(), tf.keras.optimizers.Adam(0.1)
    tf.train.Checkpoint(net=net2, optimizer=opt2).restore(path)  # nothing kept
    gc.collect()
    assert _step(net2, opt2, _X, _Y) == _step(net, opt, _X, _Y)  # built after the collection
    np.testing.assert_array_equal(net2.l1.kernel.numpy(), net.l1.kernel.numpy())
    assert "_tf_deferred_restorations" not in vars(net2.l1)  # released once all were used


def test_manager_keeps_one_checkpoint_every_n_hours(tmp_path, monkeypatch):
    """TF's rule: a checkpoint leaving the newest `max_to_keep` is kept on disk (but
    no longer listed) when it is at least n hours newer than the last one kept."""
    from tapeflow.train import checkpoint_manager

    clock = [1_000_000.0]
    monkeypatch.setattr(checkpoint_manager.time, "time", lambda: clock[0])
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(0.0)), str(tmp_path),
                                         max_to_keep=1, keep_checkpoint_every_n_hours=1)
    for hours in (0, 2, 4):
        clock[0] = 1_000_000.0 + hours * 3600
        manager.save()
    # ckpt-1 (t0) is deleted: not an hour newer than the start; ckpt-2 (t0 + 2h) is kept
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2.index", "ckpt-3.index"]
    assert manager.checkpoints == [os.path.join(str(tmp_path), "ckpt-3")]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.last_preserved_timestamp == 1_000_000.0 + 2 * 3600
