"""Grad modes: whether new operations record a graph (``torch.no_grad`` & co)."""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..callbacks import call
from ..errors import TorchTypeError

_enabled = True


def is_grad_enabled() -> bool:
    return _enabled


def _set(mode: bool) -> None:
    global _enabled
    _enabled = mode


class _GradMode:
    """A context manager that also decorates functions, as in PyTorch."""

    __script_attrs__ = frozenset()
    _mode: bool

    def __enter__(self) -> None:
        self._prev = _enabled
        _set(self._mode)

    def __exit__(self, *exc: Any) -> None:
        _set(self._prev)

    def __call__(self, func: Callable) -> Callable:
        mode_cls = type(self)

        @functools.wraps(func)
        def run_in_mode(*args: Any, **kwargs: Any) -> Any:
            with mode_cls():
                return call(func, *args, **kwargs)   # (torch.no_grad()(5)(): 'int' object is not callable)
        return run_in_mode

    def __repr__(self) -> str:
        return f"<torch.autograd.grad_mode.{type(self).__name__} object at {id(self):#x}>"


class _NoParamMode(_GradMode):
    """A mode that also decorates without parentheses (``@torch.no_grad``, ``torch.no_grad(f)``),
    as PyTorch's _NoParamDecoratorContextManager."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # (not an instance: __init__ is not called again)


class no_grad(_NoParamMode):
    _mode = False

    def __init__(self) -> None:
        self._prev = _enabled


class enable_grad(_NoParamMode):
    _mode = True

    def __init__(self) -> None:
        self._prev = _enabled


class set_grad_enabled(_GradMode):
    """Sets the mode at once (usable as a plain call) and restores it on exit."""

    def __init__(self, mode: object) -> None:
        if not isinstance(mode, bool):
            raise TorchTypeError(
                f"set_grad_enabled(): argument 'mode' (position 1) must be bool, not {type(mode).__name__}")
        self._prev = _enabled
        self._mode = mode
        _set(mode)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self._mode})"

    def __enter__(self) -> None:
        # The mode was already set by __init__; __exit__ restores what was before it.
        pass

    def __call__(self, func: Callable) -> Callable:
        _set(self._prev)
        mode = self._mode

        @functools.wraps(func)
        def run_in_mode(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return run_in_mode


class inference_mode(no_grad):
    def __new__(cls, mode: Any = True) -> Any:
        # PyTorch's inference_mode takes a function in place of its mode (@torch.inference_mode)
        if isinstance(mode, bool):
            return _GradMode.__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._mode = not mode


for _cls in (no_grad, enable_grad, set_grad_enabled, inference_mode):
    _cls.__module__ = "torch.autograd.grad_mode"
