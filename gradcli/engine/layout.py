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
