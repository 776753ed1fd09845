"""The chain rule for one element: how a leaf's gradient is a sum over paths of products of
local derivatives, read off the gradients that flowed in one backward pass.

At a node that acts element by element (see ``elementwise``), the local derivative of one
element is the outgoing gradient of that element over the incoming one, so the numbers come
from what the engine computed, never from a second calculation; their product along each path,
summed over the paths, must give the gradient that reached the leaf, and the summary is shown
only when it does.  A factor is also named (``y``, ``3``, ``1/4``) when the op's rule says what
it is (``d/dself = grad * other``: the factor is ``other``) and the saved value agrees.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcli.views.provenance import Provenance
from gradcli.views.trace import describe, elementwise
from gradcli.views.trace.output import Line
from gradcli.views.trace.values import index_text
from gradcli.views.trace.values import number as _number

# The first elements of each gradient the recorder keeps (an element with a zero gradient on
# the way cannot give its local derivatives, so the summary looks for one among these).
KEPT = 16
MAX_PATHS = 6
FOLD = 3       # this many equal factors in a row (a loop) are written as a power
MAX_BLOCK = 4  # the longest cycle of factors folded so (a loop body of several ops)


def number(value: float) -> str:
    """A factor: six digits, enough for float32 and short for the numbers people use."""
    return _number(value, 6)


def prefix(tensor: Any) -> np.ndarray | None:
    """The first KEPT elements of a gradient as float64 (None when there is none, or complex)."""
    if tensor is None:
        return None
    array = tensor._data
    if array.dtype.kind not in "fiub":
        return None
    return np.asarray(array.flat[:KEPT], dtype=np.float64)


@dataclass(slots=True)
class ChainEdge:
    child: Any
    nr: int
    size: int
    values: np.ndarray | None
    reduced: bool = False


@dataclass(slots=True)
class ChainStep:
    """What one node of a pass did, as far as one element's chain needs it."""
    node: Any
    number: int
    kind: str | None
    in_size: int = 0
    in_values: np.ndarray | None = None
    edges: list[ChainEdge] = field(default_factory=list)
    changed_in: bool = False      # a pre-hook replaced its incoming gradient
    changed_out: bool = False     # a post hook replaced its outgoing gradients


@dataclass(slots=True)
class Target:
    """A gradient the pass delivers: a leaf's (AccumulateGrad) or an autograd.grad result."""
    node: Any
    nr: int
    title: str          # "x.grad", "autograd.grad's result for x"
    shape: tuple
    values: np.ndarray | None


@dataclass(slots=True)
class Hop:
    step: ChainStep
    edges: list[int]        # the edges of step that reach the next node down (two for y * y)


class ChainRecord:
    """Filled in by the recorder during a pass; ``summaries`` turns it into lines at its end."""

    def __init__(self) -> None:
        self.steps: list[ChainStep] = []
        self.parents: dict[tuple, list[Hop]] = {}      # (id(child), nr) -> hops arriving there
        self.seeds: dict[tuple, tuple[int, np.ndarray | None]] = {}   # (id(root), nr) -> (size, values)
        self.targets: list[Target] = []

    def seed(self, node: Any, nr: int, grad: Any) -> None:
        self.seeds[(id(node), nr)] = (int(grad._data.size), prefix(grad))

    def add(self, step: ChainStep) -> None:
        """A node started (the steps stay in the order the engine ran them: parents first)."""
        self.steps.append(step)

    def edges_done(self, step: ChainStep) -> None:
        """The node gave its gradients (``step.edges``)."""
        for index, edge in enumerate(step.edges):
            if edge.child is None or edge.values is None:
                continue
            hops = self.parents.setdefault((id(edge.child), edge.nr), [])
            if hops and hops[-1].step is step:
                hops[-1].edges.append(index)
            else:
                hops.append(Hop(step, [index]))

    def summaries(self, provenance: Provenance | None) -> list[Line]:
        lines: list[Line] = []
        for target in self.targets:
            lines += _Summary(self, target, provenance).lines()
        return lines


class _Blocked(Exception):
    """The chain of one element cannot be shown honestly (the message says why)."""


class _Summary:
    def __init__(self, record: ChainRecord, target: Target, provenance: Provenance | None) -> None:
        self.record = record
        self.target = target
        self.provenance = provenance
        self.legend: dict[str, str] = {}
        self._symbols: dict[tuple, str] = {}

    def lines(self) -> list[Line]:
        target = self.target
        head: Line = [("  chain rule for ", "chain"), (target.title, "chain")]
        try:
            if target.values is None:
                raise _Blocked("its gradient is not a tensor of real numbers")
            paths = self._paths()
            element = self._element(paths)
            where = index_text(target.shape, element)
            head[-1] = (target.title + where, "chain")
            body = self._body(paths, element, target.title + where)
        except _Blocked as why:
            return [head + [(": not shown, " + str(why), "note")]]
        return [head + [(": the local derivative of this one element at each node, multiplied along the path"
                         + ("s and summed" if len(paths) > 1 else ""), "note")]] + body

    # -- the paths from the roots to the target ----------------------------------------------
    def _paths(self) -> list[list[Hop]]:
        """Every path (as hops from the root down) that reaches the target, when each is a chain of
        elementwise nodes and there are at most MAX_PATHS of them."""
        key = (id(self.target.node), self.target.nr)
        total = self._count_paths(key)
        if total == 0:
            raise _Blocked("no path from where the pass started reaches it")
        if total > MAX_PATHS:
            raise _Blocked(f"{total:,} paths reach it (the summary lists at most {MAX_PATHS})")
        paths: list[list[Hop]] = []
        # depth-first from the target up, each partial path a linked list (no copying)
        stack: list[tuple[tuple, Any]] = [(key, None)]
        while stack:
            here, below = stack.pop()
            if here in self.record.seeds:
                path, link = [], below
                while link is not None:
                    path.append(link[0])
                    link = link[1]
                paths.append(path)
            for hop in reversed(self.record.parents.get(here, ())):
                stack.append(((id(hop.step.node), 0), (hop, below)))
        return paths

    def _count_paths(self, target: tuple) -> int:
        """The number of paths from a root to the target, counted in the order the nodes ran
        (parents first); raises when one passes a node that mixes elements or a changed gradient."""
        wanted = self._ancestors(target)
        counts: dict[tuple, int] = {}
        blocked: dict[tuple, str] = {}
        for step in self.record.steps:
            for nr in range(getattr(step.node, "num_outputs", 1)):
                key = (id(step.node), nr)
                if key not in wanted:
                    continue
                count = 1 if key in self.record.seeds else 0
                for hop in self.record.parents.get(key, ()):
                    up = (id(hop.step.node), 0)
                    why = blocked.get(up) or next(
                        (w for w in (self._why_not(hop.step, hop.step.edges[i]) for i in hop.edges) if w), "")
                    if why:
                        blocked.setdefault(key, why)
                    count += counts.get(up, 0)
                if step.changed_in:
                    blocked.setdefault(key, f"a hook changed the gradient reaching {self._at_node(step.node)}")
                counts[key] = count
        if target in blocked:
            raise _Blocked(blocked[target])
        return counts.get(target, 0)

    def _ancestors(self, start: tuple) -> set[tuple]:
        """The node outputs some path to the target goes through."""
        seen = {start}
        stack = [start]
        while stack:
            for hop in self.record.parents.get(stack.pop(), ()):
                up = (id(hop.step.node), 0)
                if up not in seen:
                    seen.add(up)
                    stack.append(up)
        return seen

    def _at_node(self, node: Any) -> str:
        text, line = describe.source_text(self.provenance, node)
        return describe.display_name(node) + (f" ({text}, line {line})" if text else "")

    def _why_not(self, step: ChainStep, edge: ChainEdge) -> str:
        if step.kind is None:
            why = "the path goes through {at}, which mixes elements (the summary follows element-by-element ops)"
        elif step.changed_out:
            why = "a hook changed the gradient {at} gave"
        elif edge.reduced:
            why = ("broadcasting is undone at {at}: one element there meets several elements below, "
                   "summed (see the steps above)")
        elif step.kind in (elementwise.FULL_SUM, elementwise.FULL_MEAN):
            why = "{at} did not get a single gradient" if step.in_size != 1 else ""
        else:
            why = "the gradient changes size at {at}" if edge.size != step.in_size else ""
        return why.format(at=self._at_node(step.node)) if why else ""

    def _symbol_of(self, node: Any, nr: int = 0) -> str:
        """``describe.symbol``, once per node output (a loop's path asks for each twice)."""
        key = (id(node), nr)
        found = self._symbols.get(key)
        if found is None:
            found = self._symbols[key] = describe.symbol(self.provenance, node, nr)
        return found

    # -- one element --------------------------------------------------------------------------
    def _element(self, paths: list[list[Hop]]) -> int:
        """The first element whose gradient is non-zero at every node of every path (a zero
        incoming gradient hides the local derivative)."""
        size = int(np.prod(self.target.shape)) if self.target.shape else 1
        for element in range(min(size, KEPT)):
            if all(h.step.in_values is not None and h.step.in_values[self._at(h.step.in_size, element)] != 0
                   for path in paths for h in path):
                return element
        raise _Blocked(f"in each of the first {min(size, KEPT)} elements some node got a zero gradient, "
                       "which hides its local derivative")

    @staticmethod
    def _at(size: int, element: int) -> int:
        return 0 if size == 1 else element

    # -- the lines ------------------------------------------------------------------------------
    def _body(self, paths: list[list[Hop]], element: int, title: str) -> list[Line]:
        lines: list[Line] = []
        totals: list[float] = []
        products: list[str] = []
        for count, path in enumerate(paths, 1):
            if len(paths) > 1:
                lines.append([(f"    path {count}", "label")])
            rows, product, value = self._path(path, element)
            lines += rows
            totals.append(value)
            products.append(product)
            if len(paths) > 1:
                lines.append([("      product ", "label"), (product, None)])
        want = self.target.values
        got = float(sum(totals))
        expected = None if want is None else float(want[0 if want.size == 1 else element])
        if expected is None or not np.isclose(got, expected, rtol=1e-4, atol=1e-6 * max(1.0, abs(expected))):
            shown = "?" if expected is None else number(expected)
            return [[("    (the local derivatives multiply to ", "note"), (number(got), None),
                     (f", not to {shown}: no summary)", "note")]]
        if len(paths) == 1:
            line: Line = [("    ", None), (title, "result"), (" = " + products[0], None)]
        else:
            line = [("    ", None), (title, "result"), (" = " + _sum_text(totals), None),
                    (" = " + number(expected), None)]
        if self.legend:
            line.append(("    where " + ", ".join(f"{k} = {v}" for k, v in self.legend.items()), "note"))
        lines.append(line)
        return lines

    def _path(self, path: list[Hop], element: int) -> tuple[list[Line], str, float]:
        """The rows of one path, its product written out, and its value."""
        seed_key = (id(path[0].step.node), 0) if path else (id(self.target.node), self.target.nr)
        size, seed_values = self.record.seeds[seed_key]
        seed = 1.0 if seed_values is None else float(seed_values[0 if size == 1 else element])
        rows: list[_Row] = []
        for position, hop in enumerate(path):
            below, below_nr = (path[position + 1].step.node, 0) if position + 1 < len(path) \
                else (self.target.node, self.target.nr)
            value, symbol, note = self._factor(hop, element)
            node = hop.step.node
            origin = self.provenance.origin(node) if self.provenance is not None else None
            place = (describe.display_name(node), None if origin is None or origin.span is None
                     else (origin.span.line, origin.span.column, origin.span.end_column))
            up, down = self._symbol_of(node), self._symbol_of(below, below_nr)
            partial = f"∂{up}/∂{down}"
            rows.append(_Row(node, self.provenance, partial, value, symbol, note, place))
        blocks = _runs(rows)
        started = "the gradient backward started with"
        names = [[row.name(count) for row in block] for block, count in blocks]
        width = max([len(n) for group in names for n in group] + ([len(started)] if seed != 1.0 else []),
                    default=0)
        notation = max((len(row.partial) for row in rows), default=0)
        lines: list[Line] = []
        terms: list[str] = []
        numbers: list[str] = []
        if seed != 1.0:
            lines.append([("      " + started.ljust(width) + "  ", "label"),
                          ("".ljust(notation) + " = " + number(seed), None)])
            terms.append(number(seed))
            numbers.append(number(seed))
        for (block, count), group in zip(blocks, names):
            if len(block) > 1:
                lines.append([(f"      the next {len(block)} rows repeat {count:,} times:", "label")])
            block_terms, block_numbers = [], []
            for row, name in zip(block, group):
                formula = row.symbol if row.symbol == number(row.value) else f"{row.symbol} = {number(row.value)}"
                if count > 1:
                    formula += " each"
                lines.append([("      " + name.ljust(width) + "  ", "label"), (row.partial.ljust(notation), "rule"),
                              (f" {row.about} {formula}", None), (row.note, "note")])
                block_terms.append(f"({row.symbol})" if any(c in row.symbol for c in "/ -") else row.symbol)
                block_numbers.append(number(row.value) if row.value >= 0 else f"({number(row.value)})")
            terms.append(_power(block_terms, count))
            numbers.append(_power(block_numbers, count))
        value = seed
        for row in rows:                  # (the product of every factor, folded or not)
            value *= row.value
        forms = [" · ".join(terms) or "1", " · ".join(numbers) or "1", number(value)]
        product = " = ".join(form for i, form in enumerate(forms) if i == 0 or form != forms[i - 1])
        return lines, product, value

    def _factor(self, hop: Hop, element: int) -> tuple[float, str, str]:
        """One node's local derivative for this element: its value, how the rule names it, a note."""
        step = hop.step
        incoming = step.in_values[self._at(step.in_size, element)]
        values = [step.edges[i].values[self._at(step.edges[i].size, element)] / incoming for i in hop.edges]
        symbols = [self._symbol(step, i, v, element) for i, v in zip(hop.edges, values)]
        total = float(sum(values))
        if len(values) == 1:
            return total, symbols[0], ""
        names = describe.edge_names(step.node)
        note = (f"  (the same tensor is {' and '.join(names[i] for i in hop.edges)}: "
                + " + ".join(number(v) for v in values) + ")")
        if len(set(symbols)) == 1:
            return total, f"{len(symbols)}·{symbols[0]}", note
        return total, " + ".join(symbols), note

    def _symbol(self, step: ChainStep, index: int, value: float, element: int) -> str:
        """What the rule says edge ``index``'s factor is, when the saved value agrees; else the number."""
        node = step.node
        if step.kind == elementwise.FULL_MEAN:
            count = step.edges[index].size
            if np.isclose(value, 1.0 / count, rtol=1e-5):
                return f"1/{count}"
        if step.kind == elementwise.FULL_SUM and value == 1.0:
            return "1"
        rule = describe.edge_rule(node, index)
        found = _factor_name(rule)
        if found is None:
            return number(value)
        name, sign, inverse = found
        if name == "1":
            return number(sign) if value == sign else number(value)
        saved = _saved_array(node, name)
        if saved is None:
            return number(value)
        # (an operand broadcast against the others has no element of its own here)
        at = saved.flat[0] if saved.size == 1 else saved.flat[element] if saved.size == step.in_size else None
        if at is None or float(at) == 0.0:
            return number(value)
        claimed = sign * (1.0 / float(at) if inverse else float(at))
        if not math.isclose(claimed, value, rel_tol=1e-5):
            return number(value)
        label = self._operand_symbol(step, name)
        if label is None:
            return number(value)
        if _is_number(label):
            if not inverse:
                return number(claimed)
        else:
            self.legend.setdefault(label + (index_text(tuple(saved.shape), element) if saved.size > 1 else ""),
                                   number(float(at)))
        symbol = f"1/{label}" if inverse else label
        return f"-{symbol}" if sign < 0 else symbol

    def _operand_symbol(self, step: ChainStep, name: str) -> str | None:
        node = step.node
        if name == "result":
            return describe.symbol(self.provenance, node)
        for index, edge_name in enumerate(describe.edge_names(node)):
            if edge_name != name:
                continue
            found = describe.operand(self.provenance, node, index)
            if found is None:
                return None
            if found.constant is not None:
                return describe.constant_text(self.provenance, found)
            source = found.source()
            if source is None:
                return None
            if found.leaf is not None:
                bindings = self.provenance.names_of(source) if self.provenance is not None else []
                return bindings[0].name if bindings else None
            return describe.symbol(self.provenance, source, found.output_nr)
        origin = self.provenance.origin(node) if self.provenance is not None else None
        value = (origin.args or {}).get(name) if origin is not None else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return number(value)            # a number argument (alpha, a Scalar exponent)
        return None


_NOTE = re.compile(r"\s*\([^()]*\)$")     # a closing remark in parentheses
_FACTOR = re.compile(r"^(-?)\s*grad\s*(?:([*/])\s*(\w+)(?:\.conj\(\))?)?$|^(-?)\s*(\w+)\s*\*\s*grad$")


@functools.lru_cache(maxsize=512)
def _factor_name(rule: str) -> tuple[str, float, bool] | None:
    """What a rule multiplies the gradient by, as (the saved value's name, sign, whether it divides):
    ``grad * other`` -> (other, 1, False), ``grad / other`` -> (other, 1, True), ``-grad`` ->
    ("1", -1, False); None for any other rule (its factor is written as a number)."""
    text = rule.strip() if rule else ""
    match = _FACTOR.match(text) or _FACTOR.match(_NOTE.sub("", text))   # ("(0 with a rounding_mode)":
    if match is None:                                                   # the values still decide)
        return None
    if match.group(5):
        return match.group(5), -1.0 if match.group(4) else 1.0, False
    sign = -1.0 if match.group(1) else 1.0
    if match.group(3) is None:
        return "1", sign, False
    return match.group(3), sign, match.group(2) == "/"


def _saved_array(node: Any, name: str) -> np.ndarray | None:
    """A value the node saved for its backward (a tensor's elements, or a number as a 0-d array)."""
    saved = getattr(node, "_saved", None)
    if not isinstance(saved, dict):
        return None
    value = saved.get(name)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return np.asarray(float(value))
    tensor = getattr(value, "tensor", value)
    array = getattr(tensor, "_data", None)
    if isinstance(array, np.ndarray) and array.dtype.kind in "fiub":
        return array
    return None


def _sum_text(values: list[float]) -> str:
    """``2 + 8``, ``-0.7 - 2.9 + 0.2``."""
    text = number(values[0])
    for value in values[1:]:
        text += f" - {number(-value)}" if value < 0 else f" + {number(value)}"
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class _Row:
    """One node's factor on a path (what names it is looked up only for the rows shown)."""

    def __init__(self, node: Any, provenance: Provenance | None, partial: str, value: float, symbol: str,
                 note: str, place: tuple) -> None:
        self.node = node
        self.provenance = provenance
        self.partial = partial      # "∂z/∂(y * y)"
        self.value = value
        self.symbol = symbol        # "3", "y", "2·y", "1/4", or the number
        self.note = note
        self.place = place          # (node name, its source position): the rows of one loop share it
        self.about = "="            # "≈" when the folded rows' factors differ in their last bits

    def approximate(self) -> "_Row":
        self.about = "≈"
        return self

    def name(self, count: int) -> str:
        """``z = y * y * 3 (line 15)``; ``y * 2 (line 5) ×9`` for a loop's run of them."""
        label, _ = describe.title(self.provenance, self.node)
        text, line = describe.source_text(self.provenance, self.node)
        where = "" if line is None else f" (line {line})"
        if count == 1:
            return label + where
        return f"{text or label}{where} ×{count}"


def _power(terms: list[str], count: int) -> str:
    """``2``, ``2^9``, ``(1.5 · 1)^15``."""
    text = " · ".join(terms)
    if count == 1:
        return text
    return f"{text}^{count}" if len(terms) == 1 else f"({text})^{count}"


def _same(a: _Row, b: _Row) -> bool:
    """Two factors of one loop: the same node of the same script text, the same factor."""
    return a.place == b.place and a.place[1] is not None and a.partial == b.partial \
        and math.isclose(a.value, b.value, rel_tol=1e-6) and a.note == b.note \
        and (a.symbol == b.symbol or _is_number(a.symbol) and _is_number(b.symbol))


def _runs(rows: list[_Row]) -> list[tuple[list[_Row], int]]:
    """The rows as blocks with a repeat count: a loop's nodes (one row, or a cycle of up to
    MAX_BLOCK rows: ``y = y * 2; y = y + 1``) repeated FOLD or more times in a row become one block."""
    out: list[tuple[list[_Row], int]] = []
    i = 0
    while i < len(rows):
        best_size, best_count = 1, 1
        for size in range(1, MAX_BLOCK + 1):
            count = 1
            while i + (count + 1) * size <= len(rows) and all(
                    _same(rows[i + k], rows[i + count * size + k]) for k in range(size)):
                count += 1
            if count >= FOLD and count * size > best_count * best_size:
                best_size, best_count = size, count
        if best_count >= FOLD:
            block = rows[i:i + best_size]
            exact = all(rows[i + k].value == rows[i + c * best_size + k].value
                        for c in range(best_count) for k in range(best_size))
            out.append((block if exact else [r.approximate() for r in block], best_count))
            i += best_size * best_count
        else:
            out.append(([rows[i]], 1))
            i += 1
    return out
