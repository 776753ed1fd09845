"""SymPy functions for ops SymPy has no exact counterpart of, each with PyTorch's derivative.

``floor``, ``ceil``, ``trunc``, ``round`` and ``sign`` are steps: PyTorch's gradient is 0 (SymPy's
own ``floor`` has no derivative, and its ``sign``'s is a Dirac delta), so these say 0.  ``sigmoid``
keeps its name in formulas (``sigmoid(x)·(1 - sigmoid(x))`` reads better than its exponentials).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp


def _zero(self: Any, argindex: Any = 1) -> Any:
    return sp.S.Zero


# The steps, printed under PyTorch's names, flat for differentiation (sign's own derivative is a delta).
_FLAT = {"fdiff": _zero, "_eval_derivative": _zero}
floor = type("floor", (sp.floor,), dict(_FLAT))
ceil = type("ceil", (sp.ceiling,), dict(_FLAT))
sign = type("sign", (sp.sign,), dict(_FLAT))


class trunc(sp.Function):
    """Rounding toward zero."""

    @classmethod
    def eval(cls, arg: Any) -> Any:
        if arg.is_Number:
            return sp.sign(arg) * sp.floor(sp.Abs(arg))
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.S.Zero

    def _eval_evalf(self, prec: int) -> Any:
        value = self.args[0].evalf(prec)
        return sp.Float(int(value), prec) if value.is_Number else None

    # (told, so that SymPy need not find out at length while differentiating)
    def _eval_is_real(self) -> Any:
        return self.args[0].is_real

    def _eval_is_integer(self) -> Any:
        return self.args[0].is_real

    def _eval_is_finite(self) -> Any:
        return self.args[0].is_finite


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

    def _eval_evalf(self, prec: int) -> Any:
        value = self.args[0].evalf(prec + 10)
        if not value.is_Number:
            return None
        return round_half_even(sp.Rational(value), self.args[1]).evalf(prec)

    def _eval_is_real(self) -> Any:
        return self.args[0].is_real

    def _eval_is_finite(self) -> Any:
        return self.args[0].is_finite

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

    def _eval_is_positive(self) -> Any:
        return True if self.args[0].is_real else None

    def _eval_is_finite(self) -> Any:
        return True if self.args[0].is_real else None


class _Bracket(sp.Function):
    """An Iverson bracket: 1 where its comparison holds, else 0, with derivative 0 (what PyTorch's
    gradients of relu, clamp, maximum, ... take at every point, the kinks included).  Conditionals
    are written with these rather than SymPy's Piecewise, whose construction and differentiation
    get slow once conditions nest (relu of a clamp)."""

    nargs = 2
    sign = "?"

    @staticmethod
    def holds(a: Any, b: Any) -> bool:
        raise NotImplementedError

    @classmethod
    def eval(cls, a: Any, b: Any) -> Any:
        difference = a - b
        if difference.is_Number:
            if difference is sp.nan:
                return sp.S.Zero   # (PyTorch's comparisons with NaN are false)
            return sp.S.One if cls.holds(difference, sp.S.Zero) else sp.S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.S.Zero

    def _eval_power(self, exponent: Any) -> Any:
        return self if exponent.is_integer and exponent.is_positive else None   # [c]² = [c]

    def _eval_evalf(self, prec: int) -> Any:
        a, b = (arg.evalf(prec) for arg in self.args)
        if not (a.is_Number and b.is_Number):
            return None
        return sp.Float(1 if type(self).holds(a, b) else 0, prec)

    def _eval_is_real(self) -> bool:
        return True

    def _eval_is_integer(self) -> bool:
        return True

    def _eval_is_nonnegative(self) -> bool:
        return True

    def _eval_is_finite(self) -> bool:
        return True

    def _sympystr(self, printer: Any) -> str:
        a, b = self.args
        return f"[{printer._print(a)} {self.sign} {printer._print(b)}]"


class greater(_Bracket):
    """[a > b]"""
    sign = ">"

    @staticmethod
    def holds(a: Any, b: Any) -> bool:
        return bool(a > b)


class at_least(_Bracket):
    """[a ≥ b]"""
    sign = "≥"

    @staticmethod
    def holds(a: Any, b: Any) -> bool:
        return bool(a >= b)


class absolute(sp.Function):
    """|x| with PyTorch's derivative sign(x) (0 at 0).  SymPy's Abs differentiates through re and im
    whenever it cannot tell that its argument is real (an acos of something, say)."""

    @classmethod
    def eval(cls, arg: Any) -> Any:
        if arg.is_Number:
            return sp.Abs(arg)
        if isinstance(arg, absolute):
            return arg
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return sign(self.args[0])

    def _eval_power(self, exponent: Any) -> Any:
        if exponent.is_integer and exponent.is_even:
            return self.args[0] ** exponent   # |x|² = x²
        return None

    def _eval_is_real(self) -> bool:
        return True

    def _eval_is_nonnegative(self) -> bool:
        return True

    def _eval_evalf(self, prec: int) -> Any:
        value = self.args[0].evalf(prec)
        return sp.Abs(value) if value.is_Number else None

    def _sympystr(self, printer: Any) -> str:
        return f"|{printer._print(self.args[0])}|"
