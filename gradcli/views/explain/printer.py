"""SymPy expressions and numbers on one line, as a person writes them: ``3·(x + 2)/2``, ``3·y²``,
``h·[h > 0]`` (an Iverson bracket prints itself), ``(a if c else b)`` for a SymPy Piecewise; and
arrays of numbers as short nested lists."""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class _OneLine(StrPrinter):
    """StrPrinter with superscript integer powers, ``·`` for products, Python-like conditionals."""

    def _print_Pow(self, expr: Any, rational: bool = False) -> str:
        base, exponent = expr.as_base_exp()
        if exponent.is_Integer and 1 < exponent < 10:
            text = self.parenthesize(base, precedence(expr), strict=True)
            if isinstance(base, sp.Symbol) or text.startswith("("):
                return text + str(exponent).translate(_SUPERSCRIPTS)
            return f"({text})" + str(exponent).translate(_SUPERSCRIPTS)
        return super()._print_Pow(expr, rational)

    def _print_Piecewise(self, expr: Any) -> str:
        pieces = list(expr.args)
        if (len(pieces) == 2 and pieces[0].expr == 1 and pieces[1].expr == 0
                and pieces[1].cond == sp.true):
            return f"[{self._print(pieces[0].cond)}]"   # an Iverson bracket: 1 where the condition holds
        text = []
        for value, cond in pieces:
            if cond == sp.true:
                text.append(self._print(value))
                break
            text.append(f"{self._print(value)} if {self._print(cond)} else")
        else:
            text.append("nan")
        return "(" + " ".join(text) + ")"

    def _print_And(self, expr: Any) -> str:
        return " and ".join(self.parenthesize(a, precedence(expr)) for a in expr.args)

    def _print_Or(self, expr: Any) -> str:
        return " or ".join(self.parenthesize(a, precedence(expr)) for a in expr.args)

    def _print_Float(self, expr: Any) -> str:
        return number(float(expr))

    def _print_Exp1(self, expr: Any) -> str:
        return "e"

    def _print_Pi(self, expr: Any) -> str:
        return "π"


_PRINTER = _OneLine()


def formula(expr: Any) -> str:
    """``expr`` on one line: ``**`` as ``^`` (or a superscript), ``*`` as ``·``."""
    return _PRINTER.doprint(expr).replace("**", "^").replace("*", "·")


def number(value: float) -> str:
    """A number as short as it reads: ``4.5``, ``1``, ``-0.416147``, ``nan``."""
    value = float(value)
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def numbers(values: Any) -> str:
    """An array of numbers as nested lists (``[[4.5, 4.5], [4.5, 4.5]]``); a 0-d array as its number."""
    array = np.asarray(values, dtype=float)
    if array.ndim == 0:
        return number(array[()])
    return "[" + ", ".join(numbers(part) for part in array) + "]"


def values_text(values: Any) -> str:
    """A tensor's values, once when they are all equal (``1`` for a 2×2 of ones), else as lists."""
    array = np.asarray(values, dtype=float)
    flat = array.reshape(-1)
    if flat.size and np.all((flat == flat[0]) | (np.isnan(flat) & np.isnan(flat[0]))):
        return number(flat[0])
    return numbers(array)


def shape_text(shape: tuple) -> str:
    """``shape [2, 2]``, ``shape [3]``, or ``scalar`` for a 0-d tensor."""
    return f"shape [{', '.join(str(n) for n in shape)}]" if shape else "scalar"
