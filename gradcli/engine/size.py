"""``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``."""

from __future__ import annotations

import operator

from .errors import TorchIndexError, TorchOverflowError, TorchTypeError


class Size(tuple):
    __slots__ = ()
    __script_attrs__ = frozenset({"numel", "count", "index"})

    def __new__(cls, sizes: object = ()) -> "Size":
        try:
            items = tuple(sizes)  # type: ignore[arg-type]
        except TypeError:
            raise TorchTypeError(f"'{type(sizes).__name__}' object is not iterable") from None
        if not all(type(item) is int for item in items):
            items = tuple(_size_item(item, position) for position, item in enumerate(items))
        return super().__new__(cls, items)

    @classmethod
    def _of(cls, shape: tuple) -> "Size":
        """A Size from a shape that is known to hold ints (no checks: hot path)."""
        return tuple.__new__(cls, shape)

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, key):  # type: ignore[override]
        try:
            result = tuple.__getitem__(self, key)
        except IndexError:
            raise TorchIndexError("tuple index out of range") from None
        except TypeError:
            raise TorchTypeError(
                f"tuple indices must be integers or slices, not {type(key).__name__}") from None
        return Size._of(result) if isinstance(key, slice) else result

    # PyTorch's Size concatenates and repeats like a tuple and stays a Size.
    def __add__(self, other):  # type: ignore[override]
        if not isinstance(other, tuple):
            raise TorchTypeError(
                f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented   # 1 + size: Python's "unsupported operand type(s)"
        return Size(tuple.__add__(other, self))

    def __mul__(self, count):  # type: ignore[override]
        if not hasattr(type(count), "__index__"):
            raise TorchTypeError(f"can't multiply sequence by non-int of type '{type(count).__name__}'")
        try:
            return Size._of(tuple.__mul__(self, count))
        except OverflowError as error:   # a count past sys.maxsize: Python's own error
            raise TorchOverflowError(*error.args) from None

    def __rmul__(self, count):  # type: ignore[override]
        if isinstance(count, (str, list, tuple)):   # 'ab' * size: the other sequence repeats
            raise TorchTypeError("can't multiply sequence by non-int of type 'torch.Size'")
        return self.__mul__(count)


def _size_item(item: object, position: int) -> int:
    """An element of torch.Size(...): an int, or anything with __index__ (True, a 0-dim int tensor)."""
    if not isinstance(item, float):
        try:
            return operator.index(item)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise TorchTypeError(
        f"torch.Size() takes an iterable of 'int' (item {position} is '{type(item).__name__}')")


Size.__module__ = "torch"
Size.__qualname__ = "Size"
# Python's own messages name a type by its C tp_name, which follows __name__:
# PyTorch's is "torch.Size" ('torch.Size' object is not callable); the repr
# <class 'torch.Size'> is built from __module__ and __qualname__.
Size.__name__ = "torch.Size"
