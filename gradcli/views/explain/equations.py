"""How the tensor was computed, one equation per name the script gave: ``out = mean(z)``,
``z = 3·y²``, ``y = x + 2``; then the leaves and the named constants the equations read.

Steps the script gave no name are folded into the equation of the name that used them; each
equation is simplified by SymPy and holds element by element (with broadcasting) for pointwise
steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Graph, Value
from .printer import formula, shape_text, values_text
from .replay import replay_generic
from .simplify import simplest

CONSTANT_VALUES = 6   # a named constant's values are shown up to this many elements
EQUATIONS = 40        # at most this many equations of computed values (the first and the last ones)


@dataclass
class Equation:
    name: str
    right: str                   # the formula, or what the value is (a leaf, a constant)
    line: int | None
    source: str                  # the script's expression (the op's own, for a computed value)
    kind: str                    # "node", "leaf", "constant", or "folded" (equations left out)


def equations(graph: Graph, generic: dict | None = None) -> list[Equation]:
    """The equations; ``generic`` is ``replay_generic(graph)`` when the caller has it."""
    generic = replay_generic(graph) if generic is None else generic
    named = [(graph.values[key], step) for step in reversed(graph.steps) for key in step.outputs
             if graph.values[key].name is not None]
    out = []
    for group in _runs(named):
        shown = group if len(group) <= 3 else [group[0], None, group[-1]]
        for entry in shown:
            if entry is None:
                line = group[0][1].origin.line if group[0][1].origin else None
                out.append(Equation("…", f"{len(group) - 2} more like these", line, "", "folded"))
                continue
            value, step = entry
            origin = step.origin
            out.append(Equation(value.name, "", origin.line if origin is not None else value.line,
                                origin.text if origin is not None else "", "node"))
            out[-1].right = generic[value.key]
    if len(out) > EQUATIONS:
        left = len(out) - EQUATIONS
        out = out[:EQUATIONS - 5] + [Equation("…", f"{left} more equations", None, "", "folded")] + out[-5:]
    for equation in out:
        if equation.kind == "node":
            equation.right = formula(simplest(equation.right))
    read = _read_names(graph)
    for value in sorted(graph.values.values(), key=lambda v: (v.kind != "constant", v.line or 0)):
        if value.kind == "node" or value.name is None or value.key not in read:
            continue
        out.append(Equation(value.name, _describe(value), value.line, "", value.kind))
    return out


def _runs(named: list) -> list[list]:
    """Consecutive equations made by the same expression (a loop's), grouped."""
    groups: list[list] = []
    for value, step in named:
        where = (step.origin.line, step.origin.text) if step.origin is not None else None
        if groups and where is not None and groups[-1][-1][2] == where:
            groups[-1].append((value, step, where))
        else:
            groups.append([(value, step, where)])
    return [[(v, s) for v, s, _ in group] for group in groups]


def _read_names(graph: Graph) -> set:
    return {key for step in graph.steps for key in step.inputs}


def _describe(value: Value) -> str:
    dtype = getattr(value.dtype, "name", str(value.dtype))
    if value.kind == "leaf":
        return f"a leaf ({shape_text(value.shape)}, {dtype}, requires_grad)"
    if value.numel <= CONSTANT_VALUES:
        return f"{values_text(value.tensor._data)} (a constant, {shape_text(value.shape)}, {dtype})"
    return f"a constant ({shape_text(value.shape)}, {dtype})"
