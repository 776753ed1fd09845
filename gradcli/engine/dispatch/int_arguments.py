"""Ints as PyTorch's argument parser unpacks them: int64 only (THPUtils_unpackLong), int[]
elements one by one after the first (is_int_or_symint_list looks at that one alone)."""

from __future__ import annotations

from typing import Any, Sequence

from ..errors import TorchValueError

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


class NotAnInt(Exception):
    """An int[] element (at 0-based ``index``) that is no int, after a first one that is."""

    def __init__(self, index: int, value: Any) -> None:
        super().__init__(index)
        self.index = index
        self.value = value


class Int64Overflow(Exception):
    """An int[] element outside int64 (at 0-based ``index``): the parser words it for its parameter."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


def int64(value: Any) -> int:
    """An int argument as PyTorch unpacks it (THPUtils_unpackLong): outside int64 it refuses."""
    n = int(value)
    if n < INT64_MIN or n > INT64_MAX:
        raise TorchValueError("Overflow when unpacking long long")
    return n


def int64_tuple(values: Sequence) -> tuple[int, ...]:
    out = tuple(int(v) for v in values)
    for i, n in enumerate(out):
        if n < INT64_MIN or n > INT64_MAX:
            raise Int64Overflow(i)
    return out


def in_int64(args: Sequence) -> bool:
    """Whether every int among ``args`` (and in their tuples) fits int64: a call remembered by its
    shape skips the checks of ``_check``, so a value outside int64 takes the full path."""
    for a in args:
        kind = type(a)
        if kind is int:
            if a < INT64_MIN or a > INT64_MAX:
                return False
        elif kind is tuple or kind is list:
            for v in a:
                if type(v) is int and (v < INT64_MIN or v > INT64_MAX):
                    return False
    return True
