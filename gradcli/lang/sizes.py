"""Sizes the language checks before Python builds something huge (``--max-memory``).

``[0] * 10**9``, ``'a' * 10**9``, ``f'{1:999999999}'`` are one C call each: once started,
neither the time limit nor Ctrl-C can stop them, and they can take all of the machine's
memory.  So the operators that repeat a sequence (``*``), and the format specs that pad a
text, check the size they are about to make against the memory budget first
(gradcli.engine.budget).  Integers are bounded by time rather than memory: ``10**10**10``
would hold the interpreter for hours, so ``**``, ``<<`` and ``*`` refuse to make an int of
more than MAX_INT_BITS bits (about 1.26 million digits, a second's work).

Where Python itself refuses (a count that does not fit in an index: ``OverflowError: cannot
fit 'int' into an index-sized integer``), Python's error is left to be raised as it is.
"""

from __future__ import annotations

import operator
import sys
from typing import Any

from gradcli.engine import budget
from gradcli.engine.errors import TorchMemoryError
from gradcli.engine.size import Size

MAX_INT_BITS = 1 << 22
# Bytes per item of what repeats: a list or tuple holds pointers; a str up to 4 bytes a character.
_ITEM_BYTES = {list: 8, tuple: 8, Size: 8, bytes: 1, bytearray: 1}
_REPEATED = frozenset(_ITEM_BYTES) | {str}
_NAMES = {list: "a list", tuple: "a tuple", Size: "a torch.Size", bytes: "a bytes object",
          bytearray: "a bytearray", str: "a string"}


def _refuse_int(bits: int) -> None:
    raise TorchMemoryError(f"gradcli refuses to compute an integer of about {bits} bits: the limit is "
                      f"{MAX_INT_BITS} bits (making one that large would take minutes or hours)")


def check_repeat(sequence: Any, count: Any) -> None:
    """Before ``sequence * count``: the size of the result against the budget."""
    kind = type(sequence)
    if type(count) is not int or count <= 1 or count > sys.maxsize:
        return   # (bool and __index__ values are small; a huge count is Python's to refuse)
    items = len(sequence) * count
    if kind is str:
        width = 1 if sequence.isascii() else 4
    else:
        width = _ITEM_BYTES.get(kind, 8)
    unit = "characters" if kind is str else "bytes" if width == 1 else "items"
    budget.check_bytes(items * width, f"{_NAMES.get(kind, 'a sequence')} of {items} {unit}")


def check_int(bits: int) -> None:
    if bits > MAX_INT_BITS:
        _refuse_int(bits)


def mul(a: Any, b: Any) -> Any:
    """``a * b``, refusing a repeated sequence past the budget or an int past MAX_INT_BITS."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
            if a and b:
                check_int(a.bit_length() + b.bit_length() - 1)
    elif ta in _REPEATED:
        check_repeat(a, b)
    elif tb in _REPEATED:
        check_repeat(b, a)
    return a * b


def imul(a: Any, b: Any) -> Any:
    """``a *= b`` (a list repeats in place)."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if a and b and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
            check_int(a.bit_length() + b.bit_length() - 1)
    elif ta in _REPEATED:
        check_repeat(a, b)
    elif tb in _REPEATED:
        check_repeat(b, a)
    a *= b
    return a


def power(a: Any, b: Any) -> Any:
    """``a ** b``, refusing an int result past MAX_INT_BITS before computing it."""
    if type(a) is int and type(b) is int and b > 64:
        magnitude = abs(a)
        if magnitude > 1:
            check_int(min((magnitude.bit_length() - 1) * b + 1, sys.maxsize))
    return a ** b


def ipower(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int and b > 64 and abs(a) > 1:
        check_int(min((abs(a).bit_length() - 1) * b + 1, sys.maxsize))
    a **= b
    return a


def lshift(a: Any, b: Any) -> Any:
    """``a << b``, refusing an int past MAX_INT_BITS before shifting."""
    if type(a) is int and type(b) is int and b > 64 and a:
        check_int(min(a.bit_length() + b, sys.maxsize))
    return a << b


def ilshift(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int and b > 64 and a:
        check_int(min(a.bit_length() + b, sys.maxsize))
    a <<= b
    return a


# The operator functions the compiler uses instead of Python's (the same result or error).
CHECKED = {operator.mul: mul, operator.pow: power, operator.lshift: lshift,
           operator.imul: imul, operator.ipow: ipower, operator.ilshift: ilshift}


def spec_width(spec: str) -> int:
    """The largest number in a format spec (its width or precision); 0 if none."""
    largest = number = 0
    for char in spec:
        if "0" <= char <= "9":
            number = number * 10 + ord(char) - 48
            if number > largest:
                largest = number
        else:
            number = 0
    return largest


def check_format(spec: str) -> None:
    """Before ``format(value, spec)``: a width or precision past the budget is refused (one past
    an index is Python's: ``ValueError: Too many decimal digits in format string``)."""
    if len(spec) > 6:
        width = spec_width(spec)
        if 1 << 20 < width <= sys.maxsize:
            budget.check_bytes(width, f"a formatted text of {width} characters")


def checked_spec(spec: str) -> str:
    """A format spec computed at run time (``f'{x:{w}}'``), once its width is checked."""
    check_format(spec)
    return spec
