"""Recording a node without re-deciding its shape: one plan per op and call shape.

``record.attach`` works out, for every node, which arguments are graph
inputs, which formulas run, what is saved and which node class to make.
All of that depends only on the *call shape* -- for each graph input whether
it is missing, None, a wrapped Python number, a tensor that requires grad or
one that does not; which keyword names were bound; the node name.  So the op
runner asks ``plan_for`` first: the answer is a ``NodePlan`` made on the
first call of that shape and kept, whose ``attach`` does only the per-call
work (edges, sizes, saved tensors, the node itself).

Calls the plans leave to the general path (``GENERAL``): an input that is a
view (its edge may have to be refreshed before the kernel runs, in PyTorch's
order), a list of tensors (``cat``), error nodes (``NotImplemented``).  What
``op.saves`` keeps for a call is part of its shape.  Multi-output and
in-place ops never come here.  A plan's node is the node ``attach`` would make:
the same class, edges, formulas, saved values (in the same insertion order)
and metadata.
"""

from __future__ import annotations

from typing import Any

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from . import observe, saved_hooks
from .formulas import formulas_for
from .node import SavedOutput, SavedTensor, short_name, unpack_order
from .record import RecordedOp, _expose, _node_class, _save_nested

# What plan_for answers when no node is made (nothing requires grad, or a form without a node)
# and when the general path must decide.
NO_NODE = None
GENERAL = "general"

# Codes of a graph input in a call shape.
_MISSING, _NONE, _WRAPPED, _PLAIN, _REQUIRES = range(5)
_ABSENT = object()
_NO_EDGE = (None, 0)


class NodePlan:
    """What ``attach`` decides once for a call shape: the graph inputs, formulas, saved keys and
    node class; ``attach`` then builds the node for one call."""

    __slots__ = ("op", "node_name", "cls", "formulas", "entries", "requires", "inputs", "sizes",
                 "saved_inputs", "saved_results", "exposes", "tensor_keys")

    def __init__(self, op: RecordedOp, bound: dict, node_name: str, codes: tuple,
                 kept: frozenset | None) -> None:
        self.op = op
        self.node_name = node_name
        inputs = op.inputs
        present = [(n, c) for n, c in zip(inputs, codes) if c != _MISSING]
        by_name = dict(present)
        scalar_overload = op.joint_scalars and all(
            by_name.get(m, _NONE) in (_NONE, _WRAPPED) for m in op.scalar_inputs)
        entries = []
        for n, c in present:
            if n in op.scalar_inputs and (scalar_overload if op.joint_scalars else c == _WRAPPED):
                continue  # a Scalar overload's number is no graph input
            entries.append((n, c))
        if op.required_edges_only:
            entries = [(n, c) for n, c in entries if c == _REQUIRES]
        self.entries = tuple(n for n, _ in entries)
        self.requires = tuple(c == _REQUIRES for _, c in entries)
        keys = tuple((n, None) for n in self.entries)
        self.formulas = formulas = formulas_for(op, keys, self.requires, False)
        self.inputs = frozenset(inputs)
        self.sizes = tuple((n + "_sym_sizes", n + "_dtype", i) for i, (n, c) in enumerate(entries)
                           if c != _NONE)
        needs, declared = formulas.needs, formulas.declared
        if kept is not None:  # (op.saves: what this overload's node keeps)
            needs, declared = needs & kept, declared & kept
        saved_inputs = []
        self.saved_results = []
        for key in needs:  # (the frozenset's order, as attach iterates it)
            if key.startswith("result"):
                if int(key[6:] or 0) == 0:
                    self.saved_results.append(key)
                continue
            saved_inputs.append((key, key in op.scalar_inputs))
        self.saved_inputs = tuple(saved_inputs)
        # (what may hold a tensor, in the order OpNode._unpack reads it: see node.unpack_order)
        holders = tuple(k for k, _ in saved_inputs) + tuple(self.saved_results)
        self.tensor_keys = tuple(k for k, _ in unpack_order(holders))
        self.cls = _node_class(node_name, declared)
        self.exposes = bool(op.exposes or op.exposed_values)

    def attach(self, bound: dict, output: Tensor) -> Any:
        """The node of one call whose single output is ``output``, linked into the graph."""
        edges = []
        meta = []
        for n in self.entries:
            t = bound[n]
            if t is None:
                edges.append(_NO_EDGE)
                meta.append(None)
            else:
                # (gradient_edge for a tensor that is no view: plan_for sends views elsewhere)
                if t._grad_fn is not None:
                    edges.append((t._grad_fn, t._output_nr))
                elif t._requires_grad:
                    edges.append((t._grad_accumulator(), 0))
                else:
                    edges.append(_NO_EDGE)
                meta.append((t._data.shape, t._dtype))
        saved: dict[str, Any] = {}
        tensor_keys = self.tensor_keys
        if len(bound) > len(self.entries):
            inputs = self.inputs
            for key, value in bound.items():  # the non-tensor arguments (dim, alpha, what the kernel added)
                if key not in inputs and not isinstance(value, Tensor):
                    if isinstance(value, (list, tuple)):
                        saved[key] = _save_nested(value)
                        tensor_keys = None   # (one may be inside: the node looks at every key)
                    else:
                        saved[key] = value
        for sizes_key, dtype_key, i in self.sizes:
            m = meta[i]
            saved[sizes_key] = m[0]
            saved[dtype_key] = m[1]
        for key, scalar in self.saved_inputs:
            t = bound.get(key, _ABSENT)
            if t is _ABSENT:
                continue  # an input of another overload (max's `other`)
            if isinstance(t, Tensor):
                # a Scalar overload keeps a number, which backward does not free
                saved[key] = t if scalar and t._wrapped else SavedTensor(t, None)
            elif isinstance(t, list):
                saved[key] = [SavedTensor(x, None) if isinstance(x, Tensor) else x for x in t]
            else:
                saved[key] = t
        cls = self.cls
        if self.exposes:
            _expose(self.op, self.node_name, cls, saved)
        node = cls(tuple(edges), self.formulas, saved, meta, 1, tensor_keys)
        if output._dtype.is_floating_point:
            output._grad_fn = node
            output._output_nr = 0
            for key in self.saved_results:
                saved[key] = SavedOutput(output, f"0 of {short_name(self.node_name)}")
        else:
            if not self.op.integer_result_ok:
                raise_integer_result(output)
            for key in self.saved_results:
                saved[key] = SavedOutput(output, None)
        if saved_hooks.stack:
            saved_hooks.pack_node(saved)
        if observe.watcher is not None:
            observe.watcher.op_recorded(node, self.op.name, bound, (output,))
        return node


def raise_integer_result(output: Tensor) -> None:
    # PyTorch's set_history: a differentiable op may not make an integer result
    raise TorchRuntimeError(f"Autograd not support dtype: {output._dtype.legacy_name}")


_PLANS: dict[tuple, Any] = {}


def plan_for(op: RecordedOp, bound: dict) -> Any:
    """The plan recording ``op``'s node for this call: NO_NODE when none is made, GENERAL when
    ``record.attach`` must decide, else a ``NodePlan``."""
    codes = []
    any_requires = general = False
    for name in op.inputs:   # (one pass: most calls need nothing more than the codes)
        v = bound.get(name, _ABSENT)
        if v is _ABSENT:
            codes.append(_MISSING)
        elif v is None:
            codes.append(_NONE)
        elif isinstance(v, Tensor):
            if v._view_fn is not None:
                general = True   # its edge may need refreshing before the kernel
            elif v._wrapped:
                codes.append(_WRAPPED)
            elif v._requires_grad or v._grad_fn is not None:
                codes.append(_REQUIRES)
                any_requires = True
            else:
                codes.append(_PLAIN)
        else:
            general = True   # a list of tensors
    if general:
        return GENERAL
    if not any_requires:
        return NO_NODE
    node = op.node
    node_name = node(bound) if callable(node) else node
    if node_name is None:
        return NO_NODE
    kept = None if op.saves is None else frozenset(op.saves(bound))
    key = (id(op), node_name, tuple(codes), tuple(bound), kept)  # (op records live as long as the process)
    plan = _PLANS.get(key)
    if plan is None:
        if node_name == "NotImplemented":
            plan = GENERAL
        else:
            plan = NodePlan(op, bound, node_name, tuple(codes), kept)
        _PLANS[key] = plan
    return plan


