"""Everything ``explain`` shows about one tensor, computed (``render`` writes it).

SymPy takes graphs of up to ``SYMBOLIC_LIMIT`` tensor elements in all (every node's output, every
leaf and constant tensor; numbers do not count): the tutorial's ``out`` has 17.  Larger graphs, and
graphs with a step the op table has no symbolic form for, get the chain rule node by node instead.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .autograd_values import AutogradAnswer, BackwardLog, autograd_gradients
from .chain_rule import ChainRule, chain_rule
from .derivatives import LeafDerivative, derivatives
from .equations import equations
from .graph import Graph, Value, read_graph
from .printer import formula
from .replay import Unsupported, replay_elements, replay_generic
from .simplify import start_budget

SYMBOLIC_LIMIT = 64
# how closely SymPy's exact value and autograd's must agree, by the lowest precision in the graph
TOLERANCE = {"float16": (1e-2, 1e-3), "bfloat16": (3e-2, 1e-2), "float32": (1e-4, 1e-6), "float64": (1e-9, 1e-12)}


class ExplainError(Exception):
    """What the user asked for cannot be explained: the message says why."""


@dataclass
class Check:
    """SymPy's values beside autograd's for one leaf."""
    leaf: Value
    sympy: np.ndarray
    autograd: np.ndarray | None
    agree: bool | None           # None: autograd gave nothing to compare
    rtol: float = 1e-4
    atol: float = 1e-6

    def close(self, sympy: Any, autograd: Any) -> bool:
        """Whether the numbers agree, to the precision of the graph's dtypes."""
        sympy, autograd = np.asarray(sympy, dtype=float), np.asarray(autograd, dtype=float)
        scale = max(1.0, float(np.nanmax(np.abs(sympy)))) if sympy.size and not np.all(np.isnan(sympy)) else 1.0
        return bool(np.allclose(autograd, sympy, rtol=self.rtol, atol=self.atol * scale, equal_nan=True))


@dataclass
class Explanation:
    name: str
    graph: Graph
    equations: list
    leaves: list                 # the leaves the derivatives are by
    derivatives: list | None = None      # [LeafDerivative] (None: no symbolic form; see why_not)
    checks: list = field(default_factory=list)
    autograd: AutogradAnswer | None = None
    why_not: str | None = None
    chain: ChainRule | None = None
    notes: list = field(default_factory=list)
    generic: dict = field(default_factory=dict)   # each value's formula over a generic element

    def label(self, key: tuple | None, longest: int = 40) -> str:
        """A value by its name, or by its formula in parentheses (``(sin(2·big))``) when short; else ''."""
        value = self.graph.values.get(key) if key is not None else None
        if value is None:
            return ""
        if value.name:
            return value.name
        if key in self.generic:
            text = formula(self.generic[key])
            if len(text) <= longest:
                return f"({text})"
        return ""


def explain(provenance: Any, tensor: Any, name: str, wrt: list[str] | None = None,
            log: BackwardLog | None = None, limit: int = SYMBOLIC_LIMIT) -> Explanation:
    _check_tensor(tensor, name)
    start_budget()
    graph = read_graph(provenance, tensor, name)
    leaves = _chosen_leaves(graph, wrt)
    generic = replay_generic(graph)
    found = Explanation(name, graph, equations(graph, generic), leaves, generic=generic)
    if not leaves:
        found.why_not = f"{name} depends on no leaf that requires grad"
        return found
    if graph.elements > limit:
        found.why_not = (f"the graph has {graph.elements} tensor elements, more than {limit} "
                         f"(the limit for SymPy)")
    else:
        try:
            arrays = replay_elements(graph)
        except Unsupported as missing:
            origin = missing.step.origin
            where = f" (line {origin.line}: {origin.text})" if origin is not None and origin.line else ""
            found.why_not = f"{missing.step.node_name}{where}: {missing.reason}"
        else:
            found.derivatives = derivatives(graph, arrays, leaves)
            found.notes += _replay_check(graph, arrays, tensor)
    if found.derivatives is None:
        found.chain = chain_rule(graph, tensor, leaves)
        return found
    found.autograd = autograd_gradients(graph, tensor, leaves, log)
    found.checks = [_check(graph, d, found.autograd) for d in found.derivatives]
    return found


def _check_tensor(tensor: Any, name: str) -> None:
    from gradcli.engine.tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise ExplainError(f"{name} is {_a(type(tensor).__name__)}, not a tensor")
    if tensor._grad_fn is not None:
        return
    if tensor._requires_grad:
        raise ExplainError(f"{name} is a leaf (requires_grad=True, no grad_fn): no op computed it, so there is "
                           f"nothing to explain; explain a tensor computed from {name}")
    raise ExplainError(f"{name} has no grad_fn: it does not require grad, so no graph was recorded for it "
                       "(a leaf made with requires_grad=True starts one)")


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _chosen_leaves(graph: Graph, wrt: list[str] | None) -> list[Value]:
    leaves = graph.leaves
    if not wrt:
        return leaves
    chosen = []
    for asked in wrt:
        matches = [leaf for leaf in leaves if leaf.name == asked or any(b.name == asked for b in leaf.bindings)]
        if not matches:
            raise ExplainError(_not_a_leaf(graph, asked))
        chosen += [leaf for leaf in matches if leaf not in chosen]
    return chosen


def _not_a_leaf(graph: Graph, asked: str) -> str:
    name = graph.root.name
    names = [leaf.name for leaf in graph.leaves]
    listed = ", ".join(names) if names else "none"
    other = [v for v in graph.values.values() if v.kind != "leaf" and
             (v.name == asked or any(b.name == asked for b in v.bindings))]
    if other:
        what = "a constant (it does not require grad)" if other[0].kind == "constant" else "computed in the graph"
        return f"{asked} is not a leaf of {name}: it is {what}; --wrt takes {name}'s leaves: {listed}"
    close = difflib.get_close_matches(asked, names, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"{asked} is not a leaf of {name} (its leaves: {listed}){hint}"


def _tolerance(graph: Graph) -> tuple[float, float]:
    names = {getattr(v.dtype, "name", "float32") for v in graph.values.values()
             if v.dtype is not None and v.dtype.is_floating_point}
    worst = max((TOLERANCE.get(n, TOLERANCE["float32"]) for n in names), default=TOLERANCE["float32"])
    return worst


def _check(graph: Graph, derivative: LeafDerivative, answer: AutogradAnswer) -> Check:
    got = answer.values.get(derivative.leaf.key)
    rtol, atol = _tolerance(graph)
    if got is None:
        return Check(derivative.leaf, derivative.values, None, None, rtol, atol)
    check = Check(derivative.leaf, derivative.values, np.asarray(got, dtype=float), None, rtol, atol)
    check.agree = check.close(derivative.values, got)
    return check


def _replay_check(graph: Graph, arrays: dict, tensor: Any) -> list[str]:
    """A note when SymPy's replay does not give the tensor's own values (it always should)."""
    from .derivatives import Evaluator
    evaluate = Evaluator(graph, arrays)
    expected = tensor._data.astype(float)
    got = np.array(evaluate.many(list(arrays[graph.root.key].reshape(-1))), dtype=float).reshape(expected.shape)
    rtol, atol = _tolerance(graph)
    scale = max(1.0, float(np.nanmax(np.abs(expected)))) if expected.size else 1.0
    if np.allclose(got, expected, rtol=rtol, atol=atol * scale, equal_nan=True):
        return []
    return [f"SymPy's replay of {graph.root.name} gives {got.tolist()}, not its value {expected.tolist()}: "
            "the values below may not be the script's"]
