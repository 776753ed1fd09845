"""A script's variables as plain data (JSON-ready): tensors with their values, gradient and
``grad_fn``; other values by type and a bounded repr; modules, functions and classes by type.

Used by ``gradcli run --json`` and by the report page.  JSON has no NaN or infinity, so
non-finite floats are the strings ``"nan"``, ``"inf"`` and ``"-inf"``.
"""

from __future__ import annotations

import math
import types
from typing import Any

import numpy as np

from gradcli.engine.tensor import Tensor

MAX_VALUES = 100        # tensor elements given, in row-major order
MAX_REPR = 200          # characters of a non-tensor value's repr
# the script-visible type names of functions (the language's own function class calls itself
# "function", its modules "module")
FUNCTION_TYPES = frozenset({"function", "builtin_function_or_method", "method", "method-wrapper",
                            "wrapper_descriptor", "method_descriptor"})


def type_name(value: Any) -> str:
    """The type as Python's ``type(value)`` names it: ``int``, ``torch.Tensor``, ``__main__.Net``."""
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def number(value: Any) -> Any:
    """A Python float/int/bool for JSON; a non-finite float as ``"nan"``, ``"inf"``, ``"-inf"``."""
    if isinstance(value, (bool, int)):
        return value
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def tensor_values(data: np.ndarray, limit: int = MAX_VALUES) -> list:
    """The first ``limit`` elements of ``data`` in row-major order.  A float is the shortest
    decimal that reads back as the same value of its own precision (float32 0.1 is 0.1, not
    0.10000000149011612)."""
    first = np.asarray(data).flat[:limit]
    kind = first.dtype.kind
    if kind == "b":
        return [bool(v) for v in first]
    if kind in "iu":
        return [int(v) for v in first]
    if kind == "f":
        if first.dtype == np.float64:
            return [number(float(v)) for v in first]
        return [number(float(str(v))) for v in first]  # str: NumPy's shortest repr in that precision
    return [str(v) for v in first]


def describe_tensor(tensor: Tensor, limit: int = MAX_VALUES, with_grad: bool = True) -> dict:
    """Shape, dtype, values (at most ``limit``), autograd state; the ``.grad`` in the same form."""
    data = tensor._data
    numel = int(data.size)
    values = tensor_values(data, limit)
    described: dict[str, Any] = {
        "shape": [int(n) for n in data.shape],
        "dtype": repr(tensor._dtype),
        "numel": numel,
        "values": values,
        "truncated": numel > len(values),
        "requires_grad": bool(tensor.requires_grad),
        "is_leaf": bool(tensor._grad_fn is None),
        "grad_fn": None if tensor._grad_fn is None else type(tensor._grad_fn).__name__,
    }
    if with_grad:
        grad = tensor._grad
        described["grad"] = describe_tensor(grad, limit, with_grad=False) if isinstance(grad, Tensor) else None
    return described


def bounded_repr(value: Any, limit: int = MAX_REPR) -> tuple[str, bool]:
    """``repr(value)`` cut to ``limit`` characters, and whether it was cut.  A repr that fails
    (a script's own ``__repr__``) is described instead of raised."""
    try:
        text = repr(value)
    except Exception as error:  # the script's code, run after the script: say so, never crash
        text = f"<repr failed: {type(error).__name__}>"
    if len(text) > limit:
        return text[:limit], True
    return text, False


def describe_value(name: str, value: Any) -> dict:
    """One variable: ``kind`` says which of the other fields it has."""
    if isinstance(value, Tensor):
        return {"name": name, "kind": "tensor", "type": type_name(value), **describe_tensor(value)}
    kind = type_name(value)
    if kind == "module" or isinstance(value, types.ModuleType):
        return {"name": name, "kind": "module", "type": "module"}
    if isinstance(value, type):
        return {"name": name, "kind": "class", "type": kind}
    if kind in FUNCTION_TYPES or isinstance(value, (types.FunctionType, types.BuiltinFunctionType,
                                                    types.MethodType)):
        return {"name": name, "kind": "function", "type": kind}
    text, cut = bounded_repr(value)
    described: dict[str, Any] = {"name": name, "kind": "value", "type": type_name(value), "repr": text,
                                 "truncated": cut}
    if value is None or isinstance(value, (bool, int, float)):
        described["value"] = number(value) if value is not None else None
    elif isinstance(value, str) and not cut:
        described["value"] = value
    return described


def describe_variables(namespace: dict[str, Any]) -> list[dict]:
    """The script's global names in the order it first bound them."""
    return [describe_value(name, value) for name, value in list(namespace.items())]
