"""Double-word arithmetic: a value carried as the unevaluated sum ``hi + lo`` of two floats.

SLEEF's ``df.h`` (double-float, float32 words) and ``dd.h`` (double-double) spell the additive
steps the same way; NumPy's arithmetic keeps the words' dtype, so one function serves both.
The names follow SLEEF's (``add`` assumes ``|x| >= |y|``, ``add2`` takes any magnitudes; ``f``
is a single float, ``w`` a double word).  The multiplicative steps need the fused multiply-add
of their dtype and stay with their callers.
"""

from __future__ import annotations

from typing import Callable, Tuple

import numpy as np

Word = Tuple[np.ndarray, np.ndarray]  # (hi, lo)


def add_ff(x: np.ndarray, y: np.ndarray) -> Word:
    """``dfadd_vf2_vf_vf``: |x| >= |y|."""
    s = x + y
    return s, (x - s) + y


def add2_ff(x: np.ndarray, y: np.ndarray) -> Word:
    """``dfadd2_vf2_vf_vf``: any magnitudes."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def add_f_w(x: np.ndarray, y: Word) -> Word:
    """``dfadd_vf2_vf_vf2``: |x| >= |y|."""
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def add_w_f(x: Word, y: np.ndarray) -> Word:
    """``dfadd_vf2_vf2_vf``: |x| >= |y|."""
    s = x[0] + y
    return s, ((x[0] - s) + y) + x[1]


def add2_w_f(x: Word, y: np.ndarray) -> Word:
    """``dfadd2_vf2_vf2_vf``: any magnitudes."""
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def add_w_w(x: Word, y: Word) -> Word:
    """``dfadd_vf2_vf2_vf2``: |x| >= |y|."""
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def add2_w_w(x: Word, y: Word) -> Word:
    """``dfadd2_vf2_vf2_vf2``: any magnitudes."""
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def sub_w_w(x: Word, y: Word) -> Word:
    """``dfsub_vf2_vf2_vf2``: |x| >= |y|."""
    s = x[0] - y[0]
    return s, (((x[0] - s) - y[0]) + x[1]) - y[1]


def neg(x: Word) -> Word:
    return -x[0], -x[1]


def normalize(t: Word) -> Word:
    """``dfnormalize_vf2_vf2``: the same value with ``lo`` below half an ulp of ``hi``."""
    s = t[0] + t[1]
    return s, (t[0] - s) + t[1]


class Products:
    """The multiplicative steps (``dfmul``, ``dfsqu``), given the words' fused multiply-add
    ``fma(a, b, c)`` and ``error(a, b, s)``, the rounding error of the product ``s = a * b``."""

    def __init__(self, fma: Callable[..., np.ndarray], error: Callable[..., np.ndarray]) -> None:
        self.fma = fma
        self.error = error

    def mul_ff(self, x: np.ndarray, y: np.ndarray) -> Word:
        """``dfmul_vf2_vf_vf``."""
        s = x * y
        return s, self.error(x, y, s)

    def mul_w_f(self, x: Word, y: np.ndarray) -> Word:
        """``dfmul_vf2_vf2_vf``."""
        s = x[0] * y
        return s, self.fma(x[1], y, self.error(x[0], y, s))

    def mul_w_w(self, x: Word, y: Word) -> Word:
        """``dfmul_vf2_vf2_vf2``."""
        s = x[0] * y[0]
        return s, self.fma(x[0], y[1], self.fma(x[1], y[0], self.error(x[0], y[0], s)))

    def squ(self, x: Word) -> Word:
        """``dfsqu_vf2_vf2``."""
        s = x[0] * x[0]
        return s, self.fma(x[0] + x[0], x[1], self.error(x[0], x[0], s))
