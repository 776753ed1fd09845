"""``torch.typename``: how PyTorch's Python messages name a value (``optimizer can only optimize
Tensors, but one of the params is print``), with gradcli's own modules never shown."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor


def typename(obj: Any) -> str:
    """``torch.typename(obj)``: ``torch.FloatTensor`` for a tensor, else the object's qualified
    name (a function's own, an instance's class's)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    module = _visible_module(module)
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"


def _visible_module(module: str) -> str:
    """The module a script sees: the engine's functions are torch's, the front end's (print,
    getattr) are Python's builtins."""
    if module.startswith("gradcli.engine"):
        return "torch"
    if module.startswith("gradcli."):
        return "builtins"
    return module
