"""Compare gradcli's output with PyTorch's, by the rules the conformance corpus (see .ci/run) uses.

Text must be identical (object addresses aside).  Numbers must be identical
too, except that two floats may differ by float32 rounding: within one part
in 10**6, or by one unit in their last printed digit when both show at least
four significant digits (a float32 sum may round its last bit differently
from PyTorch's vectorised kernels, and a printed value on a rounding boundary
can then flip its last digit).  Integers must always match exactly.
"""

from __future__ import annotations

import re
from decimal import Decimal

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def _digits(token: str) -> int:
    mantissa = token.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
    return max(len(mantissa), 1)


def _last_unit(token: str) -> Decimal:
    mantissa, _, exp = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return Decimal(1).scaleb(int(exp or 0) - decimals) if decimals else Decimal(0)


def numbers_match(a: str, b: str) -> bool:
    if a == b:
        return True
    is_float = lambda t: any(c in t for c in ".eE")  # noqa: E731
    if not (is_float(a) and is_float(b)) or a.startswith("-") != b.startswith("-"):
        return False
    if abs(_digits(a) - _digits(b)) > 2:
        return False
    x, y = Decimal(a), Decimal(b)
    tolerance = Decimal("1e-6") * max(abs(x), abs(y))
    if min(_digits(a), _digits(b)) >= 4:
        tolerance = max(tolerance, _last_unit(a), _last_unit(b))
    return abs(x - y) <= tolerance


def line_matches(expected: str, got: str) -> bool:
    if NUMBER.sub("#", expected) != NUMBER.sub("#", got):
        return False
    return all(numbers_match(a, b) for a, b in zip(NUMBER.findall(expected), NUMBER.findall(got)))


def first_mismatch(expected: str, got: str) -> str | None:
    """None when the outputs match, else a description of the first differing line."""
    exp_lines = ADDRESS.sub("0x?", expected).split("\n")
    got_lines = ADDRESS.sub("0x?", got).split("\n")
    for i in range(max(len(exp_lines), len(got_lines))):
        e = exp_lines[i] if i < len(exp_lines) else None
        g = got_lines[i] if i < len(got_lines) else None
        if e is None or g is None or not line_matches(e, g):
            return f"line {i + 1}: expected {e!r}, got {g!r}"
    return None
