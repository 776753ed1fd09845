"""The inputs and cases of the pow/atan2/hypot rounding tests (imports neither torch nor gradcli).

tests/tools/make_pow_bits.py evaluates them with PyTorch and records the bits in
tests/data/pow_bits.json; tests/engine/test_pow_rounding.py replays them on gradcli.  The
layouts pick the paths of PyTorch's kernels: "contiguous" (600 elements: 18 vector blocks of 32
floats and a 24-element scalar tail), "strided" (every other element of a longer tensor: all
scalar), "rows" (8 rows of 56 cut from 64 columns: a vector part and a tail in every row) and
"columns" (a column broadcast against a row of 3, as the tutorials' ``x.unsqueeze(-1).pow(p)``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

LAYOUTS = ("contiguous", "strided", "rows", "columns")
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e30,
            -1e30, 88.5, -150.0, 16777217.0]
EXPONENTS = (4, 5, 1.5, -1.5, 1 / 3, 2.5, 1e-3)


def inputs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Bases (negative ones too) and exponents, 600 of each."""
    rs = np.random.RandomState(77)
    x = np.concatenate([SPECIALS, rs.randn(300) * 3, rs.uniform(0, 4, 180), 1 + rs.uniform(-1e-3, 1e-3, 100)])
    y = np.concatenate([SPECIALS[::-1], rs.randn(300) * 3, np.round(rs.uniform(-20, 20, 180)),
                        rs.uniform(-3000, 3000, 100)])
    return x.astype(dtype), y.astype(dtype)


def _view(torch: Any, values: np.ndarray, kind: str) -> Any:
    if kind == "strided":
        return torch.from_numpy(np.repeat(values, 2))[::2]
    if kind == "rows":
        wide = np.zeros((8, 64), dtype=values.dtype)
        wide[:, :56] = values[:448].reshape(8, 56)
        return torch.from_numpy(wide)[:, :56]
    if kind == "columns":
        return torch.from_numpy(values[:200].copy()).unsqueeze(-1)
    return torch.from_numpy(values.copy())


def _second(torch: Any, values: np.ndarray, kind: str) -> Any:
    return torch.from_numpy(values[:3].copy()) if kind == "columns" else _view(torch, values, kind)


def cases() -> dict[str, Callable[[Any, np.ndarray, np.ndarray, str], Any]]:
    """name -> f(torch, x, y, layout) giving the tensor to compare."""
    out: dict[str, Callable] = {
        "pow": lambda t, x, y, k: _view(t, x, k).pow(_second(t, y, k)),
        "atan2": lambda t, x, y, k: t.atan2(_view(t, x, k), _second(t, y, k)),
        "hypot": lambda t, x, y, k: t.hypot(_view(t, x, k), _second(t, y, k)),
        "rpow": lambda t, x, y, k: 2.5 ** _view(t, y, k),
    }
    for e in EXPONENTS:
        out[f"pow_scalar_{e!r}"] = lambda t, x, y, k, e=e: _view(t, x, k) ** e
    return out


def bits(a: np.ndarray) -> list[str]:
    width, kind = (8, np.uint32) if a.dtype == np.float32 else (16, np.uint64)
    return [format(int(v), f"0{width}x") for v in np.ascontiguousarray(a).view(kind).reshape(-1)]
