"""Gradient formulas: how an op declares one, and how a node runs them.

An op's record holds one ``Deriv`` per differentiable input, like a line of
PyTorch's ``derivatives.yaml``: the saved values the formula reads and the
formula itself, ``d("other")(lambda g, s: g * s.other)`` for ``mul``'s
``self``.  Formulas are written with Tensor operations, so they are
themselves differentiable: with ``create_graph=True`` the backward pass
records a graph of its own (higher-order derivatives come for free).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..tensor import Tensor

if TYPE_CHECKING:
    from .record import RecordedOp

Formula = Callable[[Any, Any], Any]

# The rule of an input PyTorch gives no derivative for (its node is <NotImplemented>).
NOT_IMPLEMENTED = "not implemented: backward raises an error"
# The rule of a random draw's inputs (bernoulli's p, normal's mean and std): PyTorch's zeros.
SAMPLED = "0 (a random draw passes no gradient)"


@dataclass
class Deriv:
    """The gradient formula for one input: the saved values it reads, the formula, and the
    formula in words for people (``grad * other``; the trace and graph views show it), in terms
    of ``grad`` (the incoming gradient) and the op's parameter names.  An op whose overloads
    differentiate differently (max of everything, along a dim, of two tensors) words each
    overload's node in ``node_rules`` (node name -> rule)."""
    needs: tuple[str, ...]
    fn: Formula
    rule: str = ""
    node_rules: dict[str, str] = field(default_factory=dict)

    def rule_for(self, node_name: str) -> str:
        """The rule in words as the node called ``node_name`` applies it."""
        return self.node_rules.get(node_name, self.rule)


def d(*needs: str, rule: str = "", node_rules: dict[str, str] | None = None) -> Callable[[Formula], Deriv]:
    """``d("other", rule="grad * other")(lambda g, s: g * s.other)`` reads like a derivatives.yaml line."""
    return lambda fn: Deriv(tuple(needs), fn, rule, dict(node_rules or {}))


def together(inputs: tuple[str, ...], needs: tuple[str, ...],
             compute: Callable[[Any, Any], tuple], rules: tuple[str, ...] = ()) -> dict[str, Deriv]:
    """The formulas of ``inputs`` when one computation gives all their gradients at once
    (PyTorch's ``native_batch_norm_backward`` and the like): ``compute(g, s)`` returns them in
    the order of ``inputs``, runs on the first input's turn and is kept with the saved values
    ``s`` of that backward call for the others."""
    def pick(index: int) -> Formula:
        def formula(g: Any, s: Any) -> Any:
            found = s.__dict__.get("_together")
            if found is None:
                found = s.__dict__["_together"] = compute(g, s)
            return found[index]
        return formula
    rules = rules or ("",) * len(inputs)
    return {name: Deriv(tuple(needs), pick(i), rule) for i, (name, rule) in enumerate(zip(inputs, rules))}


class Formulas:
    """The gradient formulas a node runs: one per graph input (None where none is needed).

    Shared by all nodes of an op with the same inputs requiring grad, so making
    a node costs no closure.
    """

    __slots__ = ("keys", "derivs", "multi", "needs", "declared")

    def __init__(self, op: "RecordedOp", keys: tuple, requires: tuple, multi: bool) -> None:
        self.keys = keys
        self.derivs = [op.derivs.get(n) if r else None for (n, _), r in zip(keys, requires)]
        self.multi = multi
        # PyTorch saves an output always, and an input that every input's formula reads (gather's
        # self); one only some formulas read (mul's other), just when one of those will run.
        all_derivs = [op.derivs.get(n) for n, _ in keys]
        every = frozenset.intersection(*[frozenset(dv.needs) for dv in all_derivs]) \
            if all_derivs and all(dv is not None for dv in all_derivs) else frozenset()
        self.needs = frozenset(k for dv in self.derivs if dv is not None for k in dv.needs) | every | frozenset(
            k for dv in op.derivs.values() for k in dv.needs if k.startswith("result"))
        # What PyTorch's node declares (grad_fn._saved_<name>), saved or not (then it reads as None).
        self.declared = self.needs | frozenset(k for dv in all_derivs if dv is not None for k in dv.needs)

    def __call__(self, saved: Any, grads: list) -> list:
        if self.multi:
            g = [x if x is not None else _zeros(m) for x, m in zip(grads, saved._out_meta)]
        else:
            g = grads[0]
        out = []
        per_list: dict[str, Any] | None = None
        for (name, index), deriv in zip(self.keys, self.derivs):
            if deriv is None:
                out.append(None)
            elif index is None:
                out.append(deriv.fn(g, saved))
            else:
                if per_list is None:
                    per_list = {}
                if name not in per_list:
                    per_list[name] = deriv.fn(g, saved)
                out.append(per_list[name][index])
        return out


_FORMULAS: dict[tuple, Formulas] = {}


def formulas_for(op: "RecordedOp", keys: tuple, requires: tuple, multi: bool) -> Formulas:
    """The (cached) formulas of ``op`` for these graph inputs and which of them require grad."""
    cache_key = (op.name, keys, requires, multi)
    f = _FORMULAS.get(cache_key)
    if f is None:
        f = _FORMULAS[cache_key] = Formulas(op, keys, requires, multi)
    return f


def _zeros(meta: tuple) -> Tensor:
    shape, dtype = meta
    return Tensor._make(np.zeros(shape, dtype=dtype.np), dtype)
