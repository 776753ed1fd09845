"""``F.pad`` with ``mode='reflect'`` and ``mode='replicate'``: ``reflection_pad{1,2,3}d`` and
``replication_pad{1,2,3}d`` (``ReflectionPad2DBackward0``, ...), PyTorch's checks in its order;
``mode='circular'`` is PyTorch's ``_pad_circular``, slices copied into a new tensor (``CopySlices``).

Each output element is an input element picked by an index per padded dim (a
reflection about the edge, or the edge repeated; a negative pad crops).  The
gradient adds each output's gradient back at its index, outputs in order, as
PyTorch's loop does, so the sums are its sums bit for bit.  That backward is an
op too (``...BackwardBackward0``), whose gradient is the padding again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..shape_rules import list_str
from ..tensor import Tensor

CATALOG = Catalog(jvp=LINEAR, vmap="padding")
defop = CATALOG.defop

def _indices(size: int, left: int, right: int, reflect: bool) -> np.ndarray:
    j = np.arange(size + left + right, dtype=np.int64) - left
    if reflect:
        j = np.where(j < 0, -j, j)
        return np.where(j >= size, 2 * (size - 1) - j, j)
    return np.clip(j, 0, size - 1)


def _check(x: Tensor, pad: tuple, n: int, reflect: bool) -> list[int]:
    """The meta function's checks; the output's padded sizes, first dim first."""
    s = x.shape
    batched = x.ndim == n + 2
    if any(v == 0 for v in s[1 if batched else 0:]):
        raise TorchRuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and "
                                f"other non-zero dimensions for input, but got: {list_str(s)}")
    if reflect:
        for k in range(n):  # W first, then H, then D
            dim = x.ndim - 1 - k
            left, right = pad[2 * k], pad[2 * k + 1]
            if not (left < s[dim] and right < s[dim]):
                raise TorchRuntimeError(
                    f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding input dimension, but "
                    f"got: padding ({left}, {right}) at dimension {dim} of input {list_str(s)}")
    sizes = [s[x.ndim - n + i] for i in range(n)]                       # D, H, W
    outs = [sizes[i] + pad[2 * (n - 1 - i)] + pad[2 * (n - 1 - i) + 1] for i in range(n)]
    if all(o < 1 for o in outs):
        if n == 1:
            message = f"input (W: {sizes[0]}) is too small. Calculated output W: {outs[0]}"
        elif n == 2:
            space = " " if not reflect else ""
            message = (f"input (H: {sizes[0]}, W: {sizes[1]}{space}) is too small. Calculated output H: {outs[0]} "
                       f"W: {outs[1]}")
        else:
            message = (f"input (D: {sizes[0]} H: {sizes[1]}, W: {sizes[2]}) is too small. Calculated output "
                       f"D: {outs[0]} H: {outs[1]} W: {outs[2]}")
        raise TorchRuntimeError(message)
    if any(o < 0 for o in outs):
        shape = list(s[:x.ndim - n]) + outs
        raise TorchRuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: {list_str(shape)}")
    return outs


def _grids(in_sizes: list[int], pad: tuple, reflect: bool) -> tuple:
    n = len(in_sizes)
    idx = [_indices(in_sizes[i], pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1], reflect) for i in range(n)]
    return np.ix_(*idx)


def _forward_for(n: int, reflect: bool, name: str) -> Any:
    def forward(b: dict) -> Any:
        x, pad = b["self"], tuple(b["padding"])
        _check(x, pad, n, reflect)
        if x._dtype.name == "bool":
            raise TorchNotImplementedError(f"\"{name}\" not implemented for 'Bool'")
        a = x._data
        return np.ascontiguousarray(a[(Ellipsis,) + _grids(list(a.shape[-n:]), pad, reflect)])
    return forward


def _backward_for(n: int, reflect: bool) -> Any:
    def forward(b: dict) -> Any:
        g, x, pad = b["grad_output"]._data, b["self"], tuple(b["padding"])
        in_sizes = list(x.shape[-n:])
        grids = np.broadcast_arrays(*_grids(in_sizes, pad, reflect))
        flat = np.ravel_multi_index(tuple(grids), tuple(in_sizes)).reshape(-1)
        planes = int(np.prod(x.shape[:-n], dtype=np.int64))
        per = int(np.prod(in_sizes, dtype=np.int64))
        out = np.zeros(planes * per, dtype=g.dtype)
        where = (np.arange(planes, dtype=np.int64)[:, None] * per + flat[None, :]).reshape(-1)
        np.add.at(out, where, np.ascontiguousarray(g).reshape(-1))  # (outputs in order, as PyTorch adds them)
        return out.reshape(x.shape)
    return forward


def _zeros_of_self(gg: Tensor, s: Any) -> Tensor:
    return Tensor._make(np.zeros(s.self_sym_sizes, dtype=gg._data.dtype))


OPS: dict[tuple[bool, int], Any] = {}
for _reflect, _kind in ((True, "Reflection"), (False, "Replication")):
    for _n in (1, 2, 3):
        _name = f"{_kind.lower()}_pad{_n}d"
        _backward = defop(
            _name + "_backward", f"{_name}_backward(Tensor grad_output, Tensor input, int[1] padding)",
            _backward_for(_n, _reflect), node=f"{_kind}Pad{_n}DBackwardBackward0", inputs=("grad_output", "self"),
            function=False, method=False,
            derivs={"grad_output": d(rule=f"{_name}(grad)")(
                        lambda gg, s, key=(_reflect, _n): run(OPS[key], {"self": gg, "padding": s.padding})),
                    "self": d(rule="0")(_zeros_of_self)})
        OPS[(_reflect, _n)] = defop(
            _name, f"{_name}(Tensor input, int[1] padding)", _forward_for(_n, _reflect, _name),
            node=f"{_kind}Pad{_n}DBackward0", function=False, method=False, exposes=("padding",),
            derivs={"self": d("self", rule="grad added back at the element each output copies")(
                lambda g, s, back=_backward: run(back, {"grad_output": g, "self": s.self, "padding": s.padding}))})


def _circular(x: Tensor, pad: list[int]) -> Tensor:
    """``_pad_circular``: the input copied into the middle, then each side copied from the far end."""
    n = len(pad) // 2
    kept = x.ndim - n
    shape = list(x.shape)
    for i in range(n):
        left, right = pad[2 * (n - i - 1)], pad[2 * (n - i - 1) + 1]
        size = x.shape[kept + i]
        shape[kept + i] = size + left + right
        if not (left <= size and right <= size):
            raise TorchRuntimeError("Padding value causes wrapping around more than once.")
        if shape[kept + i] < 0:
            raise TorchRuntimeError("Negative padding value is resulting in an empty dimension")
    out = x.new_empty(tuple(shape))
    out_part, in_part = out, x
    for i in range(n):
        dim = n - i + kept - 1
        left, right = pad[2 * i], pad[2 * i + 1]
        start = max(left, 0)
        out_part = out_part.narrow(dim, start, shape[dim] - max(right, 0) - start)
        start = max(-left, 0)
        in_part = in_part.narrow(dim, start, x.shape[dim] - max(-right, 0) - start)
    out_part.copy_(in_part)
    for i in range(n):
        dim = n - i + kept - 1
        left, right = pad[2 * i], pad[2 * i + 1]
        if left > 0:
            out.narrow(dim, 0, left).copy_(out.narrow(dim, shape[dim] - left - max(right, 0), left))
        if right > 0:
            out.narrow(dim, shape[dim] - right, right).copy_(out.narrow(dim, max(left, 0), right))
    return out


def pad_by_mode(x: Tensor, pad: list[int], mode: str) -> Tensor:
    """``F.pad`` with ``mode`` 'reflect', 'replicate' or 'circular', after ``pad``'s own checks."""
    n = len(pad) // 2
    if not (len(pad) in (2, 4, 6) and x.ndim in (n + 1, n + 2)):
        raise TorchNotImplementedError(
            f"Padding size {len(pad)} is not supported for {x.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        return _circular(x, pad)
    return run(OPS[(mode == "reflect", n)], {"self": x, "padding": tuple(pad)})
