"""The checks optimizers make before and during a step, failing as PyTorch's do on the CPU."""

from __future__ import annotations

from typing import Any, Callable

from ..errors import TorchError, TorchNotImplementedError, TorchRuntimeError, TorchTypeError

# PyTorch's optimizers raise a bare AssertionError for capturable=True on the CPU.
TorchAssertionError = type("AssertionError", (AssertionError, TorchError), {"__module__": TorchError.__module__})
TorchAssertionError.__qualname__ = "TorchAssertionError"

_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]


def checked(check: Callable[[], Any]) -> Any:
    """``check()``, whose comparisons of a hyperparameter (``lr < 0.0`` with a str) fail with Python's
    TypeError as the script's error."""
    try:
        return check()
    except TypeError as error:
        if isinstance(error, TorchError):
            raise
        raise TorchTypeError(str(error)) from None


def check_fused(fused: Any, differentiable: Any, foreach: Any) -> None:
    """The constructor's checks of ``fused=True`` (SGD, Adam, Adagrad), in PyTorch's order."""
    if fused:
        if differentiable:
            raise TorchRuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise TorchRuntimeError("`fused` and `foreach` cannot be `True` together.")


def check_capturable(capturable: Any) -> None:
    """capturable=True needs an accelerator: on the CPU every step fails, as in PyTorch."""
    if capturable:
        raise TorchAssertionError("If capturable=True, params and state_steps must be on supported devices: "
                                  f"{_CAPTURABLE_DEVICES}.")


def refuse_fast_paths(group: dict[str, Any], name: str) -> None:
    """gradcli follows the single-tensor loop (PyTorch's CPU default) only: foreach=True takes PyTorch's
    multi-tensor path (which may write into the gradients), fused=True its fused kernels."""
    for option in ("foreach", "fused"):
        if group.get(option):
            raise TorchNotImplementedError(f"gradcli does not support torch.optim.{name}({option}=True) yet")
