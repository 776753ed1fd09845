"""The backward tracer: hears each step of each backward pass from the engine and writes it.

Lines go out as the events arrive, so that they sit in order with what the script's hooks print.
A node's block opens at its first event (a hook on its gradient, or its start) and takes every
later event until the next node opens; an input's line waits for what happens to its gradient
(broadcasting undone, a fan-out sum), so that those follow the line they are about.

Big runs stay readable and fast: a loop's chain of nodes from one place in the script is folded
after FOLD_AFTER of them (a folded node that does something worth seeing - a hook, a fan-out, a
broadcast undone, a leaf's .grad - is shown after all); past LIMIT shown nodes a pass only
counts the rest; and of the passes one call site makes (a training loop's ``loss.backward()``)
the first PASSES_PER_SITE are traced, the others only counted.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar

from gradcli.lang.runtime import innermost_span
from gradcli.views.provenance import Provenance, span_text
from gradcli.views.trace import blocks, describe, elementwise
from gradcli.views.trace.chain import ChainEdge, ChainRecord, ChainStep, Target, prefix
from gradcli.views.trace.output import Line, TraceOutput

LIMIT = 200           # nodes shown in full per pass
FOLD_AFTER = 3        # nodes of a run from one place shown before the rest are folded
PASSES_PER_SITE = 3   # passes traced per call site

SHOW, FOLD, HIDE = "show", "fold", "hide"

_Method = TypeVar("_Method", bound=Callable[..., None])


def _guarded(method: _Method) -> _Method:
    """The trace must never change how the script runs: a failure of its own stops the trace
    (with one line saying so) instead of failing the backward pass."""
    @functools.wraps(method)
    def guarded(self: "BackwardTrace", *args: Any) -> None:
        if self.broken is not None:
            if method.__name__ == "end" and self._stack:
                self._stack.pop()
            return
        try:
            method(self, *args)
        except Exception as error:  # noqa: BLE001 (any failure of the view, never the script's)
            self.broken = error
            self._stack.clear()
            try:
                self.output.write([[(f"--trace-backward stopped: the trace failed ({type(error).__name__}: "
                                     f"{error}); the script runs on without it", "note")]])
            except Exception:  # noqa: BLE001 (not even that could be written)
                pass
    return guarded  # type: ignore[return-value]


@dataclass(slots=True)
class _Step:
    number: int
    node: Any
    mode: str
    iteration: int | None
    chain: ChainStep
    started: bool = False
    # a folded node's lines, made only if it turns out worth showing
    later: list[Callable[[], list[Line]]] = field(default_factory=list)
    make_edges: Callable[[], list[Line]] | None = None
    notable: bool = False
    # the inputs' lines, each printed once the events of the inputs before it have come
    edge_lines: list[Line] = field(default_factory=list)
    expected: list[int] = field(default_factory=list)     # events still to come per input
    printed: list[bool] = field(default_factory=list)
    next_edge: int = 0


@dataclass(slots=True)
class _Run:
    """Consecutive nodes from one place of the script (a loop)."""
    place: tuple | None = None
    count: int = 0
    folded: int = 0
    first_iteration: int | None = None
    last_iteration: int | None = None
    node: Any = None


@dataclass(slots=True)
class _Pass:
    number: int
    accumulate: bool
    captures: dict[tuple, list[int]]
    error_before: Any
    muted: bool = False
    chain: ChainRecord = field(default_factory=ChainRecord)
    step: _Step | None = None
    steps: int = 0
    shown: int = 0
    run: _Run = field(default_factory=_Run)
    hidden: Counter = field(default_factory=Counter)
    # (id(child), nr) -> the gradients it got so far, as (step number, input index, "[3] self")
    arrivals: dict[tuple, list[tuple[int, int, str]]] = field(default_factory=dict)
    sums: dict[tuple, int] = field(default_factory=dict)     # (id(child), nr) -> fan-out sums so far


class BackwardTrace:
    """A ``BackwardTracer`` (see engine/autograd/observe.py) that writes the chain rule as it runs."""

    def __init__(self, output: TraceOutput, provenance: Callable[[], Provenance | None], *,
                 limit: int | None = None, passes_per_site: int | None = None) -> None:
        self.output = output
        self._provenance = provenance
        self.limit = LIMIT if limit is None else limit
        self.passes_per_site = PASSES_PER_SITE if passes_per_site is None else passes_per_site
        self.passes = 0
        self.sites: Counter = Counter()          # (file, line, column) -> passes begun there
        self.untraced: dict[tuple, tuple[str, int | None, int]] = {}   # site -> (call, line, count)
        self.broken: Exception | None = None     # the trace's own failure, which stopped it
        self._stack: list[_Pass] = []

    @property
    def provenance(self) -> Provenance | None:
        return self._provenance()

    # -- a pass --------------------------------------------------------------------------------
    @_guarded
    def begin(self, roots: Sequence[tuple], root_grads: Sequence[Any], inputs: Sequence[tuple] | None,
              accumulate: bool) -> None:
        self.passes += 1
        span = innermost_span()
        call, line = span_text(span), None if span is None else span.line
        site = None if span is None else (span.source.filename, span.line, span.column)
        self.sites[site] += 1
        captures: dict[tuple, list[int]] = {}
        for index, (node, nr) in enumerate(inputs or ()):
            captures.setdefault((id(node), nr), []).append(index)
        current = _Pass(self.passes, accumulate, captures, sys.exc_info()[1])
        self._stack.append(current)
        if site is not None and self.sites[site] > self.passes_per_site:
            current.muted = True
            _, _, count = self.untraced.get(site, (call, line, 0))
            self.untraced[site] = (call, line, count + 1)
            if count == 0:
                self.output.write([blocks.muted(call, line, self.passes_per_site), []])
            return
        for (node, nr), grad in zip(roots, root_grads):
            current.chain.seed(node, nr, grad)
        lines = [blocks.pass_header(current.number, call, line, accumulate)]
        lines += blocks.pass_roots(self.provenance, roots, root_grads)
        if inputs:
            lines.append(blocks.pass_inputs(self.provenance, inputs, accumulate))
        self.output.write(lines)

    @_guarded
    def end(self) -> None:
        current = self._stack.pop() if self._stack else None
        if current is None or current.muted:
            return
        lines: list[Line] = []
        self._close_step(current, lines)
        lines += self._close_run(current)
        error = sys.exc_info()[1]
        failed = error is not None and error is not current.error_before
        if failed:
            lines.append(blocks.stopped())
        if current.hidden:
            kinds = [(name, line, n) for (name, line), n in current.hidden.most_common()]
            lines.append(blocks.hidden(sum(current.hidden.values()), kinds, self.limit))
        lines.append(blocks.pass_end(current.number, current.steps))
        if not failed:
            lines += current.chain.summaries(self.provenance)
        lines.append([])
        self.output.write(lines)

    def untraced_lines(self) -> list[Line]:
        """What was left out, for the end of a run."""
        return [blocks.untraced(call, line, count) for call, line, count in self.untraced.values()]

    # -- the nodes -----------------------------------------------------------------------------
    @_guarded
    def hook_ran(self, node: Any, kind: str, hook: Any, result: Any) -> None:
        current = self._current()
        if current is None:
            return
        if kind == "hook":                     # a post hook: the node has run
            step = self._step_for(current, node, fresh=False)
            if result is not None:
                step.chain.changed_out = True
        else:                                  # before the node runs: opens its block
            step = self._step_for(current, node, fresh=True)
            if result is not None and kind != "retain_grad":
                step.chain.changed_in = True
        self._reveal(current, step)
        self._emit(step, [blocks.hook(self.provenance, node, kind, hook, result)])

    @_guarded
    def node_starts(self, node: Any, grads: Sequence[Any]) -> None:
        current = self._current()
        if current is None:
            return
        step = self._step_for(current, node, fresh=True)
        step.started = True
        chain = step.chain
        if grads and grads[0] is not None:
            chain.in_size, chain.in_values = int(grads[0]._data.size), prefix(grads[0])
        current.chain.add(chain)
        sources = []
        for nr in range(len(grads)):
            sources.append([label for _, _, label in current.arrivals.pop((id(node), nr), ())])
            current.sums.pop((id(node), nr), None)
        leaf = describe.is_leaf_node(node)
        skipped = getattr(node, "skips_without_grads", True) and all(g is None for g in grads)
        provenance = self.provenance

        def lines() -> list[Line]:
            made = blocks.incoming(grads, sources)
            if skipped:
                made.append(blocks.skipped())
            else:
                made += blocks.rules(node)
            return made

        results: list[Line] = []
        for nr, grad in enumerate(grads):
            wanted = current.captures.get((id(node), nr), ())
            if not wanted or grad is None or (leaf and current.accumulate):
                continue   # (a leaf in backward(inputs=...) shows its .grad when it accumulates)
            label = describe.tensor_label(provenance, node, nr)
            if current.accumulate:
                results.append(blocks.into_grad(label, grad))
                title = f"{label}.grad (inputs=)"
            else:
                for index in wanted:
                    results += blocks.captured(label, index, grad, keeps_grad=leaf)
                title = f"autograd.grad's result for {label}"
            current.chain.targets.append(Target(node, nr, title, tuple(grad._data.shape), prefix(grad)))
        if results:
            self._reveal(current, step)
        if step.mode == FOLD:
            step.later.append(lines)
        else:
            self._emit(step, lines() + results)

    @_guarded
    def node_done(self, node: Any, outputs: Sequence[Any]) -> None:
        current = self._current()
        if current is None or current.step is None or current.step.node is not node:
            return
        step = current.step
        names = describe.edge_names(node)
        for index, ((child, nr), grad) in enumerate(zip(node.next_functions, outputs)):
            size = 0 if grad is None else int(grad._data.size)
            step.chain.edges.append(ChainEdge(child, nr, size, prefix(grad)))
            expected = 0
            if child is not None and grad is not None:
                meta = node.input_metadata(index)
                if meta is not None and tuple(grad._data.shape) != tuple(meta[0]):
                    expected += 1                                   # broadcasting will be undone
                came = current.arrivals.setdefault((id(child), nr), [])
                if came:
                    expected += 1                                   # it will be summed (fan-out)
                came.append((step.number, index, f"[{step.number}] {names[index]}"))
            step.expected.append(expected)
        current.chain.edges_done(step.chain)
        provenance = self.provenance
        step.make_edges = lambda: blocks.outgoing(provenance, node, outputs)
        if step.mode == SHOW:
            self._emit(step, self._flow(step))

    @_guarded
    def reduced(self, node: Any, index: int, before: Any, after: Any) -> None:
        current = self._current()
        if current is None or current.step is None or current.step.node is not node:
            return
        step = current.step
        if index < len(step.chain.edges):
            step.chain.edges[index].reduced = True
        self._reveal(current, step)
        self._emit(step, self._edge_event(step, index, blocks.reduced(node, index, before, after)))

    @_guarded
    def summed(self, child: Any, output_nr: int, earlier: Any, incoming: Any, total: Any) -> None:
        current = self._current()
        if current is None or current.step is None:
            return
        step = current.step
        # The engine sums edge by edge, in order, and keeps the first gradient to arrive without
        # a sum: the k-th sum for this input is the (k+1)-th gradient that arrived there.
        key = (id(child), output_nr)
        came = current.arrivals.get(key, [])
        current.sums[key] = mine = current.sums.get(key, 0) + 1
        earlier_from = [label for _, _, label in came[:mine]]
        number, index, here = came[mine] if mine < len(came) else (step.number, None, f"[{step.number}]")
        label = describe.tensor_label(self.provenance, child, output_nr)
        line = blocks.summed(label, earlier, earlier_from, incoming, here, total)
        self._reveal(current, step)
        self._emit(step, self._edge_event(step, index, line) if number == step.number and index is not None
                   else [line])

    @_guarded
    def accumulated(self, variable: Any, before: Any, after: Any) -> None:
        current = self._current()
        if current is None or current.step is None:
            return
        step = current.step
        label = describe.leaf_name(self.provenance, variable)
        title = f"{label}.grad" if before is None else f"the gradient this pass adds to {label}.grad"
        current.chain.targets.append(Target(step.node, 0, title, tuple(variable._data.shape),
                                            step.chain.in_values))
        self._reveal(current, step)
        self._emit(step, [blocks.accumulated(self.provenance, variable, before, after)])

    # -- the machinery ---------------------------------------------------------------------------
    def _current(self) -> _Pass | None:
        """The pass being traced (None when there is none, or it is one not traced)."""
        if not self._stack or self._stack[-1].muted:
            return None
        return self._stack[-1]

    def _step_for(self, current: _Pass, node: Any, fresh: bool) -> _Step:
        """The block ``node`` belongs to: the open one, or (``fresh``) a new one unless the open
        block is this node's and it has not started yet (its hooks came first)."""
        step = current.step
        if step is not None and step.node is node and (not fresh or not step.started):
            return step
        lines: list[Line] = []
        self._close_step(current, lines)
        current.steps += 1
        provenance = self.provenance
        origin = provenance.origin(node) if provenance is not None else None
        place = None if origin is None or origin.span is None else \
            (type(node).__name__, origin.span.source.filename, origin.span.line, origin.span.column,
             origin.span.end_line, origin.span.end_column)
        mode = self._mode(current, place, lines)
        kind = elementwise.kind(node, None if origin is None else origin.op)
        step = _Step(current.steps, node, mode, None if origin is None else origin.iteration,
                     ChainStep(node, current.steps, kind))
        current.step = step
        if mode == HIDE:
            # (a leaf's AccumulateGrad is made where the leaf is first used: no line of its own)
            _, line = (None, None) if describe.is_leaf_node(node) else describe.source_text(provenance, node)
            current.hidden[(describe.display_name(node), line)] += 1
        elif mode == SHOW:
            lines.append(blocks.node_header(provenance, step.number, node))
        else:
            step.later.append(lambda: [blocks.node_header(provenance, step.number, node)])
        self.output.write(lines)
        return step

    def _mode(self, current: _Pass, place: tuple | None, lines: list[Line]) -> str:
        run = current.run
        if current.shown >= self.limit:
            lines += self._close_run(current)
            return HIDE
        if place is not None and place == run.place:
            run.count += 1
            if run.count > FOLD_AFTER:
                return FOLD
        else:
            lines += self._close_run(current)
            current.run = _Run(place, 1)
        current.shown += 1
        return SHOW

    def _close_step(self, current: _Pass, lines: list[Line]) -> None:
        step = current.step
        if step is None:
            return
        current.step = None
        if step.mode == SHOW:
            lines += [line for line, done in zip(self._edges(step), step.printed) if not done]
        elif step.mode == FOLD and not step.notable:
            run = current.run
            run.folded += 1
            run.node = step.node
            if run.first_iteration is None:
                run.first_iteration = step.iteration
            run.last_iteration = step.iteration

    def _close_run(self, current: _Pass) -> list[Line]:
        run = current.run
        if not run.folded:
            return []
        text, line = describe.source_text(self.provenance, run.node)
        iterations = None if run.first_iteration is None or run.last_iteration is None else \
            (run.first_iteration, run.last_iteration)
        out = [blocks.folded(run.folded, describe.display_name(run.node), text, line, iterations)]
        run.folded, run.first_iteration, run.last_iteration = 0, None, None
        return out

    @staticmethod
    def _flow(step: _Step) -> list[Line]:
        """The inputs' lines that may go out now: up to the first one still waiting for an event."""
        out: list[Line] = []
        BackwardTrace._edges(step)
        while step.next_edge < len(step.edge_lines):
            j = step.next_edge
            if not step.printed[j]:
                out.append(step.edge_lines[j])
                step.printed[j] = True
            if step.expected[j] > 0:
                break
            step.next_edge += 1
        return out

    def _edge_event(self, step: _Step, index: int, line: Line) -> list[Line]:
        """An event of input ``index``: after its own line (and those before it), then the rest that may go."""
        out: list[Line] = []
        if not self._edges(step):          # (not after node_done: no input lines to follow)
            return [line]
        for j in range(min(index + 1, len(step.edge_lines))):
            if not step.printed[j]:
                out.append(step.edge_lines[j])
                step.printed[j] = True
        out.append(line)
        if index < len(step.expected) and step.expected[index] > 0:
            step.expected[index] -= 1
        if step.next_edge <= index and all(step.expected[j] == 0 for j in range(index + 1)):
            step.next_edge = index + 1
            out += self._flow(step)
        return out

    @staticmethod
    def _edges(step: _Step) -> list[Line]:
        """The inputs' lines (made on first need)."""
        if step.make_edges is not None:
            step.edge_lines = step.make_edges()
            step.printed = [False] * len(step.edge_lines)
            step.make_edges = None
        return step.edge_lines

    def _reveal(self, current: _Pass, step: _Step) -> None:
        """A folded node does something worth seeing: the count of those folded before it, then
        the node from its start."""
        if step.mode != FOLD:
            return
        step.mode = SHOW
        step.notable = True
        current.shown += 1
        lines = self._close_run(current)
        for make in step.later:
            lines += make()
        step.later = []
        if step.make_edges is not None or step.edge_lines:
            lines += self._flow(step)
        self.output.write(lines)

    def _emit(self, step: _Step, lines: list[Line]) -> None:
        if step.mode == SHOW:
            self.output.write(lines)
