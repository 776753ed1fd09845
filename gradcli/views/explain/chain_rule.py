"""The chain rule node by node, for a graph SymPy does not take (too large, or an op without a
symbolic form): each node in the order autograd runs it, its local rule, and the gradient arriving
at it -- ∂NAME/∂(its output) -- as autograd computes it.  The derivative by a leaf is the product
of the local rules along the paths from NAME to it, summed over the paths; the numbers show each
partial product.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcli.engine.autograd import observe
from gradcli.engine.autograd.backward import grad
from gradcli.engine.autograd.node import FREED_MESSAGE
from gradcli.engine.errors import TorchError
from gradcli.engine.tensor import Tensor

from .engine_replay import ReplayFailed, rerecord
from .graph import Graph, Step, Value


@dataclass
class ChainStep:
    node_name: str
    names: str                   # the script's names for its output ('' when unnamed)
    line: int | None
    text: str                    # the script's expression that made it
    rules: list                  # the local rule in words, one line per input
    incoming: list               # the gradients arriving, one per output (arrays; None where none came)
    key: tuple | None = None     # its output's Value key, when it has one output


@dataclass
class ChainRule:
    steps: list = field(default_factory=list)
    source: str = ""
    problem: str | None = None
    seeded: str = ""             # how the pass was seeded (for a NAME of several elements)


class _Catcher(observe.Tracer):
    """A backward tracer keeping the gradients each node receives, in the engine's order."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, list]] = []

    def node_starts(self, node: Any, grads: Any) -> None:
        self.seen.append((node, [None if g is None else g._data.copy() for g in grads]))


def rule_lines(node: Any) -> list[str]:
    """The node's local rule in words: ``node.rule_lines()`` when the engine gives it, else the
    rules of its formulas (``d/dself: grad * other``)."""
    lines = getattr(node, "rule_lines", None)
    if callable(lines):
        return [str(line) for line in lines()]
    backward = getattr(node, "_backward", None)
    out = []
    for (name, index), deriv in zip(getattr(backward, "keys", ()), getattr(backward, "derivs", ())):
        if deriv is not None and getattr(deriv, "rule", ""):
            out.append(f"d/d{name}{'' if index is None else f'[{index}]'}: {deriv.rule}")
    return out


def chain_rule(graph: Graph, tensor: Tensor, leaves: list[Value]) -> ChainRule:
    seed = Tensor._make(np.ones(tensor._data.shape, dtype=tensor._dtype.np), tensor._dtype)
    seeded = "" if tensor._data.ndim == 0 else (f"seeded with ones, as {graph.root.name}.backward("
                                                f"torch.ones_like({graph.root.name})) is")
    steps_by_node = {id(step.node): step for step in graph.steps}
    leaf_keys = {id(leaf.tensor): leaf.key for leaf in graph.leaves}
    inputs = [leaf.tensor for leaf in leaves]
    caught, source = _catch(tensor, inputs, seed)
    if caught is None:
        try:
            copy = rerecord(graph)
        except ReplayFailed as failed:
            return ChainRule(_rules_only(graph), problem=f"the script's backward() freed the graph and recording it "
                                                         f"again failed ({failed}): the rules without numbers",
                             seeded=seeded)
        copy_seed = Tensor._make(seed._data.copy(), seed._dtype)
        caught, source = _catch(copy.root, [copy.leaves[leaf.key] for leaf in leaves], copy_seed)
        if caught is None:
            return ChainRule(_rules_only(graph), problem=source, seeded=seeded)
        steps_by_node = {**steps_by_node, **copy.steps}
        leaf_keys.update({id(t): key for key, t in copy.leaves.items()})
        source = "torch.autograd.grad on the same ops recorded again, as the script's backward() freed its graph"
    out = []
    for node, grads in caught:
        step = steps_by_node.get(id(node))
        out.append(_chain_step(graph, node, step, grads, leaf_keys))
    return ChainRule(out, source, seeded=seeded)


def _catch(tensor: Tensor, inputs: list, seed: Tensor) -> tuple[list | None, str]:
    catcher = _Catcher()
    with observe.paused():   # only the catcher hears this pass
        observe.add_tracer(catcher)
        try:
            grad([tensor], inputs, grad_outputs=[seed], retain_graph=True, allow_unused=True)
        except TorchError as error:
            if str(error) == FREED_MESSAGE:
                return None, "freed"
            return None, f"{type(error).__name__}: {error}"
    return catcher.seen, "torch.autograd.grad on the script's graph"


def _chain_step(graph: Graph, node: Any, step: Step | None, grads: list, leaf_keys: dict) -> ChainStep:
    if type(node).__name__ == "AccumulateGrad":
        leaf = graph.values.get(leaf_keys.get(id(node.variable), ("leaf", id(node.variable))))
        name = leaf.name if leaf is not None and leaf.name else ""
        return ChainStep("AccumulateGrad", name, leaf.line if leaf else None, "", [], grads)
    names = ""
    if step is not None:
        names = ", ".join(graph.values[k].name for k in step.outputs if graph.values[k].name)
    origin = step.origin if step is not None else None
    key = step.outputs[0] if step is not None and len(step.outputs) == 1 else None
    return ChainStep(type(node).__name__, names, None if origin is None else origin.line,
                     "" if origin is None else origin.text, rule_lines(node), grads, key)


def _rules_only(graph: Graph) -> list[ChainStep]:
    out = []
    for step in reversed(graph.steps):
        names = ", ".join(graph.values[k].name for k in step.outputs if graph.values[k].name)
        origin = step.origin
        out.append(ChainStep(step.node_name, names, None if origin is None else origin.line,
                             "" if origin is None else origin.text, rule_lines(step.node), []))
    return out
