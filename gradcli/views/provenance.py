"""Where each node of the graph came from, in the script's own words.

While a script runs with provenance on, every node the engine makes is given the span of the
innermost script expression that was running (``y * y * 3``, line 12), the op and arguments
behind it, and how many times that expression had made a node before (a loop's iterations).
Every assignment to a name is remembered with the tensor it bound, so a node can be called by
the names the script gave its output (``z``, or ``y (line 5, iteration 3)`` in a loop).

The record holds nodes and named leaves only weakly: an entry goes when its node or tensor is
freed, so a long REPL session with provenance on holds no graph the script let go of.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Sequence

from gradcli.engine.autograd import observe
from gradcli.engine.tensor import Tensor
from gradcli.lang.errors import Span
from gradcli.lang.runtime import innermost_span


def span_text(span: Span | None) -> str:
    """The script text a span covers (lines joined by a space when it runs over several)."""
    if span is None:
        return ""
    source = span.source
    if span.line == span.end_line:
        return source.line(span.line)[span.column - 1:span.end_column - 1]
    parts = [source.line(span.line)[span.column - 1:]]
    parts += [source.line(n).strip() for n in range(span.line + 1, span.end_line)]
    parts.append(source.line(span.end_line)[:span.end_column - 1].strip())
    return " ".join(p.strip() for p in parts if p.strip())


class Operand:
    """A tensor argument of an op as it was when the op ran: which graph edge it was (its node
    and output number, or the leaf itself), or, for a tensor outside the graph, the tensor.
    (A plain slotted class: one is made per tensor argument of every op recorded.)"""

    __slots__ = ("shape", "dtype", "node", "output_nr", "leaf", "constant")

    def __init__(self, shape: tuple, dtype: Any, node: Any = None, output_nr: int = 0, leaf: Any = None,
                 constant: Tensor | None = None) -> None:
        self.shape = shape
        self.dtype = dtype
        self.node = node               # weakref to its grad_fn then (None for a leaf or a constant)
        self.output_nr = output_nr
        self.leaf = leaf               # weakref to the leaf, when it was one that requires grad
        self.constant = constant       # a tensor that does not require grad: kept as is

    def __repr__(self) -> str:
        kind = "node" if self.node is not None else "leaf" if self.leaf is not None else "constant"
        return f"Operand({kind}, shape={self.shape})"

    def source(self) -> Any:
        """The grad_fn node, the leaf tensor or the constant tensor (None once freed)."""
        if self.node is not None:
            return self.node()
        if self.leaf is not None:
            return self.leaf()
        return self.constant


def operand(value: Any) -> Any:
    """A bound argument as an Origin keeps it: tensors (also inside lists) as Operands."""
    if isinstance(value, Tensor):
        shape, dtype = tuple(value._data.shape), value._dtype
        if value._grad_fn is not None:
            return Operand(shape, dtype, node=weakref.ref(value._grad_fn), output_nr=value._output_nr)
        if value._requires_grad:
            return Operand(shape, dtype, leaf=weakref.ref(value))
        return Operand(shape, dtype, constant=value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(operand(v) for v in value)
    return value


@dataclass
class Origin:
    """Where one node was made."""
    span: Span | None            # the innermost script expression running then (None: outside the script)
    iteration: int = 1           # the how-many-th node this expression made of this node's name
    op: str | None = None        # the op record's name ('mul'), for an op's node
    args: dict | None = None     # the op's bound arguments, tensors as Operands (before an in-place write)

    @property
    def line(self) -> int | None:
        return None if self.span is None else self.span.line

    @property
    def text(self) -> str:
        return span_text(self.span)


@dataclass(frozen=True)
class Binding:
    """A name bound to a tensor by the assignment at ``line``:``column`` (its ``iteration``-th run)."""
    name: str
    line: int
    column: int
    iteration: int
    repeated: bool = False       # whether that assignment ran more than once (set when read)

    def label(self) -> str:
        """``z``, or ``y (line 5, iteration 3)`` for an assignment a loop ran again."""
        if not self.repeated:
            return self.name
        return f"{self.name} (line {self.line}, iteration {self.iteration})"


@dataclass
class Provenance:
    """The record of one run (or one REPL session): origins of nodes, names of tensors."""

    # id(node) -> (weakref to the node, its origin)
    origins: dict[int, tuple[Any, Origin]] = field(default_factory=dict)
    # (id of grad_fn, output_nr) for a non-leaf, ("leaf", id of tensor) for a leaf -> bindings
    names: dict[tuple, list[Binding]] = field(default_factory=dict)
    _watched: dict[int, Any] = field(default_factory=dict)     # id(leaf) -> weakref (forgets the leaf's names)
    _named_nodes: dict[int, list] = field(default_factory=dict)  # id(node) -> its keys in names
    _made_at: dict[tuple, int] = field(default_factory=dict)   # (span position, node name) -> count
    _bound_at: dict[tuple, int] = field(default_factory=dict)  # (name, line, column) -> count
    _previous: Any = None

    # -- installing --------------------------------------------------------------------------
    def start(self, context: Any = None) -> "Provenance":
        """Watch the engine; with a RunContext, also hear its assignments (set before compiling)."""
        self._previous = observe.set_watcher(self)
        if context is not None:
            context.on_bind = self.bound
        return self

    def stop(self) -> None:
        observe.set_watcher(self._previous)

    # -- what the engine and the compiler tell -------------------------------------------------
    def node_made(self, node: Any) -> None:
        span = innermost_span()
        where = None if span is None else (span.source.filename, span.line, span.column, span.end_column)
        key = (where, type(node).__name__)
        count = self._made_at.get(key, 0) + 1
        self._made_at[key] = count
        ident = id(node)
        self.origins[ident] = (weakref.ref(node, lambda _, i=ident: self._forget_node(i)), Origin(span, count))

    def op_recorded(self, node: Any, op_name: str, bound: dict, outputs: Sequence[Any]) -> None:
        origin = self.origin(node)
        if origin is not None:
            origin.op = op_name
            origin.args = {key: operand(value) for key, value in bound.items()}

    def bound(self, name: str, value: Any, span: Span) -> None:
        if not isinstance(value, Tensor):
            return
        site = (name, span.line, span.column)
        count = self._bound_at.get(site, 0) + 1
        self._bound_at[site] = count
        key = self._key(value)
        if key[0] == "leaf" and id(value) not in self._watched:
            ident = id(value)
            self._watched[ident] = weakref.ref(value, lambda _, i=ident: self._forget_leaf(i))
        elif key[0] != "leaf" and key not in self.names:
            self._named_nodes.setdefault(key[0], []).append(key)
        bindings = self.names.setdefault(key, [])
        binding = Binding(name, span.line, span.column, count)
        if bindings and (bindings[-1].name, bindings[-1].line, bindings[-1].column) == site:
            bindings[-1] = binding  # a loop binding the same tensor again (w -= ...): one entry, not one a step
        else:
            bindings.append(binding)

    # -- what the views ask ----------------------------------------------------------------------
    def origin(self, node: Any) -> Origin | None:
        entry = self.origins.get(id(node))
        return entry[1] if entry is not None and entry[0]() is node else None

    def names_of(self, tensor: Tensor) -> list[Binding]:
        """The names the script bound to this tensor, first binding first."""
        return self._read(self.names.get(self._key(tensor), ()))

    def names_of_output(self, node: Any, output_nr: int = 0) -> list[Binding]:
        """The names bound to output ``output_nr`` of ``node`` (for AccumulateGrad: its leaf's)."""
        variable = getattr(node, "variable", None)
        if isinstance(variable, Tensor):
            return self.names_of(variable)
        return self._read(self.names.get((id(node), output_nr), ()))

    def label(self, node: Any, output_nr: int = 0) -> str:
        """The names of a node's output joined by ', ' ('' when it has none)."""
        return ", ".join(b.label() for b in self.names_of_output(node, output_nr))

    def _read(self, bindings: Sequence[Binding]) -> list[Binding]:
        out = []
        for b in bindings:
            repeated = self._bound_at.get((b.name, b.line, b.column), 1) > 1
            out.append(Binding(b.name, b.line, b.column, b.iteration, repeated))
        return out

    def _forget_node(self, ident: int) -> None:
        self.origins.pop(ident, None)
        for key in self._named_nodes.pop(ident, ()):
            self.names.pop(key, None)

    def _forget_leaf(self, ident: int) -> None:
        self._watched.pop(ident, None)
        self.names.pop(("leaf", ident), None)

    @staticmethod
    def _key(tensor: Tensor) -> tuple:
        node = tensor._grad_fn
        if node is None:
            return ("leaf", id(tensor))
        return (id(node), tensor._output_nr)
