"""Exceptions the engine raises on purpose, with PyTorch's wording.

Each class subclasses the builtin PyTorch raises (so ``except RuntimeError``
works) and the ``TorchError`` marker (so a front end can tell a deliberate
error from a bug in gradcli).  Their ``__name__`` is the builtin's name,
because that is what an error report prints: ``RuntimeError: ...``.
"""

from __future__ import annotations

from typing import Any


class TorchError(Exception):
    """Marker: an error PyTorch itself would raise, worded as PyTorch words it."""


def _visible(base: type[BaseException]) -> type:
    cls = type(base.__name__, (base, TorchError), {"__module__": __name__})
    cls.__qualname__ = "Torch" + base.__name__
    return cls


TorchRuntimeError = _visible(RuntimeError)
TorchTypeError = _visible(TypeError)
TorchValueError = _visible(ValueError)
TorchIndexError = _visible(IndexError)
TorchNotImplementedError = _visible(NotImplementedError)
TorchZeroDivisionError = _visible(ZeroDivisionError)
TorchOverflowError = _visible(OverflowError)
TorchAttributeError = _visible(AttributeError)
TorchKeyError = _visible(KeyError)
TorchStopIteration = _visible(StopIteration)
TorchAssertionError = _visible(AssertionError)
TorchMemoryError = _visible(MemoryError)   # (gradcli's --max-memory, for Python objects)

# torch.linalg.LinAlgError is torch._C._LinAlgError, a RuntimeError; Python prints it with
# its module ("torch._C._LinAlgError: linalg.inv: ..."), and an error report prints __name__.
TorchLinAlgError = type("torch._C._LinAlgError", (RuntimeError, TorchError), {"__module__": __name__})
TorchLinAlgError.__qualname__ = "TorchLinAlgError"


def no_kernel(kernel: str, dtype: Any) -> Exception:
    """PyTorch's error for a dtype its CPU kernel was not built for: ``"abs_cpu" not implemented for 'Bool'``."""
    return TorchNotImplementedError(f"\"{kernel}\" not implemented for '{dtype.legacy_name}'")
