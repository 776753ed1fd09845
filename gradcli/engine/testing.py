"""``torch.testing.assert_close``: tensors (or numbers, or sequences and dicts of them) equal
within PyTorch's default tolerances, else PyTorch's AssertionError with its mismatch report.

Loaded on first use (``api.LAZY_SUBMODULES``).  The default (rtol, atol) per dtype are
PyTorch's; a mismatch is ``|actual - expected| > atol + rtol * |expected|`` (NaN never close
unless ``equal_nan``); the differences are computed in the inputs' dtype, as PyTorch's are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from .errors import TorchAssertionError, TorchTypeError, TorchValueError
from .tensor import Tensor

# dtype name -> (rtol, atol), PyTorch's defaults (integers and bool: exact)
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7)}


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: Any = None, atol: Any = None,
                 equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False, msg: Any = None) -> None:
    if (rtol is None) != (atol is None):
        raise TorchValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                              f"{'atol' if atol is None else 'rtol'}.")
    _compare(actual, expected, rtol, atol, equal_nan, check_dtype, msg, ())


def _compare(actual: Any, expected: Any, rtol: Any, atol: Any, equal_nan: bool, check_dtype: bool, msg: Any,
             path: tuple) -> None:
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path, msg)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, msg, path + (i,))
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if list(actual) != list(expected):
            _fail(f"The keys of the mappings do not match: {sorted(actual)} != {sorted(expected)}", path, msg)
        for key in actual:
            _compare(actual[key], expected[key], rtol, atol, equal_nan, check_dtype, msg, path + (key,))
        return
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path)
        return
    numbers = (bool, int, float)
    if isinstance(actual, numbers) and isinstance(expected, numbers) and type(actual) is type(expected):
        _compare_numbers(actual, expected, rtol, atol, equal_nan, msg, path)
        return
    raise TorchTypeError(f"No comparison pair was able to handle inputs of type {_type_name(actual)} and "
                         f"{_type_name(expected)}.")


def _type_name(value: Any) -> str:
    return "<class 'torch.Tensor'>" if isinstance(value, Tensor) else f"<class '{type(value).__name__}'>"


def _fail(text: str, path: tuple, msg: Any) -> None:
    if isinstance(msg, str):
        raise TorchAssertionError(msg)
    if path:
        text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
    raise TorchAssertionError(text)


def _compare_tensors(actual: Tensor, expected: Tensor, rtol: Any, atol: Any, equal_nan: bool, check_dtype: bool,
                     msg: Any, path: tuple) -> None:
    if tuple(actual.shape) != tuple(expected.shape):
        _fail(f"The values for attribute 'shape' do not match: torch.Size({list(actual.shape)}) != "
              f"torch.Size({list(expected.shape)}).", path, msg)
    if check_dtype and actual._dtype is not expected._dtype:
        _fail(f"The values for attribute 'dtype' do not match: torch.{actual._dtype.name} != "
              f"torch.{expected._dtype.name}.", path, msg)
    common = dtypes.promote_types(actual._dtype, expected._dtype) if not check_dtype else actual._dtype
    if rtol is None:
        rtol, atol = _TOLERANCES.get(common.name, (0.0, 0.0))
    a = actual.detach()._data.astype(common.np, copy=False)
    e = expected.detach()._data.astype(common.np, copy=False)
    close = _close(a, e, rtol, atol, equal_nan)
    if close.all():
        return
    exact = not common.is_floating_point and rtol == 0 and atol == 0
    total, bad = close.size, int((~close).sum())
    report = [f"{'Tensor-likes are not equal!' if exact else 'Tensor-likes are not close!'}", "",
              f"Mismatched elements: {bad} / {total} ({bad / total * 100:.1f}%)"]
    with np.errstate(all="ignore"):
        if common.is_floating_point:
            abs_diff = np.abs(a - e)
            rel_diff = abs_diff / np.abs(e)
        else:
            abs_diff = np.abs(a.astype(np.int64) - e.astype(np.int64))
            rel_diff = abs_diff.astype(np.float32) / np.abs(e).astype(np.float32)
    for name, diff, allowed in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        diff = np.where(close, 0, diff)   # (only the mismatches count, as in PyTorch's report)
        index = _greatest(diff)
        value = diff[index] if diff.ndim else diff[()]
        shown = int(value) if diff.dtype.kind in "iu" else float(value)
        line = f"Greatest {name} difference: {shown} at index {tuple(int(i) for i in index)}"
        report.append(line if exact else line + f" (up to {allowed} allowed)")
    _fail("\n".join(report), path, msg)


def _close(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    if a.dtype.kind not in "fc":
        return np.abs(a.astype(np.float64) - e.astype(np.float64)) <= atol + rtol * np.abs(e.astype(np.float64))
    with np.errstate(all="ignore"):
        close = np.abs(a - e) <= atol + rtol * np.abs(e)
        close |= a == e   # (infinities of one sign)
    if equal_nan:
        close |= np.isnan(a) & np.isnan(e)
    return close


def _greatest(diff: np.ndarray) -> tuple:
    """The index of the greatest difference (the first NaN, as torch's max finds it)."""
    flat = diff.reshape(-1)
    nans = np.flatnonzero(np.isnan(flat)) if flat.dtype.kind == "f" else np.array([], dtype=np.int64)
    position = int(nans[0]) if nans.size else int(np.argmax(flat))
    return np.unravel_index(position, diff.shape) if diff.ndim else ()


def _compare_numbers(actual: Any, expected: Any, rtol: Any, atol: Any, equal_nan: bool, msg: Any,
                     path: tuple) -> None:
    if rtol is None:
        rtol, atol = _TOLERANCES["float64"] if isinstance(actual, float) else (0.0, 0.0)
    a, e = float(actual), float(expected)
    if a == e or abs(a - e) <= atol + rtol * abs(e) or (equal_nan and a != a and e != e):
        return
    exact = rtol == 0 and atol == 0
    diff = abs(a - e)
    rel = diff / abs(e) if e else float("inf")
    if exact:
        _fail(f"Scalars are not equal!\n\nExpected {expected} but got {actual}.\nAbsolute difference: "
              f"{type(actual)(diff) if isinstance(actual, int) else diff}\nRelative difference: {rel}", path, msg)
    _fail(f"Scalars are not close!\n\nExpected {expected} but got {actual}.\nAbsolute difference: {diff} "
          f"(up to {atol} allowed)\nRelative difference: {rel} (up to {rtol} allowed)", path, msg)


def members() -> dict[str, Any]:
    """``torch.testing``'s members a script may use."""
    return {"assert_close": assert_close}
