"""The graph replayed over SymPy, step by step, with the op table's symbolic forms.

``replay_elements`` gives every value as an object array of expressions in the leaves' elements
(``x₀₀``, ...): named constants stay symbols too (their values are known), numbers stay numbers.
``replay_generic`` gives one expression per value for a generic element, stopping at names: a
pointwise step is written element-wise (``3·y²``), any other as a call (``mean(z)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from .graph import Graph, Step, Value
from .printer import formula, numbers, values_text
from .symbolic_ops import TABLE, NoSymbolicForm, obj

_FLOATING = "fc"


class Unsupported(Exception):
    """A step SymPy cannot replay: ``reason`` says why, ``step`` is the step."""

    def __init__(self, step: Step, reason: str) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason


def symbol(name: str) -> Any:
    return sp.Symbol(name, real=True)


def element_symbols(value: Value) -> np.ndarray:
    """The value's elements as symbols: ``x₀₀``, ``x₀₁``, ... (a 0-d value is its name)."""
    out = np.empty(value.shape, dtype=object)
    for index in np.ndindex(*value.shape):
        out[index] = symbol(value.element_name(index))
    return out


def is_floating(value: Value) -> bool:
    return value.dtype is None or value.dtype.is_floating_point


def symbolic_sources(graph: Graph) -> list[Value]:
    """The values that are symbols: the leaves and the named floating-point constants."""
    return [v for v in graph.values.values()
            if v.kind == "leaf" or (v.kind == "constant" and v.name is not None and is_floating(v))]


def replay_elements(graph: Graph) -> dict[tuple, np.ndarray]:
    """Every value of the graph as an object array of expressions (Unsupported if a step has none)."""
    arrays: dict[tuple, np.ndarray] = {}
    for value in graph.values.values():
        if value.kind == "leaf" or (value.kind == "constant" and value.name is not None and is_floating(value)):
            arrays[value.key] = element_symbols(value)
        elif value.kind == "constant":
            data = value.tensor._data
            arrays[value.key] = obj(data) if data.dtype.kind in _FLOATING else data
    for step in graph.steps:
        form = _form(step)
        b = {key: _argument(value, arrays) for key, value in step.args.items()}
        try:
            result = form.compute(b)
        except NoSymbolicForm as missing:
            raise Unsupported(step, f"the op {step.op!r} has no symbolic form for {missing}") from None
        for key in step.outputs:
            out = result[key[2]] if isinstance(result, tuple) else result
            out = obj(np.asarray(out, dtype=object)) if not isinstance(out, np.ndarray) else obj(out)
            expected = graph.values[key].shape
            if out.shape != expected:
                raise Unsupported(step, f"its symbolic form gave shape {out.shape}, not {expected}")
            arrays[key] = out
    return arrays


def replay_generic(graph: Graph) -> dict[tuple, Any]:
    """One expression per value, for a generic element, in terms of the named values."""
    computed: dict[tuple, Any] = {}
    refs: dict[tuple, Any] = {}
    texts: dict[tuple, str] = {}
    for value in graph.values.values():
        if value.kind == "node":
            continue
        if value.name is not None and is_floating(value):
            refs[value.key] = symbol(value.name)
        elif value.kind == "constant" and value.tensor._data.dtype.kind in _FLOATING + "iu":
            refs[value.key] = _constant(value.tensor._data)
        else:
            refs[value.key] = None
            texts[value.key] = value.name or ("mask" if value.dtype.name == "bool" else numbers(value.tensor._data)
                                              if value.numel <= 6 else "index")
    for step in graph.steps:
        results = _generic_step(step, refs, texts)
        for key in step.outputs:
            computed[key] = results[key]
            value = graph.values[key]
            refs[key] = symbol(value.name) if value.name is not None else results[key]
    return computed


def _generic_step(step: Step, refs: dict, texts: dict) -> dict[tuple, Any]:
    form = TABLE.get(step.op) if step.reason is None else None
    if form is not None and form.pointwise:
        try:
            result = form.compute({key: _argument(value, _AsArrays(refs)) for key, value in step.args.items()})
            return {key: obj(result)[()] for key in step.outputs}
        except (NoSymbolicForm, TypeError, ValueError, KeyError, AttributeError):
            pass   # written as a call below
    text_args = {key: _text(value, refs, texts) for key, value in step.args.items()}
    if form is not None and form.show is not None:
        try:
            text = form.show(text_args)
        except (KeyError, TypeError, ValueError):
            text = _fallback_text(step)
    else:
        text = _fallback_text(step)
    several = step.op in ("split", "unbind") or (step.op in ("max", "min") and "dim" in step.args)
    if several or len(step.outputs) > 1:
        suffix = (lambda nr: ".values") if step.op in ("max", "min") else (lambda nr: f"[{nr}]")
        return {key: symbol(text + suffix(key[2])) for key in step.outputs}
    return {key: symbol(text) for key in step.outputs}


class _AsArrays:
    """The generic expressions as 0-d object arrays, made when asked for (KeyError for a mask)."""

    def __init__(self, refs: dict) -> None:
        self.refs = refs

    def __getitem__(self, key: tuple) -> np.ndarray:
        ref = self.refs[key]
        if ref is None:
            raise KeyError(key)
        return obj(ref)


def _fallback_text(step: Step) -> str:
    if step.origin is not None and step.origin.text:
        return step.origin.text
    return f"{step.node_name}(…)"


def _form(step: Step) -> Any:
    if step.reason is not None:
        raise Unsupported(step, step.reason)
    form = TABLE.get(step.op)
    if form is None:
        raise Unsupported(step, f"the op {step.op!r} has no symbolic form in the table")
    return form


def is_key(value: Any) -> bool:
    """Whether a bound argument is a Value key (what graph.Step keeps for a tensor)."""
    return (isinstance(value, tuple) and len(value) >= 2 and value[0] in ("node", "leaf", "constant")
            and isinstance(value[1], int))


def _argument(value: Any, arrays: dict) -> Any:
    """A bound argument with each Value key replaced by its array (a KeyError when it has none)."""
    if is_key(value):
        return arrays[value]
    if isinstance(value, (list, tuple)) and any(is_key(v) for v in value):
        return [_argument(v, arrays) for v in value]
    return value


def _text(value: Any, refs: dict, texts: dict) -> Any:
    if is_key(value):
        ref = refs.get(value)
        return texts.get(value, "?") if ref is None else formula(ref)
    if isinstance(value, (list, tuple)) and any(is_key(v) for v in value):
        return [_text(v, refs, texts) for v in value]
    return value


def _constant(data: np.ndarray) -> Any:
    """A constant tensor in a generic formula: its number when every element has it, else its values."""
    flat = data.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return obj(flat[0])[()]
    return symbol(values_text(data) if data.size <= 6 else f"tensor({'×'.join(map(str, data.shape))})")
