"""Recording the graph: the backward node an op's outputs get, and what it saves.

The op runner calls ``attach`` after an op ran on inputs that require grad.
What the node needs to know of the op -- its node name, graph inputs,
formulas, what it saves and exposes -- comes from the op's record
(``RecordedOp`` lists the fields read here); autograd knows nothing else of
ops or of how they are parsed and dispatched.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable, Protocol

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from . import grad_mode, observe, saved_hooks
from .formulas import Deriv, formulas_for
from .node import SavedOutput, SavedTensor, expose_saved, node_class, short_name
from .views import gradient_edge

if TYPE_CHECKING:
    from collections.abc import Mapping


class RecordedOp(Protocol):
    """What recording reads of an op's record (``gradcli.engine.dispatch.op.Op``)."""
    name: str
    node: str | Callable[[dict], str | None] | None
    inputs: tuple[str, ...]
    derivs: "Mapping[str, Deriv]"
    scalar_inputs: tuple[str, ...]
    joint_scalars: bool
    required_edges_only: bool
    integer_result_ok: bool
    saves: Callable[[dict], set] | None
    exposes: tuple[str, ...] | dict[str, tuple[str, ...]]
    exposed_values: dict[str, Callable[[dict], Any]]

    def saved_int_kind(self, name: str) -> str | None: ...


# -- whether an op records --------------------------------------------------------------------

def requires(t: Any) -> bool:
    """requires_grad, also for the stand-in of an in-place op's self (a view made under
    no_grad requires grad without having an edge)."""
    return t._requires_grad or t._grad_fn is not None or (t._view_fn is not None and t._base.requires_grad)


def any_requires_grad(op: RecordedOp, bound: dict) -> bool:
    for name in op.inputs:
        t = bound.get(name)
        if t is None:
            continue
        for x in (t if isinstance(t, list) else (t,)):
            if x._requires_grad or x._grad_fn is not None:
                return True
            if x._view_fn is not None and x._base.requires_grad:
                return True  # a view made before its base required grad, or under no_grad
    return False


def records(op: RecordedOp, bound: dict) -> bool:
    """Whether running ``op`` on ``bound`` records a node (grad mode on, an input requires grad)."""
    return grad_mode._enabled and op.node is not None and any_requires_grad(op, bound)


def tensor_inputs(op: RecordedOp, bound: dict, with_self: bool = False) -> list:
    """The tensors among the op's graph inputs (a list argument's elements one by one)."""
    out = []
    for n in op.inputs:
        if n == "self" and not with_self:
            continue
        v = bound.get(n)
        out.extend(x for x in (v if isinstance(v, list) else [v]) if isinstance(x, Tensor))
    return out


def edges_before(tensors: list) -> dict:
    """The gradient edges and versions of ``tensors`` before a kernel runs (PyTorch collects the
    edges first, so a stale view fails before the kernel; an in-place write may change them)."""
    return {id(t): (gradient_edge(t), t._vc.value) for t in tensors}


def reads_self(op: RecordedOp, bound: dict) -> bool:
    """Whether the gradient formula of some input that requires grad reads self."""
    for name, dv in op.derivs.items():
        value = bound.get(name)
        values = value if isinstance(value, list) else [value]
        if "self" in dv.needs and any(isinstance(t, Tensor) and requires(t) for t in values):
            return True
    return False


def node_name_of(op: RecordedOp, bound: dict) -> str | None:
    return op.node(bound) if callable(op.node) else op.node


# -- the node ------------------------------------------------------------------------------------

def attach(op: RecordedOp, bound: dict, outputs: tuple[Tensor, ...], inplace_self: Any = None,
           multi: bool = False, before: dict | None = None) -> Any:
    """Create the backward node for ``outputs`` and link it into the graph.

    ``before`` holds the edges and versions of the inputs, collected before the kernel ran.
    ``inplace_self`` is (the stand-in for self as it was, a copy of its old value) when the
    op wrote into self."""
    node_name = node_name_of(op, bound)
    if node_name is None:
        return None  # a form without a node (comparisons record only in place)
    entries = _graph_inputs(op, bound, inplace_self)
    edges = []
    meta = []
    requires_grad = []
    for n, _, t in entries:
        edge = None if t is None else (before[id(t)][0] if before and id(t) in before else gradient_edge(t))
        edges.append(edge if edge is not None else (None, 0))
        meta.append(None if t is None else (t._data.shape, t._dtype))
        requires_grad.append(edge is not None)
    if node_name == "NotImplemented":
        # PyTorch's error node raises whatever its edges are (a view made under no_grad has none)
        requires_grad = [m is not None for m in meta]
    keys = tuple((n, i) for n, i, _ in entries)
    formulas = formulas_for(op, keys, tuple(requires_grad), multi)
    saved: dict[str, Any] = {}
    for key, value in bound.items():
        if not isinstance(value, Tensor) and key not in op.inputs:
            saved[key] = _save_nested(value)
    for (n, i, _), m in zip(entries, meta):
        if i is None:
            if m is not None:
                saved[n + "_sym_sizes"] = m[0]
                saved[n + "_dtype"] = m[1]
        else:
            saved.setdefault(n + "_sym_sizes", []).append(None if m is None else m[0])
    needs, declared = formulas.needs, formulas.declared
    if op.saves is not None:
        kept = op.saves(bound)
        needs, declared = needs & kept, declared & kept
    _save_inputs(op, bound, saved, needs, inplace_self, before)
    if multi:
        saved["_out_meta"] = [(o._data.shape, o._dtype) for o in outputs]
    cls = _node_class(node_name, declared)  # (declared includes needs)
    if op.exposes or op.exposed_values:
        _expose(op, node_name, cls, saved)
    node = cls(tuple(edges), formulas, saved, meta, n_out=max(len(outputs), 1))
    if node_name == "NotImplemented":
        node._seq = float("inf")  # PyTorch's error nodes run first, as AccumulateGrad (sequence_nr max)
    for i, o in enumerate(outputs):
        if o._dtype.is_floating_point:  # integer and bool outputs never carry a gradient
            o._grad_fn = node
            o._output_nr = i
        elif not multi and not op.integer_result_ok:
            # PyTorch's set_history: a differentiable op may not make an integer result
            # (sum(dtype=torch.long) of a tensor that requires grad); .long() may.
            raise TorchRuntimeError(f"Autograd not support dtype: {o._dtype.legacy_name}")
    for key in needs:
        # "result" is the (first) output; "result1" the second (max's indices), ...
        if key.startswith("result"):
            i = int(key[6:] or 0)
            if i < len(outputs):
                # an integer output (max's indices) has no node to name
                of = f"{i} of {short_name(node_name)}" if outputs[i]._dtype.is_floating_point else None
                saved[key] = SavedOutput(outputs[i], of, i)
    if saved_hooks.stack:
        saved_hooks.pack_node(saved)
    if observe.watcher is not None:
        observe.watcher.op_recorded(node, op.name, bound, outputs)
    return node


def _graph_inputs(op: RecordedOp, bound: dict, inplace_self: Any) -> list[tuple[str, int | None, Any]]:
    """One entry per graph input: (parameter, index in a list argument, tensor); cat's tensors give
    one each, a Scalar overload's number none."""
    entries: list[tuple[str, int | None, Any]] = []
    scalar_overload = op.joint_scalars and all(
        bound.get(m) is None or bound[m]._wrapped for m in op.scalar_inputs)
    for n in op.inputs:
        if n not in bound:
            continue
        value = bound[n] if inplace_self is None or n != "self" else inplace_self[0]
        if isinstance(value, list):
            entries.extend((n, i, t) for i, t in enumerate(value))
        elif n in op.scalar_inputs and (scalar_overload if op.joint_scalars
                                        else value is not None and value._wrapped):
            continue  # a Scalar overload's number is no graph input
        else:
            entries.append((n, None, value))
    if op.required_edges_only:
        entries = [e for e in entries if e[2] is not None and requires(e[2])]
    return entries


def _save_inputs(op: RecordedOp, bound: dict, saved: dict, needs: frozenset, inplace_self: Any,
                 before: dict | None) -> None:
    for key in needs:
        if key.startswith("result"):
            continue
        if inplace_self is not None and key == "self":
            # A copy of self from before the in-place change.
            saved["self"] = SavedTensor(inplace_self[1], None)
            continue
        if key not in bound:
            continue  # an input of another overload (max's `other`)
        t = bound[key]
        if isinstance(t, list):
            saved[key] = [_save(x, before) for x in t]
        elif key in op.scalar_inputs and isinstance(t, Tensor) and t._wrapped:
            saved[key] = t  # a Scalar overload keeps a number, which backward does not free
        else:
            saved[key] = _save(t, before)


def save_inplace_result(op: RecordedOp, bound: dict, node: Any, target: Tensor) -> None:
    """After an in-place op: the node saves self as its result where a formula reads it."""
    saves = {"result"} if op.saves is None else op.saves(bound)
    if "result" in {k for dv in op.derivs.values() for k in dv.needs} & saves:
        saved = node._saved["result"] = SavedTensor(target, f"0 of {short_name(type(node).__name__)}",
                                                    is_output=True)
        if target._base is not None:  # PyTorch keeps a weak pointer to the view's AsStridedBackward0
            saved.view_node = weakref.ref(target._grad_fn)
        if saved_hooks.stack:
            pack, unpack = saved_hooks.stack[-1]
            node._saved["result"] = saved_hooks.HookedSaved(saved, pack, unpack)


_CLASSES: dict[tuple, type] = {}


def _node_class(node_name: str, needs: frozenset) -> type:
    key = (node_name, needs)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = node_class(node_name, saved_names=tuple(sorted(needs)))
    return cls


_EXPOSED: set[tuple[str, str]] = set()
# Exposed names that read another saved value: a count from the sizes, the indices output.
# A node that shows a saved value under another name does not show it under its own (max's
# _saved_indices is its second output: there is no _saved_result1).
_EXPOSED_FROM = {"self_sym_numel": "self_sym_sizes", "indices": "result1", "inverse": "result",
                 "split_sizes": "split_size", "input": "self"}
_HIDDEN_BY_ALIAS = frozenset({"result1", "result"})


def _expose(op: RecordedOp, node_name: str, cls: type, saved: dict) -> None:
    """Declare the ``_saved_<name>`` attributes ``op.exposes`` lists for this node (once per node)."""
    if (op.name, node_name) in _EXPOSED:
        return
    _EXPOSED.add((op.name, node_name))
    names = op.exposes.get(node_name, ()) if isinstance(op.exposes, dict) else op.exposes
    exposed = {}
    for name in names:
        key = _EXPOSED_FROM.get(name, name)
        if key in saved or key.startswith("result"):
            exposed[name] = (key, "numel" if name.endswith("_numel") else op.saved_int_kind(name))
    for name, value_of in op.exposed_values.items():
        exposed[name] = (name, value_of)
    expose_saved(cls, exposed)
    hidden = {f"{prefix}{key}" for name, (key, _) in exposed.items()
              if key != name and key in _HIDDEN_BY_ALIAS for prefix in ("_saved_", "_raw_saved_")}
    if hidden:
        cls.__script_attrs__ = cls.__script_attrs__ - hidden


def _save_nested(value: Any) -> Any:
    """Tensors inside a list argument are saved tensors too (version-checked, freed after backward)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_save_nested(v) for v in value)
    return SavedTensor(value, None) if isinstance(value, Tensor) else value


def _save(t: Any, before: dict | None = None) -> Any:
    if not isinstance(t, Tensor):
        return t
    saved = SavedTensor(t, None)
    if before and id(t) in before:
        saved.version = before[id(t)][1]  # saved before an in-place write into it
    return saved


# -- a pass-through node -----------------------------------------------------------------------

def record_identity(t: Tensor, node_name: str, copy: bool = False) -> Tensor:
    """A tensor equal to ``t`` whose node passes the gradient straight through."""
    out = Tensor._make(t._data.copy() if copy else t._data, t._dtype)
    if grad_mode._enabled and t.requires_grad:
        edge = gradient_edge(t)
        cls = node_class(node_name)
        out._grad_fn = cls((edge,), lambda s, grads: [grads[0]], {}, [(t.shape, t._dtype)])
    return out
