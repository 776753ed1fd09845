"""Forward-mode formulas: the tangent an op gives its outputs, from its record's ``jvp``.

``Op.jvp`` says how (beside ``Op.derivs``, the backward formulas it reuses):

- ``POINTWISE``: the op works element by element, so each input's Jacobian is diagonal and the
  backward formula applied to that input's tangent (broadcast to the output) is its part of
  the JVP (PyTorch's ``result: auto_element_wise``);
- ``LINEAR``: the op is linear in its differentiable inputs together (views, sums, ``cat``,
  ``where``, ``index_put``, ``copy_``): the op itself applied to the tangents, zeros standing
  in for inputs without one (``result: auto_linear``);
- ``MULTILINEAR``: linear in each input alone (``mm``, ``matmul``, ``dot``): the sum, over the
  inputs with a tangent, of the op with that input replaced by its tangent;
- a function ``(bound, tangents, outputs) -> tangent or list``, written out (``addmm``, softmax);
- ``None``: the backward formulas transposed.  For ``u`` of the output's shape, ``vjp(u) =
  J^T u`` is linear in ``u``, so ``J v`` is the gradient of ``<vjp(u), v>`` with respect to
  ``u``: a double backward, right for any op whose formulas are differentiable (all are);
- ``NO_JVP``: PyTorch has no forward formula; a dual input is its error.

A non-float output (indices, masks) never has a tangent.  Every rule runs with the runner's
tangent tracking suspended (``forward_ad.suspended``), so a tangent carries none of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..autograd import grad_mode
from ..autograd.formulas import NOT_IMPLEMENTED
from ..autograd.node import Saved
from ..autograd.record import node_name_of
from ..errors import TorchNotImplementedError
from ..tensor import Tensor
from .op import LINEAR, MULTILINEAR, NO_JVP, POINTWISE

if TYPE_CHECKING:
    from .op import Op


def not_supported(op: "Op", inplace: bool = False) -> TorchNotImplementedError:
    """PyTorch's error for an op without a forward formula; an in-place call names ``op_``."""
    name = op.name.lstrip('_') + ("_" if inplace else "")
    return TorchNotImplementedError(f"Trying to use forward AD with aten::{name} that does not support it.")


def _without_formula(op: "Op", name: str, bound: dict) -> bool:
    """No derivative for input ``name`` in this call (an overload's node may have none:
    ``remainder(2, x)`` is PyTorch's NotImplemented node)."""
    deriv = op.derivs.get(name)
    if deriv is None:
        return True
    rule = deriv.rule_for(node_name_of(op, bound) or "") if deriv.node_rules else deriv.rule
    return rule == NOT_IMPLEMENTED


def check_supported(op: "Op", bound: dict, tangents: dict, outputs_float: bool = True,
                    inplace: bool = False) -> None:
    """PyTorch refuses a dual input to an op without a forward formula before its kernel runs."""
    missing = op.jvp == NO_JVP or (op.jvp in (None, POINTWISE) and any(
        _without_formula(op, name, bound) for name in tangents))
    if missing and outputs_float:
        raise not_supported(op, inplace)


def output_tangents(op: "Op", bound: dict, tangents: dict, outputs: list, inplace: bool = False) -> list:
    """One tangent (or None) per output, by ``op.jvp``; ``tangents``: input name -> its tangent
    (a list of tangents or Nones for a list input), only for inputs that have one."""
    try:
        found = _by_rule(op, bound, tangents, outputs)
    except TorchNotImplementedError as error:
        if inplace and str(error) == str(not_supported(op)):
            raise not_supported(op, inplace=True) from None
        raise
    if not op.view:
        # a formula may hand back an input's own tangent (add's is grad itself): an output's
        # tangent must be its own, or an in-place write into it would change the input's --
        # unless PyTorch's formula hands it on as it is and its layout is the output's
        passes = op.jvp_passes_tangent(bound) if callable(op.jvp_passes_tangent) else op.jvp_passes_tangent
        own = tangents.get("self") if passes else None
        if own is not None and own._data.strides != outputs[0]._data.strides:
            own = None
        given = [t for v in tangents.values() for t in (v if isinstance(v, list) else [v]) if t is not None]
        found = [t.clone() if t is not None and t is not own and
                 any(np.may_share_memory(t._data, g._data) for g in given) else t
                 for t in found]
    return found


def _by_rule(op: "Op", bound: dict, tangents: dict, outputs: list) -> list:
    rule = op.jvp
    if rule == NO_JVP or not any(o._dtype.is_floating_point for o in outputs):
        if any(o._dtype.is_floating_point for o in outputs):
            raise not_supported(op)
        return [None] * len(outputs)
    if rule is None:
        found = _transposed(op, bound, tangents, outputs)
    elif rule == POINTWISE:
        found = [pointwise(op, bound, tangents, outputs)]
    elif rule == LINEAR:
        found = _as_list(_run(op, _replaced(op, bound, tangents, zeros_for_rest=True)))
    elif rule == MULTILINEAR:
        total = None
        for name, tangent in tangents.items():
            term = _run(op, {**bound, name: tangent})
            total = term if total is None else total + term
        found = [total]
    else:
        found = _as_list(rule(bound, tangents, outputs))
    # (a comparison's "tangent" is a mask: none; in place into a float self, zeros)
    return [_fit(t, o) if t is not None and o._dtype.is_floating_point and t._dtype.is_floating_point else None
            for t, o in zip(found + [None] * (len(outputs) - len(found)), outputs)]


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _fit(tangent: Tensor, output: Tensor) -> Tensor:
    """The tangent in its output's shape and dtype (a term of a broadcast input is smaller)."""
    if tangent._data.shape != output._data.shape:
        tangent = tangent.expand(output.shape).contiguous()
    if tangent._dtype is not output._dtype:
        tangent = tangent.to(output._dtype)
    return tangent


def _run(op: "Op", bound: dict) -> Any:
    from .runner import run
    b = {k: v for k, v in bound.items() if k not in ("out", "_inplace")}
    return run(op, b)


def _zeros_like(t: Tensor) -> Tensor:
    z = Tensor._make(np.zeros_like(t._data), t._dtype)
    z._wrapped = t._wrapped
    return z


def _replaced(op: "Op", bound: dict, tangents: dict, zeros_for_rest: bool) -> dict:
    """The arguments with each differentiable input replaced by its tangent (or zeros)."""
    b = dict(bound)
    for name in op.inputs:
        value = b.get(name)
        given = tangents.get(name)
        if isinstance(value, Tensor):
            if given is not None:
                b[name] = given
            elif zeros_for_rest and name in op.derivs:   # (an integer operand too: where(c, ints, dual))
                b[name] = _zeros_like(value)
        elif isinstance(value, (list, tuple)):
            given = given or [None] * len(value)
            b[name] = [g if g is not None else (_zeros_like(v) if isinstance(v, Tensor) else v)
                       for v, g in zip(value, given)]
    return b


def saved_values(op: "Op", bound: dict, outputs: list) -> Saved:
    """What a backward formula reads (``s.self``, ``s.result``, ``s.self_sym_sizes``), from the
    call itself rather than from a node."""
    values = {k: v for k, v in bound.items()}
    for name in op.inputs:
        value = bound.get(name)
        if isinstance(value, Tensor):
            values[name + "_sym_sizes"] = value._data.shape
            values[name + "_dtype"] = value._dtype
    for i, output in enumerate(outputs):
        values["result" if i == 0 else f"result{i}"] = output
    values["_out_meta"] = [(o._data.shape, o._dtype) for o in outputs]
    return Saved(values)


def pointwise(op: "Op", bound: dict, tangents: dict, outputs: list) -> Tensor | None:
    """The POINTWISE rule (also for a written-out rule to fall back on)."""
    saved = saved_values(op, bound, outputs)
    shape = outputs[0]._data.shape
    total = None
    for name, tangent in tangents.items():
        if _without_formula(op, name, bound):
            raise not_supported(op)
        deriv = op.derivs[name]
        if tangent._data.shape != shape:
            tangent = tangent.expand(shape)
        term = deriv.fn(tangent, saved)
        total = term if total is None else total + term
    return total


def _transposed(op: "Op", bound: dict, tangents: dict, outputs: list) -> list:
    """J v as the gradient in u of <J^T u, v> (see the module's docstring)."""
    from ..autograd.backward import grad
    if any(_without_formula(op, name, bound) for name in tangents):
        raise not_supported(op)
    b = {k: v for k, v in bound.items() if k not in ("out", "_inplace")}
    inputs, directions = [], []
    for name, tangent in tangents.items():
        value = b[name]
        if isinstance(value, Tensor):
            b[name] = _leaf(value)
            inputs.append(b[name])
            directions.append(tangent)
        else:
            b[name] = list(value)
            for i, t in enumerate(tangent):
                if t is not None:
                    b[name][i] = _leaf(value[i])
                    inputs.append(b[name][i])
                    directions.append(t)
    recording = grad_mode._enabled   # (the caller's mode: a tangent made under no_grad has no graph)
    with grad_mode.enable_grad():
        from .runner import run
        result = _as_list(run(op, b))
        floats = [r for r in result if r._dtype.is_floating_point and r.requires_grad]
        if not floats:
            return [None] * len(result)
        us = [_needing_grad(_zeros_like(r)) for r in floats]
        grads = grad(floats, inputs, us, create_graph=True, allow_unused=True)
        total = None
        for g, v in zip(grads, directions):
            if g is not None:
                term = (g * v).sum()
                total = term if total is None else total + term
        if total is None or not total.requires_grad:
            jvps = [None] * len(us)
        else:
            # (differentiable in turn when a primal requires grad: reverse over forward)
            outer = recording and any(isinstance(v, Tensor) and v.requires_grad for v in _leaves_of(bound, tangents))
            jvps = list(grad([total], us, allow_unused=True, create_graph=outer))
    out, k = [], 0
    for r in result:
        if r._dtype.is_floating_point and r.requires_grad:
            j = jvps[k]
            out.append(j if j is not None else _zeros_like(r))
            k += 1
        else:
            out.append(_zeros_like(r) if r._dtype.is_floating_point else None)
    return out


def _leaves_of(bound: dict, tangents: dict) -> list:
    """The primal tensors given for the inputs that have tangents."""
    found = []
    for name in tangents:
        value = bound[name]
        found += list(value) if isinstance(value, (list, tuple)) else [value]
    return found


def _leaf(t: Tensor) -> Tensor:
    """The input to differentiate by: an alias in the graph when it requires grad (so the tangent
    is differentiable in turn, reverse over forward), else a new leaf sharing its data."""
    if t.requires_grad:
        with grad_mode.enable_grad():
            return t.view_as(t)
    leaf = Tensor._make(t._data, t._dtype)
    leaf._wrapped = t._wrapped
    leaf._fw = t._fw   # (nested forward transforms: the outer levels' tangents differentiate it too)
    return _needing_grad(leaf)


def _needing_grad(t: Tensor) -> Tensor:
    # (not Tensor.requires_grad_: a script may not call it inside a transform, the engine may)
    t._set_requires_grad(True, "")
    return t
