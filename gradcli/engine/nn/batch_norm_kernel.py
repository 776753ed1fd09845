"""PyTorch's CPU batch-norm kernels (``batch_norm_kernel.cpp``, ``Normalization.cpp``), bit for bit.

The input is viewed as (N, C, L).  PyTorch takes its "channels last" kernels
when L == 1 (a 2-d input) and its contiguous kernels otherwise; both are the
AVX2 build (8 floats or 4 doubles a vector), with the fused multiply-adds the
compiler made:

* statistics, L == 1: per-thread row sums (``buf = x + buf``), the thread buffers
  added in double, ``mean = float(sum / N)``; ``var_sum`` likewise from
  ``buf = fma(x - mean, x - mean, buf)`` (two rows in one buffer).  L > 1: per
  channel, a sequential double sum of the elements, then of the squares
  ``(x - mean)**2`` (for doubles the odd last element of a plane fused).
* ``invstd = float(1 / sqrt(double(var_sum / n) + eps))``; the running
  statistics are updated in float as ``m * stat + (1 - m) * running`` (the
  variance unbiased, its product with ``m`` taken in double).
* output: ``alpha = invstd * w``, ``beta = fma(-mean, alpha, b)``,
  ``y = fma(x, alpha, beta)`` (in eval mode ``invstd = 1/sqrt(running_var + eps)``
  in the input's dtype).
* backward, L == 1: per-thread ``sum += dy``, ``dotp = fma(x - mean, dy, dotp)``,
  combined in double and rounded; ``k = dotp*invstd*invstd/N``, and
  ``dx = fnma(x - mean, k, dy - sum/N) * invstd * w`` over the whole vectors of
  channels (the leftover channels unfused).  L > 1: per (n, c) plane vector
  reductions added in double; ``dx`` fused as above.  In eval mode
  ``dx = dy * invstd * w`` with ``invstd`` computed in double.
"""

from __future__ import annotations

import numpy as np

from .layer_norm_kernel import _reduce_all, fma, lanes, thread_ranges


def batch_stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, var_sum) per channel of ``x`` (N, C, L)."""
    n_batch, channels, length = x.shape
    count = n_batch * length
    if length == 1:
        rows = x[:, :, 0]
        total = np.zeros(channels, np.float64)
        for lo, hi in thread_ranges(n_batch):
            buf = np.zeros(channels, x.dtype)
            for i in range(lo, hi):
                buf = rows[i] + buf
            total = total + buf
        mean = (total / count).astype(x.dtype)
        var = np.zeros(channels, np.float64)
        # (two rows are summed by one thread here, as PyTorch's variance pass does, and past 16
        # channels with the squares rounded before they are added: measured, 2 to 100 channels)
        unfused = n_batch == 2 and channels > 16
        for lo, hi in thread_ranges(n_batch) if n_batch != 2 else [(0, 2)]:
            buf = np.zeros(channels, x.dtype)
            for i in range(lo, hi):
                centred = rows[i] - mean
                buf = centred * centred + buf if unfused else fma(centred, centred, buf)
            var = var + buf
        return mean, var.astype(x.dtype)
    # element by element in the order n, then i: a left fold along the flattened (N, L) axis
    flat = np.moveaxis(x, 1, 0).reshape(channels, -1)
    total = np.zeros(channels, np.float64)
    for j in range(flat.shape[1]):
        total = total + flat[:, j]
    mean = (total / count).astype(x.dtype)
    centred = flat - mean[:, None]
    squares = centred * centred
    # For doubles the compiler vectorised the squares of each plane (4, then 2 at a time, unfused)
    # and fused the multiply-add of an odd last element into the double sum.
    fused_last = x.dtype == np.float64 and length % 2 == 1
    var = np.zeros(channels, np.float64)
    for j in range(squares.shape[1]):
        if fused_last and j % length == length - 1:
            var = fma(centred[:, j], centred[:, j], var)
        else:
            var = var + squares[:, j]
    return mean, var.astype(x.dtype)


def train_statistics(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(save_mean, save_invstd, var_sum) of a training step."""
    count = x.shape[0] * x.shape[2]
    mean, var_sum = batch_stats(x)
    f = x.dtype.type
    with np.errstate(all="ignore"):
        invstd = (1.0 / np.sqrt((var_sum / f(count)).astype(np.float64) + eps)).astype(x.dtype)
    return mean, invstd, var_sum


def update_running(running_mean: np.ndarray | None, running_var: np.ndarray | None, mean: np.ndarray,
                   var_sum: np.ndarray, count: int, momentum: float) -> None:
    """``running = m * stat + (1 - m) * running`` in place (PyTorch's float arithmetic)."""
    f = mean.dtype.type
    m = f(momentum)
    with np.errstate(all="ignore"):
        if running_mean is not None:
            running_mean[...] = m * mean + (f(1) - m) * running_mean
        if running_var is not None:
            unbiased = (var_sum / f(count - 1)).astype(np.float64)
            running_var[...] = np.float64(m) * unbiased + (f(1) - m) * running_var


def transform(x: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, mean: np.ndarray,
              invstd: np.ndarray) -> np.ndarray:
    """``y = x * alpha + beta`` per channel of ``x`` (N, C, L)."""
    channels = x.shape[1]
    w = np.ones(channels, x.dtype) if weight is None else weight
    b = np.zeros(channels, x.dtype) if bias is None else bias
    alpha = invstd * w
    beta = fma(-mean, alpha, b)
    return fma(x, alpha[None, :, None], beta[None, :, None])


def eval_invstd(running_var: np.ndarray, eps: float) -> np.ndarray:
    """The forward's eval-mode ``1 / sqrt(running_var + eps)``, in the input's dtype."""
    f = running_var.dtype.type
    with np.errstate(all="ignore"):
        return f(1) / np.sqrt(running_var + f(eps))


def backward(dy: np.ndarray, x: np.ndarray, weight: np.ndarray | None, mean: np.ndarray, invstd: np.ndarray,
             train: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(grad_input, grad_weight, grad_bias) for (N, C, L) arrays; in eval mode ``mean`` is the running
    mean and ``invstd`` comes from :func:`backward_eval_invstd`."""
    n_batch, channels, length = x.shape
    f = x.dtype.type
    count = n_batch * length
    w = np.ones(channels, x.dtype) if weight is None else weight
    width = lanes(x.dtype)
    with np.errstate(all="ignore"):
        if length == 1:
            rows, grads = x[:, :, 0], dy[:, :, 0]
            total = np.zeros(channels, np.float64)
            dot = np.zeros(channels, np.float64)
            for lo, hi in thread_ranges(n_batch):
                buf_s = np.zeros(channels, x.dtype)
                buf_p = np.zeros(channels, x.dtype)
                for i in range(lo, hi):
                    buf_s = buf_s + grads[i]
                    buf_p = fma(rows[i] - mean, grads[i], buf_p)
                total = total + buf_s
                dot = dot + buf_p
            sums, dotp = total.astype(x.dtype), dot.astype(x.dtype)
            if train:
                k = dotp * invstd * invstd / f(count)
                grad_mean = sums / f(count)
                dx = (grads - grad_mean - (rows - mean) * k) * invstd * w
                full = channels - channels % width
                if full:
                    dx[:, :full] = (fma(-(rows[:, :full] - mean[:full]), k[:full], grads[:, :full] - grad_mean[:full])
                                    * invstd[:full] * w[:full])
            else:
                dx = grads * invstd * w
            return dx[:, :, None], dotp * invstd, sums
        total = np.zeros(channels, np.float64)
        dot = np.zeros(channels, np.float64)
        for n in range(n_batch):
            plane_dy, plane_x = dy[n], x[n]
            total = total + _reduce_all(lambda lo, hi: (plane_dy[:, lo:hi], None), length, width, x.dtype)
            dot = dot + _reduce_all(lambda lo, hi: (plane_x[:, lo:hi] - mean[:, None], plane_dy[:, lo:hi]),
                                    length, width, x.dtype)
        inv = invstd[None, :, None]
        if train:
            k = (dot.astype(x.dtype) * invstd * invstd / f(count))[None, :, None]
            grad_mean = (total / count).astype(x.dtype)[None, :, None]
            dx = fma(-(x - mean[None, :, None]), k, dy - grad_mean) * inv * w[None, :, None]
        else:
            dx = dy * inv * w[None, :, None]
        return dx, (dot * invstd.astype(np.float64)).astype(x.dtype), total.astype(x.dtype)


def backward_eval_invstd(running_var: np.ndarray, eps: float) -> np.ndarray:
    """The backward's eval-mode ``1 / sqrt(running_var + eps)``: computed in double, then rounded."""
    with np.errstate(all="ignore"):
        return (1.0 / np.sqrt(running_var.astype(np.float64) + eps)).astype(running_var.dtype)
