"""The checks PyTorch's Python-level transforms make of what they are given and what a user
function returns, with their messages (so a wrong argument is the script's error, not a failure
deep inside the transform)."""

from __future__ import annotations

from typing import Any

from ..errors import TorchAttributeError, TorchTypeError
from ..tensor import Tensor


def class_repr(value: Any) -> str:
    """``type(value)`` as Python prints it: ``<class 'int'>``, ``<class 'torch.Tensor'>``."""
    cls = type(value)
    module = getattr(cls, "__module__", "builtins")
    name = getattr(cls, "__qualname__", cls.__name__)
    return f"<class '{name}'>" if module == "builtins" else f"<class '{module}.{name}'>"


def tensor_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """torch.autograd.functional's ``_as_tuple`` with names: (whether it was a tuple, the tuple),
    every element a Tensor (a list is not a tuple there)."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TorchTypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                                 f"Tensors but the {where} has type {class_repr(item)}.")
    return is_tuple, items


def user_outputs(value: Any, fn_name: str) -> tuple[bool, tuple]:
    """What the user-provided function returned, as ``tensor_tuple`` checks it."""
    return tensor_tuple(value, "outputs of the user-provided function", fn_name)


def check_callable(func: Any) -> None:
    """Python's error for calling what is not callable (the transforms call ``func`` first thing)."""
    if not callable(func):
        raise TorchTypeError(f"'{type(func).__name__}' object is not callable")


def differentiable_outputs(value: Any) -> tuple:
    """gradcheck's ``_differentiable_outputs``: it reads ``requires_grad`` of every output, so
    anything but a tensor fails as that attribute access fails in Python."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    for item in items:
        if not isinstance(item, Tensor):
            raise TorchAttributeError(f"'{type(item).__name__}' object has no attribute 'requires_grad'")
    return items
