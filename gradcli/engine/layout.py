"""``torch.strided``: the only memory layout gradcli has."""


class Layout:
    __slots__ = ("name",)
    __script_attrs__ = frozenset()

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


Layout.__module__ = "torch"
Layout.__qualname__ = "layout"
Layout.__name__ = "torch.layout"  # the C tp_name Python's messages use, as for torch.Size and torch.dtype

strided = Layout("strided")


def byte_strides(a: "np.ndarray") -> tuple:
    """``a``'s strides in bytes as PyTorch would give them.  NumPy 2.4 makes every stride of a
    freshly made empty array 0, where PyTorch gives the contiguous strides of the sizes with
    each 0 counted as 1 (``zeros(2, 0, 3).stride() == (3, 3, 1)``); views keep theirs."""
    strides = a.strides
    if a.size or not a.ndim or any(strides):
        return strides
    out, step = [], a.itemsize
    for n in reversed(a.shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))
