"""The graph recorded again by the engine: each step's op run on the same arguments, from fresh
copies of the leaves.  When the script's own ``backward()`` freed the graph, autograd can still
differentiate this copy; the script's tensors and their ``.grad`` are not touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradcli.engine.autograd import grad_mode
from gradcli.engine.dispatch.publish import OPS
from gradcli.engine.dispatch.runner import run
from gradcli.engine.errors import TorchError

from .graph import Graph, Step
from .replay import is_key


class ReplayFailed(Exception):
    """The graph could not be recorded again (``str()`` says why)."""


@dataclass
class Rerecorded:
    root: Any                    # the copy of the explained tensor
    leaves: dict                 # leaf key -> its fresh copy (requires grad)
    steps: dict                  # id(new node) -> the original Step


def rerecord(graph: Graph) -> Rerecorded:
    tensors: dict[tuple, Any] = {}
    leaves: dict[tuple, Any] = {}
    for value in graph.values.values():
        if value.kind == "leaf":
            copy = value.tensor.detach().clone()
            copy.requires_grad_(True)
            tensors[value.key] = leaves[value.key] = copy
        elif value.kind == "constant":
            tensors[value.key] = value.tensor
    steps: dict[int, Step] = {}
    with grad_mode.enable_grad():
        for step in graph.steps:
            op = OPS.get(step.op or "")
            if step.reason is not None or op is None:
                raise ReplayFailed(step.reason or f"{step.node_name} was not made by an op of the op table")
            bound = {key: _argument(value, tensors) for key, value in step.args.items()
                     if not key.startswith("_") and key != "out"}
            try:
                result = run(op, bound)
            except TorchError as error:
                raise ReplayFailed(f"{step.op} failed when run again: {error}") from None
            outputs = tuple(result) if isinstance(result, tuple) else (result,)
            for key in step.outputs:
                tensors[key] = outputs[key[2]]
            for out in outputs:
                if getattr(out, "_grad_fn", None) is not None:
                    steps[id(out._grad_fn)] = step
    return Rerecorded(tensors[graph.root.key], leaves, steps)


def _argument(value: Any, tensors: dict) -> Any:
    if is_key(value):
        return tensors[value]
    if isinstance(value, (list, tuple)) and any(is_key(v) for v in value):
        return [_argument(v, tensors) for v in value]
    return value
