"""NumPy kernels of a convolution: im2col and one matrix product per group.

Every kernel works on two spatial dims; a 1-d convolution is a 2-d one with a
height of 1 (as PyTorch's CPU kernel views it).  The windows of the padded
input are a strided view (no copy) that one ``reshape`` turns into the column
matrix; the gradient of the input adds the columns back with one slice per
kernel element, so no Python loop ever runs over pixels.  The float32 sums
are BLAS's, which may differ in the last bit from oneDNN's order.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

Ints = Sequence[int]


def out_size(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def _padded(x: np.ndarray, pad: Ints) -> np.ndarray:
    x = np.ascontiguousarray(x)
    if not any(pad):
        return x
    return np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))


def columns(x: np.ndarray, kernel: Ints, stride: Ints, pad: Ints, dilation: Ints, groups: int) -> np.ndarray:
    """The im2col matrix of ``x`` (N, C, H, W): shape (N, groups, C/groups * kh * kw, OH * OW)."""
    n, c, h, w = x.shape
    kh, kw = kernel
    oh = out_size(h, kh, stride[0], pad[0], dilation[0])
    ow = out_size(w, kw, stride[1], pad[1], dilation[1])
    xp = _padded(x, pad)
    s_n, s_c, s_h, s_w = xp.strides
    # (a step along a dim of one element is never taken: 0 keeps a huge stride from overflowing)
    steps = [s_h * dilation[0] if kh > 1 else 0, s_w * dilation[1] if kw > 1 else 0,
             s_h * stride[0] if oh > 1 else 0, s_w * stride[1] if ow > 1 else 0]
    windows = as_strided(xp, (n, c, kh, kw, oh, ow), (s_n, s_c, *steps), writeable=False)
    return windows.reshape(n, groups, c // groups * kh * kw, oh * ow)


def forward(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, stride: Ints, pad: Ints, dilation: Ints,
            groups: int) -> np.ndarray:
    """The output (N, O, OH, OW) of a 2-d convolution."""
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh = out_size(h, kh, stride[0], pad[0], dilation[0])
    ow = out_size(wd, kw, stride[1], pad[1], dilation[1])
    cols = columns(x, (kh, kw), stride, pad, dilation, groups)
    if x.shape[1] == 0:  # (PyTorch's empty-input path: an output of the input's 0 channels)
        return np.zeros((n, 0, oh, ow), dtype=x.dtype)
    wm = np.ascontiguousarray(w).reshape(groups, o // groups, cols.shape[2])
    out = np.matmul(wm, cols).reshape(n, o, oh, ow)
    if bias is not None:
        out += bias.reshape(1, o, 1, 1)
    return out


def channels_last(a: np.ndarray) -> bool:
    """PyTorch's ``suggest_memory_format`` is channels-last: NHWC in memory, not also NCHW."""
    return a.ndim == 4 and not a.flags.c_contiguous and a.transpose(0, 2, 3, 1).flags.c_contiguous


def like_layout(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` in channels-last memory when ``x`` is (PyTorch's kernels keep the input's format)."""
    if channels_last(x):
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    return out


def input_grad(g: np.ndarray, w: np.ndarray, in_size: Ints, stride: Ints, pad: Ints, dilation: Ints,
               groups: int) -> np.ndarray:
    """The gradient of the input (N, C, H, W) from the output's gradient ``g`` (N, O, OH, OW)."""
    n, o, oh, ow = g.shape
    _, cg, kh, kw = w.shape
    h, wd = in_size
    c = cg * groups
    wm = np.ascontiguousarray(w).reshape(groups, o // groups, cg * kh * kw)
    gm = np.ascontiguousarray(g).reshape(n, groups, o // groups, oh * ow)
    cols = np.matmul(wm.transpose(0, 2, 1), gm).reshape(n, c, kh, kw, oh, ow)
    hp, wp = h + 2 * pad[0], wd + 2 * pad[1]
    out = np.zeros((n, c, hp, wp), dtype=cols.dtype)
    span_h, span_w = stride[0] * (oh - 1) + 1, stride[1] * (ow - 1) + 1
    for i in range(kh):  # (one slice per kernel element: the pixels are NumPy's)
        top = i * dilation[0]
        for j in range(kw):
            left = j * dilation[1]
            out[:, :, top:top + span_h:stride[0], left:left + span_w:stride[1]] += cols[:, :, i, j]
    return out[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd]


def weight_grad(g: np.ndarray, x: np.ndarray, kernel: Ints, stride: Ints, pad: Ints, dilation: Ints,
                groups: int) -> np.ndarray:
    """The gradient of the weight (O, C/groups, kh, kw) from ``g`` (N, O, OH, OW) and the input."""
    n, o, oh, ow = g.shape
    c = x.shape[1]
    cols = columns(x, kernel, stride, pad, dilation, groups)           # (N, G, K, L)
    k = cols.shape[2]
    cols = cols.transpose(1, 2, 0, 3).reshape(groups, k, n * oh * ow)
    gm = np.ascontiguousarray(g).reshape(n, groups, o // groups, oh * ow)
    gm = gm.transpose(1, 2, 0, 3).reshape(groups, o // groups, n * oh * ow)
    return np.matmul(gm, cols.transpose(0, 2, 1)).reshape(o, c // groups, kernel[0], kernel[1])
