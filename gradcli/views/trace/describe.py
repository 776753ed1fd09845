"""What the trace calls a node, its inputs and its rules: the script's names and words (from the
provenance record) and the rule text of the op's record."""

from __future__ import annotations

from typing import Any, Sequence

from gradcli.views.provenance import Binding, Operand, Provenance
from gradcli.views.trace.values import nested


SHORT = 24   # script text longer than this is too long for the ∂ notation: the node's name instead


def display_name(node: Any) -> str:
    """``MulBackward0``, ``AccumulateGrad`` (not ``torch::autograd::AccumulateGrad``)."""
    return type(node).__name__


def is_leaf_node(node: Any) -> bool:
    return hasattr(node, "variable") and type(node).__name__ == "AccumulateGrad"


def names(provenance: Provenance | None, node: Any, nr: int = 0) -> str:
    """The script's names of output ``nr`` of ``node`` ('' when none), short (see ``short_label``)."""
    if provenance is None:
        return ""
    return short_label(provenance.names_of_output(node, nr))


def short_label(bindings: Sequence[Binding]) -> str:
    """``z``; ``y (line 5, iteration 3)`` for a tensor a loop bound once; ``a, p`` for a leaf bound
    to ``a`` and then to a loop's variable ``p`` (each name once, three at most; only the first
    with the iteration that bound it)."""
    by_name: dict[str, list[Binding]] = {}
    for binding in bindings:
        by_name.setdefault(binding.name, []).append(binding)
    parts = [found[0].label() if i == 0 and len(found) == 1 else name
             for i, (name, found) in enumerate(by_name.items())]
    return ", ".join(parts[:3]) + (", ..." if len(parts) > 3 else "")


def leaf_name(provenance: Provenance | None, variable: Any) -> str:
    """What a leaf's ``.grad`` is written after: ``x`` (``the leaf`` when the script never named it)."""
    bindings = provenance.names_of(variable) if provenance is not None else []
    return bindings[0].label() if bindings else "the leaf"


def first_name(provenance: Provenance | None, node: Any, nr: int = 0) -> str:
    if provenance is None:
        return ""
    bindings = provenance.names_of_output(node, nr)
    return bindings[0].name if bindings else ""


def source_text(provenance: Provenance | None, node: Any) -> tuple[str, int | None]:
    """The script text that made ``node`` and its line (``("", None)`` when not known)."""
    origin = None if provenance is None else provenance.origin(node)
    if origin is None or origin.span is None:
        return "", None
    return origin.text, origin.line


def title(provenance: Provenance | None, node: Any) -> tuple[str, str]:
    """What a node's block is headed with: ``("z = y * y * 3", "line 15")``; a leaf's
    ``("x (leaf)", "line 8")`` with the line of its first binding."""
    if is_leaf_node(node):
        bindings = provenance.names_of(node.variable) if provenance is not None else []
        label = short_label(bindings) or "a leaf tensor"
        where = f"line {bindings[0].line}" if bindings and not bindings[0].repeated else ""
        return f"{label} (leaf)", where
    text, line = source_text(provenance, node)
    outputs = getattr(node, "num_outputs", 1)
    label = names(provenance, node)
    if outputs > 1:           # a, b = y.unbind()
        each = [names(provenance, node, nr) for nr in range(outputs)]
        label = ", ".join(name or "_" for name in each) if any(each) else ""
    if label and text:
        label = f"{label} = {text}"
    else:
        label = label or text
    return label, "" if line is None else f"line {line}"


def tensor_label(provenance: Provenance | None, node: Any, nr: int = 0) -> str:
    """How an edge's far end is called: ``y``, ``x``, or the expression ``y * y`` when unnamed."""
    label = names(provenance, node, nr)
    if label:
        return label
    if is_leaf_node(node):
        return "a leaf tensor"
    text, _ = source_text(provenance, node)
    return text or f"{display_name(node)}'s output"


def symbol(provenance: Provenance | None, node: Any, nr: int = 0) -> str:
    """A short name for the ∂ notation: ``y``, ``x``, or ``(y * y)``."""
    name = first_name(provenance, node, nr)
    if name:
        return name
    text, _ = source_text(provenance, node)
    return f"({text})" if text and len(text) <= SHORT else display_name(node)


def edge_names(node: Any) -> list[str]:
    """The input each edge of ``next_functions`` stands for: ``self``, ``other``, ``tensors[1]``."""
    formulas = getattr(node, "_backward", None)
    keys = getattr(formulas, "keys", None)
    if keys is not None and len(keys) == len(node.next_functions):
        return [name if index is None else f"{name}[{index}]" for name, index in keys]
    return [f"input {i}" for i in range(len(node.next_functions))]


def edge_rule(node: Any, index: int) -> str:
    """The rule text of edge ``index`` ('' when the op's record has none, or the input needs none)."""
    formulas = getattr(node, "_backward", None)
    derivs = getattr(formulas, "derivs", None)
    if derivs is None or index >= len(derivs) or derivs[index] is None:
        return ""
    deriv = derivs[index]
    rule_for = getattr(deriv, "rule_for", None)     # (a rule may differ by overload: the node's)
    return (rule_for(type(node).__name__) if callable(rule_for) else getattr(deriv, "rule", "")) or ""


def rule_lines(node: Any) -> list[str]:
    """The node's rules in words: ``d/dself = grad * other``, one per input it differentiates."""
    own = getattr(node, "rule_lines", None)
    if callable(own):
        return [str(line) for line in own() if line]
    lines: list[str] = []
    seen: set[str] = set()
    for index, name in enumerate(edge_names(node)):
        rule = edge_rule(node, index)
        base = name.split("[")[0]
        if rule and base not in seen:  # a list input (cat's tensors) has one rule for all its parts
            seen.add(base)
            lines.append(f"d/d{base} = {rule}")
    return lines


def operand(provenance: Provenance | None, node: Any, index: int) -> Any:
    """The argument behind edge ``index`` as the op got it (an Operand), or None when not known."""
    origin = None if provenance is None else provenance.origin(node)
    if origin is None or not origin.args:
        return None
    formulas = getattr(node, "_backward", None)
    keys = getattr(formulas, "keys", None)
    if keys is None or index >= len(keys):
        return None
    name, position = keys[index]
    value = origin.args.get(name)
    if position is not None and isinstance(value, (list, tuple)) and position < len(value):
        value = value[position]
    return value if isinstance(value, Operand) else None


def constant_text(provenance: Provenance | None, found: Operand) -> str:
    """A constant argument: its name, or its value when it is small (``3``)."""
    tensor = found.constant
    if tensor is None:
        return "a tensor"
    bound = provenance.names_of(tensor) if provenance is not None else []
    if bound:
        return bound[0].label()
    if tensor._data.size <= 4:
        return nested(tensor._data, 6)    # (the numbers the script wrote: 1.0001, not 1)
    return "a constant tensor"
