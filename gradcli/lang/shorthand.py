"""The calculator shorthand: what gradcli adds to Python for quick one-liners.

* ``grad`` as a bare positional argument of a tensor factory means
  ``requires_grad=True``: ``ones(2, 2, grad)``; called, ``grad(y, x)`` is
  ``torch.autograd.grad(y, x)``.
* Every Tensor method has a function form: ``mean(y)`` is ``y.mean()``.
* Where a Python builtin and a torch function share a name (``sum``, ``max``,
  ``min``, ``abs``, ``round``, ``pow``, ``all``, ``any``), a Tensor as the first
  positional argument selects the torch function (``sum(v, 0)`` is
  ``torch.sum(v, 0)``) and anything else the builtin (``sum([1, 2])``).
  This differs from Python on purpose: Python would iterate the tensor.
"""

from __future__ import annotations

from typing import Any, Callable

from gradcli.lang.errors import ScriptTypeError
from gradcli.lang.safety import get_attribute


class GradWord:
    """The word ``grad``: a factory flag, or ``torch.autograd.grad`` when called."""

    def __init__(self, autograd_grad: Callable[..., Any]) -> None:
        self._autograd_grad = autograd_grad
        self.__wrapped__ = autograd_grad  # (inspect.signature reads its parameters there)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._autograd_grad(*args, **kwargs)

    def __repr__(self) -> str:
        return "grad"


GradWord.__module__ = "builtins"
GradWord.__name__ = GradWord.__qualname__ = "function"


def factory_with_grad_flag(factory: Callable[..., Any], word: GradWord) -> Callable[..., Any]:
    """Wrap a tensor factory so that a bare ``grad`` argument means ``requires_grad=True``."""

    def factory_call(*args: Any, **kwargs: Any) -> Any:
        for value in args:
            if value is word:
                break
        else:
            return factory(*args, **kwargs)
        if "requires_grad" in kwargs:
            raise ScriptTypeError(f"{_name(factory)}() got multiple values for argument 'requires_grad'")
        kwargs["requires_grad"] = True
        return factory(*[value for value in args if value is not word], **kwargs)

    factory_call.__name__ = factory_call.__qualname__ = _name(factory)
    factory_call.__wrapped__ = factory  # type: ignore[attr-defined]  (its parameters, for inspect)
    return factory_call


def method_form(name: str, method: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """``name(x, *args)`` calls ``x.name(*args)`` (through the attribute whitelist); ``method``,
    the Tensor method itself, lends its parameters to ``inspect.signature``."""

    def call_method(*args: Any, **kwargs: Any) -> Any:
        if not args:
            raise ScriptTypeError(f"{name}() missing 1 required positional argument: 'input'")
        return get_attribute(args[0], name)(*args[1:], **kwargs)

    call_method.__name__ = call_method.__qualname__ = name
    if method is not None:
        call_method.__wrapped__ = method  # type: ignore[attr-defined]
    return call_method


def tensor_or_builtin(name: str, builtin: Callable[..., Any], torch_function: Callable[..., Any],
                      tensor_type: type) -> Callable[..., Any]:
    """The torch function when the first positional argument is a Tensor, else the builtin."""

    def dispatch(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], tensor_type):
            return torch_function(*args, **kwargs)
        return builtin(*args, **kwargs)

    dispatch.__name__ = dispatch.__qualname__ = name
    dispatch.__wrapped__ = torch_function  # type: ignore[attr-defined]
    return dispatch


def _name(function: Any) -> str:
    return getattr(function, "__name__", None) or type(function).__name__
