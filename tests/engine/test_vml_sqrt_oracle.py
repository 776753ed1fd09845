"""gradcli's sqrt against live PyTorch where it runs MKL's reference sqrt, bit for bit.

Skipped without torch, and on a CPU whose ``rsqrtps`` is not the reference CPU's (an Intel CPU:
kernels/vml_sqrt.py).  PyTorch runs in this process when it is on the reference path (tests/conftest.py
sets MKL_CBWR=COMPATIBLE before torch is imported), else in a subprocess with the variable set
(mkl_reference.py).  Every float32 mantissa with both exponent parities, every float32 subnormal, the
floats next to the fast path's upper limit and a million random bit patterns; a few million doubles
over all exponents; and the ops that run MKL's sqrt (``sqrt``, ``sqrt_``, ``out=``, ``x ** 0.5``,
``pow``, strided inputs, integer inputs, the gradient) or a correctly rounded one (``rsqrt``,
``x ** -0.5``).  Results compare as bit patterns, a NaN's sign included.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import mkl_reference  # noqa: E402
import vml_sqrt_cases as cases  # noqa: E402
from gradcli.engine import api  # noqa: E402
from gradcli.engine.kernels import vml_sqrt  # noqa: E402

if not mkl_reference.is_reference(torch):
    # (the square roots start from this CPU's rsqrtps, and Intel's is not the reference AMD CPU's;
    # tests/engine/test_vml_sqrt.py checks gradcli against the recorded bits without torch)
    pytest.skip("torch here does not give MKL's reference sqrt (this CPU's rsqrtps is another: see vml_sqrt.py)",
                allow_module_level=True)

GRADCLI = SimpleNamespace(**api.TORCH, autograd=SimpleNamespace(**api.SUBMODULES["autograd"]))
U32, U64 = np.uint32, np.uint64


def _float32_inputs() -> np.ndarray:
    rng = np.random.default_rng(32)
    return np.concatenate([
        cases.every_float32_mantissa(),
        np.arange(1, 1 << 23, dtype=U32).view(np.float32),  # subnormals
        np.arange(0x7F7F0000, 0x7F800000, dtype=U32).view(np.float32),  # either side of 0x7f7ff000
        rng.integers(0, 1 << 32, 1 << 20, dtype=U64).astype(U32).view(np.float32),
        cases.SPECIALS32])


def _float64_inputs() -> np.ndarray:
    rng = np.random.default_rng(64)
    mantissas = rng.integers(0, 1 << 52, 1 << 18, dtype=U64)
    edges = [(e << U64(52)) | mantissas for e in map(U64, (1, 2, 3, 0, 0x7FB, 0x7FC, 0x7FD, 0x7FE))]
    return np.concatenate([
        cases.float64_sample(),
        rng.uniform(0.5, 2, 1 << 20),
        *(e.view(np.float64) for e in edges),  # the smallest and largest binades, subnormals
        rng.integers(0, 1 << 64, 1 << 20, dtype=U64).view(np.float64),
        cases.SPECIALS64])


def _op_input(dtype: str) -> np.ndarray:
    x = np.random.default_rng(7).uniform(0, 4, 3000).astype(dtype)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1e-40 if dtype == "float32" else 1e-310, 2.25]
    return x


# name -> expression over `torch` (PyTorch or gradcli) and the input `x`
OPS = {
    "torch.sqrt": "torch.sqrt(x)",
    "Tensor.sqrt": "x.sqrt()",
    "Tensor.sqrt_": "x.clone().sqrt_()",
    "sqrt out=": "torch.sqrt(x, out=torch.empty_like(x))",
    "x ** 0.5": "x ** 0.5",
    "torch.pow(x, 0.5)": "torch.pow(x, 0.5)",
    "Tensor.pow_(0.5)": "x.clone().pow_(0.5)",
    "strided": "x[::3].sqrt()",
    "transposed": "x.reshape(100, 30).t().sqrt()",
    "integers": "torch.sqrt(torch.arange(3000))",
    "gradient": "(lambda t: torch.autograd.grad(t.sqrt().sum(), [t])[0])(x[8:].clone().requires_grad_())",
    "rsqrt": "torch.rsqrt(x)",
    "x ** -0.5": "x ** -0.5",
}


@pytest.fixture(scope="module")
def reference() -> dict:
    arrays = {"f32": _float32_inputs(), "f64": _float64_inputs(),
              "x32": _op_input("float32"), "x64": _op_input("float64")}
    exprs = {"f32": "torch.sqrt(f32)", "f64": "torch.sqrt(f64)"}
    for name, text in OPS.items():
        for suffix in ("32", "64"):
            exprs[name + suffix] = re.sub(r"\bx\b", "x" + suffix, text)
    return {"inputs": arrays, "torch": mkl_reference.evaluate(torch, exprs, arrays)}


def _mismatches(a: np.ndarray, b: np.ndarray) -> int:
    assert a.dtype == b.dtype and a.shape == b.shape
    bits = U32 if a.dtype == np.float32 else U64
    return int((np.ascontiguousarray(a).view(bits) != np.ascontiguousarray(b).view(bits)).sum())


def test_float32_every_mantissa_subnormals_and_random_bits(reference):
    x, want = reference["inputs"]["f32"], reference["torch"]["f32"]
    assert _mismatches(vml_sqrt.sqrt(x), want) == 0
    # and kernels that are almost right are not: a correctly rounded one, the standalone MKL's COMPATIBLE one
    every = cases.every_float32_mantissa().size
    assert _mismatches(np.sqrt(x[:every]), want[:every]) == 2876932  # 17.1%
    assert _mismatches(cases.compatible_library_sqrt32(x[:every]), want[:every]) == 1391821


def test_float64_bulk(reference):
    x, want = reference["inputs"]["f64"], reference["torch"]["f64"]
    assert _mismatches(vml_sqrt.sqrt(x), want) == 0
    with np.errstate(invalid="ignore"):
        assert _mismatches(np.where(np.isnan(want), want, np.sqrt(x)), want) > 20000  # correctly rounded


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("bits", ["32", "64"])
def test_ops(reference, name, bits):
    x = GRADCLI.from_numpy(reference["inputs"]["x" + bits].copy())
    got = eval(OPS[name], {"torch": GRADCLI, "x": x}).detach().numpy()
    assert _mismatches(np.asarray(got), reference["torch"][name + bits]) == 0


def test_the_subprocess_path():
    x = np.concatenate([cases.SPECIALS32, np.random.default_rng(3).uniform(0, 9, 1000).astype(np.float32)])
    got = mkl_reference.evaluate(torch, {"r": "torch.sqrt(x)"}, {"x": x}, subprocess_only=True)["r"]
    assert _mismatches(vml_sqrt.sqrt(x), got) == 0
