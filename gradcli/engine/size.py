"""``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``."""

from __future__ import annotations

from .errors import TorchIndexError, TorchTypeError


class Size(tuple):
    __slots__ = ()
    __script_attrs__ = frozenset({"numel", "count", "index"})

    def __new__(cls, sizes: object = ()) -> "Size":
        try:
            items = tuple(sizes)  # type: ignore[arg-type]
        except TypeError:
            raise TorchTypeError(f"'{type(sizes).__name__}' object is not iterable") from None
        for item in items:
            if isinstance(item, bool) or not isinstance(item, int):
                raise TorchTypeError(
                    f"torch.Size() takes an iterable of 'int' (item {items.index(item)} is "
                    f"'{type(item).__name__}')")
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

    def __add__(self, other):  # type: ignore[override]
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))


Size.__module__ = "torch"
