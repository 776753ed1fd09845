"""Opt-in watchers of the graph: what the views (graph, trace, explain) learn from the engine.

Both are None unless a view asked for them, so a plain run pays one global read per node
made and per node run.  The engine calls them and never looks at what they keep; what a
watcher makes of a node (a source line, a variable's name) is the caller's business.

``watcher`` (a :class:`GraphWatcher`) hears of every node made, and of the op and bound
arguments behind an op's node.  ``tracer`` (a :class:`BackwardTracer`) hears each step of
every backward pass, in the order the engine takes them.  Several views may trace at once
(``--trace-backward`` and the graph's record of the last backward): ``add_tracer`` and
``remove_tracer`` keep the list, and ``tracer`` is then one object telling them all, so the
engine still reads one global.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence


class GraphWatcher(Protocol):
    def node_made(self, node: Any) -> None:
        """A node was created (any kind: an op's, AccumulateGrad, a custom Function's, a view's)."""

    def op_recorded(self, node: Any, op_name: str, bound: dict, outputs: Sequence[Any]) -> None:
        """``node`` is the node of op ``op_name`` run on ``bound`` (its arguments by parameter)."""


class BackwardTracer(Protocol):
    def begin(self, roots: Sequence[tuple], root_grads: Sequence[Any], inputs: Sequence[tuple] | None,
              accumulate: bool) -> None:
        """A backward pass starts from ``roots`` (edges) seeded with ``root_grads``."""

    def node_starts(self, node: Any, grads: Sequence[Any]) -> None:
        """``node`` runs on ``grads`` (its incoming gradients, after its pre-hooks)."""

    def hook_ran(self, node: Any, kind: str, hook: Any, result: Any) -> None:
        """A hook of ``kind`` ("tensor", "prehook", "retain_grad", "hook") returned ``result``."""

    def node_done(self, node: Any, outputs: Sequence[Any]) -> None:
        """``node`` gave ``outputs``, one per edge in ``next_functions`` (before any reshaping)."""

    def reduced(self, node: Any, index: int, before: Any, after: Any) -> None:
        """The gradient for input ``index`` was summed back to the input's shape (broadcasting undone)."""

    def summed(self, child: Any, output_nr: int, earlier: Any, incoming: Any, total: Any) -> None:
        """Two gradients for the same input met (fan-out): ``earlier + incoming = total``."""

    def accumulated(self, variable: Any, before: Any, after: Any) -> None:
        """A leaf's ``.grad`` went from ``before`` (None at first) to ``after``."""

    def end(self) -> None:
        """The pass is over (also after an error)."""


class Tracer:
    """A BackwardTracer that lets every event pass: a view overrides the events it needs."""

    def begin(self, roots: Sequence[tuple], root_grads: Sequence[Any], inputs: Sequence[tuple] | None,
              accumulate: bool) -> None: ...
    def node_starts(self, node: Any, grads: Sequence[Any]) -> None: ...
    def hook_ran(self, node: Any, kind: str, hook: Any, result: Any) -> None: ...
    def node_done(self, node: Any, outputs: Sequence[Any]) -> None: ...
    def reduced(self, node: Any, index: int, before: Any, after: Any) -> None: ...
    def summed(self, child: Any, output_nr: int, earlier: Any, incoming: Any, total: Any) -> None: ...
    def accumulated(self, variable: Any, before: Any, after: Any) -> None: ...
    def end(self) -> None: ...


EVENTS = ("begin", "node_starts", "hook_ran", "node_done", "reduced", "summed", "accumulated", "end")


class _Every(Tracer):
    """Several tracers as one: each event goes to each, in the order they were added."""

    def __init__(self, tracers: Sequence[BackwardTracer]) -> None:
        self.tracers = tuple(tracers)


def _to_every(event: str) -> Any:
    def tell(self: _Every, *args: Any) -> None:
        for one in self.tracers:
            getattr(one, event)(*args)
    tell.__name__ = event
    return tell


for _event in EVENTS:
    setattr(_Every, _event, _to_every(_event))

watcher: GraphWatcher | None = None
tracer: BackwardTracer | None = None
_tracers: list[BackwardTracer] = []


def set_watcher(new: GraphWatcher | None) -> GraphWatcher | None:
    """Install ``new`` (None to stop); returns the previous watcher."""
    global watcher
    previous, watcher = watcher, new
    return previous


def add_tracer(new: BackwardTracer) -> None:
    """Trace backward passes with ``new`` too (after the tracers already there)."""
    _tracers.append(new)
    _refresh()


def remove_tracer(old: BackwardTracer) -> None:
    """Stop telling ``old`` (nothing happens if it is not tracing)."""
    if old in _tracers:
        _tracers.remove(old)
        _refresh()


def _refresh() -> None:
    global tracer
    tracer = None if not _tracers else _tracers[0] if len(_tracers) == 1 else _Every(_tracers)


class paused:
    """``with observe.paused():`` -- a view's own computations (explain differentiating a copy of
    the graph) neither recorded by the watcher nor traced; both are put back after."""

    def __enter__(self) -> None:
        self.saved = (set_watcher(None), list(_tracers))
        _tracers.clear()
        _refresh()

    def __exit__(self, *exc: object) -> None:
        set_watcher(self.saved[0])
        _tracers[:] = self.saved[1]
        _refresh()
