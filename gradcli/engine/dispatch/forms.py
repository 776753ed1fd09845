"""The callables an op record is published as: ``torch.f``, ``Tensor.f``, ``Tensor.f_``, operators.

Each form parses its arguments with the record's PyTorch signatures (so errors
are PyTorch's), then runs the op.  Operators skip the parsing: ``x + y`` binds
its two operands directly, and returns NotImplemented for foreign types as a
Python operator should.  Every form carries a ``__signature__`` made from the
PyTorch signatures, for ``inspect.signature`` (the REPL's completion).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_scalar
from .op import BINARY, INPLACE, METHOD, REFLECTED, Op
from .python_signature import LazySignature
from .runner import rename_input, run, run_inplace, run_inplace_view, run_wrapped
from .unbound import NO_SELF, wrong_self


def function_form(op: Op) -> Callable:
    """``torch.<name>`` (made once per record, so every namespace holds the same function)."""
    if "function" in op.forms:
        return op.forms["function"]
    prepare = op.prepare

    def function(*args: Any, **kwargs: Any) -> Any:
        _, bound = op.parser("function").parse(args, kwargs)
        rename_input(bound)
        if prepare is not None:
            prepare(bound)
        return run(op, bound)
    function.__name__ = function.__qualname__ = op.name
    function.__signature__ = LazySignature(lambda: op.parser("function"))  # type: ignore[attr-defined]
    op.forms["function"] = function
    return function


def method_form(op: Op) -> Callable:
    prepare = op.prepare

    def method(self: Tensor = NO_SELF, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(self, Tensor):  # (called through the class: torch.Tensor.add(1, 2))
            raise wrong_self(op.name, self)
        _, bound = op.parser("method").parse((self,) + args, kwargs)
        rename_input(bound)
        if prepare is not None:
            prepare(bound)
        return run(op, bound)
    method.__name__ = method.__qualname__ = op.name
    method.__checks_self__ = True  # type: ignore[attr-defined]
    method.__signature__ = LazySignature(lambda: op.parser("method"), method=True)  # type: ignore[attr-defined]
    return method


def inplace_form(op: Op) -> Callable:
    runner = run_inplace_view if op.view else run_inplace
    prepare = op.prepare_inplace

    def inplace(self: Tensor = NO_SELF, *args: Any, **kwargs: Any) -> Tensor:
        if not isinstance(self, Tensor):
            raise wrong_self(op.name + "_", self)
        _, bound = op.parser("inplace").parse((self,) + args, kwargs)
        rename_input(bound)
        if prepare is not None:
            prepare(bound)
        return runner(op, bound)
    inplace.__name__ = inplace.__qualname__ = op.name + "_"
    inplace.__checks_self__ = True  # type: ignore[attr-defined]
    inplace.__signature__ = LazySignature(lambda: op.parser("inplace"), method=True)  # type: ignore[attr-defined]
    return inplace


def operator_form(op: Op, kind: str, method: Callable, name: str = "") -> Callable:
    """The callable behind the operator ``name`` of ``op.operators`` (``method`` is the op's method
    form)."""
    if kind == METHOD:
        return method
    cache: list[dict] = []  # the op's keyword defaults (alpha=1), read on first use

    def defaults() -> dict:
        if not cache:
            cache.append(_defaults(op))
        return cache[0]

    if kind == INPLACE:
        def inplace_operator(self: Tensor, other: Any) -> Any:
            other = operand(other)  # (an ndarray: NotImplemented, so Python falls back to t = t + n)
            if other is None:
                return NotImplemented
            return run_inplace(op, {"self": self, "other": other, **defaults()})
        return inplace_operator
    if kind == REFLECTED:
        def reflected_operator(self: Tensor, other: Any) -> Any:
            other = operand(other)
            if other is None:
                return NotImplemented
            return run_wrapped(op, {"self": other if isinstance(other, Tensor) else wrap_scalar(other),
                                    "other": self, **defaults()})
        return reflected_operator
    assert kind == BINARY, kind
    arrays = op.array_operands and not name.startswith("__r")  # (n + t is NumPy's to refuse)

    def binary_operator(self: Tensor, other: Any) -> Any:
        kind = type(other)
        if kind is float or kind is int:
            other = wrap_scalar(other)
        elif not isinstance(other, Tensor):
            other = operand(other, arrays)
            if other is None:
                return NotImplemented
            if not isinstance(other, Tensor):
                other = wrap_scalar(other)
        return run_wrapped(op, {"self": self, "other": other, **(cache[0] if cache else defaults())})
    return binary_operator


def operand(other: Any, arrays: bool = False) -> Any:
    """``other`` as an operator takes it: a tensor or a Python number (a NumPy scalar is a number, as
    PyTorch takes it), with ``arrays`` an ndarray as a tensor; None for anything else."""
    if isinstance(other, (Tensor, int, float)):
        return other
    if isinstance(other, np.generic) and other.dtype.kind in "biuf":
        return other.item()
    if arrays and isinstance(other, np.ndarray):
        return Tensor._make(other, dtypes.of_numpy(other.dtype))
    return None


def _defaults(op: Op) -> dict:
    """The keyword defaults of an op's first signature (``alpha=1``)."""
    sig = op.parser("function").signatures[0]
    return {p.name: p.default for p in sig.params if p.name not in ("input", "self", "other", "out")}
