"""Floating-point sums in PyTorch's CPU order, bit for bit.

PyTorch sums float32/float64 with its own ``cascade_sum`` kernel, not with a
pairwise sum like NumPy's, so ``np.sum`` differs in the last bit for about half
of all inputs.  ``torch_sum`` reproduces the CPU kernel's order of additions:

* The reduction goes through TensorIterator: dimensions are sorted with the
  reduced ones first and the rest by stride (``reorder_dimensions``), then
  mergeable neighbours are coalesced.  The first two dimensions form one call of
  the 2-D loop; further dimensions repeat that call.  The output starts at zero
  and every call *adds* its column sums into it (so ``-0.0`` sums to ``+0.0``).
* In the 2-D loop the reduced dimension is dimension 0.  If it is contiguous and
  has at least one vector of elements, each row is summed as vectors of
  ``lanes`` elements (``row_sum``), the leftover elements go into a scalar that
  then takes the lanes one by one.  Otherwise the columns are summed
  independently: with a contiguous kept dimension, groups of ``4 * lanes``
  columns use the plain cascade (``multi_row_sum``) and the rest ``row_sum``;
  without, groups of 4 columns use the cascade (only when the reduced stride is
  the larger one) and the rest ``row_sum``.
* ``multi_row_sum`` adds blocks of ``2**level_power`` (16 below 2**20 rows)
  rows sequentially and carries the block sums up three further levels.
  ``row_sum`` views the rows as (-1, 4), cascades the four interleaved streams,
  adds the leftover rows to the first one and then the other three to it.
* At 32768 elements or more the work is split over the threads: a reduction to
  one value is cut into ``NUM_THREADS`` equal ranges of the iteration (summed
  separately, then added), otherwise the outermost kept dimension is split
  (rounded to 128 bytes when contiguous).

How the orders are computed: a sequential sum ("rows added one after another") is one
``np.add.reduce`` over an axis that is not NumPy's inner loop -- some other axis has a
smaller stride, so NumPy adds whole rows in order (checked once on first use).  Where
the rows are few but split in many pieces (NumPy's reduce pays per piece) the rows are
added as slices; where no other axis is inner (a sum along the innermost axis, broadcast
strides) it is an ``np.add.accumulate``, sequential by definition.  The cascade's blocks
are reshapes of the rows, so a sum is a handful of such calls, and what depends only on
the shapes and strides is worked out once per combination.  Which of two nans an
addition keeps differs between NumPy's loops, so a nan result's sign and payload are not
PyTorch's (nor stable between versions of this module); its place is.

The vector width is AVX2's (32 bytes: 8 floats, 4 doubles).  PyTorch 2.13 uses
those sum kernels under its default AVX512 dispatch as well; both orders were
checked equal.  ``NUM_THREADS`` is the thread count of the machine the
reference outputs come from (PyTorch's default is the number of cores).
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import math

import numpy as np

GRAIN_SIZE = 32768
NUM_THREADS = 2
VECTOR_BYTES = 32
# A sequential sum of at most this many rows, each in at least this many pieces, adds slices.
SLICED_ROWS = 32


def torch_sum(a: np.ndarray, axes: Any = None, keepdims: bool = False) -> np.ndarray:
    """``a`` summed over ``axes`` (None or empty: all) in PyTorch's CPU order.

    ``a`` keeps its strides (they decide the order, as in PyTorch); float32 and
    float64 follow ``cascade_sum``, other dtypes are summed with NumPy.
    The result has ``a``'s dtype."""
    if (axes is None or axes == ()) and not keepdims and type(a) is np.ndarray and a.dtype.char in "fd" \
            and a.flags.c_contiguous and VECTOR_BYTES <= a.nbytes and a.size < GRAIN_SIZE:
        # the everyday case (a whole tensor of at least a vector, one thread): straight to the row
        return np.asarray(a.dtype.type(0) + _inner_sum(a.reshape(-1)))
    a = _torch_layout(a)
    axes, size, final_shape = _layout(a.shape, tuple(axes) if isinstance(axes, list) else axes, keepdims)
    if a.dtype not in (np.float32, np.float64):
        return np.asarray(np.sum(a, axis=axes, keepdims=keepdims, dtype=a.dtype))
    nd = a.ndim
    out = np.zeros(size, a.dtype)
    if a.size == 0 or nd == 0:
        if a.size:
            out += a.reshape(1)
        return out[:math.prod(final_shape)].reshape(final_shape)
    if out.size == 1 and (a.flags.c_contiguous or a.flags.f_contiguous):
        # to one value from a dense input: the iteration is one contiguous dimension
        out[0] = _dense_sum(a.reshape(-1, order="C" if a.flags.c_contiguous else "F"))
    else:
        _reduce_into(out, a, axes)
    return out.reshape(final_shape)


@functools.lru_cache(maxsize=256)
def _layout(shape: tuple, axes: Any, keepdims: bool) -> tuple[tuple, int, tuple]:
    """The reduced dims (sorted, all when ``axes`` is None or empty), the size of the zeroed
    output and the result's shape (worked out once per shape: sums repeat in a loop)."""
    nd = len(shape)
    if axes is None:
        axes = ()
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    axes = tuple(sorted({int(d) % nd for d in axes})) if nd else ()
    if not axes:
        axes = tuple(range(nd))
    keep_shape = tuple(1 if d in axes else shape[d] for d in range(nd))
    final_shape = keep_shape if keepdims else tuple(shape[d] for d in range(nd) if d not in axes)
    return axes, max(1, math.prod(keep_shape)), final_shape


def _dense_sum(flat: np.ndarray) -> Any:
    """0 + the sum of one contiguous run: the 2-D loop on it, or from ``GRAIN_SIZE`` elements on
    (parallel_reduce) on each thread's equal share, the shares' sums then summed by row_sum."""
    n = flat.size
    if n < GRAIN_SIZE or NUM_THREADS == 1:
        return flat.dtype.type(0) + _inner_sum(flat)
    threads = min(NUM_THREADS, -(-n // GRAIN_SIZE)) if n > GRAIN_SIZE else 1
    chunk = -(-n // threads)
    slots = np.zeros(NUM_THREADS, flat.dtype)
    for t in range(threads):
        slots[t] = _inner_sum(flat[t * chunk:min(n, (t + 1) * chunk)])
    return flat.dtype.type(0) + _row_sum(slots[:, None], 0)[0]


def _inner_sum(flat: np.ndarray) -> Any:
    """The 2-D loop on one contiguous row: vectorized_inner_sum, or row_sum when shorter than a
    vector (each up to the sign of a zero sum)."""
    lanes = VECTOR_BYTES // flat.itemsize
    n = flat.size
    if n < lanes:
        return _row_sum(flat, 0)
    if flat.strides[0] == flat.itemsize and _reduce_in_order():
        return _run_contiguous(flat, _contiguous_plan(n, lanes))
    nv = n // lanes
    lane_sums = _row_sum(flat[:nv * lanes].reshape(nv, lanes), 0)
    return _seq(np.concatenate([flat[nv * lanes:], lane_sums]), 0)


# A contiguous row of at least one vector is the sum nearly every script does (sum, mean, the
# backward of a broadcast): its order depends on its length alone, so the slicing is worked out
# once per length and the sum is a few NumPy calls.  It is the general path's order exactly:
# row_sum's four streams of vectors are one row of ``4 * lanes`` columns each (the cascade adds
# columns independently), and the steps that add whole vectors one after another (the leftover
# vectors into the first stream, then the other streams) are one ``add.reduce`` down the rows.

@functools.lru_cache(maxsize=512)
def _contiguous_plan(n: int, lanes: int) -> tuple:
    """(vector rows in the streams, cascade levels as (blocks, step) with their rests, leftover
    vector rows, the scalar tail's start) for a contiguous row of ``n >= lanes`` elements."""
    nv = n // lanes
    s4 = nv // 4
    levels = []
    size = s4
    if s4:
        step = 1 << max(4, _ceil_log2(s4) // 4)
        if size >= step:
            for _ in range(3):
                nb = size // step
                levels.append((nb, step, size > nb * step))
                size = nb
                if size < step:
                    break
    return s4, tuple(levels), nv, nv * lanes


def _run_contiguous(flat: np.ndarray, plan: tuple) -> Any:
    """The lane sums of ``flat`` by ``plan`` (``_contiguous_plan``), then its tail and the lanes
    added one by one (the first element starting the sum, as ``_seq`` does)."""
    s4, levels, nv, vec_end = plan
    lanes = VECTOR_BYTES // flat.itemsize
    reduce = np.add.reduce
    if s4:
        level = flat[:s4 * 4 * lanes].reshape(s4, 4 * lanes)
        rests = []
        for nb, step, has_rest in levels:
            if has_rest:
                rests.append(reduce(level[nb * step:], 0))
            level = reduce(level[:nb * step].reshape(nb, step, 4 * lanes), 1)
        total = reduce(level, 0)
        if rests:
            part = rests[0]
            for rest in rests[1:]:
                part = part + rest
            total = part + total
        streams = total.reshape(4, lanes)
        rows = [streams[:1]]
        if nv > s4 * 4:
            rows.append(flat[s4 * 4 * lanes:vec_end].reshape(-1, lanes))
        rows.append(streams[1:])
        lane_sums = reduce(np.concatenate(rows), 0)
    else:
        lane_sums = reduce(flat[:vec_end].reshape(nv, lanes), 0)
    tail = flat[vec_end:]
    return np.add.accumulate(np.concatenate((tail, lane_sums)))[-1]


def _torch_layout(a: Any) -> np.ndarray:
    """``a`` as an array PyTorch could hold: no negative strides (NumPy's reversed views)."""
    a = np.asarray(a)
    return np.ascontiguousarray(a) if any(s < 0 for s in a.strides) else a


# -- the iteration (TensorIterator) -----------------------------------------------------------

def vectorised_elements(n: int, run: int, block: int) -> np.ndarray:
    """For ``n`` elements in iteration order, cut into runs of ``run`` (loop2d's rows) and, past
    ``GRAIN_SIZE``, into the threads' equal shares: True where ``cpu_kernel_vec``'s vector loop
    reaches the element (whole blocks of ``block`` from the start of each piece), False for
    each piece's scalar tail."""
    lin = np.arange(n, dtype=np.int64)
    start = lin - lin % run
    end = start + run
    if n > GRAIN_SIZE and NUM_THREADS > 1:
        threads = min(NUM_THREADS, -(-n // GRAIN_SIZE))
        chunk = -(-n // threads)
        tid = lin // chunk
        start = np.maximum(start, tid * chunk)
        end = np.minimum(end, (tid + 1) * chunk)
    return (lin - start) < ((end - start) // block) * block


def reorder_dimensions(shape: Sequence[int], operand_strides: Sequence[Sequence[int]], perm: list[int],
                       reduction: bool = False) -> list[int]:
    """TensorIterator's ``reorder_dimensions``: ``perm`` (dimensions, fastest first) insertion-sorted
    in place and returned.  Each operand in turn compares two dimensions: a broadcast one (stride 0)
    leaves the say to the next operand, a smaller stride goes faster, and of equal strides the smaller
    size.  In a ``reduction`` the first operand is the output (stride 0 on the reduced dimensions),
    which puts the reduced dimensions first.  (ATen's ``infer_dense_strides`` sorts the same way.)"""
    def should_swap(d0: int, d1: int) -> int:
        for k, strides in enumerate(operand_strides):
            s0, s1 = strides[d0], strides[d1]
            if reduction and k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, len(perm)):               # insertion sort, ambiguous comparisons skipped
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _geometry(a: np.ndarray, axes: tuple) -> tuple[list, list, list, list]:
    """reorder_dimensions + coalesce_dimensions of a reduction: (shape, input strides,
    output strides, perm), dimension 0 fastest, strides in bytes, output strides 0
    on reduced dimensions (fresh lists: the callers edit them)."""
    return [list(part) for part in _iteration(a.shape, a.strides, a.itemsize, axes)]  # type: ignore[return-value]


@functools.lru_cache(maxsize=256)
def _iteration(shape_: tuple, strides: tuple, itemsize: int, axes: tuple) -> tuple[tuple, ...]:
    """``_geometry`` of one shape, strides and dims (worked out once for each)."""
    nd = len(shape_)
    out_shape = [1 if d in axes else shape_[d] for d in range(nd)]
    ost = [0] * nd
    acc = itemsize
    for d in range(nd - 1, -1, -1):
        ost[d] = 0 if d in axes else acc
        acc *= out_shape[d]
    shape = list(shape_)
    ist = list(strides)
    perm = reorder_dimensions(shape, (ost, ist), list(range(nd - 1, -1, -1)), reduction=True)
    shape = [shape[p] for p in perm]
    ist = [ist[p] for p in perm]
    ost = [ost[p] for p in perm]
    prev = 0
    for d in range(1, nd):
        s0, s1 = shape[prev], shape[d]
        if s0 == 1 or s1 == 1 or (ist[prev] * s0 == ist[d] and ost[prev] * s0 == ost[d]):
            if s0 == 1:
                ist[prev], ost[prev] = ist[d], ost[d]
            shape[prev] *= s1
        else:
            prev += 1
            if prev != d:
                ist[prev], ost[prev], shape[prev] = ist[d], ost[d], shape[d]
    n = prev + 1
    return tuple(shape[:n]), tuple(ist[:n]), tuple(ost[:n]), tuple(perm)


def _reduce_into(out: np.ndarray, a: np.ndarray, axes: tuple) -> None:
    dt = a.dtype
    isz = a.itemsize
    lanes = VECTOR_BYTES // isz
    shape, ist, ost, perm = _geometry(a, axes)
    n = len(shape)
    # ``it``: the input with numpy axis k = iteration dimension k (a view: coalesced dims merge)
    it = np.transpose(a, perm[::-1]).reshape(shape[::-1]).transpose(list(range(n - 1, -1, -1)))
    if n == 1:                                  # the 2-D loop sees a second dimension of size 1
        it = it[:, None]
        shape, ist, ost = shape + [1], ist + [0], ost + [0]
    if ost[0] != 0 and ost[1] == 0:             # "move reduction to be the 1st dim"
        it = np.swapaxes(it, 0, 1)
        shape[:2], ist[:2], ost[:2] = shape[1::-1], ist[1::-1], ost[1::-1]
    if ost[0] != 0:                             # nothing reduced: out = 0 + x
        dst = _strided(out, shape, ost)
        dst[...] = it + dt.type(0)
        return
    numel = a.size
    parallel = numel >= GRAIN_SIZE and NUM_THREADS > 1
    if parallel and out.size == 1:
        out[0] = _two_pass(it, shape, ist[0], ist[1], isz, lanes, dt)
        return
    if parallel and n == 2 and ost[1] != 0:    # parallel_dim_reduction splitting the kept dim 1
        cols = shape[1]
        chunk = -(-cols // NUM_THREADS)
        res = np.empty(cols, dt)
        m = 128 // isz
        for t in range(NUM_THREADS):
            b, e = t * chunk, min(cols, (t + 1) * chunk)
            if b >= cols:
                continue
            if ist[1] == isz:
                b -= b % m
                if e != cols:
                    e -= e % m
            if b < e:
                res[b:e] = _loop2d(it[:, b:e], ist[0], ist[1], isz, lanes)
        dst = _strided(out, (cols,), (ost[1],))
        dst[...] = res + dt.type(0)
        return
    # serial (or split along an outer dimension, which keeps every element's order)
    vals = _loop2d(it, ist[0], ist[1], isz, lanes)          # (s1, s2, ..., s_{n-1})
    kept_shape, kept_ost, calls = _calls(tuple(shape), tuple(ost))
    v = vals.transpose().reshape(kept_shape + (calls,))     # execution order, dim n-1 slowest
    if calls == 1:
        s = v[..., 0] + dt.type(0)
    else:
        s = _seq(np.concatenate([np.zeros(kept_shape + (1,), dt), v], axis=-1), v.ndim - 1)
    _strided(out, kept_shape, kept_ost)[...] = s


@functools.lru_cache(maxsize=256)
def _calls(shape: tuple, ost: tuple) -> tuple[tuple, tuple, int]:
    """For the serial loop: the kept dimensions (slowest first) with their output strides, and
    how many 2-D loop calls add into each output element (the reduced dims 1..nred)."""
    nd = len(shape)
    nred = sum(1 for k in range(1, nd) if ost[k] == 0)
    kept = range(nd - 1, nred, -1)
    return tuple(shape[k] for k in kept), tuple(ost[k] for k in kept), math.prod(shape[1:nred + 1])


def _strided(out: np.ndarray, shape: Any, strides: Any) -> np.ndarray:
    """A view of ``out`` (the zeroed output) with the iteration's output strides."""
    return np.ndarray(tuple(shape), out.dtype, buffer=out, strides=tuple(strides))


def _two_pass(it: np.ndarray, shape: list, st0: int, st1: int, isz: int, lanes: int, dt: Any) -> Any:
    """parallel_reduce to a single value: each thread sums a range of the iteration into
    its own zeroed slot; the slots are then summed by the same kernel."""
    numel = math.prod(shape)
    lin = np.transpose(it, list(range(it.ndim - 1, -1, -1))).reshape(-1)   # iteration order
    nt = min(NUM_THREADS, -(-numel // GRAIN_SIZE)) if numel > GRAIN_SIZE else 1
    chunk = -(-numel // nt)
    slots = np.zeros(NUM_THREADS, dt)
    s0, s1 = shape[0], shape[1]
    for t in range(nt):
        b, e = t * chunk, min(numel, (t + 1) * chunk)
        pieces = [np.zeros(1, dt)]
        p = b
        if p % s0:                              # the rest of a started row
            k = min(s0 - p % s0, e - p)
            pieces.append(_loop2d(lin[p:p + k, None], st0, st1, isz, lanes).reshape(-1))
            p += k
        while p < e:
            v1 = (p // s0) % s1
            k1 = min(s1 - v1, (e - p) // s0)
            if k1 == 0:                         # a last, partial row
                pieces.append(_loop2d(lin[p:e, None], st0, st1, isz, lanes).reshape(-1))
                break
            if v1 == 0 and k1 == s1 and (e - p) // (s0 * s1) > 1:
                ns = (e - p) // (s0 * s1)       # whole (s0, s1) slabs: one batched call
                blk = lin[p:p + ns * s0 * s1].reshape(ns, s1, s0).transpose(2, 1, 0)
                pieces.append(_loop2d(blk, st0, st1, isz, lanes).T.reshape(-1))
                p += ns * s0 * s1
                continue
            blk = lin[p:p + s0 * k1].reshape(k1, s0).T
            pieces.append(_loop2d(blk, st0, st1, isz, lanes).reshape(-1))
            p += s0 * k1
        slots[t] = _seq(np.concatenate(pieces), 0)
    return dt.type(0) + _row_sum(slots[:, None], 0)[0]


# -- the 2-D loop and its summation kernels -----------------------------------------------------

def _loop2d(block: np.ndarray, st0: int, st1: int, isz: int, lanes: int) -> np.ndarray:
    """One call of cascade_sum's 2-D loop on ``block`` = (size0 reduced, size1, *batch), the
    batch being repeated calls.  st0/st1: the byte strides of the two dimensions in the
    iteration.  Returns the column sums, shape (size1, *batch)."""
    size0, size1 = block.shape[0], block.shape[1]
    if st0 == isz and size0 >= lanes:           # vectorized_inner_sum
        x = np.moveaxis(block, 0, -1)           # (size1, *batch, size0): rows contiguous
        nv = size0 // lanes
        vecs = x[..., :nv * lanes].reshape(x.shape[:-1] + (nv, lanes))
        lane_sums = _row_sum(vecs, x.ndim - 1)  # (size1, *batch, lanes)
        return _seq(np.concatenate([x[..., nv * lanes:], lane_sums], axis=-1), x.ndim - 1)
    if st1 == isz and size1 >= lanes:           # vectorized_outer_sum
        n4 = size1 // (4 * lanes) * (4 * lanes)
    elif st0 < st1:                             # scalar_inner_sum
        n4 = 0
    else:                                       # scalar_outer_sum
        n4 = size1 // 4 * 4
    if n4 == size1:
        return _columns(block, _cascade)
    if n4 == 0:
        return _columns(block, _row_sum)
    return np.concatenate([_columns(block[:, :n4], _cascade), _columns(block[:, n4:], _row_sum)])


def _columns(block: np.ndarray, kernel: Any) -> np.ndarray:
    """``kernel`` down axis 0 of every column of ``block``, computed with the axes in
    memory order (long contiguous runs for NumPy); result (size1, *batch)."""
    strides = block.strides
    if block.ndim == 2 and abs(strides[0]) >= abs(strides[1]):
        return kernel(block, 0)                 # already in memory order
    order = sorted(range(block.ndim), key=lambda k: -abs(strides[k]))
    x = block.transpose(order)
    ax = order.index(0)
    r = kernel(x, ax)                           # axes: order without 0
    rest = [k for k in order if k != 0]
    return r.transpose([rest.index(k) for k in range(1, block.ndim)])


def _ceil_log2(x: int) -> int:
    return 1 if x <= 2 else (int(x) - 1).bit_length()


def _part(x: np.ndarray, ax: int, start: int, stop: int) -> np.ndarray:
    return x[(slice(None),) * ax + (slice(start, stop),)]


def _seq(x: np.ndarray, ax: int) -> np.ndarray:
    """x summed along ``ax`` strictly left to right (zeros when empty)."""
    n = x.shape[ax]
    if n == 0:
        return np.zeros(x.shape[:ax] + x.shape[ax + 1:], x.dtype)
    if n <= SLICED_ROWS and math.prod(x.shape[:ax]) >= SLICED_ROWS:
        # few rows, each split in many pieces (as in memory order): NumPy's reduce costs more
        # per piece than adding whole slices
        idx = (slice(None),) * ax
        acc = x[idx + (0,)].copy()
        for k in range(1, n):
            acc += x[idx + (k,)]
        return acc
    if _rows_added_in_order(x, ax) and _reduce_in_order():
        return np.add.reduce(x, axis=ax)
    return np.add.accumulate(x, axis=ax)[(slice(None),) * ax + (-1,)]


def _blocks(x: np.ndarray, ax: int, step: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The sequential sums of the whole blocks of ``step`` along ``ax``, and of the rest (None
    when there is none)."""
    size = x.shape[ax]
    nb = size // step
    head = _part(x, ax, 0, nb * step).reshape(x.shape[:ax] + (nb, step) + x.shape[ax + 1:])
    return _seq(head, ax + 1), (_seq(_part(x, ax, nb * step, size), ax) if size > nb * step else None)


def _rows_added_in_order(x: np.ndarray, ax: int) -> bool:
    """Whether NumPy's add.reduce along ``ax`` adds whole rows one after another, each element
    starting from the first row's: some other axis of ``x`` (longer than 1) has a smaller
    stride, so NumPy's iterator keeps ``ax`` out of its inner loop, where the reduction would
    be a pairwise sum.  Broadcast (0) strides leave NumPy's axis order to chance: accumulate,
    sequential by definition, is used then."""
    stride = x.strides[ax]
    if stride <= 0:
        return False
    inner = False
    for k, (n, s) in enumerate(zip(x.shape, x.strides)):
        if n > 1 and k != ax:
            if s <= 0:
                return False
            inner = inner or s < stride
    return inner


@functools.lru_cache(maxsize=None)
def _reduce_in_order() -> bool:
    """np.add.reduce over an axis outside NumPy's inner loop must add the rows in order (NumPy
    does; checked on first use, not at start-up; accumulate is the fallback), for long and short
    rows.  The data mixes magnitudes so that any other order rounds differently."""
    k = np.arange(3 * 20 * 130)
    mixed = np.sin(k * 0.7) * 10.0 ** (k % 17 - 8)
    for dt in (np.float32, np.float64):
        for shape, ax in (((3, 20, 130), 1), ((20, 2), 0), ((3, 20, 4, 8), 1), ((5, 20, 3), 1)):
            x = mixed[:math.prod(shape)].reshape(shape).astype(dt)
            if not np.array_equal(np.add.reduce(x, axis=ax), np.add.accumulate(x, axis=ax).take(-1, axis=ax)):
                return False
    return True


def _cascade(x: np.ndarray, ax: int) -> np.ndarray:
    """multi_row_sum down ``ax``: blocks of ``step`` rows summed in order, block sums
    carried up three more levels of ``step``, the partial levels added at the end."""
    size = x.shape[ax]
    step = 1 << max(4, _ceil_log2(size) // 4)
    if size < step:
        return _seq(x, ax)
    rests = []                                  # the partly filled levels: acc0, acc1, acc2
    level = x
    for _ in range(3):
        sums, rest = _blocks(level, ax, step)
        if rest is not None:
            rests.append(rest)
        level = sums
        if level.shape[ax] < step:
            break
    top = _seq(level, ax)
    if not rests:
        return top
    # ((acc0 + acc1) + acc2) + top; a level that never filled is left out: it adds only
    # zeros, which change nothing but a -0.0 that the final 0 + sum turns to +0.0 anyway
    total = rests[0]
    for rest in rests[1:]:
        total = total + rest
    return total + top


def _row_sum(x: np.ndarray, ax: int) -> np.ndarray:
    """row_sum down ``ax``: the rows as (-1, 4), four cascaded partial sums; the leftover
    rows go into the first, then the other three are added to it."""
    size = x.shape[ax]
    s4 = size // 4
    if s4 == 0:                                 # only leftovers (the parts add zeros)
        return _seq(x, ax)
    head = _part(x, ax, 0, s4 * 4).reshape(x.shape[:ax] + (s4, 4) + x.shape[ax + 1:])
    part = _cascade(head, ax)                   # axis ax now has the 4 partial sums
    if size == s4 * 4:
        return _seq(part, ax)
    idx = (slice(None),) * ax
    p = part[idx + (0,)]
    for i in range(s4 * 4, size):
        p = p + x[idx + (i,)]
    return ((p + part[idx + (1,)]) + part[idx + (2,)]) + part[idx + (3,)]


# -- nll_loss's own cascade ---------------------------------------------------------------------

def nll_cascade_sum(values: np.ndarray, positions: np.ndarray) -> Any:
    """The reduction inside PyTorch's CPU ``nll_loss`` (and ``nll_loss2d``), which does not call
    sum: ``values[i]``, met at loop index ``positions[i]`` (increasing; ignored targets have no
    value), go into the first of 8 partial sums; after a value met at an index divisible by 16
    the first partial sum is added into the second and cleared, the second into the third when
    the index is divisible by 256, and so on.  The result is 0 + the 8 partial sums in order.
    (16 is 2**max(4, ceil_log2(n) // 8): right below 2**40 loop indices.)"""
    dt = values.dtype
    items, pos = values, np.asarray(positions, dtype=np.int64)
    total = dt.type(0)
    for level in range(8):
        events = (pos % (16 ** (level + 1)) == 0) if level < 7 else np.zeros(pos.shape, bool)
        closed, rest = _group_sums(items, events)
        total = total + rest
        items, pos = closed, pos[events]
    return total


def _group_sums(items: np.ndarray, events: np.ndarray) -> tuple[np.ndarray, Any]:
    """Split ``items`` after every item flagged in ``events``; each group summed in order from 0.
    Returns the sums of the closed groups and of the open rest."""
    dt = items.dtype
    n = items.size
    ends = np.flatnonzero(events)
    starts = np.concatenate([[0], ends + 1])
    lengths = np.concatenate([ends + 1, [n]]) - starts
    sums = np.zeros(starts.size, dt)
    short = lengths <= 64
    if n and short.any():
        gid = np.cumsum(events) - events
        keep = short[gid]
        col = np.arange(n) - starts[gid]
        grid = np.zeros((starts.size, int(lengths[short].max()) + 1), dt)
        grid[gid[keep], col[keep] + 1] = items[keep]
        sums[short] = np.add.accumulate(grid, axis=1)[short, -1]
    for g in np.flatnonzero(~short):          # rare: a run of ignored targets merged groups
        sums[g] = np.add.accumulate(np.concatenate([[dt.type(0)], items[starts[g]:starts[g] + lengths[g]]]))[-1]
    return sums[:-1], sums[-1]


# -- var/std of everything: std_var_all_cpu ----------------------------------------------------

def var_all(a: np.ndarray, correction: float, take_sqrt: bool) -> Any:
    """PyTorch's CPU var/std when every (non-trivial) dimension is reduced, float32/float64:
    the mean as ``mean()`` computes it, taken to double; then in double, per thread range of
    the iteration, each 2-D loop call's sequential sum of ``(x - mean)**2`` added to the
    thread's sum; the thread sums added; divided by ``max(0, n - correction)``; the square
    root for std; rounded to ``a``'s dtype."""
    a = _torch_layout(a)
    n = a.size
    mean = float(torch_sum(a) / a.dtype.type(n))
    shape, _, _, perm = _geometry(a, tuple(range(a.ndim)))
    nd = len(shape)
    it = np.transpose(a, perm[::-1]).reshape(shape[::-1])     # C order == iteration order
    dx = it.reshape(-1).astype(np.float64) - mean
    sq = dx * dx
    shape = (shape + [1, 1])[:max(2, nd)]
    nt = min(NUM_THREADS, -(-n // GRAIN_SIZE)) if n > GRAIN_SIZE else 1
    chunk = -(-n // nt)
    total = 0.0
    for t in range(nt):
        b, e = t * chunk, min(n, (t + 1) * chunk)
        thread = np.float64(0.0)
        for p, count, size in _call_spans(shape, b, e):
            block = sq[p:p + count * size].reshape(count, size)
            local = np.add.accumulate(np.concatenate([np.zeros((count, 1)), block], axis=1), axis=1)[:, -1]
            thread = np.add.accumulate(np.concatenate([[thread], local]))[-1]
        total = total + thread
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.float64(total) / np.float64(max(0.0, n - correction))
        result = np.sqrt(var) if take_sqrt else var
    return a.dtype.type(result)


def _call_spans(shape: list, begin: int, end: int) -> list:
    """serial_for_each's 2-D loop calls over [begin, end) of the iteration, as spans of the
    linear order: (start, count, size) = ``count`` consecutive calls of ``size`` elements."""
    s0, s1 = shape[0], shape[1]
    spans = []
    p = begin
    if p % s0:
        k = min(s0 - p % s0, end - p)
        spans.append((p, 1, k))
        p += k
    while p < end:
        v1 = (p // s0) % s1
        k1 = min(s1 - v1, (end - p) // s0)
        if k1 == 0:
            spans.append((p, 1, end - p))
            break
        if len(shape) > 2 and v1 == 0 and k1 == s1 and (end - p) // (s0 * s1) > 1:
            ns = (end - p) // (s0 * s1)
            spans.append((p, ns, s0 * s1))
            p += ns * s0 * s1
            continue
        spans.append((p, 1, s0 * k1))
        p += s0 * k1
    return spans
