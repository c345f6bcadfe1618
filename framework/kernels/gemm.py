"""gemm.py: a float32 matrix product that beats the BLAS NumPy links on this
class of CPU: OpenBLAS runs its AVX2 kernels on CPUs it does not know (Zen 5
here), while this kernel uses the 512-bit registers. Used by every 2-D
float32 matmul (Dense layers, im2col convolutions) where `wins` says so.

Measured on Zen 5 with 2 threads and the pool spinning briefly
(runtime/openmp.py), medians, OpenBLAS against this kernel: W2's Dense products
(128, 784) @ (784, 512) 0.43 -> 0.25 ms, (784, 128) @ (128, 512) 0.41 ->
0.22 ms, (128, 512) @ (512, 256) 0.14 -> 0.08 ms; W3's second convolution
(7744, 288) @ (288, 64) 1.24 -> 0.58 ms, its filter gradient (288, 7744) @
(7744, 64) 1.22 -> 0.70 ms; (2048, 2048) @ (2048, 2048) 68 -> 38 ms. BLAS
stays faster below ~2**21 multiply-adds, below 32 rows, and on every
product while a sleeping thread pool must be woken first (W2 at 0.9x NumPy).
Other CPUs differ (an AVX-512 OpenBLAS beats it), so `wins` routes by what
was measured on the running machine (runtime/calibration.py).

The work is split in tiles of ROWS rows by 2 * LANES columns. A tile's
accumulators stay in 2 * ROWS vector registers for the whole k loop: each
step loads two vectors of b, broadcasts ROWS values of a and issues 2 * ROWS
fused multiply-adds. Numba's loops cannot say that (LLVM kept every
accumulator's store inside the loop: 1.5x slower than BLAS), so the tile is
an intrinsic that writes the loop in LLVM IR. b is first packed into
contiguous (k, 2 * LANES) panels, so that a tile reads it sequentially, and
k runs in blocks of _K_BLOCK: a group of row tiles takes turns with one
block of a panel while it is in L1, adding to what the previous block left
in c (W3's filter gradient, k = 7744: 1.24 -> 0.91 ms in the step).
Rows left over from whole tiles go through a zero-padded tile; columns left
over from whole panels go to NumPy's matmul.
"""

# runtime.jit first: it imports numba, registers the kernels' cache locator and
# loads the OpenMP layer with tapeflow's spin setting before anything compiles.
from ..runtime.jit import njit, prange, serial_and_parallel  # noqa: I001

import time  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
from ..runtime import calibration  # noqa: E402
from ..runtime.settings import user_setting  # noqa: E402
from llvmlite import binding as _llvm  # noqa: E402
from llvmlite import ir  # noqa: E402
from numba.core import cgutils, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

__all__ = ["LANES", "MAX_SHAPES", "PANEL", "ROWS", "SHAPE_CLASSES", "SHAPE_MAX_BYTES",
           "SHAPE_MEASURED", "SHAPE_MIN_ROWS", "add_product", "matmul", "pack_panels",
           "shape_class", "shape_route", "tile", "wins"]


def _target_features():
    """The CPU features Numba compiles for: its configured ones, else the host's."""
    configured = numba.config.CPU_FEATURES
    return configured if configured else _llvm.get_host_cpu_features().flatten()


# float32 lanes of one vector register: 16 with AVX-512, else 8 (AVX2).
LANES = 16 if "+avx512f" in _target_features() else 8
# 2 * ROWS accumulators + 2 b vectors + 1 broadcast: 19 of AVX-512's 32
# registers, 15 of AVX2's 16.
ROWS = 8 if LANES == 16 else 6
_PANEL = 2 * LANES
_K_BLOCK = 256  # a panel's (256, _PANEL) block: 32 KB of float32, within L1
_GROUP = 8  # row tiles that take turns with one panel block


@intrinsic
def _tile(typingctx, a, panel, c, row, k_start, k_stop, accumulate):
    """c[row:row + ROWS, :_PANEL] (+)= a[row:row + ROWS, k_start:k_stop] @
    panel[k_start:k_stop]: added to c's values when `accumulate` is nonzero."""
    signature = types.void(a, panel, c, row, k_start, k_stop, accumulate)

    def codegen(context, builder, sig, args):
        a_arg, panel_arg, c_arg, row, k_start, k_stop, accumulate = args
        i8p, i32, i64 = ir.IntType(8).as_pointer(), ir.IntType(32), ir.IntType(64)
        f32 = ir.FloatType()
        vec = ir.VectorType(f32, LANES)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vec, [vec, vec, vec]), f"llvm.fma.v{LANES}f32")

        def array(index, value):
            arr = context.make_array(sig.args[index])(context, builder, value)
            strides = cgutils.unpack_tuple(builder, arr.strides, 2)
            return builder.bitcast(arr.data, i8p), strides

        def at(base, offset, ty):  # a typed pointer `offset` bytes past base
            return builder.bitcast(builder.gep(base, [offset]), ty.as_pointer())

        a_data, (a_row, a_col) = array(0, a_arg)
        p_data, (p_row, _) = array(1, panel_arg)
        c_data, (c_row, _) = array(2, c_arg)
        a_rows = [builder.gep(a_data, [builder.mul(builder.add(row, ir.Constant(i64, r)), a_row)])
                  for r in range(ROWS)]
        zero = ir.Constant(vec, [0.0] * LANES)
        undef = ir.Constant(vec, ir.Undefined)
        splat_mask = ir.Constant(ir.VectorType(i32, LANES), [0] * LANES)
        half = ir.Constant(i64, 4 * LANES)  # bytes from the panel's first vector to its second

        c_rows = [builder.gep(c_data, [builder.mul(builder.add(row, ir.Constant(i64, r)), c_row)])
                  for r in range(ROWS)]
        adding = builder.icmp_signed("!=", accumulate, ir.Constant(accumulate.type, 0))
        start = []
        for r in range(ROWS):
            for offset in (ir.Constant(i64, 0), half):
                held = builder.load(at(c_rows[r], offset, vec), align=4)
                start.append(builder.select(adding, held, zero))

        entry = builder.block
        loop = builder.append_basic_block("tile.loop")
        done = builder.append_basic_block("tile.done")
        builder.cbranch(builder.icmp_signed("<", k_start, k_stop), loop, done)

        builder.position_at_end(loop)
        k = builder.phi(i64)
        acc = [builder.phi(vec) for _ in range(2 * ROWS)]
        p_k = builder.gep(p_data, [builder.mul(k, p_row)])
        b0 = builder.load(at(p_k, ir.Constant(i64, 0), vec), align=4)
        b1 = builder.load(at(p_k, half, vec), align=4)
        a_k = builder.mul(k, a_col)
        summed = []
        for r in range(ROWS):
            a_rk = builder.load(at(a_rows[r], a_k, f32), align=4)
            a_vec = builder.shuffle_vector(builder.insert_element(undef, a_rk, ir.Constant(i32, 0)),
                                           undef, splat_mask)
            summed += [builder.call(fma, [a_vec, b0, acc[2 * r]]),
                       builder.call(fma, [a_vec, b1, acc[2 * r + 1]])]
        k_next = builder.add(k, ir.Constant(i64, 1))
        body = builder.block
        k.add_incoming(k_start, entry)
        k.add_incoming(k_next, body)
        for phi, first, value in zip(acc, start, summed):
            phi.add_incoming(first, entry)
            phi.add_incoming(value, body)
        builder.cbranch(builder.icmp_signed("<", k_next, k_stop), loop, done)

        builder.position_at_end(done)
        results = []
        for first, value in zip(start, summed):  # phis first: LLVM wants them on top
            results.append(builder.phi(vec))
            results[-1].add_incoming(first, entry)
            results[-1].add_incoming(value, body)
        for r in range(ROWS):
            builder.store(results[2 * r], at(c_rows[r], ir.Constant(i64, 0), vec), align=4)
            builder.store(results[2 * r + 1], at(c_rows[r], half, vec), align=4)
        return context.get_dummy_value()

    return signature, codegen


# For kernels that drive the tile themselves (kernels/conv.py's filter gradient):
# c[row:row + ROWS, :PANEL] (+)= a[row:row + ROWS, k0:k1] @ panel[k0:k1], any strides,
# a panel's rows PANEL contiguous float32 values.
tile, PANEL = _tile, _PANEL


def _tiles(a, b, packed, c, a_tail, c_tail, row_tiles, tiles):
    """Packs b's panels, then c[:row_tiles * ROWS] = a @ b and, when `tiles`
    counts one more, c_tail = a_tail @ b (the rows past the whole tiles,
    zero-padded to a tile); c's columns past the whole panels are left alone."""
    panels, k_len, _ = packed.shape
    for p in prange(panels):  # packed[p] = b[:, p * _PANEL:(p + 1) * _PANEL]
        for k in range(k_len):
            for j in range(_PANEL):
                packed[p, k, j] = b[k, p * _PANEL + j]
    # Tasks are a group of up to _GROUP row tiles by a panel; groups of equal size
    # keep the two threads' halves of the tasks equal.
    groups = (tiles + _GROUP - 1) // _GROUP
    per_group = (tiles + groups - 1) // max(groups, 1)
    for t in prange(groups * panels):
        group, p = t // panels, t % panels  # consecutive tasks share a's rows
        # k in blocks, so that a block of the panel stays in L1 for the group's tiles
        for k0 in range(0, max(k_len, 1), _K_BLOCK):
            k1 = min(k_len, k0 + _K_BLOCK)
            for r in range(group * per_group, min(tiles, (group + 1) * per_group)):
                if r < row_tiles:
                    _tile(a, packed[p], c[:, p * _PANEL:], r * ROWS, k0, k1, k0)
                else:
                    _tile(a_tail, packed[p], c_tail[:, p * _PANEL:], 0, k0, k1, k0)
    return c


# -- njit-callable entry points: for kernels that run many small products in a
# loop of their own (kernels/recurrent.py: h @ U per time step), packing b once.

@njit(cache=True, nogil=True)
def pack_panels(b):
    """b's whole (k, 2 * LANES) column panels, contiguous: (panels, k, 2 * LANES)
    float32, packed once for every `add_product` with this b."""
    panels, k_len = b.shape[1] // _PANEL, b.shape[0]
    packed = np.empty((panels, k_len, _PANEL), np.float32)
    for p in range(panels):
        for k in range(k_len):
            for j in range(_PANEL):
                packed[p, k, j] = b[k, p * _PANEL + j]
    return packed


@njit(cache=True, nogil=True)
def add_product(a, b, packed, c):
    """c += a @ b for 2-D float32 arrays of any strides, `packed` being
    pack_panels(b): the register-tiled `_tile` on whole row tiles by whole
    panels (one thread), a plain loop for the rows and columns left over."""
    m, k_len = a.shape
    whole = packed.shape[0] * _PANEL
    row_tiles = m // ROWS
    for p in range(packed.shape[0]):
        for r in range(row_tiles):
            _tile(a, packed[p], c[:, p * _PANEL:], r * ROWS, 0, k_len, 1)
    for i in range(m):
        first = whole if i < row_tiles * ROWS else 0  # a tile's rows: only the columns past
        for k in range(k_len):
            a_ik = a[i, k]
            for j in range(first, b.shape[1]):
                c[i, j] += a_ik * b[k, j]


# One compile (~0.6 s cold; slicing the tails inside took it to 3.4 s), for a
# and b of any layout: transposed views are common, the tile reads a's
# strides, and b is packed first.
_tiles_pair = serial_and_parallel(
    _tiles, "float32[:, ::1](float32[:, :], float32[:, :], float32[:, :, ::1], float32[:, ::1], "
    "float32[:, ::1], float32[:, ::1], int64, int64)", nogil=True)
_PARALLEL_WORK = 1 << 20  # multiply-adds above which two threads pay

# Which GEMM runs is measured on the machine (runtime/calibration.py), per
# class of shape: rows (few: under a tile pays; short; tall) by multiply-adds
# (small < 2**21 <= medium < 2**24 <= large), each timed on one product of
# its class. On Zen 5 this kernel won from 2**21 multiply-adds and 32 rows;
# on a Xeon whose OpenBLAS has AVX-512 kernels BLAS won (128, 512) @ (512,
# 784) 3x: constants from one CPU do not carry over.
SHAPE_CLASSES = {  # class -> the (m, k, n) it is measured on
    "few-small": (16, 128, 256), "few-medium": (16, 1024, 512), "few-large": (16, 2048, 512),
    "short-small": (64, 128, 128), "short-medium": (128, 256, 256),
    "short-large": (128, 784, 512), "tall-small": (512, 64, 32),
    "tall-medium": (1024, 128, 64), "tall-large": (4096, 288, 64)}


def shape_class(m, k, n):
    """The SHAPE_CLASSES key of an (m, k) @ (k, n) product."""
    rows = "few" if m < 32 else "short" if m < 512 else "tall"
    work = m * k * n
    return f"{rows}-{'small' if work < 1 << 21 else 'medium' if work < 1 << 24 else 'large'}"


def routes(timings, margin=calibration.MARGIN):
    """{class: 'tapeflow' or 'blas'} from {class: {'tapeflow': [s, ...], 'blas':
    [s, ...]}}: this kernel only where it beats BLAS by `margin`."""
    return {cls: calibration.faster(t, default="blas", margin=margin) for cls, t in timings.items()}


# Deciding waits until it can pay. A decision not cached is measured on this
# kernel, which must be compiled for it: with every cache empty on a Zen 4 that
# took 2.5-4.5 s of W2's first fit (the compile, then the thread pool it is the
# first parallel kernel to start, and the pool's own decisions), where the whole
# fit took 6.2-7.5 s and ran every product on BLAS, as this CPU's decision then
# says. So until the products that could take this kernel have run DECIDE_AFTER
# seconds on BLAS in this process, a product whose route is not cached (its class's
# 'gemm' decision, or its own shape's) stays on BLAS; a cached or forced route is
# taken at once. With op determinism on nothing waits: a product's route must not
# change within the process.
DECIDE_AFTER = 1.0  # seconds: what making the decisions costs, about
_waited = [0.0]  # seconds those products ran on BLAS in this process, while it waited
_measuring = []  # non-empty once uncached decisions may be measured (the wait is over)
_cached_here = {}  # decision name -> whether the cache file held it (read once: JSON)


def may_measure():
    """Whether a decision not cached may be measured now (see DECIDE_AFTER)."""
    if not _measuring and (_waited[0] >= DECIDE_AFTER or user_setting("op_determinism")):
        _measuring.append(True)
    return bool(_measuring)


def _answerable(name):
    """Whether `wins` may consult decision `name` now: forced, measurable, or cached."""
    if calibration.forced_choice(name) is not None or may_measure():
        return True
    found = _cached_here.get(name)
    if found is None:
        found = _cached_here[name] = calibration.known(name)
    return found


def _takes_part(m, k, n, dtype):
    """Whether an (m, k) @ (k, n) product of `dtype` could run on this kernel."""
    return dtype == np.float32 and n >= _PANEL and m > 0 and k > 0


def product(a, b):
    """a @ b for 2-D float32 arrays, on this kernel where `wins` says so, else
    on NumPy's BLAS (timed toward DECIDE_AFTER while the decision waits)."""
    m, k = a.shape
    n = b.shape[1]
    if wins(m, k, n, a.dtype):
        return matmul(a, b)
    if _measuring or not _takes_part(m, k, n, a.dtype):
        return np.matmul(a, b)
    start = time.perf_counter()
    out = np.matmul(a, b)
    _waited[0] += time.perf_counter() - start
    return out


def wins(m, k, n, dtype):
    """Whether `matmul` runs an (m, k) @ (k, n) product instead of NumPy's BLAS:
    float32 with a panel's worth of columns, where this kernel measured faster
    on this machine: a large product (SHAPE_MEASURED) by a measurement of its own
    shape (`shape_route`), any other by its shape class's (the 'gemm' decision).
    Both are cached once measured, and measured only once the wait is over
    (DECIDE_AFTER): until then a product without a cached route takes BLAS;
    `runtime.calibration.force` of 'gemm' ('tapeflow' or 'blas' everywhere, or
    per class) overrides both."""
    if not _takes_part(m, k, n, dtype) or not _answerable("gemm"):
        return False
    forced = calibration.forced_choice("gemm")
    decided = calibration.choice("gemm") if forced is None else forced
    if isinstance(decided, str):
        return decided == "tapeflow"
    if forced is None and _measured_by_shape(m, k, n):
        if not _answerable(f"gemm {m}x{k}x{n}"):
            return False
        route = shape_route(m, k, n)
        if route is not None:
            return route
    return decided.get(shape_class(m, k, n)) == "tapeflow"


def _measured_by_shape(m, k, n):
    return (SHAPE_MEASURED[0] <= m * k * n <= SHAPE_MEASURED[1] and m >= SHAPE_MIN_ROWS
            and (m * k + k * n) * 4 <= SHAPE_MAX_BYTES
            and (len(_shapes) < MAX_SHAPES or (m, k, n) in _shapes))


# Large products are routed by their own shape, not their class's representative:
# in one class, on an AMD Zen 4, W3's second convolution (7744, 288) @ (288, 64)
# ran 1.26-1.34x faster on this kernel than on OpenBLAS and its input gradient
# (7744, 64) @ (64, 288) 0.69x as fast, while the class's (4096, 288, 64) measured
# BLAS-faster with its following product; routing the convolution's forward and
# filter-gradient products by shape made W3's fit 1.08x faster (paired, median).
# The bounds: from a product of ~0.2 ms (below it, a few percent are a few
# microseconds, and a smaller product routed to this kernel on a narrow win made a
# first fit compile it: W5's first fit, cold, 3.5 -> 5.6-6.5 s for W2's (128, 256)
# @ (256, 512)) to one of a few milliseconds, whose measurement
# (calibration.time_calls' budget) still has room for repeats.
# The measurement makes operands of the product's shape: products of few rows
# (a batch-1 layer, whose weights may take gigabytes) or large operands keep their
# class's route.
SHAPE_MEASURED = (1 << 25, 1 << 29)  # multiply-adds
SHAPE_MIN_ROWS = 32
SHAPE_MAX_BYTES = 1 << 26  # of the two float32 operands
MAX_SHAPES = 64  # shapes a process measures; further ones take their class's route
_shapes = set()  # the (m, k, n) whose decisions are registered
_failed = {}  # (m, k, n) -> why its measurement raised: its class's route is taken


def shape_route(m, k, n):
    """Whether this kernel beats BLAS on (m, k) @ (k, n) itself: the decision
    'gemm MxKxN', measured like a class (`_time_product`), cached like any;
    None when its measurement failed (the caller takes the class's route)."""
    name = f"gemm {m}x{k}x{n}"
    if (m, k, n) in _failed:
        return None
    if (m, k, n) not in _shapes:
        calibration.register(name, lambda: _measure_shape(m, k, n), version=1)
        _shapes.add((m, k, n))
    try:
        return calibration.choice(name) == "tapeflow"
    except Exception as error:  # noqa: BLE001 -- e.g. MemoryError: the product itself goes on
        _failed[(m, k, n)] = f"{type(error).__name__}: {error}"
        return None


def matmul(a, b):
    """a @ b for 2-D float32 arrays of any strides, as a new C-contiguous array."""
    if a.dtype != np.float32 or b.dtype != np.float32 or a.ndim != 2 or b.ndim != 2 \
            or a.shape[1] != b.shape[0]:
        raise ValueError(f"gemm.matmul takes 2-D float32 (m, k) and (k, n) arrays, got "
                         f"{a.dtype}{a.shape} and {b.dtype}{b.shape}")
    # The one compiled signature takes writable arrays: a read-only operand (a
    # broadcast view, a gradient of broadcast_to) is copied, at most one pass
    # over it against the k * n multiply-adds per row that follow.
    if not a.flags.writeable:
        a = a.copy()
    if not b.flags.writeable:
        b = b.copy()
    m, k_len = a.shape
    n = b.shape[1]
    c = np.empty((m, n), np.float32)
    row_tiles, panels = m // ROWS, n // _PANEL
    cols_done = panels * _PANEL
    if panels and m:
        parallel = 1 if m * cols_done * k_len >= _PARALLEL_WORK else 0
        packed = np.empty((panels, k_len, _PANEL), np.float32)
        tail = m - row_tiles * ROWS
        # The padded tile's arrays only when there are leftover rows: zeroing
        # (ROWS, k) for nothing cost every whole-tile product (k = 7744: 248 KB).
        a_tail = np.zeros((ROWS, k_len if tail else 0), np.float32)
        if tail:
            a_tail[:tail] = a[row_tiles * ROWS:]
        c_tail = np.empty((ROWS, cols_done if tail else 0), np.float32)
        _tiles_pair[parallel](a, b, packed, c, a_tail, c_tail, row_tiles, row_tiles + (tail > 0))
        if tail:
            c[row_tiles * ROWS:, :cols_done] = c_tail[:tail]
    if cols_done < n:
        np.matmul(a, b[:, cols_done:], out=c[:, cols_done:])
    return c


def _measure(repeats=5, budget=0.02, kernel=matmul):
    """('routes' decision, median seconds per class and candidate): each class's
    representative product through `_time_product`, within `budget` seconds per
    class after one warm-up round (~0.3 s in all on a quiet 2-core Zen 4).
    `kernel` is bound here, so that a test replacing `matmul` does not see (or
    change) the calibration's calls."""
    rng = np.random.default_rng(0)
    timings, medians = {}, {}
    for cls, shape in SHAPE_CLASSES.items():
        timings[cls], medians[cls] = _time_product(rng, shape, kernel, repeats, budget)
    return routes(timings), medians


def _measure_shape(m, k, n, repeats=5, budget=0.03, kernel=matmul):
    """(route, median seconds per candidate) of one product's own shape."""
    timings, medians = _time_product(np.random.default_rng(0), (m, k, n), kernel, repeats,
                                     budget)
    return routes({"product": timings})["product"], medians


def _time_product(rng, shape, kernel, repeats, budget):
    """({candidate: [seconds, ...]}, {candidate: median}) of an (m, k) @ (k, n)
    product through `kernel` and through NumPy's BLAS, each followed by a
    threaded BLAS product as in a step, and that product alone ('follow'),
    taking turns. A candidate's time is its pair's less the median of
    'follow', so the margin weighs the product itself and what switching pools
    adds to the next one: waking BLAS's workers after Numba's ran (on an AMD
    Zen 4, 250-300 us, before BLAS ran on Numba's pool (runtime/blas_pool.py);
    there W2's fit ran 360-385 steps/s with every product on BLAS and 295-325
    with the classes this kernel won by 7-43% alone, its (128, 10) @ (10, 256)
    among them)."""
    m, k, n = shape
    x, y = np.ones((128, 512), np.float32), np.ones((512, 256), np.float32)  # threaded
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    pairs = calibration.time_calls(
        {"tapeflow": lambda: (kernel(a, b), x @ y), "blas": lambda: (a @ b, x @ y),
         "follow": lambda: x @ y}, repeats, budget=budget)
    follow = float(np.median(pairs.pop("follow")))
    timings = {c: [max(t - follow, 1e-9) for t in v] for c, v in pairs.items()}
    medians = {c: float(np.median(v)) for c, v in timings.items()}
    medians["follow"] = follow
    return timings, medians


calibration.register("gemm", _measure, version=3)  # 2: after the blas_spin decision;
# 3: each product followed by a BLAS one
