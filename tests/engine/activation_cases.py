"""The inputs and layouts of the activation rounding tests (imports neither torch nor gradcli).

tests/tools/make_activation_bits.py evaluates them with PyTorch and records the bits in
tests/data/activation_bits.json; tests/engine/test_activation_rounding.py replays them on
gradcli.  A layout picks the paths of PyTorch's kernels: "contiguous" (600 elements: 18
vector blocks of 32 floats and a 24-element scalar tail), "strided" (every other element
of a longer tensor: all scalar) and "rows" (8 rows of 56 cut from 64 columns: a vector
part and a tail in every row).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# name -> (torch.nn.functional function, keyword arguments)
ACTIVATIONS: dict[str, tuple[str, dict]] = {
    "elu": ("elu", {"alpha": 1.3}), "selu": ("selu", {}), "celu": ("celu", {"alpha": 0.7}),
    "gelu": ("gelu", {}), "gelu_tanh": ("gelu", {"approximate": "tanh"}), "silu": ("silu", {}),
    "mish": ("mish", {}), "softplus": ("softplus", {}), "softplus_beta": ("softplus", {"beta": 1.7, "threshold": 15}),
    "logsigmoid": ("logsigmoid", {}), "softshrink": ("softshrink", {"lambd": 0.4}),
    "hardswish": ("hardswish", {}), "hardsigmoid": ("hardsigmoid", {}), "leaky_relu": ("leaky_relu", {}),
}
LAYOUTS = ("contiguous", "strided", "rows")


def inputs(dtype: str) -> np.ndarray:
    rs = np.random.RandomState(2024)
    x = np.concatenate([[0.0, -0.0, 1e-30, -1e-30, 20.0, -20.0, 88.0, -88.0, 0.4, -0.4],
                        rs.randn(300) * 3, rs.uniform(-25, 25, 100), rs.randn(90) * 1e-3, rs.uniform(-6, 6, 100)])
    return x.astype(dtype)


def layout(x: np.ndarray, kind: str) -> np.ndarray:
    """The values the kernel sees in ``kind``'s layout, in row-major order."""
    if kind == "rows":
        return x[:448].reshape(8, 56)
    return x


def view(torch: Any, values: np.ndarray, kind: str) -> Any:
    """A tensor of ``values`` in ``kind``'s layout, made with ``torch`` (PyTorch or gradcli's)."""
    if kind == "strided":
        return torch.from_numpy(np.repeat(values, 2))[::2]
    if kind == "rows":
        wide = np.zeros((values.shape[0], 64), dtype=values.dtype)
        wide[:, :56] = values
        return torch.from_numpy(wide)[:, :56]
    return torch.from_numpy(values.copy())


def bits(a: np.ndarray) -> list[str]:
    width, kind = (8, np.uint32) if a.dtype == np.float32 else (16, np.uint64)
    return [format(int(v), f"0{width}x") for v in np.ascontiguousarray(a).view(kind).reshape(-1)]
