"""The lines of the trace, one function per thing it tells (the recorder decides when)."""

from __future__ import annotations

from typing import Any, Sequence

from gradcli.views.provenance import Provenance
from gradcli.views.trace import describe
from gradcli.views.trace.output import Line
from gradcli.views.trace.values import shape_text, tensor_text

INDENT = "    "
TAG = 10   # the width of the tag column ("grad in", "rule", ...)


def _tagged(tag: str, pieces: Sequence[tuple[str, str | None]], role: str = "label") -> Line:
    return [(INDENT + (tag + " " if tag else "").ljust(TAG), role), *pieces]


def pass_header(number: int, call: str, line: int | None, accumulate: bool) -> Line:
    what = "backward pass" if accumulate else "autograd.grad pass"
    out: Line = [(f"── {what} {number}", "pass")]
    if call:
        out.append((f" · {call}", None))
    if line is not None:
        out.append((f" · line {line}", "where"))
    out.append((" " + "─" * 8, "pass"))
    return out


def pass_roots(provenance: Provenance | None, roots: Sequence[tuple], grads: Sequence[Any]) -> list[Line]:
    lines: list[Line] = []
    for (node, nr), grad in zip(roots, grads):
        label = describe.tensor_label(provenance, node, nr)
        lines.append([("  starts at ", "label"), (label, None), (f", {describe.display_name(node)},", "where"),
                      (" with gradient ", "label"), (tensor_text(grad), "value")])
    return lines


def pass_inputs(provenance: Provenance | None, inputs: Sequence[tuple], accumulate: bool) -> Line:
    labels = ", ".join(describe.tensor_label(provenance, node, nr) for node, nr in inputs)
    if accumulate:
        return [("  only into ", "label"), (labels, None), (" (inputs=)", "where")]
    return [("  results for ", "label"), (labels, None), ("; no .grad changes", "where")]


def node_header(provenance: Provenance | None, number: int, node: Any) -> Line:
    label, where = describe.title(provenance, node)
    out: Line = [(f"[{number}] ", "label"), (describe.display_name(node), "node")]
    if label:
        out.append((f" · {label}", None))
    if where:
        out.append((f" · {where}", "where"))
    return out


def incoming(grads: Sequence[Any], sources: Sequence[Sequence[str]]) -> list[Line]:
    """The gradients a node starts with (one per output), and where a summed one came from."""
    lines: list[Line] = []
    for nr, grad in enumerate(grads):
        tag = "grad in" if len(grads) == 1 else f"grad in {nr}"
        line = _tagged(tag, [(tensor_text(grad), "value")])
        came = sources[nr] if nr < len(sources) else ()
        if len(came) > 1:
            line.append((f"  (the sum of {len(came)} gradients, from {', '.join(came)})", "fanout"))
        lines.append(line)
    return lines


def skipped() -> Line:
    return _tagged("", [("no gradient reached it: skipped", "note")])


def rules(node: Any) -> list[Line]:
    found = describe.rule_lines(node)
    return [_tagged("rule" if i == 0 else "", [(text, "rule")]) for i, text in enumerate(found)]


def outgoing(provenance: Provenance | None, node: Any, outputs: Sequence[Any]) -> list[Line]:
    """One line per input of the node: the gradient it sends there (before any broadcast sum)."""
    lines: list[Line] = []
    names = describe.edge_names(node)
    for index, ((child, nr), grad) in enumerate(zip(node.next_functions, outputs)):
        name = names[index] if index < len(names) else f"input {index}"
        if child is None:
            found = describe.operand(provenance, node, index)
            what = "a constant" if found is None or found.constant is None else \
                describe.constant_text(provenance, found)
            lines.append(_tagged("→ " + name, [(what, None), (" (needs no gradient)", "note")]))
            continue
        target = describe.tensor_label(provenance, child, nr)
        if grad is None:
            lines.append(_tagged("→ " + name, [(target, None), (": no gradient (None)", "note")]))
        else:
            lines.append(_tagged("→ " + name, [(target, None), (": ", None), (tensor_text(grad), "value")]))
    return lines


def reduced(node: Any, index: int, before: Any, after: Any) -> Line:
    names = describe.edge_names(node)
    name = names[index] if index < len(names) else f"input {index}"
    return _tagged("", [(f"↳ {name}: broadcasting undone, the gradient of shape {shape_text(before._data.shape)} "
                         f"summed to {shape_text(after._data.shape)}: ", "reduced"),
                        (tensor_text(after), "value")])


def summed(label: str, earlier: Any, earlier_from: Sequence[str], incoming_: Any, incoming_from: str,
           total: Any) -> Line:
    came = ", ".join(earlier_from) or "before"
    return _tagged("", [(f"Σ fan-out into {label}: ", "fanout"),
                        (tensor_text(earlier), "value"), (f" (from {came})", "where"), (" + ", "fanout"),
                        (tensor_text(incoming_), "value"), (f" (from {incoming_from})", "where"),
                        (" = ", "fanout"), (tensor_text(total), "value")])


def hook(provenance: Provenance | None, node: Any, kind: str, fn: Any, result: Any) -> Line:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    label = describe.tensor_label(provenance, node)
    if kind == "retain_grad":
        return _tagged("retain", [(f"{label}.retain_grad(): {label}.grad = ", "hook"), (_shown(result), "value")],
                       "hook")
    on = {"tensor": f"hook on {label}", "prehook": f"pre-hook on {describe.display_name(node)}",
          "hook": f"hook on {describe.display_name(node)}"}[kind]
    if result is None:
        return _tagged("hook", [(f"{on}: {name} returned None", "hook"), (" (the gradient is unchanged)", "note")],
                       "hook")
    return _tagged("hook", [(f"{on}: {name} returned ", "hook"), (_shown(result), "value"),
                            (" (it replaces the gradient)", "note")], "hook")


def _shown(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_shown(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if hasattr(value, "_data"):
        return tensor_text(value)
    return repr(value)


def accumulated(provenance: Provenance | None, variable: Any, before: Any, after: Any) -> Line:
    label = describe.leaf_name(provenance, variable)
    return _tagged(f"{label}.grad", [(tensor_text(before), "value"), (" → ", "leaf"),
                                     (tensor_text(after), "value")], "leaf")


def captured(label: str, index: int, grad: Any, keeps_grad: bool) -> list[Line]:
    out = [_tagged("result", [(f"autograd.grad's result {index} (for {label}): ", "leaf"),
                              (tensor_text(grad), "value")], "leaf")]
    if keeps_grad:
        out.append(_tagged("", [(f"{label}.grad is left as it is", "note")]))
    return out


def into_grad(label: str, grad: Any) -> Line:
    return _tagged("inputs=", [(f"{label}.grad gets ", "leaf"), (tensor_text(grad), "value"),
                               (" (added after the pass)", "note")], "leaf")


def folded(count: int, name: str, text: str, line: int | None, iterations: tuple[int, int] | None) -> Line:
    what = f"{count:,} more {name} like it"
    if text:
        what += f" ({text}" + (f", line {line}" if line is not None else "")
        if iterations is not None:
            what += f", iterations {iterations[0]:,} to {iterations[1]:,}"
        what += ")"
    return [(INDENT + "⋮ " + what, "note")]


def hidden(count: int, kinds: Sequence[tuple[str, int | None, int]], limit: int) -> Line:
    parts = [f"{name} ×{n:,}" + (f" (line {line})" if line is not None else "") for name, line, n in kinds[:6]]
    if len(kinds) > 6:
        parts.append("...")
    return [(f"  … {count:,} more nodes, not shown (the trace shows {limit} per pass): ", "note"),
            (", ".join(parts), None)]


def muted(call: str, line: int | None, traced: int) -> Line:
    where = f"{call} (line {line})" if call and line is not None else call or "this call"
    return [(f"── later passes from {where} are not traced (the trace shows the first {traced} of each "
             "call) ──", "note")]


def untraced(call: str, line: int | None, count: int) -> Line:
    where = f"{call} (line {line})" if call and line is not None else call or "one call"
    return [(f"--trace-backward left out {count:,} later pass{'es' if count != 1 else ''} from {where}", "note")]


def stopped() -> Line:
    return [("  the pass stopped here with an error (reported below)", "note")]


def pass_end(number: int, steps: int) -> Line:
    return [(f"  {steps:,} node{'s' if steps != 1 else ''} ran in pass {number}", "note")]
