"""Which nodes act element by element: the ones through which one element's gradient is the
product of one local derivative per node (what the trace's chain-rule summary needs).

A pointwise op's Jacobian is diagonal, a reshape keeps the elements' order, and a full ``sum``
or ``mean`` sends its one gradient to every element: along such nodes element ``i`` of a leaf
meets only element ``i`` (or the one element of a scalar), so its gradient is a sum over paths
of products of numbers.  Anything else (matmul, softmax, indexing, a custom Function) mixes
elements, and the summary says so instead of pretending.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any

# The op families whose every op is pointwise (their modules' own definition).
_POINTWISE_FAMILIES = (
    "gradcli.engine.ops.arithmetic",
    "gradcli.engine.ops.pointwise_unary",
    "gradcli.engine.ops.pointwise_binary",
    "gradcli.engine.ops.fused_pointwise",
    "gradcli.engine.nn.activations",
)
# Ops elsewhere that are pointwise too, or keep the elements' (row-major) order.
_ALSO_POINTWISE = frozenset({"where", "masked_fill", "_to_copy", "clone"})
_SAME_ORDER = frozenset({"view", "_unsafe_view", "reshape", "flatten", "unsqueeze", "squeeze", "contiguous"})

POINTWISE = "pointwise"
SAME_ORDER = "same order"
FULL_SUM = "sum"
FULL_MEAN = "mean"


@lru_cache(maxsize=1)
def pointwise_ops() -> frozenset[str]:
    found: set[str] = set(_ALSO_POINTWISE)
    for module in _POINTWISE_FAMILIES:
        found.update(op.name for op in importlib.import_module(module).CATALOG.records())
    return frozenset(found)


def kind(node: Any, op: str | None) -> str | None:
    """How ``node`` (made by op ``op``) maps elements, or None when it mixes them."""
    name = type(node).__name__
    if name == "SumBackward0":     # sum() of every element (SumBackward1 is a sum over dims)
        return FULL_SUM
    if name == "MeanBackward0":
        return FULL_MEAN
    if op is None or getattr(node, "num_outputs", 1) != 1:
        return None
    if op in _SAME_ORDER:
        return SAME_ORDER
    if op in pointwise_ops():
        return POINTWISE
    return None
