"""kernels.select against np.where, bit for bit and stride for stride."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine.kernels import select

SPECIALS = (0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-40, -3e-39, 5e-324, -1.0)


def layouts(rng: np.random.Generator, shape: tuple, dtype: str) -> list[np.ndarray]:
    values = np.asarray(rng.standard_normal(shape) * 10)
    flat = values.reshape(-1)
    flat[:len(SPECIALS)] = SPECIALS[:flat.size]
    with np.errstate(all="ignore"):
        values = values.astype(dtype)
    out = [values, values.T, values[::2]] if values.ndim else [values]
    if values.ndim == 2:
        out.append(np.broadcast_to(values[:1], values.shape))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int8", "float16"])
def test_relu_and_zero_where_match_np_where(dtype: str) -> None:
    rng = np.random.default_rng(4)
    for shape in ((), (1,), (7,), (256, 64), (5, 3), (4, 3, 2)):
        for x in layouts(rng, shape, dtype):
            want = np.where(x < 0, x.dtype.type(0), x)
            got = select.relu(x)
            assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
            assert got.tobytes() == want.tobytes(), (dtype, shape, x.strides)
            for g in [g for g in layouts(rng, x.shape, dtype) if g.shape == x.shape]:
                drop = x <= 0
                want = np.where(drop, g.dtype.type(0), g)
                got = select.zero_where(drop, g)
                assert got.strides == want.strides, (dtype, shape, x.strides, g.strides)
                assert got.tobytes() == want.tobytes(), (dtype, shape, x.strides, g.strides)


def test_a_broadcast_mask() -> None:
    g = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    drop = np.array([True, False, True, False])
    want = np.where(drop, np.float32(0), g)
    got = select.zero_where(drop, g)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()
