"""The shortest form SymPy finds for an expression, within a budget.

``simplify`` can take seconds on a large expression, so it is tried only on expressions of up to
``SIMPLIFY_LIMIT`` operations without conditionals (``factor`` up to ``FACTOR_LIMIT``), and only until the explanation
has spent ``BUDGET`` seconds simplifying (then each formula is shown as differentiation left it).
Of the forms found, the one with the fewest operations is kept, ``factor``'s on a tie:
``3·(x + 2)/2`` rather than ``3·x/2 + 3``.
"""

from __future__ import annotations

import time
from typing import Any

import sympy as sp

SIMPLIFY_LIMIT = 16    # operations (sympy.count_ops)
FACTOR_LIMIT = 120
BUDGET = 1.5           # seconds for all the formulas of one explanation

_spent = [0.0]


def start_budget() -> None:
    """A fresh budget (at the start of each explanation)."""
    _spent[0] = 0.0


def simplest(expr: Any) -> Any:
    expr = sp.sympify(expr)
    if expr.is_Atom or _spent[0] > BUDGET:
        return expr
    size = sp.count_ops(expr)
    if size > FACTOR_LIMIT:
        return expr
    began = time.monotonic()
    candidates = []
    # (simplify's Piecewise handling alone can take a second: conditionals are only factored)
    full = size <= SIMPLIFY_LIMIT and not expr.has(sp.Piecewise)
    attempts = (sp.factor, sp.simplify) if full else (sp.factor,)
    for attempt in attempts:
        try:
            candidates.append(attempt(expr))
        except (TypeError, ValueError, NotImplementedError, sp.PolynomialError, RecursionError):
            continue
    candidates.append(expr)
    _spent[0] += time.monotonic() - began
    return min(enumerate(candidates), key=lambda pair: (sp.count_ops(pair[1]), pair[0]))[1]
