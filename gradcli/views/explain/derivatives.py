"""SymPy's derivative of the explained tensor with respect to each leaf, element by element.

For a 0-d NAME, ``∂NAME/∂x[i]`` for every element i of leaf x.  When every element's derivative
is one formula written over the elements at the same place (``3·(x₀₁ + 2)/2`` for x₀₁, and so on),
it is shown once over the generic element: ``∂out/∂x = 3·(x + 2)/2``.  Otherwise each element has
its line.

For a NAME with dims, the Jacobian ``∂NAME[o]/∂x[i]``: when it is diagonal (an element-wise
computation) and its diagonal is one formula, that formula once; otherwise its entries that are
not zero, one a line (at most ``JACOBIAN_LINES`` a leaf).

A formula is written in the leaves (``3·(x + 2)/2``) when that is short; a longer one is written
in the script's intermediate names when that is shorter (``(h₀ - 1)·x₀·[h₀ > 0]`` rather than
h₀'s sum of products three times over).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from .graph import Graph, Value
from .numeric import Numbers
from .printer import formula
from .replay import symbol, symbolic_sources
from .simplify import simplest

JACOBIAN_LINES = 12
SHORT = 14           # operations, and
SHORT_TEXT = 40      # characters: a formula in the leaves this short is kept as it is


@dataclass
class Formula:
    label: str                   # ∂out/∂x, ∂out/∂x₀₁, ∂y₀/∂x₀
    expr: Any                    # simplified
    at: list                     # [(symbol name, its values)] of the symbols the formula reads
    index: tuple | None = None   # where its values sit in LeafDerivative.values (None: all of them)


@dataclass
class LeafDerivative:
    leaf: Value
    kind: str                    # "shared", "elements", "diagonal" or "jacobian"
    formulas: list
    values: np.ndarray           # SymPy's derivative evaluated: leaf.shape (0-d NAME), else NAME.shape + leaf.shape
    omitted: int = 0             # Jacobian entries not shown (zeros are never shown)
    zeros: int = 0               # Jacobian entries that are 0
    notes: list = field(default_factory=list)


class Evaluator:
    """Numbers for expressions at the values the graph ran with, each input exactly (its binary value),
    computed with mpmath at 30 digits by ``numeric.Numbers``, which meets each shared subexpression once
    (a derivative repeats its parts many times)."""

    def __init__(self, graph: Graph, arrays: dict) -> None:
        inputs: dict = {}
        self.by_name: dict[str, Any] = {}
        for value in symbolic_sources(graph):
            data = value.tensor._data
            symbols = arrays[value.key]
            for index in np.ndindex(*value.shape):
                inputs[symbols[index]] = float(data[index])
                self.by_name[value.element_name(index)] = data[index]
            self.by_name[value.name] = data
        self.numbers = Numbers(inputs)

    def add_intermediates(self, names: "Intermediates") -> None:
        """Know the named intermediates' values too (for the formulas written with them)."""
        for value, exprs in names.values:
            data = np.array(self.many(list(exprs.reshape(-1))), dtype=float).reshape(value.shape)
            for index in np.ndindex(*value.shape):
                self.by_name[value.element_name(index)] = data[index]
            self.by_name[value.name] = data

    def __call__(self, expr: Any) -> float:
        return self.numbers.value(expr)

    def many(self, exprs: list) -> list[float]:
        """The values of ``exprs`` (nan where one is not a real number)."""
        return [self.numbers.value(e) for e in exprs]

    def values_of(self, expr: Any) -> list:
        """(name, values) of the symbols ``expr`` reads, by name."""
        names = sorted({s.name for s in sp.sympify(expr).free_symbols if s.name in self.by_name})
        return [(name, self.by_name[name]) for name in names]


class Intermediates:
    """The named values between NAME and the leaves, to write a long formula with."""

    def __init__(self, graph: Graph, arrays: dict) -> None:
        self.values = []
        for step in reversed(graph.steps):   # nearest NAME first: r before the h inside it
            for key in step.outputs:
                value = graph.values[key]
                if value.name is not None and value is not graph.root:
                    self.values.append((value, arrays[key]))

    def substitute(self, expr: Any) -> Any:
        for value, exprs in self.values:
            for index in np.ndindex(*value.shape):
                element = exprs[index]
                if element.is_Atom:   # (a view of a leaf is still the leaf)
                    continue
                name = symbol(value.element_name(index))
                expr = expr.subs(element, name)
                if element.is_Add:   # (a sum times a number is spread out: 2·h₀ is 2·b₀ + 2·w₀₀·x₀ + ...)
                    expr = expr.subs(2 * element, 2 * name).subs(-element, -name)
        return expr

    def sources(self) -> list:
        """(name, element symbols) of each intermediate, for writing a formula over generic elements."""
        return [(value.name, _symbols(value)) for value, _ in self.values]


def _symbols(value: Value) -> np.ndarray:
    out = np.empty(value.shape, dtype=object)
    for index in np.ndindex(*value.shape):
        out[index] = symbol(value.element_name(index))
    return out


def exact_gradients(graph: Graph, arrays: dict, leaves: list[Value]) -> dict:
    """SymPy's ∂root/∂leaf (a Jacobian for a root with dims) evaluated at the graph's values, by leaf
    key, without simplifying or writing formulas: what the tests compare with autograd."""
    evaluate = Evaluator(graph, arrays)
    root = arrays[graph.root.key]
    out = {}
    for leaf in leaves:
        symbols = arrays[leaf.key]
        raw = np.empty(root.shape + leaf.shape, dtype=object)
        for o in np.ndindex(*root.shape):
            for i in np.ndindex(*leaf.shape):
                raw[o + i] = sp.diff(root[o], symbols[i])
        out[leaf.key] = _evaluate_all(raw, evaluate)
    return out


def derivatives(graph: Graph, arrays: dict, leaves: list[Value]) -> list[LeafDerivative]:
    evaluate = Evaluator(graph, arrays)
    names = Intermediates(graph, arrays)
    evaluate.add_intermediates(names)
    writer = _Writer(graph, arrays, names, evaluate)
    root = arrays[graph.root.key]
    return [writer.of_leaf(root, leaf) for leaf in leaves]


class _Writer:
    def __init__(self, graph: Graph, arrays: dict, names: Intermediates, evaluate: Evaluator) -> None:
        self.graph, self.arrays, self.names, self.evaluate = graph, arrays, names, evaluate
        self.leaf_sources = [(v.name, arrays[v.key]) for v in symbolic_sources(graph)]
        self.all_sources = self.leaf_sources + names.sources()

    def of_leaf(self, root: np.ndarray, leaf: Value) -> LeafDerivative:
        if self.graph.root.shape != ():
            return self.jacobian(root, leaf)
        symbols = self.arrays[leaf.key]
        name = self.graph.root.name
        raw = np.empty(leaf.shape, dtype=object)
        for index in np.ndindex(*leaf.shape):
            raw[index] = sp.diff(root[()], symbols[index])
        values = self.evaluate_all(raw)
        expr = self.shared(raw, leaf.shape)
        if expr is not None:
            return LeafDerivative(leaf, "shared", [self.formula(f"∂{name}/∂{leaf.name}", expr)], values)
        formulas = [self.formula(f"∂{name}/∂{leaf.element_name(index)}", self.written(raw[index]), index)
                    for index in np.ndindex(*leaf.shape)]
        return LeafDerivative(leaf, "elements", formulas, values)

    def jacobian(self, root: np.ndarray, leaf: Value) -> LeafDerivative:
        symbols = self.arrays[leaf.key]
        out_shape = self.graph.root.shape
        raw = np.empty(out_shape + leaf.shape, dtype=object)
        for o in np.ndindex(*out_shape):
            for i in np.ndindex(*leaf.shape):
                raw[o + i] = sp.diff(root[o], symbols[i])
        values = self.evaluate_all(raw)
        name = self.graph.root.name
        zeros = sum(1 for e in raw.reshape(-1) if e == 0)
        if out_shape == leaf.shape and all(raw[o + i] == 0 for o in np.ndindex(*out_shape)
                                            for i in np.ndindex(*leaf.shape) if o != i):
            diagonal = np.empty(leaf.shape, dtype=object)
            for i in np.ndindex(*leaf.shape):
                diagonal[i] = raw[i + i]
            expr = self.shared(diagonal, leaf.shape)
            if expr is not None:
                return LeafDerivative(leaf, "diagonal", [self.formula(f"∂{name}/∂{leaf.name}", expr)], values,
                                      zeros=zeros)
        nonzero = [(o, i) for o in np.ndindex(*out_shape) for i in np.ndindex(*leaf.shape) if raw[o + i] != 0]
        formulas = [self.formula(f"∂{self.graph.root.element_name(o)}/∂{leaf.element_name(i)}",
                                 self.written(raw[o + i]), o + i) for o, i in nonzero[:JACOBIAN_LINES]]
        return LeafDerivative(leaf, "jacobian", formulas, values, omitted=len(nonzero) - len(formulas), zeros=zeros)

    def formula(self, label: str, expr: Any, index: tuple | None = None) -> Formula:
        return Formula(label, expr, self.evaluate.values_of(expr), index)

    def evaluate_all(self, raw: np.ndarray) -> np.ndarray:
        return _evaluate_all(raw, self.evaluate)

    def written(self, raw: Any) -> Any:
        """One element's derivative, simplified, in the leaves or (when that is long) in the names."""
        in_leaves = simplest(raw)
        if _short(in_leaves) or not self.names.values:
            return in_leaves
        # Named before simplifying (which may split exp(h₀) into a product of exponentials), and after
        # (differentiation spreads factors into sums, 2·(a + b) as 2a + 2b): the shortest wins.
        candidates = [simplest(self.names.substitute(raw))]
        if not _short(candidates[0]):
            candidates.append(simplest(self.names.substitute(in_leaves)))
        return min([*candidates, in_leaves], key=_size)

    def shared(self, raw: np.ndarray, shape: tuple) -> Any:
        """The one formula all elements' derivatives are, simplified (None if there is none): in the
        leaves, or in the names when that is one formula too and shorter (or the only one)."""
        generic = _shared(raw, shape, self.leaf_sources)
        in_leaves = None if generic is None else simplest(generic)
        if in_leaves is not None and (_short(in_leaves) or not self.names.values):
            return in_leaves
        if not self.names.values:
            return None
        in_names = None
        for written in (lambda e: e, simplest):   # (as differentiated, then simplified: see written())
            named = np.empty(raw.shape, dtype=object)
            for index in np.ndindex(*raw.shape):
                named[index] = self.names.substitute(written(raw[index]))
            generic_named = _shared(named, shape, self.all_sources)
            if generic_named is not None:
                in_names = simplest(generic_named)
                break
        if in_names is None or in_leaves is None:
            return in_names if in_names is not None else in_leaves
        return in_names if _size(in_names) < _size(in_leaves) else in_leaves


def _evaluate_all(raw: np.ndarray, evaluate: Evaluator) -> np.ndarray:
    values = np.zeros(raw.shape, dtype=float)
    places = [index for index in np.ndindex(*raw.shape) if raw[index] != 0]
    for index, value in zip(places, evaluate.many([raw[index] for index in places])):
        values[index] = value
    return values


def _size(expr: Any) -> int:
    return sp.count_ops(expr)


def _short(expr: Any) -> bool:
    return _size(expr) <= SHORT and len(formula(expr)) <= SHORT_TEXT


def _generic_map(sources: list, shape: tuple, index: tuple) -> dict:
    """Each source's element at ``index`` (broadcast to ``shape``) -> the source's own symbol."""
    mapping = {}
    for name, symbols in sources:
        if not symbols.shape:
            continue
        try:
            element = np.broadcast_to(symbols, shape)[index]
        except ValueError:
            continue   # a source that does not broadcast to the leaf's shape keeps its elements
        mapping[element] = symbol(name)
    return mapping


def _shared(raw: np.ndarray, shape: tuple, sources: list) -> Any:
    """The one formula every element is, over the generic elements; None if there is none."""
    if not shape:
        return raw[()]
    first = None
    for index in np.ndindex(*shape):
        generic = sp.sympify(raw[index]).xreplace(_generic_map(sources, shape, index))
        if first is None:
            first = generic
        elif generic != first:
            return None
    return first
