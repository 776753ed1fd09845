"""The part of the recorded graph behind one tensor, read from the provenance.

Each tensor of the graph is a ``Value``: a node's output, a leaf, or a constant (a tensor that
needs no gradient, such as the 2 of ``x + 2``).  Each node is a ``Step`` with the op that made it
and its arguments, whose tensors are the Values it read.  The steps come in topological order,
inputs first.  Names are the script's (``provenance.names_of``); a loop's rebinding is told apart
by its iteration (``y⁽³⁾``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gradcli.views.provenance import Operand, Origin, Provenance

_SUBSCRIPTS = str.maketrans("0123456789,", "₀₁₂₃₄₅₆₇₈₉,")
_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass
class Value:
    """One tensor of the graph."""
    key: tuple
    kind: str                    # "node" (a node's output), "leaf" (requires grad) or "constant"
    shape: tuple
    dtype: Any
    node: Any = None
    output_nr: int = 0
    tensor: Any = None           # the leaf or the constant
    bindings: list = field(default_factory=list)
    name: str | None = None      # how the explanation calls it (None: folded into its user's formula)
    changed: bool = False        # a leaf or constant written in place after the graph read it

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def line(self) -> int | None:
        return self.bindings[0].line if self.bindings else None

    def element_name(self, index: tuple) -> str:
        """``x₀₁`` for element (0, 1) of x (``x₁₀,₂`` once a dim has 10 or more)."""
        if not index:
            return self.name or "?"
        sep = "," if any(n > 9 for n in self.shape) else ""
        return (self.name or "?") + sep.join(str(i) for i in index).translate(_SUBSCRIPTS)


@dataclass
class Step:
    """One node: the op behind it, with its tensors as Values."""
    node: Any
    origin: Origin | None
    args: dict                   # the op's bound arguments; tensors as Value keys (lists of keys for lists)
    inputs: list                 # the keys of the Values it read, in order
    outputs: list                # the keys of its outputs the graph uses, (node id, nr)
    reason: str | None = None    # why it cannot be replayed (None: it can)

    @property
    def op(self) -> str | None:
        return None if self.origin is None else self.origin.op

    @property
    def node_name(self) -> str:
        return type(self.node).__name__


@dataclass
class Graph:
    root: Value
    values: dict                 # key -> Value
    steps: list                  # topological: a step after the steps making its inputs

    @property
    def leaves(self) -> list[Value]:
        return sorted((v for v in self.values.values() if v.kind == "leaf"),
                      key=lambda v: (v.line or 0, v.name or ""))

    @property
    def elements(self) -> int:
        """The elements of every tensor involved (the outputs, leaves and constants but numbers)."""
        return sum(v.numel for v in self.values.values()
                   if not (v.kind == "constant" and getattr(v.tensor, "_wrapped", False)))

    def step_of(self, key: tuple) -> Step | None:
        """The step whose output ``key`` is."""
        if key[0] != "node":
            return None
        return next((step for step in self.steps if id(step.node) == key[1]), None)


def node_key(node: Any, output_nr: int) -> tuple:
    return ("node", id(node), output_nr)


def tensor_key(tensor: Any) -> tuple:
    if tensor._grad_fn is not None:
        return node_key(tensor._grad_fn, tensor._output_nr)
    return ("leaf" if tensor._requires_grad else "constant", id(tensor))


def read_graph(provenance: Provenance, tensor: Any, name: str) -> Graph:
    """The graph behind ``tensor`` (which has a grad_fn), its root called ``name``."""
    reader = _Reader(provenance)
    root = reader.value_of_tensor(tensor)
    reader.walk(tensor._grad_fn)
    outputs: dict[int, list] = {}
    for key, value in reader.values.items():
        if value.kind == "node":
            outputs.setdefault(id(value.node), []).append(key)
    for step in reader.steps:
        step.outputs = sorted(outputs.get(id(step.node), []))
    graph = Graph(root, reader.values, reader.steps)
    _name_values(graph, provenance, name)
    return graph


class _Reader:
    def __init__(self, provenance: Provenance) -> None:
        self.provenance = provenance
        self.values: dict[tuple, Value] = {}
        self.steps: list[Step] = []

    def value_of_tensor(self, tensor: Any) -> Value:
        key = tensor_key(tensor)
        if key not in self.values:
            kind = key[0]
            self.values[key] = Value(key, kind, tuple(tensor._data.shape), tensor._dtype,
                                     node=tensor._grad_fn, output_nr=tensor._output_nr,
                                     tensor=None if kind == "node" else tensor)
        return self.values[key]

    def value_of_operand(self, operand: Operand) -> Value:
        source = operand.source()
        if operand.node is not None:
            key = node_key(source, operand.output_nr)
            value = self.values.setdefault(key, Value(key, "node", operand.shape, operand.dtype, node=source,
                                                      output_nr=operand.output_nr))
        else:
            value = self.value_of_tensor(source)
            if source._vc.value != operand.version:
                value.changed = True
        return value

    def walk(self, root: Any) -> None:
        """Every node below ``root``, each after the nodes it reads (an iterative post-order)."""
        done: set[int] = set()
        stack: list[tuple[Any, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in done:
                continue
            if expanded:
                done.add(id(node))
                self.steps.append(self._step(node))
                continue
            stack.append((node, True))
            for child in self._children(node):
                if id(child) not in done:
                    stack.append((child, False))

    def _children(self, node: Any) -> list:
        return [child for child, _ in node.next_functions
                if child is not None and type(child).__name__ != "AccumulateGrad"]

    def _step(self, node: Any) -> Step:
        origin = self.provenance.origin(node)
        outputs: list = []   # (filled in once the whole graph is read)
        if origin is None or origin.op is None or origin.args is None:
            inputs = self._inputs_from_edges(node)
            reason = ("it was not made by an op of the op table (a custom autograd.Function, or one of autograd's "
                      "own nodes)" if origin is not None else "it was made outside the script")
            return Step(node, origin, {}, inputs, outputs, reason)
        args: dict = {}
        inputs: list = []
        reason = None
        for key, value in origin.args.items():
            if isinstance(value, Operand):
                v = self.value_of_operand(value)
                args[key] = v.key
                inputs.append(v.key)
            elif isinstance(value, (list, tuple)) and any(isinstance(x, Operand) for x in value):
                keys = [self.value_of_operand(x).key if isinstance(x, Operand) else x for x in value]
                args[key] = type(value)(keys)
                inputs.extend(k for k in keys if isinstance(k, tuple))
            else:
                args[key] = value
        self_value = self.values.get(args.get("self")) if isinstance(args.get("self"), tuple) else None
        if origin.args.get("_inplace") and self_value is not None and self_value.kind == "constant":
            reason = "it wrote in place into a tensor that needs no grad (whose old values are gone)"
        changed = [self.values[k] for k in inputs if self.values[k].kind == "constant" and self.values[k].changed]
        if changed:
            reason = "a constant it read was changed in place afterwards"
        return Step(node, origin, args, inputs, outputs, reason)

    def _inputs_from_edges(self, node: Any) -> list:
        keys = []
        for i, (child, nr) in enumerate(node.next_functions):
            if child is None:
                continue
            if type(child).__name__ == "AccumulateGrad":
                keys.append(self.value_of_tensor(child.variable).key)
                continue
            meta = node.input_metadata(i) if hasattr(node, "input_metadata") else None
            shape, dtype = (tuple(meta[0]), meta[1]) if meta else ((), None)
            key = node_key(child, nr)
            self.values.setdefault(key, Value(key, "node", shape, dtype, node=child, output_nr=nr))
            keys.append(key)
        return keys


def _name_values(graph: Graph, provenance: Provenance, root_name: str) -> None:
    """Give each value the script's name for it; the root is called as the user asked."""
    taken: set[str] = {root_name}
    graph.root.name = root_name
    graph.root.bindings = _bindings(graph.root, provenance)
    unnamed_leaves = 0
    ordered = sorted(graph.values.values(), key=lambda v: (v is not graph.root, v.kind != "leaf"))
    for value in ordered:
        if value is graph.root:
            continue
        value.bindings = _bindings(value, provenance)
        if value.bindings:
            binding = value.bindings[0]
            base = binding.name
            if binding.repeated:
                base += "⁽" + str(binding.iteration).translate(_SUPERSCRIPTS) + "⁾"
        elif value.kind == "leaf":
            unnamed_leaves += 1
            base = "leaf" + str(unnamed_leaves).translate(_SUBSCRIPTS)
        else:
            continue
        if value.kind == "constant" and getattr(value.tensor, "_wrapped", False):
            continue   # a Python number stays a number
        name = base
        while name in taken:
            name += "′"
        taken.add(name)
        value.name = name


def _bindings(value: Value, provenance: Provenance) -> list:
    if value.kind == "node":
        return provenance.names_of_output(value.node, value.output_nr)
    return provenance.names_of(value.tensor)
