"""Running an op from its record: out of place, in place, or as an in-place view op.

The runner knows no op by name: every difference between ops is a field of
their record (``gradcli.engine.dispatch.op.Op``).  Recording the graph is
autograd's (``autograd.record``, ``autograd.inplace``, ``autograd.views``);
the runner calls it at the points PyTorch does: edges are collected before
the kernel, the node is made after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from ..autograd import forward_ad, grad_mode, node_plans, record
from ..batching import state as vmap_state
from ..autograd.inplace import EdgeHolder, check_inplace_allowed, rebase_history
from ..autograd.views import mark_view
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..shape_rules import broadcast_all, list_str
from ..tensor import Tensor, wrap_scalar
from .. import budget as limits
from .memory import INTERNAL_OVERLAP_MESSAGE, check_no_partial_overlap, repeats, write_into
from .signature import py_type_name

if TYPE_CHECKING:
    from .op import Op


def rename_input(bound: dict) -> None:
    # Signatures say "input" as PyTorch's docs do; formulas and forwards say "self".
    if "input" in bound:
        bound["self"] = bound.pop("input")


def _wrap_numbers(op: "Op", bound: dict) -> None:
    for name in op.inputs:
        value = bound.get(name)
        if value is not None and not isinstance(value, (Tensor, list)):
            bound[name] = wrap_scalar(value)


# -- out of place ------------------------------------------------------------------------------

def run(op: "Op", bound: dict) -> Any:
    """Run ``op`` out of place on bound arguments; record the graph if needed."""
    _wrap_numbers(op, bound)
    return run_wrapped(op, bound)


def run_wrapped(op: "Op", bound: dict) -> Any:
    """``run`` for arguments whose numbers are already tensors (the operators wrap their own)."""
    if vmap_state.depth:  # (a vmap is running: batched inputs go to the op's batch rule first)
        from ..batching.dispatch import batched_level, run_batched
        level = batched_level(bound)
        if level:
            return run_batched(op, bound, level, run_wrapped)
    if forward_ad.watching:  # (a dual level is open: the outputs of dual inputs get tangents)
        from .dual_ops import run_with_tangents
        return run_with_tangents(op, bound, run_wrapped)
    out = bound.pop("out", None) if "out" in bound else None
    if limits.big_views and not op.view:  # (then an input may look far larger than its memory)
        limits.check_expanded(bound.get("self"))
    plan = node_plans.plan_for(op, bound) if grad_mode._enabled and op.node is not None else None
    if plan is node_plans.GENERAL:
        return _run_general(op, bound, out)
    result = op.forward(bound)
    if type(result) is tuple:
        return _run_general(op, bound, out, result)
    if limits._max_elements is not None and not op.view:  # (--max-memory is checked before
        limits.check_array(result)                           # kernels, by the ops themselves)
    elif op.view and getattr(result, "size", 0) > limits.watch_elements:
        limits.note_view(result)
    if op.contiguous:  # (np.ascontiguousarray would make a 0-dim result 1-dim)
        result = _c_order(result)
    if out is not None:
        return write_out(op, bound, result, out)
    output = Tensor._make(result)
    if op.view:
        _mark_views(op, bound, (output,), False)
    if plan is not None:
        plan.attach(bound, output)
    return output


_NOT_RUN = object()


def _run_general(op: "Op", bound: dict, out: Any, result: Any = _NOT_RUN) -> Any:
    """``run`` for the calls a node plan leaves to ``record.attach`` (views, lists of tensors,
    several outputs); ``result`` when the kernel already ran (a planned call, no view among its
    inputs, whose op gave several outputs)."""
    recording = record.records(op, bound)
    before = None
    if recording and record.node_name_of(op, bound) is not None:
        # PyTorch collects the edges before the kernel (a stale view fails first); the node
        # takes them from here
        before = record.edges_before(record.tensor_inputs(op, bound, with_self=True))
    if result is _NOT_RUN:
        result = op.forward(bound)
    multi = isinstance(result, tuple)
    results = result if multi else (result,)
    for r in results:
        if limits._max_elements is not None and not op.view:
            limits.check_array(r)
        elif op.view and getattr(r, "size", 0) > limits.watch_elements:
            limits.note_view(r)
    if op.contiguous:
        results = tuple(_c_order(r) for r in results)
    if out is not None:
        return write_out(op, bound, results if multi else results[0], out)
    outputs = tuple(Tensor._make(a) for a in results)
    if op.view:
        _mark_views(op, bound, outputs, multi)
    if recording:
        record.attach(op, bound, outputs, multi=multi, before=before)
    if not multi:
        return outputs[0]
    return op.returns(*outputs) if op.returns is not None else outputs


def _c_order(a: Any) -> Any:
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _mark_views(op: "Op", bound: dict, outputs: tuple[Tensor, ...], many: bool) -> None:
    params = {k: v for k, v in bound.items() if k != "self"}
    src = bound["self"]
    for i, out in enumerate(outputs):
        if many:
            replay = lambda b, i=i: run(op, {**params, "self": b})[i]  # noqa: E731
        else:
            replay = lambda b: run(op, {**params, "self": b})  # noqa: E731
        mark_view(src, out, replay, multi=many)


def write_out(op: "Op", bound: dict, result: Any, out: Any) -> Any:
    """The ``out=`` form: the result written into ``out`` (resized if its shape differs)."""
    if not isinstance(out, Tensor):
        raise TorchRuntimeError(f"out must be a Tensor, not {py_type_name(out)}")
    if grad_mode._enabled and (record.any_requires_grad(op, bound) or out.requires_grad):
        raise TorchRuntimeError(
            f"{op.name}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad.")
    if repeats(out._data):
        # an expanded out (read-only here): TensorIterator refuses it before the dtype check
        # (a few kernels, sum and mv among them, write it anyway: not followed)
        raise TorchRuntimeError(INTERNAL_OVERLAP_MESSAGE)
    array = np.asarray(result)
    src = dtypes.from_numpy(array.dtype)
    if not dtypes.can_cast(src, out._dtype):
        raise TorchRuntimeError(
            f"result type {src.legacy_name} can't be cast to the desired output type {out._dtype.legacy_name}")
    if out.shape != array.shape:
        out._data = np.empty(array.shape, dtype=out._dtype.np)  # PyTorch resizes out
    np.copyto(out._data, array, casting="unsafe")
    out._vc.value += 1
    return out


# -- in place ----------------------------------------------------------------------------------

def run_inplace(op: "Op", bound: dict) -> Tensor:
    """Run ``op`` writing into ``bound['self']``, with PyTorch's checks and graph rewiring."""
    _wrap_numbers(op, bound)
    if vmap_state.depth:
        from ..batching.dispatch import batched_level, run_batched
        level = batched_level(bound)
        if level:
            return run_batched(op, bound, level, run_inplace, inplace=True)
    if forward_ad.watching:
        from .dual_ops import run_inplace_with_tangents
        return run_inplace_with_tangents(op, bound, run_inplace)
    bound["_inplace"] = True  # for ops whose node depends on the form
    target: Tensor = bound["self"]
    needs_grad = record.records(op, bound)
    if op.grad_only_into_float and not target._dtype.is_floating_point:
        needs_grad = False
    original = bound.pop("_original", None)   # (forward AD made it: dual_ops.py)
    if needs_grad:
        check_inplace_allowed(target)  # before the kernel's own checks, as in PyTorch
        if original is None and record.reads_self(op, bound):
            # PyTorch saves self.clone() before the kernel runs: an integer self that requires
            # grad fails here ("Autograd not support dtype") before any cast error
            original = target.clone()
    if op.meta is not None:
        op.meta(bound)
    memory = op.inplace_memory(bound) if callable(op.inplace_memory) else op.inplace_memory
    if memory in ("checked", "unique"):  # memory first (index_put_ checks its own way)
        if repeats(target._data):
            raise TorchRuntimeError(INTERNAL_OVERLAP_MESSAGE)
        if memory == "checked":
            check_no_partial_overlap(target, record.tensor_inputs(op, bound))
    result = _inplace_result(op, bound, target)
    before = None
    if needs_grad:
        self_edge_holder = EdgeHolder(target)
        before = record.edges_before([t for t in record.tensor_inputs(op, bound) if t._vc is target._vc])
    if memory == "untouched":
        target._vc.value += 1  # x.copy_(x) writes nothing (even into an expanded x), but counts
    else:
        write_into(target, result, allow_overlap=memory != "checked")
    if needs_grad:
        node = record.attach(op, bound, (), inplace_self=(self_edge_holder, original), before=before)
        if node is None:
            return target
        rebase_history(target, node)
        record.save_inplace_result(op, bound, node, target)
    return target


def _inplace_result(op: "Op", bound: dict, target: Tensor) -> np.ndarray:
    """The kernel's result, checked against self as PyTorch checks it: the shape, then the dtype."""
    try:
        result = np.asarray(op.forward(bound))
    except (TorchNotImplementedError, TorchRuntimeError) as e:
        if isinstance(e, TorchRuntimeError) and str(e) != "ZeroDivisionError":
            raise
        # A kernel's error: PyTorch checks the broadcast shape against self, then finds the
        # common dtype (and that it can't be written back), all before the kernel
        inputs = record.tensor_inputs(op, bound, with_self=True)
        if op.inplace_broadcasts:
            shape = broadcast_all([t.shape for t in inputs])
            if tuple(shape) != target.shape:
                raise TorchRuntimeError(
                    f"output with shape {list_str(target.shape)} doesn't match the broadcast shape "
                    f"{list_str(shape)}") from None
        common = dtypes.result_type(inputs)
        if not dtypes.can_cast(common, target._dtype):
            raise TorchRuntimeError(f"result type {common.legacy_name} can't be cast to the desired output type "
                                    f"{target._dtype.legacy_name}") from None
        raise
    src = dtypes.from_numpy(result.dtype)
    if result.shape != target._data.shape:
        raise TorchRuntimeError(
            f"output with shape {list_str(target.shape)} doesn't match the broadcast shape "
            f"{list_str(result.shape)}")
    if not dtypes.can_cast(src, target._dtype):
        names = (src.legacy_name, target._dtype.legacy_name)
        if op.joint_scalars and all(bound.get(m) is None or bound[m]._wrapped for m in op.scalar_inputs):
            names = (src.legacy_name, target._dtype.c_name)  # clamp_'s Scalar overload words it the C++ way
        raise TorchRuntimeError(f"result type {names[0]} can't be cast to the desired output type {names[1]}")
    return result


def run_inplace_view(op: "Op", bound: dict) -> Tensor:
    """An in-place view op (``t_``, ``squeeze_``, ...): ``self`` takes the view's shape and strides.

    As PyTorch's inplace_view ops, it bumps the version and sets (not rebases) the history:
    on a view the new node follows the view's own node, the base's history is untouched."""
    if vmap_state.depth:
        from ..batching.dispatch import batched_level, run_batched_view_inplace
        level = batched_level(bound)
        if level:
            return run_batched_view_inplace(op, bound, level)
    if forward_ad.watching:
        from .dual_ops import run_inplace_view_with_tangents
        return run_inplace_view_with_tangents(op, bound, run_inplace_view)
    target: Tensor = bound["self"]
    bound["_inplace"] = True  # for the node name (TBackward1) and the messages (t_())
    needs_grad = record.records(op, bound)
    if needs_grad:
        check_inplace_allowed(target)
        holder = EdgeHolder(target)  # self as it was: the node's input shape and edge
        before = {id(holder): record.edges_before([target])[id(target)]}
    result = op.forward(bound)
    target._data = result
    target._vc.value += 1
    if target._view_fn is not None:
        # replaying the view from its base now ends with this op (for AsStridedBackward0 later)
        params = {k: v for k, v in bound.items() if k not in ("self", "_inplace")}
        parent = target._view_fn
        target._view_fn = lambda b: run(op, {**params, "self": parent(b)})
    if needs_grad:
        # (a retain_grad() hook stays with the old node: PyTorch's set_history does not move it)
        target._grad_fn = record.attach(op, bound, (), inplace_self=(holder, None), before=before)
        target._output_nr = 0
        target._view_ver = target._vc.value  # else a view's next grad_fn read is an AsStridedBackward0
    return target
