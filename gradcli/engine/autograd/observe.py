"""Opt-in watchers of the graph: what the views (graph, trace, explain) learn from the engine.

Both are None unless a view asked for them, so a plain run pays one global read per node
made and per node run.  The engine calls them and never looks at what they keep; what a
watcher makes of a node (a source line, a variable's name) is the caller's business.

``watcher`` (a :class:`GraphWatcher`) hears of every node made, and of the op and bound
arguments behind an op's node.  ``tracer`` (a :class:`BackwardTracer`) hears each step of
every backward pass, in the order the engine takes them.
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


watcher: GraphWatcher | None = None
tracer: BackwardTracer | None = None


def set_watcher(new: GraphWatcher | None) -> GraphWatcher | None:
    """Install ``new`` (None to stop); returns the previous watcher."""
    global watcher
    previous, watcher = watcher, new
    return previous


def set_tracer(new: BackwardTracer | None) -> BackwardTracer | None:
    """Install ``new`` (None to stop); returns the previous tracer."""
    global tracer
    previous, tracer = tracer, new
    return previous


class paused:
    """``with observe.paused():`` -- a view's own computations (explain differentiating a copy of
    the graph) neither recorded by the watcher nor traced; both are put back after."""

    def __enter__(self) -> None:
        self.saved = (set_watcher(None), set_tracer(None))

    def __exit__(self, *exc: object) -> None:
        set_watcher(self.saved[0])
        set_tracer(self.saved[1])
