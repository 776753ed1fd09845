"""The backward graph as the graph view sees it: every node reachable from the roots, with its
edges, how many edges reach it, and where the script made it.

Building it reads only what every node has (its type, ``next_functions``, its origin), so that a
20 000-node graph is walked in a few tens of milliseconds; what the view shows of a node it draws
(names, saved tensors, hooks, rules) is read by ``details`` for that node alone.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from gradcli.engine.autograd.accumulate import AccumulateGrad
from gradcli.engine.tensor import Tensor


@dataclass
class Root:
    """One tensor whose graph is drawn: its label, its gradient edge (None for a tensor outside
    every graph) and its shape and dtype."""
    label: str
    tensor: Tensor | None
    edge: tuple | None            # (node, output_nr)
    shape: tuple
    dtype: Any
    base: Tensor | None = None    # the tensor it is a view of (drawn with a dotted edge in DOT)


class GNode:
    """One backward node of the graph (a plain class: a big graph makes tens of thousands)."""

    __slots__ = ("node", "name", "origin", "key", "leaf", "edges", "parents", "outputs")

    def __init__(self, node: Any, name: str, origin: Any, key: tuple, leaf: Tensor | None = None,
                 parents: int = 0) -> None:
        self.node = node          # the engine's Node (None for a leaf whose AccumulateGrad was never made)
        self.name = name          # MulBackward0, AccumulateGrad, ...
        self.origin = origin      # provenance Origin, or None
        self.key = key            # (name, where the script made it): what a loop's nodes share
        self.leaf = leaf          # AccumulateGrad's variable
        self.edges: list = []     # (GNode or None, output_nr) per next_function
        self.parents = parents    # edges reaching it (a root counts as one)
        self.outputs: dict = {}   # output_nr -> (shape, dtype), as its consumers saw them

    @property
    def children(self) -> Iterable["GNode"]:
        return (child for child, _ in self.edges if child is not None)

    def __repr__(self) -> str:
        return f"<GNode {self.name} {self.key[1]}>"


@dataclass
class GraphModel:
    roots: list[Root]
    entries: list[GNode | None]   # the node each root enters the graph at
    nodes: list[GNode]            # in the order the walk found them (roots first)
    provenance: Any
    key_count: dict = field(default_factory=dict)
    by_id: dict = field(default_factory=dict)    # id(engine node) -> GNode

    @property
    def leaves(self) -> list[GNode]:
        return [n for n in self.nodes if n.leaf is not None]


def origin_key(origin: Any) -> tuple | None:
    span = getattr(origin, "span", None)
    if span is None:
        return None
    return (span.source.filename, span.line, span.column, span.end_line, span.end_column)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Drawing a big graph makes objects and frees none: with the cyclic collector on, its passes
    over the graph's many objects would cost more than the drawing itself."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def build(roots: Sequence[Root], provenance: Any) -> GraphModel:
    """Walk the graph below ``roots`` (iteratively: a graph may be any depth)."""
    by_id: dict[int, GNode] = {}
    order: list[GNode] = []
    places: dict[int, tuple | None] = {}   # id(span) -> its position (one span per script expression)

    def visit(node: Any) -> GNode:
        found = by_id.get(id(node))
        if found is not None:
            return found
        origin = provenance.origin(node) if provenance is not None else None
        name = type(node).__name__
        # (not getattr(node, "variable"): an op's node answers a missing attribute slowly)
        leaf = node.variable if type(node) is AccumulateGrad else None
        span = origin.span if origin is not None else None
        place = places.get(id(span), False)
        if place is False:
            place = places[id(span)] = origin_key(origin)
        made = GNode(node, name, origin, (name, place), leaf=leaf)
        by_id[id(node)] = made
        order.append(made)
        pending.append(made)
        return made

    entries: list[GNode | None] = []
    pending: list[GNode] = []
    for root in roots:
        if root.edge is not None:
            entry = visit(root.edge[0])
            entry.parents += 1
            entry.outputs.setdefault(root.edge[1], (root.shape, root.dtype))
        elif root.tensor is not None and root.tensor.requires_grad:
            # a leaf whose AccumulateGrad was never made (no op used it): drawn as that leaf
            entry = GNode(None, "AccumulateGrad", None, ("AccumulateGrad", None), leaf=root.tensor, parents=1)
            entry.outputs[0] = (root.shape, root.dtype)
            order.append(entry)
        else:
            entry = None
        entries.append(entry)
        while pending:
            parent = pending.pop()
            node = parent.node
            for index, (child, nr) in enumerate(node.next_functions):
                if child is None:
                    parent.edges.append((None, nr))
                    continue
                made = visit(child)
                made.parents += 1
                if nr not in made.outputs:
                    meta = node.input_metadata(index)
                    if meta is not None:
                        made.outputs[nr] = (tuple(meta[0]), meta[1])
                parent.edges.append((made, nr))
    for gnode in order:
        if gnode.leaf is not None:
            gnode.outputs[0] = (tuple(gnode.leaf._data.shape), gnode.leaf._dtype)
    counts: dict[tuple, int] = {}
    for gnode in order:
        counts[gnode.key] = counts.get(gnode.key, 0) + 1
    return GraphModel(list(roots), entries, order, provenance, counts, by_id)


def root_of(label: str, tensor: Tensor) -> Root:
    """The Root for a tensor of the script (its grad_fn read as the script reads it)."""
    try:
        node = tensor.grad_fn   # (a view whose base changed gets its new grad_fn here)
    except Exception:           # a view that may no longer be read: its node as it stands
        node = tensor._grad_fn
    edge = None
    if node is not None:
        edge = (node, tensor._output_nr)
    elif tensor._accumulator is not None and tensor.requires_grad:
        edge = (tensor._accumulator, 0)
    return Root(label, tensor, edge, tuple(tensor._data.shape), tensor._dtype, base=tensor._base)


def roots_from(value: Any, provenance: Any) -> list[Root]:
    """Roots from what an API caller passes: a tensor, (label, tensor) pairs, a mapping
    label -> tensor, or Root objects; an unlabelled tensor is called by its script names."""
    if isinstance(value, Tensor) or isinstance(value, Root):
        value = [value]
    elif isinstance(value, Mapping):
        value = list(value.items())
    roots = []
    for item in value:
        if isinstance(item, Root):
            roots.append(item)
        elif isinstance(item, Tensor):
            names = provenance.names_of(item) if provenance is not None else []
            roots.append(root_of(", ".join(b.label() for b in names) or "tensor", item))
        else:
            label, tensor = item
            roots.append(root_of(str(label), tensor))
    return roots
