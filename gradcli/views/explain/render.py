"""An Explanation as text: plain on a pipe, coloured by Rich on a terminal.

    How out was computed (the script's names; unnamed steps folded in):
      out = mean(z)                                      line 16: z.mean()
      z = 3·y²                                           line 15: y * y * 3
      y = x + 2                                          line 10: x + 2
      x: a leaf (shape [2, 2], float32, requires_grad)   line 8
    SymPy's derivative, checked against autograd (x.grad, left by the script's out.backward() at line 28):
      ∂out/∂x = 3·(x + 2)/2 = 4.5 at x = 1  ✓

or, for a graph SymPy does not take, the chain rule node by node (a loop's repeated nodes folded).
"""

from __future__ import annotations

from typing import Any, TextIO

import numpy as np
import sympy as sp

from .chain_rule import ChainRule, ChainStep
from .derivatives import Formula, LeafDerivative
from .explanation import Check, Explanation
from .printer import formula, number, shape_text, values_text

Segment = tuple[str, str]   # (text, Rich style; "" for none)
Line = list

NAME, CHECK, WRONG, NOTE, HEAD = "bold cyan", "bold green", "bold red", "dim", "bold"
SMALL = 8                    # arrays of up to this many elements are shown in full
CHAIN_LINES = 40             # node lines of the chain rule shown at most


def render(found: Explanation) -> list[Line]:
    lines: list[Line] = [[(f"How {found.name} was computed", HEAD),
                          (" (the script's names; unnamed steps folded in):", "")]]
    lines += _equations(found)
    for note in found.notes:
        lines.append([("note: " + note, NOTE)])
    if found.derivatives is not None:
        lines += _derivatives(found)
    else:
        lines.append([(f"No symbolic derivative: {found.why_not}.", HEAD)])
        if found.chain is not None:
            lines += _chain(found, found.chain)
    return lines


def write(lines: list[Line], stream: TextIO, color: bool) -> None:
    if not color:
        stream.write("".join("".join(text for text, _ in line) + "\n" for line in lines))
        stream.flush()
        return
    from rich.console import Console
    from rich.text import Text
    console = Console(file=stream, force_terminal=True, highlight=False, soft_wrap=True)
    for line in lines:
        console.print(Text.assemble(*[(text, style) if style else text for text, style in line]))


# -- equations ------------------------------------------------------------------------------------------

def _equations(found: Explanation) -> list[Line]:
    rows = []
    for eq in found.equations:
        if eq.kind == "folded":
            rows.append(([("  … ", NOTE), (eq.right, NOTE)], ""))
            continue
        sep = " = " if eq.kind == "node" else ": "
        left = [("  ", ""), (eq.name, NAME), (sep, ""), (eq.right, "")]
        where = "" if eq.line is None else f"line {eq.line}" + (f": {eq.source}" if eq.source else "")
        rows.append((left, where))
    width = min(max((_width(left) for left, where in rows if where), default=0) + 3, 56)
    out = []
    for left, where in rows:
        if where:
            left = left + [(" " * max(width - _width(left), 3), ""), (where, NOTE)]
        out.append(left)
    return out


def _width(line: Line) -> int:
    return sum(len(text) for text, _ in line)


# -- derivatives ---------------------------------------------------------------------------------------

def _derivatives(found: Explanation) -> list[Line]:
    answer = found.autograd
    source = f" ({answer.source})" if answer is not None and answer.source else ""
    out: list[Line] = [[("SymPy's derivative, checked against autograd", HEAD), (source + ":", "")]]
    for note in (answer.notes if answer is not None else []):
        out.append([("  note: " + note, NOTE)])
    if answer is not None and answer.problem:
        out.append([("  autograd gave no numbers: " + answer.problem, WRONG)])
    if found.graph.root.shape:
        out.append([(f"  {found.name} has {found.graph.root.numel} elements: the derivatives are the entries "
                     f"∂{found.name}[o]/∂leaf[i] of its Jacobian", NOTE)])
    for derivative, check in zip(found.derivatives, found.checks):
        out += _leaf(found, derivative, check)
    return out


def _leaf(found: Explanation, d: LeafDerivative, check: Check) -> list[Line]:
    lines = []
    if d.kind == "diagonal":
        lines.append([(f"  element by element (the Jacobian is diagonal: ∂{found.name}[i]/∂{d.leaf.name}[i], "
                       f"0 elsewhere):", NOTE)])
    for f in d.formulas:
        values = d.values if f.index is None else d.values[f.index]
        if d.kind == "diagonal":
            values = np.array([d.values[i + i] for i in np.ndindex(*d.leaf.shape)]).reshape(d.leaf.shape)
        auto = None
        if check.autograd is not None:
            auto = check.autograd if f.index is None else check.autograd[f.index]
            if d.kind == "diagonal":
                auto = np.array([check.autograd[i + i] for i in np.ndindex(*d.leaf.shape)]).reshape(d.leaf.shape)
        lines.append(_formula_line(f, values, auto, check))
    if d.kind == "jacobian":
        rest = []
        if d.omitted:
            rest.append(f"{d.omitted} more entries not shown")
        if d.zeros:
            rest.append(f"{d.zeros} of {d.values.size} entries are 0")
        if rest:
            lines.append([("  (" + "; ".join(rest) + ")", NOTE)])
    if check.agree is False:
        lines.append([(f"  SymPy and autograd disagree on ∂{found.name}/∂{d.leaf.name}: ", WRONG),
                      (_disagreement_hint(found), NOTE)])
    return lines


def _formula_line(f: Formula, values: Any, auto: Any, check: Check) -> Line:
    line: Line = [("  ", ""), (f.label, NAME), (" = ", ""), (formula(f.expr), "")]
    shown = values_text(values)
    if not (sp.sympify(f.expr).is_Number and shown == formula(f.expr)):
        line.append((f" = {shown}", ""))
    if f.at:
        line.append((" at " + ", ".join(f"{name} = {values_text(v)}" for name, v in f.at), NOTE))
    if check.agree is None:
        return line
    if check.close(values, auto):
        line.append(("  ✓", CHECK))
    else:
        line.append(("  ✗ autograd: " + values_text(auto), WRONG))
    return line


def _disagreement_hint(found: Explanation) -> str:
    kinks = {"abs", "relu", "max", "min", "amax", "amin", "maximum", "minimum", "clamp", "clip", "clamp_min",
             "hardtanh", "leaky_relu", "threshold", "hardshrink", "softshrink", "hardsigmoid", "hardswish",
             "floor", "ceil", "round", "trunc", "sign", "sgn", "remainder", "fmod", "_norm"}
    used = sorted({step.op for step in found.graph.steps if step.op in kinks})
    if used:
        return (f"the graph uses {', '.join(used)}, which are not smooth everywhere; at a kink or a tie "
                "autograd takes one side by convention")
    return "a hook on the graph, or a value changed in place, can make autograd's differ"


# -- the chain rule ---------------------------------------------------------------------------------------

def _chain(found: Explanation, chain: ChainRule) -> list[Line]:
    head = "The chain rule, node by node"
    if chain.problem:
        return [[(head + ": ", HEAD), (chain.problem, WRONG)]] + [line for s in chain.steps for line in _step(found, s)]
    seeded = f", {chain.seeded}" if chain.seeded else ""
    out: list[Line] = [[(head, HEAD), (f" ({chain.source}{seeded}); the gradient arriving at each node is "
                                       f"∂{found.name}/∂ its output:", "")]]
    shown = 0
    for item in _fold(chain.steps):
        if shown >= CHAIN_LINES:
            out.append([("  … and more nodes", NOTE)])
            break
        if item[0] == "one":
            out += _step(found, item[1])
            shown += 1
            continue
        _, block, repeats, last = item
        out += [line for s in block for line in _step(found, s)]
        lines = sorted({s.line for s in block if s.line})
        where = f" from line {', '.join(map(str, lines))}" if lines else ""
        what = block[0].node_name if len(block) == 1 else f"these {len(block)} nodes"
        out.append([(f"  … {what} ×{repeats - 2} more{where} (a loop)", NOTE)])
        out += [line for s in last for line in _step(found, s)]
        shown += 2 * len(block)
    return out


def _fold(steps: list[ChainStep], longest_body: int = 8, fewest: int = 4) -> list[tuple]:
    """The steps, with a block of nodes repeated ``fewest`` times or more in a row (a loop's body)
    kept as ("run", first block, repeats, last block); any other step as ("one", step)."""
    sig = [(s.node_name, s.line, s.text) for s in steps]
    out: list[tuple] = []
    i = 0
    while i < len(steps):
        best = None
        for p in range(1, longest_body + 1):
            repeats = 1
            while i + (repeats + 1) * p <= len(steps) and sig[i + repeats * p:i + (repeats + 1) * p] == sig[i:i + p]:
                repeats += 1
            if repeats >= fewest and (best is None or repeats * p > best[0] * best[1]):
                best = (repeats, p)
        if best is None:
            out.append(("one", steps[i]))
            i += 1
            continue
        repeats, p = best
        out.append(("run", steps[i:i + p], repeats, steps[i + (repeats - 1) * p:i + repeats * p]))
        i += repeats * p
    return out


def _step(found: Explanation, s: ChainStep) -> list[Line]:
    where = "" if s.line is None else f"  line {s.line}" + (f": {s.text}" if s.text else "")
    head: Line = [("  ", ""), (s.names or "(unnamed)", NAME if s.names else NOTE), (f"  {s.node_name}", ""),
                  (where, NOTE)]
    lines = [head]
    label = s.names or found.label(s.key)
    of = label if label and "," not in label else f"({label or 'its output'})"
    for grad in s.incoming:
        if grad is not None:
            lines.append([("      ", ""), (f"∂{found.name}/∂{of}", NAME if s.node_name == "AccumulateGrad" else ""),
                          (f" = {_array(grad)}", "")])
    for rule in s.rules:
        lines.append([(f"      {rule}", NOTE)])
    return lines


def _array(values: Any) -> str:
    array = np.asarray(values, dtype=float)
    if array.size <= SMALL:
        return values_text(array)
    if np.all(array == array.reshape(-1)[0]):
        return f"{shape_text(array.shape)}, all {number(array.reshape(-1)[0])}"
    return (f"{shape_text(array.shape)}, from {number(np.nanmin(array))} to {number(np.nanmax(array))}, "
            f"mean {number(np.nanmean(array))}")
