"""compiler/replay_ledger.py: the seconds a generated source was replayed in
earlier processes count toward compiling it (native.py's rule: compile once
replaying has cost what compiling would), since its compiled code is cached
on disk for the machine; the ledger merges processes, keeps the newest
sources and ignores a corrupt file."""

import json
import os

import pytest

import tapeflow as tf
from tapeflow.compiler import native, replay_ledger
from tapeflow.compiler.native import native_state
from tapeflow.runtime import calibration


@pytest.fixture(autouse=True)
def _own_cache(function_cache, monkeypatch):
    monkeypatch.setattr(replay_ledger, "_read_once", {})


def _new_process(monkeypatch):
    """What the exit of this 'process' writes, then a new one's empty state."""
    native._save_spent()
    monkeypatch.setattr(native, "_spent", {})
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setattr(replay_ledger, "_read_once", {})


def test_saved_seconds_are_read_back_and_merged_across_processes(monkeypatch):
    assert replay_ledger.earlier("graph_a") == 0.0  # no file yet
    replay_ledger.save({"graph_a": 0.25, "graph_b": 0.5, "graph_c": 0.0})
    replay_ledger.save({"graph_a": 0.125})  # another process, meanwhile
    with open(replay_ledger.path()) as f:
        assert json.load(f) == {"graph_b": 0.5, "graph_a": 0.375}  # nothing for 0 s
    assert replay_ledger.earlier("graph_a") == 0.0  # this process read the file once
    monkeypatch.setattr(replay_ledger, "_read_once", {})  # a new process
    assert replay_ledger.earlier("graph_a") == 0.375
    replay_ledger.save({"graph_b": 1.0})
    assert replay_ledger.earlier("graph_b") == 0.5


def test_the_ledger_keeps_the_most_recently_replayed_sources(monkeypatch):
    monkeypatch.setattr(replay_ledger, "KEPT", 3)
    replay_ledger.save({f"graph_{i}": 1.0 for i in range(4)})
    replay_ledger.save({"graph_0": 1.0})  # replayed again: the newest now
    with open(replay_ledger.path()) as f:
        assert list(json.load(f)) == ["graph_2", "graph_3", "graph_0"]


@pytest.mark.parametrize("garbage", [b"{not json", b"[1, 2]", b'{"graph_a": "x"}', b"\xff"])
def test_a_corrupt_ledger_counts_as_nothing_and_is_rewritten(garbage):
    with open(replay_ledger.path(), "wb") as f:
        f.write(garbage)
    assert replay_ledger.earlier("graph_a") == 0.0
    replay_ledger.save({"graph_a": 0.5})
    with open(replay_ledger.path()) as f:
        assert json.load(f) == {"graph_a": 0.5}


def _function():
    x = tf.Variable(1.0)

    @tf.function
    def step():
        x.assign(x * 0.5 + 1.0)
        return x * 2.0
    return step


def _graph(function):
    (graph,) = [g for c in function._concrete for g in c._graphs.values()]
    return graph


class _SteadyClock:
    """native.py's clock, each reading 1 ms after the last: every replay costs 1 ms
    (measured replays of a few microseconds varied 2x under load: a flaky count)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 1e-3
        return self.now


def test_replays_of_earlier_processes_count_toward_compiling(monkeypatch):
    monkeypatch.setattr(native, "time", _SteadyClock())
    step = _function()
    for _ in range(3):
        step()
    graph = _graph(step)
    stem = graph.tier.module.stem
    spent = native._spent[stem]
    assert native_state(graph)[0] == "replay" and spent > 0
    # a compile that costs what one more process's replays add to this one's
    monkeypatch.setattr(native, "_FIRST_GUESS", 1.5 * spent)
    _new_process(monkeypatch)
    assert replay_ledger.earlier(stem) == spent
    again = _function()  # the same code traced again: the same source
    for _ in range(6):
        again()
    assert native_state(_graph(again))[0] == "native"
    assert native._spent[stem] < 1.5 * spent  # this process's replays alone did not pay


def test_without_the_ledger_the_same_replays_do_not_compile(monkeypatch):
    monkeypatch.setattr(native, "time", _SteadyClock())
    step = _function()
    for _ in range(3):
        step()
    stem = _graph(step).tier.module.stem
    monkeypatch.setattr(native, "_FIRST_GUESS", 1.5 * native._spent[stem])
    monkeypatch.setattr(native, "_spent", {})
    monkeypatch.setattr(native, "_loaded", {})
    assert not os.path.exists(replay_ledger.path())  # no process has exited here
    again = _function()
    for _ in range(3):
        again()
    assert native_state(_graph(again))[0] == "replay"


def test_counting_a_replay_reads_the_ledger_once_and_touches_no_file(monkeypatch):
    """A count runs at every replay of a graph not compiled yet: after the first it
    looks nothing up on disk (the cache folder's lookup creates a file: 24 us)."""
    replay_ledger.save({"graph_a": 0.5})
    lookups = []
    real = calibration.user_cache_dir
    monkeypatch.setattr(calibration, "user_cache_dir",
                        lambda name: lookups.append(name) or real(name))
    assert native._count("graph_a", 0.25) == 0.75
    assert native._count("graph_a", 0.25) == 1.0
    assert lookups == ["functions"]
