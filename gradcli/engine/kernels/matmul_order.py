"""Matrix products in the order PyTorch's BLAS (MKL, on its path without fused multiply-adds)
adds their terms, where the shape and layout tell it.

What was measured against torch 2.13 on the reference CPU (an AMD EPYC, MKL_CBWR=COMPATIBLE as in
tests/conftest.py; tests/oracle/test_matmul_order_oracle.py keeps it so):

* When the inner dimension is strided in either operand -- ``a @ b`` with ``b`` row-major,
  ``a.t() @ g`` as in every gradient, ``bmm`` batch by batch -- MKL's kernels broadcast one
  term at a time into the output: each element is a running sum over the inner dimension,
  each product rounded first, from +0.  That holds up to 112 terms (256 for a single row);
  longer sums are cut into blocks whose boundaries depend on the shape, and NumPy's BLAS is
  used for them.
* When the inner dimension is contiguous in both operands (``x @ w.t()``, a dot product, an
  ``mv`` of a row-major matrix) MKL uses dot-product kernels with several partial sums.  Their
  short cases add in order: up to 3 terms, 4 for a single column, 7 for two or three columns (a
  ``Linear`` of 2 or 3 inputs, the polynomial tutorial's ``Linear(3, 1)``).  Known beyond that,
  for float32 and at least two rows: two or three columns use 8 lanes at any length (term k in
  lane k % 8, each a running sum), combined ``((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 +
  l7))``, then the last k % 8 terms added one by one (a ``Linear(8, 3)`` of a batch); 4 lanes,
  combined ``(l0 + l2) + (l1 + l3)``, then the rest one by one, serve four columns up to 16
  terms, 5 to 7 columns with 8 to 11 terms, and 12 or a multiple of 8 columns up to 7 terms.
  ``addmm`` (a Linear's bias) adds the bias to that sum.
* Both operands column-major (``a.t() @ b.t()``) go to another kernel, not worked out.

Elsewhere the result is NumPy's BLAS, which can differ from PyTorch's in the last bit.

How the running sums are computed: NumPy's ``einsum`` (without ``optimize``, so without BLAS) runs
``ik,kj->ij`` with the inner dimension outside its inner loop: ``out[i, :] += a[i, k] * b[k, :]``
for k in order, the output zeroed first, one SIMD pass per (i, k) over a row of the output that
stays in cache.  NumPy compiles einsum for its baseline CPU (x86-64-v2 here), which has no fused
multiply-add, so each product is rounded before it is added: exactly the order above, at about the
speed of one multiply and one add per term (a Python loop over k costs ~5x that, a (k, m, n) array
of products and one ``add.reduce`` ~4x).  For that the operands are made C-contiguous (else NumPy's
iterator may put k innermost, where einsum sums in SIMD lanes), and the inner loop runs along the
output's longer side: a product with more rows than columns (a single column included) is computed
transposed.  Whether this NumPy adds that way is checked once, on first use, against the plain
loop (``_einsum_adds_in_order``); a build with fused multiply-adds falls back to the loop.  So does
a result with a nan in it: einsum adds ``product + sum`` where the loop (and MKL) add ``sum +
product``, and of two nans x86 keeps the first, so the sign of a nan could differ.

What is known of the dot-product case, for whoever takes it further: MKL splits the rows of
the output between its threads (60 rows on 2 threads: 0-29, 30-59); inside a thread's block
the main tiles add in order (all of a 256 x 64 output, rows 0-27 of a 30-row block), while
the leftover rows and small outputs (4 x 4, 2 x 2, 32 x 3) use kernels with four or eight
partial sums combined as SSE halves ((p0 + p2) + (p1 + p3)), the choice depending on the
shape and the length of the sum.
"""

from __future__ import annotations

import functools

import numpy as np

# The longest running sum measured to be one block (113 already splits for some shapes).
LONGEST_RUNNING_SUM = 112
# A single row (gemv) is not cut into blocks this far.
LONGEST_SINGLE_ROW = 256
# The dot-product kernels add up to this many terms in order, by the output's column count;
# longer sums use partial sums in lanes.
DOT_IN_ORDER = {1: 4, 2: 7, 3: 7}
DOT_IN_ORDER_WIDE = 3
# Outputs up to this many elements are summed through one 3-d array of products (faster there
# than a Python loop over the inner dimension; NumPy's accumulate is sequential by definition).
SMALL_OUTPUT = 512


def _elements(array: np.ndarray) -> tuple[int, int]:
    return array.strides[0] // array.itemsize, array.strides[1] // array.itemsize


def _transposed(strides: tuple[int, int], rows: int, lead: int, other: int) -> bool:
    """PyTorch's choice for one operand (addmm_impl_cpu_): passed as is when its ``rows`` axis
    is unit-stride with a leading dimension of at least ``lead``, transposed when the other
    axis is unit-stride with one of at least ``other``, else copied (as the flag says)."""
    first, second = strides[rows], strides[1 - rows]
    if first == 1 and second >= max(1, lead):
        return False
    if second == 1 and first >= max(1, other):
        return True
    return None  # type: ignore[return-value]  (copied: the caller decides)


def blas_kernel(a: np.ndarray, b: np.ndarray) -> str:
    """Which MKL kernel family ``a @ b`` reaches, from the arguments PyTorch passes to the
    column-major gemm: ``"sum"`` (the first operand untransposed: running sums), ``"dot"``
    (transposed first operand, or a single output column: dot products) or ``"tt"`` (both
    transposed)."""
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    # the result is a fresh row-major matrix: BLAS sees it transposed unless it is one column
    swap = not n == 1
    first, second = (b, a) if swap else (a, b)
    m_blas, n_blas = (n, m) if swap else (m, n)
    rows = 1 if swap else 0
    transa = _transposed(_elements(first), rows, m_blas, k)
    transb = _transposed(_elements(second), rows, k, n_blas)
    if transa is None:
        transa = not swap  # a copy made contiguous
    if transb is None:
        transb = not swap
    if not transa:
        return "sum"
    if n_blas == 1 or not transb:
        return "dot"
    return "tt"


def ordered_kernel(a: np.ndarray, b: np.ndarray) -> str | None:
    """How ``a @ b`` (2-d arrays, as stored) adds when its order is one of the known ones above,
    else None: ``"sum"`` or ``"dot"`` (running sums), ``"lanes4"`` or ``"lanes8"`` (partial sums)."""
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        return None
    rows, inner, cols = a.shape[0], a.shape[1], b.shape[1]
    if inner < 2:
        return None
    kernel = blas_kernel(a, b)
    if kernel == "dot":
        if inner <= DOT_IN_ORDER.get(cols, DOT_IN_ORDER_WIDE):
            return "dot"
        lanes = _dot_lanes(rows, inner, cols) if a.dtype == b.dtype == np.float32 else None
        return f"lanes{lanes}" if lanes else None
    if kernel == "sum":
        known = inner <= (LONGEST_SINGLE_ROW if rows == 1 else LONGEST_RUNNING_SUM)
    else:
        known = False  # both transposed: MKL's kernel for that, not worked out
    return kernel if known else None


def _dot_lanes(rows: int, inner: int, cols: int) -> int | None:
    """The lanes of a float32 dot-product kernel longer than its running sums, where measured
    (module docstring), else None."""
    if rows < 2:
        return None  # a single row is a gemv, another kernel
    if cols in (2, 3):
        return 8  # measured up to 600 terms
    if (cols == 4 and inner <= 16) or (5 <= cols <= 7 and 8 <= inner <= 11) \
            or ((cols == 12 or cols % 8 == 0) and inner <= 7):
        return 4
    return None


def adds_in_order(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a @ b`` is one of the products above."""
    return ordered_kernel(a, b) is not None


_LANES = {"lanes4": 4, "lanes8": 8}


def known_product(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``a @ b`` for 2-d arrays in MKL's order, or None where that order is not known."""
    kernel = ordered_kernel(a, b)
    return None if kernel is None else _product_by(kernel, a, b)


def _product_by(kernel: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` in the order ``kernel`` (one of ``ordered_kernel``'s answers) names."""
    lanes = _LANES.get(kernel)
    return product_in_order(a, b) if lanes is None else product_in_lanes(a, b, lanes)


def product_in_lanes(a: np.ndarray, b: np.ndarray, lanes: int) -> np.ndarray:
    """``a @ b`` as MKL's dot-product kernels add (4 or 8 lanes, module docstring): each lane a
    running sum of every ``lanes``-th rounded product from +0, the lanes combined pairwise, then
    the terms left over (fewer than ``lanes``) one by one.  One block of ``lanes`` terms at a
    time, so memory stays at rows x columns x lanes however long the sums."""
    inner = a.shape[1]
    full = inner - inner % lanes
    dtype = np.result_type(a, b)
    bt = b.T
    sums = np.zeros((a.shape[0], b.shape[1], lanes), dtype)
    for start in range(0, full, lanes):
        sums += a[:, None, start:start + lanes] * bt[None, :, start:start + lanes]
    lane = [sums[:, :, i] for i in range(lanes)]
    if lanes == 8:
        total = ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]))
    else:
        total = (lane[0] + lane[2]) + (lane[1] + lane[3])
    for k in range(full, inner):
        total = total + a[:, k:k + 1] * b[k]
    # +0 last, so an all -0 sum is +0 as the zeroed lanes give; a fresh row-major result
    return np.add(total, dtype.type(0), order="C")


def product_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-d arrays as a running sum over the inner dimension, each product rounded
    to the result's dtype before it is added, starting from +0."""
    rows, cols = a.shape[0], b.shape[1]
    if a.dtype == b.dtype and a.dtype.type in _EINSUM_DTYPES and rows * cols > 1 and _einsum_adds_in_order():
        out = _einsum_product(a, b)
        if not np.isnan(out).any():  # (a nan's sign: see the module docstring)
            return out
    return _looped_product(a, b)


_EINSUM_DTYPES = (np.float32, np.float64)


def _einsum_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The running sums by einsum (see the module docstring); float32/float64, not 1 x 1."""
    if a.shape[0] > b.shape[1]:
        # einsum's inner loop runs along the output's rows: the longer side, so the transposed
        # product (rows of a.T scaled by b's elements), then a copy in row-major order
        transposed = np.einsum("kj,ki->ji", np.ascontiguousarray(b), np.ascontiguousarray(a.T))
        return transposed.T.copy()
    return np.einsum("ik,kj->ij", np.ascontiguousarray(a), np.ascontiguousarray(b))


def _looped_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The running sums with the additions spelled out (any dtype; the fallback and the reference)."""
    rows, cols = a.shape[0], b.shape[1]
    dtype = np.result_type(a, b)
    if rows * cols <= SMALL_OUTPUT:
        products = a[:, :, None] * b[None, :, :]
        total = np.add.accumulate(products, axis=1, dtype=dtype)[:, -1, :]
        # +0 first, so an all -0 sum is +0 as in the kernel; a fresh row-major result as mm's
        return np.add(total, dtype.type(0), order="C")
    acc = np.zeros((rows, cols), dtype=dtype)
    for i in range(a.shape[1]):
        acc += a[:, i:i + 1] * b[i:i + 1, :]
    return acc


@functools.lru_cache(maxsize=None)
def _einsum_adds_in_order() -> bool:
    """Whether this NumPy's einsum adds rounded products in order (checked on first use, not at
    start-up).  Products of 24-bit (53-bit) mantissas round, so a fused multiply-add differs; the
    magnitudes are mixed, so any other order of the additions differs."""
    k = np.arange(2 * 9 * 6, dtype=np.float64)
    mixed = np.sin(k * 0.7) * 10.0 ** (k % 13 - 6) * (1 + 2.0 ** -30)
    for dtype in _EINSUM_DTYPES:
        values = mixed.astype(dtype)
        for a, b in ((values[:27].reshape(3, 9), values[54:].reshape(9, 6)),
                     (values[:54].reshape(6, 9), values[54:63].reshape(9, 1)),
                     (values[:54].reshape(6, 9), values[63:81].reshape(9, 2))):
            if not np.array_equal(_einsum_product(a, b), _looped_product(a, b)):
                return False
    return True


def matrix_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-d arrays, in MKL's order where known, else NumPy's."""
    if a.shape[1] == 1 and a.shape[0] > 1 and b.shape[1] > 1:
        # gemm with one product per element keeps its sign: 0 * -1 is -0 (NumPy's sum from +0
        # gives +0), as in the outer-product gradient of a vector @ matrix; gemv (a single row
        # or column) starts from +0 like NumPy
        return a * b
    known = known_product(a, b)
    return a @ b if known is None else known


# MKL's sdot adds this many float32 products in order (from +0); past that its lanes, not worked out.
SDOT_IN_ORDER = 3


def vector_dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``torch.dot`` of two 1-d arrays: in MKL's order where known, else NumPy's (which pairs a
    float32 0.4·1 - 0.3·-2 + 0.8·0.5 into 1.4000000954, where MKL's running sum gives 1.3999999762)."""
    if x.dtype == np.float32 and y.dtype == np.float32 and 0 < x.shape[0] <= SDOT_IN_ORDER:
        return product_in_order(x[None, :], y[:, None])[0, 0]
    return np.dot(x, y)


def product_before_bias(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for addmm: MKL adds the bias after the whole sum in its dot-product kernels (a
    Linear's ``x @ w.t()``); its other kernels start their sums from the bias, an order not
    reproduced here."""
    kernel = ordered_kernel(a, b)
    return _product_by(kernel, a, b) if kernel == "dot" or kernel in _LANES else a @ b


def batched_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``bmm`` of two 3-d arrays: MKL multiplies batch by batch."""
    kernel = ordered_kernel(a[0], b[0]) if a.shape[0] else None
    if kernel is None:
        return np.matmul(a, b)
    return np.stack([_product_by(kernel, x, y) for x, y in zip(a, b)])
