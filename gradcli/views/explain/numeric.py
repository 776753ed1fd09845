"""SymPy expressions evaluated with mpmath, each subexpression once.

A derivative written out as a tree repeats its parts many times (``exp(h₀)`` in every term of a
softmax's); SymPy's expressions are shared, so a cache keyed by the expression meets each part
once.  That is much faster than ``evalf`` (which walks the tree) or ``lambdify`` (which compiles a
function for each expression).  The inputs are exact: the binary value of each float.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import mpmath
import sympy as sp

DIGITS = 30


def _truncate(v: Any) -> Any:
    return mpmath.floor(v) if v >= 0 else mpmath.ceil(v)


def _round(v: Any, decimals: Any) -> Any:
    scale = mpmath.mpf(10) ** int(decimals)
    return mpmath.nint(v * scale) / scale   # (nint: half to even, as PyTorch)


def _sign(v: Any) -> Any:
    return mpmath.mpf(1) if v > 0 else mpmath.mpf(-1) if v < 0 else mpmath.mpf(0)


def _heaviside(v: Any, *half: Any) -> Any:
    return mpmath.mpf(1) if v > 0 else mpmath.mpf(0) if v < 0 else (half[0] if half else mpmath.mpf(0.5))


# by the class name of the function (SymPy's, or symbolic_functions')
FUNCTIONS: dict[str, Callable] = {
    "exp": mpmath.exp, "log": mpmath.log, "sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan,
    "asin": mpmath.asin, "acos": mpmath.acos, "atan": mpmath.atan, "sinh": mpmath.sinh, "cosh": mpmath.cosh,
    "tanh": mpmath.tanh, "erf": mpmath.erf, "atan2": mpmath.atan2, "Abs": abs, "absolute": abs,
    "re": mpmath.re, "im": mpmath.im,
    "sign": _sign, "floor": mpmath.floor, "ceiling": mpmath.ceil, "ceil": mpmath.ceil, "trunc": _truncate,
    "round_half_even": _round, "sigmoid": lambda v: 1 / (1 + mpmath.exp(-v)),
    "greater": lambda a, b: mpmath.mpf(1 if a > b else 0), "at_least": lambda a, b: mpmath.mpf(1 if a >= b else 0),
    "Max": lambda *a: max(a), "Min": lambda *a: min(a),
    # (SymPy's own derivatives of sign and Max, where they come in: 0 away from the kink, 1/2 at a tie)
    "Heaviside": _heaviside, "DiracDelta": lambda v: mpmath.mpf(0) if v != 0 else mpmath.inf,
}


class Numbers:
    """Values of expressions at ``inputs`` (symbol -> float)."""

    def __init__(self, inputs: dict) -> None:
        self.cache: dict = {s: mpmath.mpf(v) for s, v in inputs.items()}

    def value(self, expr: Any) -> float:
        """The value as a float: nan where it is not a real number or not computable."""
        try:
            with mpmath.workdps(DIGITS):
                result = self._eval(sp.sympify(expr))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError, KeyError):
            return math.nan
        if isinstance(result, mpmath.mpc):
            return float(result.real) if result.imag == 0 else math.nan
        try:
            return float(result)
        except (TypeError, ValueError):
            return math.nan

    def _eval(self, expr: Any) -> Any:
        # an explicit stack: a long graph's expression is deeper than Python's recursion allows
        stack = [(expr, False)]
        cache = self.cache
        while stack:
            node, ready = stack.pop()
            if node in cache:
                continue
            if isinstance(node, sp.Piecewise):   # (only the piece that holds is computed)
                cache[node] = self._piecewise(node)
                continue
            if not ready and node.args and not node.is_Number:
                stack.append((node, True))
                stack.extend((arg, False) for arg in node.args if arg not in cache)
                continue
            cache[node] = self._apply(node, [cache[a] for a in node.args] if node.args else [])
        return cache[expr]

    def _apply(self, node: Any, args: list) -> Any:
        if node.is_Number:
            if node is sp.nan:
                return mpmath.nan
            if node.is_Rational:
                return mpmath.mpf(node.p) / node.q
            if node in (sp.oo, -sp.oo, sp.zoo):
                return mpmath.inf if node is sp.oo else -mpmath.inf if node is -sp.oo else mpmath.nan
            return mpmath.mpf(str(node))
        if node is sp.pi:
            return mpmath.pi
        if node is sp.E:
            return mpmath.e
        if node is sp.true or node is sp.false:
            return node is sp.true
        if node.is_Add:
            return mpmath.fsum(args)
        if node.is_Mul:
            out = mpmath.mpf(1)
            for a in args:
                out *= a
            return out
        if node.is_Pow:
            base, exponent = args
            if base == 0 and exponent < 0:
                return mpmath.inf
            return mpmath.power(base, exponent)
        if isinstance(node, sp.core.relational.Relational):
            a, b = args
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[node.rel_op]
        if isinstance(node, sp.And):
            return all(args)
        if isinstance(node, sp.Or):
            return any(args)
        name = type(node).__name__
        function = FUNCTIONS.get(name)
        if function is None:
            raise KeyError(name)
        return function(*args)

    def _piecewise(self, node: Any) -> Any:
        for piece in node.args:
            if self._eval(piece.cond):
                return self._eval(piece.expr)
        return mpmath.nan
