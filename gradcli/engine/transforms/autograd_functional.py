"""``torch.autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp.

Built, as in PyTorch, from ``autograd.grad``: a Jacobian is one
vector-Jacobian product per output element, a JVP is the "double-vjp" trick,
and second-order products differentiate a gradient computed with
``create_graph=True``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..autograd import grad_mode
from ..autograd.backward import grad
from ..errors import TorchRuntimeError
from ..ops.joining import STACK
from ..tensor import Tensor
from ..callbacks import call
from .checks import check_callable, tensor_tuple, user_outputs


def _as_tuple(x: Any, arg_name: str, fn_name: str) -> tuple[tuple, bool]:
    """(the tuple, whether it was one), every element a Tensor as PyTorch checks it."""
    is_tuple, items = tensor_tuple(x, arg_name, fn_name)
    return items, is_tuple


def _outputs(out: Any, fn_name: str) -> tuple[tuple, bool]:
    is_tuple, items = user_outputs(out, fn_name)
    return items, is_tuple


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    """PyTorch's _validate_v: one v per tensor of ``other``, each of its size."""
    if len(other) != len(v):
        if is_other_tuple:
            raise TorchRuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise TorchRuntimeError("The given v should contain a single Tensor.")
    for index, (vec, t) in enumerate(zip(v, other)):
        if vec.shape != t.shape:
            where = f"Entry {index} in " if is_other_tuple else ""
            raise TorchRuntimeError(f"{where}v has invalid size: should be {t.size()} but got {vec.size()}.")


def _prepare(inputs: tuple) -> tuple:
    """Fresh leaves that require grad, as PyTorch's functional API makes them."""
    out = []
    for t in inputs:
        leaf = t.detach()
        leaf._requires_grad = True
        out.append(leaf)
    return tuple(out)


def _zeros_like(t: Any) -> Any:
    return Tensor._make(np.zeros_like(t._data), t._dtype)


def _grads(outputs: Any, inputs: tuple, grad_outputs: Any, create_graph: bool) -> tuple:
    """grad(), with unused inputs and outputs that do not require grad giving zeros."""
    if not outputs.requires_grad:
        return tuple(_zeros_like(t) for t in inputs)
    result = grad(outputs, inputs, grad_outputs, retain_graph=True, create_graph=create_graph,
                  allow_unused=True)
    return tuple(_zeros_like(t) if g is None else g for g, t in zip(result, inputs))


def _call(func: Callable, inputs: tuple) -> Any:
    with grad_mode.enable_grad():
        return call(func, *inputs)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    ins, is_tuple = _as_tuple(inputs, "inputs", "vjp")
    ins = _prepare(ins)
    out = _call(func, ins)
    outs, out_tuple = _outputs(out, "vjp")
    if v is None:
        if len(outs) != 1 or outs[0].numel() != 1:
            raise TorchRuntimeError(
                "The vector v can only be None if the user-provided function returns a single Tensor "
                "with a single element.")
        vs = tuple(None for _ in outs)
    else:
        vs, _ = _as_tuple(v, "v", "vjp")
        _validate_v(vs, outs, out_tuple)
    # PyTorch's _autograd_grad: one grad() over the outputs that require grad, so the engine
    # adds up their contributions and a single output's vjp keeps its own grad_fn (MulBackward0
    # for exp, not an AddBackward0 of a sum with zeros); unused inputs get zeros.
    pairs = [(o, vec) for o, vec in zip(outs, vs) if o.requires_grad]
    with grad_mode.enable_grad():
        if pairs:
            found = grad(tuple(o for o, _ in pairs), ins, tuple(vec for _, vec in pairs),
                         retain_graph=create_graph, create_graph=create_graph, allow_unused=True)
        else:
            found = (None,) * len(ins)
    result = tuple(_zeros_like(t) if g is None else (g if create_graph else g.detach())
                   for g, t in zip(found, ins))
    out_value = out if create_graph else _detach_all(out)
    return out_value, (result if is_tuple else result[0])


def _detach_all(out: Any) -> Any:
    if isinstance(out, tuple):
        return tuple(o.detach() for o in out)
    return out.detach()


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    ins, is_tuple = _as_tuple(inputs, "inputs", "jacobian")
    ins = _prepare(ins)
    out = _call(func, ins)
    outs, out_tuple = _outputs(out, "jacobian")
    per_output = []
    with grad_mode.enable_grad():
        for o in outs:
            flat = o.reshape(-1)
            rows: list[list] = [[] for _ in ins]
            for k in range(flat.numel()):
                gs = _grads(flat[k], ins, None, create_graph)
                for i, g in enumerate(gs):
                    rows[i].append(g if create_graph else g.detach())
            blocks = []
            for i, t in enumerate(ins):
                if rows[i]:
                    stacked = STACK(rows[i])
                else:
                    stacked = Tensor._make(np.zeros((0,) + t._data.shape, dtype=t._dtype.np), t._dtype)
                blocks.append(stacked.reshape(tuple(o.shape) + tuple(t.shape)))
            per_output.append(tuple(blocks) if is_tuple else blocks[0])
    if out_tuple:
        return tuple(per_output)
    return per_output[0]


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    ins, is_tuple = _as_tuple(inputs, "inputs", "hessian")
    check_callable(func)

    def gradient(*args: Any) -> Any:
        out = call(func, *args)
        _, out_tuple = _outputs(out, "hessian")
        if out_tuple:
            raise TorchRuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise TorchRuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element")
        gs = grad(out, args, create_graph=True, allow_unused=True)
        gs = tuple(_zeros_like(a) if g is None else g for g, a in zip(gs, args))
        return gs if is_tuple else gs[0]

    return jacobian(gradient, ins if is_tuple else ins[0], create_graph=create_graph)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    ins, is_tuple = _as_tuple(inputs, "inputs", "jvp")
    ins = _prepare(ins)
    vs = _v_for_inputs(v, ins, is_tuple, "jvp")
    out = _call(func, ins)
    outs, out_tuple = _outputs(out, "jvp")
    results = []
    with grad_mode.enable_grad():
        for o in outs:
            # The double-vjp trick: J v = d/du (u^T J) v, with a dummy u.
            u = _zeros_like(o)
            u._requires_grad = True
            gs = grad(o, ins, u, create_graph=True, allow_unused=True)
            total = None
            for g, vec in zip(gs, vs):
                if g is None:
                    continue
                jv = grad(g, u, vec, create_graph=create_graph, allow_unused=True)[0]
                if jv is not None:
                    total = jv if total is None else total + jv
            results.append(_zeros_like(o) if total is None else (total if create_graph else total.detach()))
    out_value = out if create_graph else _detach_all(out)
    return out_value, (tuple(results) if out_tuple else results[0])


def _v_for_inputs(v: Any, ins: tuple, is_tuple: bool, fn_name: str) -> tuple:
    """The v of jvp, hvp and vhp, one per input (ones for a single one-element input)."""
    if v is None:
        if len(ins) != 1 or ins[0].numel() != 1:
            raise TorchRuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single "
                "Tensor with a single element.")
        return tuple(t.detach() * 0 + 1 for t in ins)
    vs, _ = _as_tuple(v, "v", fn_name)
    _validate_v(vs, ins, is_tuple)
    return vs


def _second_order(func: Callable, inputs: Any, v: Any, create_graph: bool, hvp_order: bool) -> tuple:
    name = "hvp" if hvp_order else "vhp"
    ins, is_tuple = _as_tuple(inputs, "inputs", name)
    ins = _prepare(ins)
    vs = _v_for_inputs(v, ins, is_tuple, name)
    with grad_mode.enable_grad():
        out = _call(func, ins)
        _, out_tuple = _outputs(out, name)
        if out_tuple:
            raise TorchRuntimeError(f"The function given to {name} must return a single Tensor")
        if out.numel() != 1:
            raise TorchRuntimeError(
                f"The Tensor returned by the function given to {name} should contain a single element")
        gs = grad(out, ins, create_graph=True, allow_unused=True)
        gs = tuple(_zeros_like(a) if g is None else g for g, a in zip(gs, ins))
        dot = None
        for g, vec in zip(gs, vs):
            term = (g * vec).sum()
            dot = term if dot is None else dot + term
        second = _grads(dot, ins, None, create_graph)
    result = tuple(t if create_graph else t.detach() for t in second)
    return (out if create_graph else out.detach()), (result if is_tuple else result[0])


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    # For a twice-differentiable scalar function the Hessian is symmetric, so H v = v^T H.
    return _second_order(func, inputs, v, create_graph, hvp_order=True)


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    return _second_order(func, inputs, v, create_graph, hvp_order=False)
