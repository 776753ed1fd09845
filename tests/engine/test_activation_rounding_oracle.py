"""torch.nn.functional's activations against live PyTorch, bit for bit, over many inputs.

Skipped unless torch is importable.  Fresh random inputs of several ranges in the
three layouts of activation_cases.py: float32 must match every bit in every layout,
float64 in the scalar path.  The float64 vector path (SLEEF's double routines, not
reproduced) is only held to the residual rates measured when it was written.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF  # noqa: E402

from gradcli.engine import api  # noqa: E402

from activation_cases import ACTIVATIONS, view  # noqa: E402

pytestmark = pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512",
                                reason="the float32 vector paths reproduce the AVX512 kernels")
F = api.SUBMODULES["nn.functional"]
# float64 vector path: NumPy's exp/log1p/tanh/erf against SLEEF's (fraction of elements that differ)
FLOAT64_VECTOR_RESIDUAL = {"gelu": 0.02, "gelu_tanh": 0.1, "silu": 0.05, "mish": 0.3, "softplus": 0.1,
                           "softplus_beta": 0.1, "logsigmoid": 0.1, "elu": 0.01, "selu": 0.01, "celu": 0.01}


class _Torch:
    from_numpy = staticmethod(api.TORCH["from_numpy"])


def _values(seed: int, n: int, dtype: str) -> np.ndarray:
    rs = np.random.RandomState(seed)
    x = np.concatenate([rs.randn(n // 4) * 3, rs.uniform(-30, 30, n // 4), rs.randn(n // 4) * 1e-3,
                        rs.uniform(-8, 8, n - 3 * (n // 4))])
    rs.shuffle(x)
    return x.astype(dtype)


def _mismatch(name: str, x: np.ndarray, kind: str) -> float:
    fn, kw = ACTIVATIONS[name]
    expected = getattr(TF, fn)(view(torch, x, kind), **kw).contiguous().numpy()
    got = np.ascontiguousarray(F[fn](view(_Torch, x, kind), **kw).numpy())
    same = (expected.view(np.uint8).reshape(expected.shape + (-1,)) ==
            got.view(np.uint8).reshape(got.shape + (-1,))).all(-1) | (np.isnan(expected) & np.isnan(got))
    return float(1 - same.mean())


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("kind", ["contiguous", "strided", "rows"])
def test_float32_bit_for_bit(name: str, kind: str) -> None:
    for seed, n in ((1, 100_003), (2, 1_000), (3, 47)):
        x = _values(seed, n, "float32")
        if kind == "rows":
            x = _values(seed, n * 56, "float32").reshape(-1, 56)[: max(1, n // 56)]
        assert _mismatch(name, x, kind) == 0, (name, kind, n)


@pytest.mark.parametrize("name", sorted(set(ACTIVATIONS) - {"logsigmoid"}))
def test_float64_scalar_path_bit_for_bit(name: str) -> None:
    assert _mismatch(name, _values(4, 20_000, "float64"), "strided") == 0


@pytest.mark.parametrize("name", sorted(FLOAT64_VECTOR_RESIDUAL))
def test_float64_vector_path_residual(name: str) -> None:
    assert _mismatch(name, _values(5, 50_000, "float64"), "contiguous") <= FLOAT64_VECTOR_RESIDUAL[name]


@pytest.mark.parametrize("kind", ["contiguous", "strided", "rows"])
def test_float32_log1p_near_float_max(kind: str) -> None:
    # softplus past a high threshold: log1p of exp(x) above 1e38 is SLEEF's finite value, not inf
    x = np.linspace(87, 88.72, 896).astype("float32")
    if kind == "rows":
        x = x.reshape(-1, 56)
    expected = TF.softplus(view(torch, x, kind), threshold=1000).contiguous().numpy()
    got = np.ascontiguousarray(F["softplus"](view(_Torch, x, kind), threshold=1000).numpy())
    assert np.isfinite(expected).all()
    assert (expected.view(np.uint32) == got.view(np.uint32)).all()
