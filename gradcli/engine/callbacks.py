"""Calling what a script handed the engine (hooks, closures, ``apply``'s function, lr lambdas) and
using what it returned, failing as Python fails in PyTorch's own Python code -- but on purpose, as
the script's error, not from deep inside the engine."""

from __future__ import annotations

import functools
from typing import Any, Callable

from .errors import (TorchAttributeError, TorchError, TorchIndexError, TorchKeyError, TorchOverflowError,
                     TorchTypeError, TorchValueError, TorchZeroDivisionError)


def call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, with Python's error when ``fn`` is not callable.  What a built-in
    callee raises itself (``gradcheck(len, 1)``: object of type 'int' has no len()) has no frame of
    its own to show whose it is: it is raised again as the script's (the same type and message)."""
    if not callable(fn):
        raise TorchTypeError(f"'{type(fn).__name__}' object is not callable")
    try:
        return fn(*args, **kwargs)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError, OverflowError) as error:
        trace = error.__traceback__
        if isinstance(error, TorchError) or trace is None or trace.tb_next is not None:
            raise
        raise _AS_TORCH[next(c for c in _AS_TORCH if isinstance(error, c))](*error.args) from None


def pythons_errors(fn: Callable) -> Callable:
    """For engine code transcribed from PyTorch's own Python (nn.init, the optimizers' and
    schedulers' bookkeeping, the containers): Python's TypeError or ValueError from a value the
    script handed it (a str std, a list for lr, mixed dict keys) is the one PyTorch raises there,
    so it is the script's error, not gradcli's."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError) as error:
            if isinstance(error, TorchError):
                raise
            raise _AS_TORCH[type(error) if type(error) in _AS_TORCH else
                            next(c for c in _AS_TORCH if isinstance(error, c))](*error.args) from None
    return wrapper


_AS_TORCH = {TypeError: TorchTypeError, ValueError: TorchValueError, AttributeError: TorchAttributeError,
             IndexError: TorchIndexError, KeyError: TorchKeyError, ZeroDivisionError: TorchZeroDivisionError,
             OverflowError: TorchOverflowError}


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
