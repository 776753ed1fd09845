"""``F.pad`` with constant padding: ``constant_pad_nd`` (``ConstantPadNdBackward0``); the reflect,
replicate and circular modes are ``padding_modes.py``'s.

Pads are given from the last dimension backwards, a (left, right) pair per
dimension; a negative pad crops.  The gradient is the padding undone: the same
op with the pads negated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.signature import LazyParser
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from ..tensor import Tensor

CATALOG = Catalog()
defop = CATALOG.defop


def _constant_pad_forward(b: dict) -> Any:
    x, pad, value = b["self"], list(b["pad"]), b["value"]
    if len(pad) % 2 != 0:
        raise TorchRuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    sizes = x.shape
    l_inp = x.ndim
    l_pad = len(pad) // 2
    l_diff = l_inp - l_pad
    if l_inp < l_pad:
        raise TorchRuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. Pad length is "
            f"{len(pad)}while the input has {l_inp}dimensions.")
    a = x._data
    crop = [slice(None)] * l_inp
    for i in range(l_diff, l_inp):
        pad_idx = 2 * (l_inp - i - 1)
        start, stop = 0, sizes[i]
        if pad[pad_idx] < 0:
            start = -pad[pad_idx]
        if pad[pad_idx + 1] < 0:
            stop = sizes[i] + pad[pad_idx + 1]
        if stop - start < 0:
            raise TorchRuntimeError("narrow(): length must be non-negative.")
        crop[i] = slice(start, stop)
    cropped = a[tuple(crop)]
    new_shape = list(sizes[:l_diff])
    for i in range(l_pad):
        pad_idx = len(pad) - ((i + 1) * 2)
        new_dim = sizes[l_diff + i] + pad[pad_idx] + pad[pad_idx + 1]
        if new_dim <= 0 and any(p > 0 for p in pad):
            raise TorchRuntimeError(
                f"The input size {sizes[l_diff + i]}, plus negative padding {pad[pad_idx]} and {pad[pad_idx + 1]} "
                f"resulted in a negative output size, which is invalid. Check dimension {l_diff + i} of your input.")
        new_shape.append(new_dim)
    fill = np.asarray(value).astype(a.dtype) if a.dtype != np.bool_ else np.asarray(bool(value))
    out = np.full(tuple(max(n, 0) for n in new_shape), fill, dtype=a.dtype)
    place = [slice(None)] * l_inp
    for i in range(l_diff, l_inp):
        left = max(pad[2 * (l_inp - i - 1)], 0)
        place[i] = slice(left, left + cropped.shape[i])
    out[tuple(place)] = cropped
    return out


CONSTANT_PAD_ND = defop(
    "constant_pad_nd", "constant_pad_nd(Tensor input, int[] pad, Scalar value=0)", _constant_pad_forward,
    node="ConstantPadNdBackward0", method=False, exposes=("pad",), vmap="unary",
    jvp=lambda b, t, outputs: constant_pad_nd(t["self"], b["pad"], 0),  # (the padding's value has no tangent)
    derivs={"self": d(rule="grad with the padding cut off")(lambda g, s: constant_pad_nd(g, [-p for p in s.pad], 0))})


def constant_pad_nd(x: Tensor, pad: list[int], value: Any = 0) -> Tensor:
    return run(CONSTANT_PAD_ND, {"self": x, "pad": list(pad), "value": value})


_PAD = LazyParser('pad(Tensor input, int[] pad, str mode="constant", any value=None)')


def pad(input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Tensor:  # noqa: A002 - PyTorch's names
    """``F.pad(input, pad, mode="constant", value=None)``: a Python function passing its arguments by position
    to ``torch._C._nn.pad``, whose parser checks them."""
    _, b = _PAD.parse((input, pad, mode, value), {})
    input, pad, mode, value = b["input"], list(b["pad"]), b["mode"], b["value"]
    if value is not None and not isinstance(value, (int, float)):
        raise TorchTypeError(f"pad(): argument 'value' (position 4) must be float, not {type(value).__name__}")
    dim = input.dim()
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise TorchNotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2 != 0:
        raise TorchRuntimeError("Padding length must be divisible by 2")
    if len(pad) > dim * 2:
        raise TorchRuntimeError("Padding length should be less than or equal to two times the input dimension but "
                                f"got padding length {len(pad)} and input of dimension {dim}")
    if mode == "constant":
        return CONSTANT_PAD_ND(input, pad, 0.0 if value is None else float(value))
    if value is not None and value != 0:
        raise TorchRuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    from .padding_modes import pad_by_mode  # (loaded on first use)
    return pad_by_mode(input, pad, mode)


CATALOG.register(pad, "pad", namespaces=("nn.functional",))
