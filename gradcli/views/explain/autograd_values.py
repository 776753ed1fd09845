"""Autograd's numbers for the derivative SymPy computes, and where they come from.

In order of preference:
1. ``torch.autograd.grad`` through the engine on the script's own graph (``retain_graph=True``, so the
   graph stays as the script left it, and no ``.grad`` changes);
2. when the script's ``backward()`` freed that graph: the leaf's ``.grad``, if the script's last
   backward into that leaf started at NAME alone, from a leaf whose ``.grad`` was empty, and
   neither the leaf nor its ``.grad`` changed since (the ``BackwardLog`` heard the passes);
3. otherwise ``torch.autograd.grad`` on the graph recorded again by the engine (``engine_replay``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from gradcli.engine.autograd import observe
from gradcli.engine.autograd.backward import grad
from gradcli.engine.autograd.node import FREED_MESSAGE
from gradcli.engine.errors import TorchError
from gradcli.engine.tensor import Tensor

from .engine_replay import ReplayFailed, rerecord
from .graph import Graph, Value


@dataclass
class _Pass:
    roots: list                  # [(node, output_nr)]
    seeds: list                  # the root gradients as arrays
    line: int | None
    text: str


@dataclass
class _Accumulation:
    backward: _Pass
    from_empty: bool             # .grad was None (or all zeros) before
    after: Any                   # the .grad tensor it left
    version: int                 # that tensor's version then


class BackwardLog(observe.Tracer):
    """A backward tracer that remembers each pass's roots and what it put into each leaf's .grad."""

    def __init__(self) -> None:
        self.passes: list[_Pass] = []
        self.accumulations: dict[int, list[_Accumulation]] = {}

    def start(self) -> "BackwardLog":
        observe.add_tracer(self)
        return self

    def stop(self) -> None:
        observe.remove_tracer(self)

    def begin(self, roots: Sequence[tuple], root_grads: Sequence[Any], inputs: Any, accumulate: bool) -> None:
        from gradcli.lang.runtime import innermost_span
        from gradcli.views.provenance import span_text
        span = innermost_span()
        self.passes.append(_Pass([(node, nr) for node, nr in roots], [g._data.copy() for g in root_grads],
                                 None if span is None else span.line, span_text(span)))

    def accumulated(self, variable: Any, before: Any, after: Any) -> None:
        empty = before is None or not np.any(before._data)
        self.accumulations.setdefault(id(variable), []).append(
            _Accumulation(self.passes[-1], empty, after, after._vc.value))

    def from_backward_of(self, leaf: Tensor, root: Tensor) -> _Pass | None:
        """The pass whose gradient ``leaf.grad`` holds, if that is ∂root/∂leaf alone."""
        found = self.accumulations.get(id(leaf))
        if not found:
            return None
        last = found[-1]
        edge = (root._grad_fn, root._output_nr)
        ones = len(last.backward.seeds) == 1 and np.all(last.backward.seeds[0] == 1)
        if (last.from_empty and ones and len(last.backward.roots) == 1 and last.backward.roots[0][0] is edge[0]
                and last.backward.roots[0][1] == edge[1] and leaf._grad is last.after
                and last.after._vc.value == last.version):
            return last.backward
        return None

    # (the other steps of a pass are not needed here)


@dataclass
class AutogradAnswer:
    values: dict                 # leaf key -> array (leaf.shape, or NAME.shape + leaf.shape), None if unused
    source: str                  # where the numbers come from, in words
    problem: str | None = None   # why there are none
    notes: list = field(default_factory=list)


def autograd_gradients(graph: Graph, tensor: Tensor, leaves: list[Value], log: BackwardLog | None = None
                       ) -> AutogradAnswer:
    """Autograd's ∂tensor/∂leaf for each leaf (a Jacobian when ``tensor`` has several elements)."""
    changed = [leaf for leaf in leaves if leaf.changed]
    notes = [f"{leaf.name} was changed in place after {graph.root.name} was computed: these values use it as it is "
             "now" for leaf in changed]
    inputs = [leaf.tensor for leaf in leaves]
    if not changed:
        try:
            values = _jacobian_rows(tensor, inputs)
            return AutogradAnswer(_by_leaf(leaves, values), "torch.autograd.grad on the script's graph", notes=notes)
        except TorchError as error:
            if str(error) != FREED_MESSAGE:
                return AutogradAnswer({}, "torch.autograd.grad on the script's graph",
                                      problem=f"{type(error).__name__}: {error}", notes=notes)
        if tensor.numel() == 1 and log is not None:   # (a backward() without a gradient given)
            passes = [log.from_backward_of(leaf.tensor, tensor) for leaf in leaves]
            if all(p is not None for p in passes):
                where = {f"{p.text} at line {p.line}" if p.line else p.text for p in passes}
                out_shape = tuple(tensor._data.shape)
                grads = [leaf.tensor._grad._data.astype(float).reshape(out_shape + leaf.shape) for leaf in leaves]
                names = ", ".join(f"{leaf.name}.grad" for leaf in leaves)
                source = f"{names}, left by the script's {', '.join(sorted(where))}"
                return AutogradAnswer(_by_leaf(leaves, grads), source, notes=notes)
    try:
        copy = rerecord(graph)
    except ReplayFailed as failed:
        return AutogradAnswer({}, "", problem=f"the script's backward() freed the graph, and recording it again "
                                             f"failed: {failed}", notes=notes)
    try:
        values = _jacobian_rows(copy.root, [copy.leaves[leaf.key] for leaf in leaves])
    except TorchError as error:
        return AutogradAnswer({}, "torch.autograd.grad on the same ops recorded again",
                              problem=f"{type(error).__name__}: {error}", notes=notes)
    why = "the script's backward() freed its graph" if not changed else "a leaf changed since"
    return AutogradAnswer(_by_leaf(leaves, values), f"torch.autograd.grad on the same ops recorded again, as {why}",
                          notes=notes)


def _by_leaf(leaves: list[Value], values: list) -> dict:
    return {leaf.key: v for leaf, v in zip(leaves, values)}


def _jacobian_rows(tensor: Tensor, inputs: list[Tensor]) -> list:
    """∂tensor/∂input for each input: input.shape for a 0-d tensor, else tensor.shape + input.shape (a
    Jacobian, one autograd.grad a row)."""
    out_shape = tuple(tensor._data.shape)
    if out_shape == ():
        seeds = [np.ones(out_shape)]
    else:
        seeds = []
        for o in np.ndindex(*out_shape):
            seed = np.zeros(out_shape)
            seed[o] = 1
            seeds.append(seed)
    rows: list[list] = [[] for _ in inputs]
    for seed in seeds:
        seed_tensor = Tensor._make(seed.astype(tensor._dtype.np), tensor._dtype)
        got = grad([tensor], inputs, grad_outputs=[seed_tensor], retain_graph=True, allow_unused=True)
        for k, (t, g) in enumerate(zip(inputs, got)):
            rows[k].append(np.zeros(t._data.shape) if g is None else g._data.astype(float))
    if out_shape == ():
        return [r[0].reshape(t._data.shape) for r, t in zip(rows, inputs)]
    return [np.stack(r).reshape(out_shape + tuple(t._data.shape)) for r, t in zip(rows, inputs)]
