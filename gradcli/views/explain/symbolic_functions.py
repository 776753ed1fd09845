"""SymPy functions for ops SymPy has no exact counterpart of, each with PyTorch's derivative.

``floor``, ``ceil``, ``trunc``, ``round`` and ``sign`` are steps: PyTorch's gradient is 0 (SymPy's
own ``floor`` has no derivative, and its ``sign``'s is a Dirac delta), so these say 0.  ``sigmoid``
keeps its name in formulas (``sigmoid(x)·(1 - sigmoid(x))`` reads better than its exponentials).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp


def _zero(self: Any, argindex: int = 1) -> Any:
    return sp.S.Zero


# The steps, printed under PyTorch's names, flat for differentiation.
floor = type("floor", (sp.floor,), {"fdiff": _zero})
ceil = type("ceil", (sp.ceiling,), {"fdiff": _zero})
sign = type("sign", (sp.sign,), {"fdiff": _zero})


class trunc(sp.Function):
    """Rounding toward zero."""

    @classmethod
    def eval(cls, arg: Any) -> Any:
        if arg.is_Number:
            return sp.sign(arg) * sp.floor(sp.Abs(arg))
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.S.Zero


class round_half_even(sp.Function):
    """``round(x, decimals)`` as PyTorch rounds: half to even."""

    @classmethod
    def eval(cls, arg: Any, decimals: Any) -> Any:
        if arg.is_Number and arg.is_finite and decimals.is_Integer:
            scale = Fraction(10) ** int(decimals)
            exact = Fraction(sp.Rational(arg).p, sp.Rational(arg).q)
            return sp.Rational(Fraction(round(exact * scale)) / scale)
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.S.Zero

    def _sympystr(self, printer: Any) -> str:
        value, decimals = self.args
        if decimals == 0:
            return f"round({printer._print(value)})"
        return f"round({printer._print(value)}, {printer._print(decimals)})"


class sigmoid(sp.Function):
    """1 / (1 + exp(-x))."""

    @classmethod
    def eval(cls, arg: Any) -> Any:
        if arg.is_Number:
            return 1 / (1 + sp.exp(-arg))
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return self * (1 - self)

    def _eval_rewrite_as_exp(self, arg: Any, **kwargs: Any) -> Any:
        return 1 / (1 + sp.exp(-arg))

    def _eval_evalf(self, prec: int) -> Any:
        return (1 / (1 + sp.exp(-self.args[0])))._eval_evalf(prec)

    def _eval_is_real(self) -> Any:
        return self.args[0].is_real
