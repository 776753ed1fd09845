"""Calling what a script handed the engine (hooks, closures, ``apply``'s function, lr lambdas) and
using what it returned, failing as Python fails in PyTorch's own Python code -- but on purpose, as
the script's error, not from deep inside the engine."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from .errors import (TorchAttributeError, TorchError, TorchIndexError, TorchKeyError, TorchOverflowError,
                     TorchTypeError, TorchValueError, TorchZeroDivisionError)


# Python's own errors that PyTorch's Python code lets through to the caller, and the engine's
# classes that stand for them in a script (each prints as the builtin it subclasses).
_AS_TORCH = {TypeError: TorchTypeError, ValueError: TorchValueError, AttributeError: TorchAttributeError,
             IndexError: TorchIndexError, KeyError: TorchKeyError, ZeroDivisionError: TorchZeroDivisionError,
             OverflowError: TorchOverflowError}
_PYTHONS = tuple(_AS_TORCH)


def _as_scripts(error: BaseException) -> TorchError:
    """``error`` again, as the script's error of the same type and message."""
    cls = type(error) if type(error) in _AS_TORCH else next(c for c in _AS_TORCH if isinstance(error, c))
    return _AS_TORCH[cls](*error.args)


def _pythons_own(error: BaseException) -> bool:
    """Raised by Python itself and not yet seen by the script: not an engine error, and not one the
    script raised or passed on (those carry the script's location, or are the script's classes)."""
    return not isinstance(error, TorchError) and type(error).__module__ == "builtins" and not vars(error)


def call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, with Python's error when ``fn`` is not callable.  What the callee's
    call itself raises (arguments that do not fit ``MSELoss.forward``), or a built-in callee (``gradcheck(len, 1)``: object of type 'int' has no len()) has no frame of
    its own to show whose it is: it is raised again as the script's (the same type and message)."""
    if not callable(fn):
        raise TorchTypeError(f"'{type(fn).__name__}' object is not callable")
    try:
        return fn(*args, **kwargs)
    except _PYTHONS as error:
        trace = error.__traceback__
        if isinstance(error, TorchError) or trace is None or trace.tb_next is not None:
            raise
        raise _as_scripts(error) from None


def pythons_errors(fn: Callable) -> Callable:
    """For engine code transcribed from PyTorch's own Python (nn.init, the optimizers and
    schedulers, the containers): Python's error from a value the script handed it (a str std, a
    list for lr, ``None`` for an optimizer, a step_size of 0) is the one PyTorch raises there, so it
    is the script's error, not gradcli's."""
    if getattr(fn, "_pythons_errors", False):
        return fn

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _PYTHONS as error:
            if not _pythons_own(error):
                raise
            raise _as_scripts(error) from None
    wrapper._pythons_errors = True  # type: ignore[attr-defined]
    return wrapper


def transcribed(cls: type, module: str) -> type:
    """Mark ``cls`` as transcribed from PyTorch's Python module ``module``: its type name follows
    ``torch.typename`` and each method it defines fails with Python's errors as PyTorch's does."""
    cls.__module__ = module
    for name, value in list(vars(cls).items()):
        if inspect.isfunction(value):
            setattr(cls, name, pythons_errors(value))
    return cls


def length(value: Any) -> int:
    """``len(value)`` of a returned value, with Python's error when it has no length."""
    if not hasattr(type(value), "__len__"):
        raise TorchTypeError(f"object of type '{type(value).__name__}' has no len()")
    return len(value)


def arithmetic(operation: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """``operation(a, b)`` (``operator.mul``) where one side is a returned value: Python's
    TypeError for operands that do not combine (a lambda returning a str) is the script's."""
    try:
        return operation(a, b)
    except TypeError as error:
        if error.__traceback__ is not None and error.__traceback__.tb_next is not None \
                and error.__traceback__.tb_next.tb_next is not None:
            raise  # (raised inside an operand's own method)
        raise TorchTypeError(str(error)) from None
