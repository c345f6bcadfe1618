"""memory.py tells what a GradientTape holds alive: every record keeps its inputs
and output, so a tape holds the activations of the whole forward pass until
`gradient` (or, persistent, until the tape itself is dropped). The report
counts each array once; a persistent tape that outlives its step while holding
more than `LIMIT_BYTES` gets one warning, since that is the usual leak."""

import logging
import weakref

from ..core.tensor import Variable

__all__ = ["MemoryReport", "report", "watch_persistent", "check_outliving", "LIMIT_BYTES"]

_log = logging.getLogger("tapeflow")

LIMIT_BYTES = 100 * 2**20  # a persistent tape above this that outlives its step is warned of
_INPUTS = "(inputs)"  # arrays the tape did not compute: batch data, watched constants


def _owner(array):
    """The array that owns the memory of `array` (a view's base), so views count once."""
    while isinstance(getattr(array, "base", None), type(array)):
        array = array.base
    return array


class MemoryReport:
    """Bytes a tape holds, by op and by layer. Fields: `total_bytes`, `records`,
    `by_op` and `by_layer` ({name: (records, bytes)}); `str()` is a table.
    Variables are not counted: they live as long as their model anyway."""

    def __init__(self, total_bytes, records, by_op, by_layer):
        self.total_bytes = total_bytes
        self.records = records
        self.by_op = by_op
        self.by_layer = by_layer

    def __str__(self):
        lines = [f"GradientTape holds {self.records} records, {_size(self.total_bytes)}"]
        for title, table in (("op", self.by_op), ("layer", self.by_layer)):
            if not table:
                continue
            lines.append(f"  {'by ' + title:<28}{'records':>9}{'bytes':>12}")
            for name, (count, size) in sorted(table.items(), key=lambda kv: -kv[1][1]):
                lines.append(f"  {name:<28}{count:>9}{_size(size):>12}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<MemoryReport {self.records} records, {_size(self.total_bytes)}>"


def _size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def _layer_of_each_record(tape, n):
    """The innermost Layer whose call made each record (layers/base.py leaves the spans)."""
    names = [None] * n
    for start, end, name in sorted(tape._layer_spans or (), key=lambda s: s[0] - s[1]):
        names[start:min(end, n)] = [name] * max(0, min(end, n) - start)
    return names


def report(tape):
    """The MemoryReport of `tape` (see GradientTape.memory_report)."""
    records = tape._records or []
    layers = _layer_of_each_record(tape, len(records))
    counted = set()
    by_op, by_layer = {}, {}
    total = 0

    def charge(table, name, nbytes, new_record):
        count, size = table.get(name, (0, 0))
        table[name] = (count + new_record, size + nbytes)

    for index, (op, inputs, out, _) in enumerate(records):
        layer = layers[index] or "(outside layers)"
        for tensor, name in [(out, op.name)] + [(x, _INPUTS) for x in inputs]:
            if type(tensor) is Variable:
                continue
            owner = _owner(tensor._value)
            if id(owner) in counted:
                continue
            counted.add(id(owner))
            total += owner.nbytes
            charge(by_op, name, owner.nbytes, 0)
            charge(by_layer, layer if name != _INPUTS else _INPUTS, owner.nbytes, 0)
        charge(by_op, op.name, 0, 1)
        charge(by_layer, layer, 0, 1)
    return MemoryReport(total, len(records), by_op, by_layer)


# Persistent tapes that held more than LIMIT_BYTES when their context closed; `any_large`
# is what a tape's __enter__ tests (a WeakSet's truth test runs Python code).
_large = weakref.WeakSet()
any_large = [False]
_warned = weakref.WeakSet()


def watch_persistent(tape):
    """At a persistent tape's exit: remember it if it holds more than LIMIT_BYTES.
    A cheap estimate (the recorded outputs' bytes), since this runs every step."""
    if not tape._persistent or not tape._records:
        return
    if sum(rec[2]._value.nbytes for rec in tape._records) > LIMIT_BYTES:
        _large.add(tape)
        any_large[0] = True


def check_outliving(new_tape):
    """When a new tape starts, warn once for each large persistent tape still alive:
    the step that made it is over, and its records still hold the activations."""
    alive = list(_large)
    any_large[0] = bool(alive)
    for tape in alive:
        if tape is new_tape or tape in _warned or not tape._records:
            continue
        _warned.add(tape)
        held = report(tape).total_bytes
        _log.warning(
            "A persistent GradientTape made at %s still holds %s of activations (%d records) "
            "after its step ended. Delete it (`del tape`) when its gradients are taken, or "
            "use a non-persistent tape; tape.memory_report() shows what it holds.",
            tape._enter_site or "an unknown line", _size(held), len(tape._records))
