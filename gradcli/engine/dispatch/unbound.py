"""Tensor methods called through the class (``torch.Tensor.add(1, 2)``) with something else as self.

PyTorch's Tensor methods are C method descriptors of ``torch._C.TensorBase``: called through the
class with no argument, or with a first argument that is no tensor, Python refuses before the
method runs.  gradcli's methods are Python functions, which would run with any ``self`` and fail
inside; each form therefore checks its ``self`` (inline for the forms made from op records, with
``checking_self`` for the hand-written ones) and raises what PyTorch's descriptor raises.  The few
methods that are Python code in PyTorch too fail there as PyTorch's Python code fails.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..errors import TorchAttributeError, TorchTypeError
from ..tensor import Tensor
from .signature import py_type_name

# a method form's ``self`` when it was called with no argument at all
NO_SELF: Any = object()


def _python_level(name: str, value: Any) -> Exception | None:
    """What PyTorch's Python-level Tensor methods raise for a ``self`` that is no tensor."""
    type_name = type(value).__name__
    if name == "register_hook":
        return TorchAttributeError(f"'{type_name}' object has no attribute 'requires_grad'")
    if name == "norm":
        return TorchAttributeError(f"'{type_name}' object has no attribute 'layout'")
    if name == "unflatten":
        return TorchTypeError("super(type, obj): obj must be an instance or subtype of type")
    if name == "backward":
        return TorchTypeError(f"'{type_name}' object is not iterable")
    return None


def wrong_self(name: str, value: Any) -> Exception:
    """The error for ``Tensor.<name>(value, ...)`` where value is no tensor (or missing)."""
    if value is NO_SELF:
        return TorchTypeError(f"unbound method TensorBase.{name}() needs an argument")
    found = _python_level(name, value)
    if found is not None:
        return found
    return TorchTypeError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                          f"'{py_type_name(value)}' object")


def call_refused(error: TypeError, fn: Any, name: str) -> TypeError:
    """``error`` re-raised by a wrapper of ``fn``: when Python refused the call itself (a missing or
    an extra argument) it is the script's error, under the name the script called; an error from
    inside ``fn`` is returned as it is."""
    if isinstance(error, TorchTypeError) or error.__traceback__ is None or error.__traceback__.tb_next is not None:
        return error
    text = str(error)
    for own in (getattr(fn, "__qualname__", None), getattr(fn, "__name__", None)):
        if own and text.startswith(own + "()"):
            text = name + text[len(own):]
            break
    return TorchTypeError(text)


def checking_self(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` (a hand-written Tensor method) refusing a ``self`` that is no tensor."""
    if getattr(fn, "__checks_self__", False) or not callable(fn) or isinstance(fn, (property, staticmethod)):
        return fn

    @functools.wraps(fn)
    def method(*args: Any, **kwargs: Any) -> Any:
        if not args or not isinstance(args[0], Tensor):
            raise wrong_self(name, args[0] if args else NO_SELF)
        try:
            return fn(*args, **kwargs)
        except TypeError as error:
            raise call_refused(error, fn, name) from None
    method.__checks_self__ = True  # type: ignore[attr-defined]
    return method
