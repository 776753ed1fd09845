"""The runner's side of forward-mode AD: an op called with dual inputs gives dual outputs.

The runner calls these only while a dual level is visible (``forward_ad.watching``); each runs
the op as usual (``plain``), then the record's jvp rule (``jvp_rules``), and attaches the
tangents at the current level.  Both run with that level hidden, so under nested forward
transforms they carry the outer levels' tangents (the op's own, and the tangents' tangents).
An in-place op updates self's tangent in place, as PyTorch does, so the tangent of a view
stays a view of its base's tangent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..autograd import grad_mode
from ..autograd import forward_ad
from ..autograd.forward_ad import set_tangent, suspended, tangent_of
from ..autograd.node import SavedOutput
from ..tensor import Tensor
from ..autograd import record
from ..autograd.inplace import check_inplace_allowed
from .jvp_rules import check_supported, output_tangents

if TYPE_CHECKING:
    from .op import Op


def input_tangents(op: "Op", bound: dict, level: object) -> dict | None:
    """Input name -> tangent at ``level`` (a list, with Nones, for a list input), for the inputs
    that have one; None when no input has."""
    found: dict | None = None
    for name in op.inputs:
        value = bound.get(name)
        if isinstance(value, Tensor):
            tangent = tangent_of(value, level)
            if tangent is not None:
                found = found or {}
                found[name] = tangent
        elif isinstance(value, (list, tuple)):
            tangents = [tangent_of(v, level) if isinstance(v, Tensor) else None for v in value]
            if any(t is not None for t in tangents):
                found = found or {}
                found[name] = tangents
    return found


def _outputs(result: Any) -> list:
    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [r for r in result if isinstance(r, Tensor)]
    return []


def run_with_tangents(op: "Op", bound: dict, plain: Callable[["Op", dict], Any]) -> Any:
    """``plain(op, bound)``, its outputs given tangents when an input has one."""
    level = forward_ad.current()
    tangents = input_tangents(op, bound, level)
    if tangents is None:
        with suspended():   # (plain is the runner's own entry: it must not come back here)
            return plain(op, bound)
    arguments = dict(bound)
    with suspended():
        result = plain(op, bound)
    outputs = _outputs(result)
    if "out" in arguments and arguments["out"] is not None:
        return result
    with suspended():
        found = output_tangents(op, arguments, tangents, outputs)
    for output, tangent in zip(outputs, found):
        if tangent is not None:
            set_tangent(output, tangent, level)
            _saved_output_keeps(output)
    return result


def _saved_output_keeps(output: Tensor) -> None:
    """A node that saved this output (exp's result) gives its formulas the tangent too, so a
    backward pass run on dual tensors (forward-over-reverse) differentiates through it."""
    node = output._grad_fn
    saved = getattr(node, "_saved", None)
    if isinstance(saved, dict):
        for value in saved.values():
            if type(value) is SavedOutput and value.ref() is output:
                value.fw = output._fw


def run_inplace_with_tangents(op: "Op", bound: dict, plain: Callable[["Op", dict], Tensor]) -> Tensor:
    """An in-place op: self's new tangent from the values before the write (the out-of-place
    op on a copy of self), written into self's tangent."""
    level = forward_ad.current()
    tangents = input_tangents(op, bound, level)
    if tangents is None:
        with suspended():
            return plain(op, bound)
    target: Tensor = bound["self"]
    if target._dtype.is_floating_point:
        if grad_mode._enabled and record.records(op, bound):
            check_inplace_allowed(target)   # (PyTorch's order: this check, then forward AD's, then the kernel)
            if record.reads_self(op, bound):
                # self as the node saves it, with its tangents: a backward run under forward AD
                # (forward-over-reverse) differentiates through it
                bound["_original"] = target.clone()
        check_supported(op, bound, tangents, inplace=True)
    arguments = {k: v for k, v in bound.items() if k not in ("_inplace", "_original")}
    nested = forward_ad.outer_visible()
    arguments["self"] = _snapshot(target, nested)   # self as it was
    with suspended():   # (the write first: its checks come in PyTorch's order)
        out = plain(op, bound)
    result = _snapshot(target, nested)
    with suspended():
        found = output_tangents(op, arguments, tangents, [result], inplace=True)[0]
    if found is None and target._dtype.is_floating_point:
        # (a comparison or rounding written into self: its values have no derivative)
        found = Tensor._make(np.zeros_like(target._data), target._dtype)
    if found is not None:
        _write_tangent(target, found, level, nested)
    return out


def _snapshot(target: Tensor, nested: bool) -> Tensor:
    """A copy of ``target``'s values; under nested levels with its outer tangents copied too."""
    if not nested:
        return Tensor._make(target._data.copy(), target._dtype)
    with suspended(), grad_mode.no_grad():
        return target.clone()


def _write_tangent(target: Tensor, tangent: Tensor, level: object, nested: bool) -> None:
    own = tangent_of(target, level)
    if own is None:
        own = _new_tangent(target, level)
    if nested:   # (an op of the outer levels: the tangent's own tangent is written too)
        with suspended(), grad_mode.no_grad():
            own.copy_(tangent)
        return
    np.copyto(own._data, np.broadcast_to(tangent._data, own._data.shape), casting="unsafe")
    own._vc.value += 1


def _new_tangent(target: Tensor, level: object) -> Tensor:
    """A zero tangent for ``target``; for a view, a view of a tangent of its base (made zero if
    the base has none), so that later writes through either are seen by both."""
    base = target._base
    if base is not None and target._view_fn is not None and base._dtype.is_floating_point:
        base_tangent = tangent_of(base, level)
        if base_tangent is None:
            base_tangent = Tensor._make(np.zeros_like(base._data), base._dtype)
            set_tangent(base, base_tangent, level)
        with suspended(), grad_mode.no_grad():
            own = target._view_fn(base_tangent)
    else:
        own = Tensor._make(np.zeros_like(target._data), target._dtype)
    set_tangent(target, own, level)
    return own


def run_inplace_view_with_tangents(op: "Op", bound: dict, plain: Callable[["Op", dict], Tensor]) -> Tensor:
    """An in-place view op (``t_``, ``squeeze_``): self's tangent takes the same view."""
    target: Tensor = bound["self"]
    level = forward_ad.current()
    tangent = tangent_of(target, level)
    params = {k: v for k, v in bound.items() if k not in ("self", "_inplace")}
    with suspended():
        out = plain(op, bound)
        if tangent is not None:
            from .runner import run
            set_tangent(target, run(op, {**params, "self": tangent}), level)
    return out
