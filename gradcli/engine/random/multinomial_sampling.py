"""``torch.multinomial`` (ATen's multinomial_out and its CPU with-replacement kernel).

Two algorithms, chosen as torch chooses them:

- without replacement, or a single sample: the exponential trick of Gumbel-max.
  ``q = empty_like(p).exponential_(1)`` (drawn in p's memory order), ``q = p / q`` in
  p's dtype, then ``argmax`` (one sample) or ``topk`` (the indices of the largest,
  ordered as libstdc++'s algorithms leave ties: ``kernels.stl_sort``).
- with replacement and more than one sample: per row, the running sum in p's dtype
  as a cumulative distribution, divided by the total, its last entry set to 1; then
  per sample one float64 uniform (2 draws) and a binary search for the first bucket
  whose cumulative value is not below it.
"""

from __future__ import annotations

import numpy as np

from ..errors import TorchRuntimeError
from ..kernels.stl_sort import topk_indices
from . import draw_order
from .serial_sampling import exponential_values
from .generator import Generator, resolve


def multinomial(p: np.ndarray, n_sample: int, replacement: bool, *,
                generator: Generator | None = None) -> np.ndarray:
    """Indices (int64) of shape ``(n_sample,)`` or ``(rows, n_sample)`` drawn from ``p``.

    ``p`` is a 1-D or 2-D float32/float64 array of non-negative weights per row.  The
    caller makes torch's argument checks first (dims, dtype, ``n_sample > 0``,
    ``n_sample <= categories`` without replacement); the data checks happen here, where
    torch makes them, with its messages:

    - one sample or no replacement, before any draw: ``probability tensor contains either
      `inf`, `nan` or element < 0``, then ``invalid multinomial distribution (sum of
      probabilities <= 0)`` when a row sums to 0;
    - with replacement, row by row (earlier rows have drawn already):
      ``invalid multinomial distribution (encountering probability entry < 0)`` (NaN too),
      ``... (encountering probability entry = infinity or NaN)``, ``... (sum of
      probabilities <= 0)``.
    """
    shape = (n_sample,) if p.ndim == 1 else (p.shape[0], n_sample)
    if 0 in shape:  # torch returns before any check of the data
        return np.zeros(shape, np.int64)
    gen = resolve(generator)
    if not replacement or n_sample == 1:
        return _by_exponential_race(p, n_sample, gen).reshape(shape)
    return _by_inverse_cdf(p, n_sample, gen).reshape(shape)


def _rows(p: np.ndarray) -> np.ndarray:
    return p.reshape(p.shape[0] if p.ndim == 2 else 1, p.shape[-1])


def _by_exponential_race(p: np.ndarray, n_sample: int, gen: Generator) -> np.ndarray:
    if not (p.size and p.max() < np.inf and p.min() >= 0):  # a NaN fails too
        raise TorchRuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = _rows(p)
    if (rows.sum(axis=1) == 0).any():
        raise TorchRuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = draw_order.empty_like(p)
    draw_order.fill(q, exponential_values(q.size, 1.0, gen))
    with np.errstate(divide="ignore", invalid="ignore"):
        q = (p / q).reshape(rows.shape)
    if n_sample == 1:
        return np.argmax(q, axis=1)  # the first of equal maxima; NaN counts as the largest
    return np.stack([topk_indices(row, n_sample) for row in q])


def _by_inverse_cdf(p: np.ndarray, n_sample: int, gen: Generator) -> np.ndarray:
    rows = _rows(p)
    out = np.empty((rows.shape[0], n_sample), np.int64)
    for i, row in enumerate(rows):
        bad = np.flatnonzero(~(row >= 0) | ~np.isfinite(row))
        if bad.size:
            first = row[bad[0]]
            raise TorchRuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0)" if not first >= 0
                else "invalid multinomial distribution (encountering probability entry = infinity or NaN)")
        cum = np.cumsum(row, dtype=row.dtype)  # sequential, in p's dtype, like the kernel's loop
        if not (cum.size and cum[-1] > 0):
            raise TorchRuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum /= cum[-1]
        cum[-1] = 1
        out[i] = np.searchsorted(cum.astype(np.float64), gen.uniform_f64(n_sample), side="left")
    return out
