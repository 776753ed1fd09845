"""gradcli's sqrt (kernels/vml_sqrt.py: MKL VML's, as PyTorch 2.13 runs it on the reference CPU)
against values recorded from PyTorch (tests/data/vml_sqrt_bits.json, tests/tools/make_vml_sqrt_bits.py);
no torch needed.  The recorded digests cover every float32 mantissa with both exponent parities and a
million doubles.  The last tests check that kernels which are almost MKL's are told apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import vml_sqrt_cases as cases
from gradcli.engine import api
from gradcli.engine.kernels import vml_sqrt

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "vml_sqrt_bits.json").read_text())
T = api.TORCH
DTYPES = {"float32": (np.float32, np.uint32), "float64": (np.float64, np.uint64)}


def _stored(name: str) -> tuple[np.ndarray, np.ndarray]:
    ftype, utype = DTYPES[name]
    inputs, outputs = (np.array([int(h, 16) for h in DATA[name][key]], utype).view(ftype)
                       for key in ("inputs", "outputs"))
    return inputs, outputs


def _mismatches(kernel: Callable[[np.ndarray], np.ndarray], name: str) -> int:
    """How many stored cases ``kernel`` gets wrong (bit patterns, a NaN's sign included)."""
    inputs, outputs = _stored(name)
    got = np.asarray(kernel(inputs.copy()))
    assert got.dtype == outputs.dtype and got.shape == outputs.shape
    bits = DTYPES[name][1]
    return int((got.view(bits) != outputs.view(bits)).sum())


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ints = np.int32 if a.dtype == np.float32 else np.int64
    return np.abs(a.view(ints).astype(np.int64) - b.view(ints).astype(np.int64))


@pytest.mark.parametrize("name", DTYPES)
def test_stored_cases(name):
    assert _mismatches(vml_sqrt.sqrt, name) == 0


@pytest.mark.parametrize("name", DTYPES)
def test_stored_cases_through_the_ops(name):
    ops = {
        "torch.sqrt": lambda a: T["sqrt"](T["from_numpy"](a)).numpy(),
        "Tensor.sqrt_": lambda a: T["from_numpy"](a).sqrt_().numpy(),
        "x ** 0.5": lambda a: (T["from_numpy"](a) ** 0.5).numpy(),
        "pow(x, 0.5) strided": lambda a: T["pow"](T["from_numpy"](np.repeat(a, 2))[::2], 0.5).numpy(),
    }
    assert {op: _mismatches(f, name) for op, f in ops.items()} == dict.fromkeys(ops, 0)


def test_every_float32_mantissa():
    x = cases.every_float32_mantissa()
    r = vml_sqrt.sqrt(x)
    assert cases.digest(r) == DATA["float32_every_mantissa"]["sha256"]
    off = r != np.sqrt(x)
    assert off.sum() == DATA["float32_every_mantissa"]["not_correctly_rounded"]  # 17.1%
    assert _ulps(r[off], np.sqrt(x[off])).max() == 1


def test_float64_sample():
    x = cases.float64_sample()
    r = vml_sqrt.sqrt(x)
    assert cases.digest(r) == DATA["float64_sample"]["sha256"]
    with np.errstate(invalid="ignore"):
        off = (r != np.sqrt(x)) & ~np.isnan(r)
    assert off.sum() == DATA["float64_sample"]["not_correctly_rounded"]  # 1.4%
    assert _ulps(r[off], np.sqrt(x[off])).max() == 1


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
def test_scale_invariant_by_four(ftype):
    x = np.random.default_rng(1).uniform(0.5, 2, 50000).astype(ftype)
    for k in (-60, -7, 1, 9, 60):
        assert np.array_equal(vml_sqrt.sqrt(x * ftype(4.0 ** k)), vml_sqrt.sqrt(x) * ftype(2.0 ** k))


def test_rare_inputs_are_correctly_rounded():
    # subnormals, and the largest floats (whose Newton step could overflow): MKL's scalar routine
    subnormal = np.arange(1, 1 << 23, 97, dtype=np.uint32).view(np.float32)
    top = np.arange(0x7F7FF001, 0x7F800000, dtype=np.uint32).view(np.float32)
    x64 = np.concatenate([np.arange(1, 1 << 52, 3 ** 30, dtype=np.uint64).view(np.float64),
                          np.linspace(2.0 ** 1022, np.finfo(np.float64).max, 10000)])
    for x in (subnormal, top, x64):
        assert np.array_equal(vml_sqrt.sqrt(x), np.sqrt(x))


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
def test_special_values(ftype):
    x = np.array([0.0, -0.0, np.inf, -np.inf, -1.0, -np.finfo(ftype).tiny / 2, np.nan], ftype)
    r = vml_sqrt.sqrt(x)
    assert r[:3].tolist() == [0.0, 0.0, np.inf] and np.signbit(r[:3]).tolist() == [False, True, False]
    assert np.isnan(r[3:]).all() and not np.signbit(r[3:6]).any()  # negatives: MKL's positive NaN


def test_empty_and_shapes():
    assert vml_sqrt.sqrt(np.zeros((0, 3), np.float32)).shape == (0, 3)
    x = np.random.default_rng(2).uniform(0, 9, (3, 40, 7))
    assert np.array_equal(vml_sqrt.sqrt(x.transpose(2, 0, 1)), vml_sqrt.sqrt(x).transpose(2, 0, 1))
    assert np.array_equal(vml_sqrt.sqrt(np.float32(2.25).reshape(())), np.float32(1.5))


def test_rsqrtps_table_is_an_estimate_with_twelve_fraction_bits():
    # the shipped table (measured: tests/tools/check_rsqrtps.py): one float per 2**11 floats of
    # [0.5, 2), within the SSE bound of 1.5 * 2**-12 over each whole interval, never increasing
    table = vml_sqrt.rsqrtps_table()
    assert table.shape == (vml_sqrt.TABLE_SIZE,) and not (table & 0x7FF).any()
    y = table.view(np.float32).astype(np.float64)
    first = np.uint32(0x3F000000) + (np.arange(vml_sqrt.TABLE_SIZE, dtype=np.uint32) << np.uint32(11))
    for ends in (first, first + np.uint32((1 << 11) - 1)):
        assert np.abs(y * np.sqrt(ends.view(np.float32).astype(np.float64)) - 1).max() <= 1.5 * 2.0 ** -12
    assert (np.diff(y) <= 0).all()


def test_a_damaged_table_is_refused(monkeypatch, tmp_path):
    (tmp_path / vml_sqrt.TABLE_FILE).write_bytes(b"\0" * 100)
    monkeypatch.setattr(vml_sqrt, "__file__", str(tmp_path / "vml_sqrt.py"))
    with pytest.raises(RuntimeError, match="25 entries, not 8192"):
        vml_sqrt.rsqrtps_table()


# -- kernels that are almost MKL's must be told apart ---------------------------------------------------

def test_correctly_rounded_sqrt_is_noticed():
    assert _mismatches(np.sqrt, "float32") >= 48 and _mismatches(np.sqrt, "float64") >= 48
    assert cases.digest(np.sqrt(cases.every_float32_mantissa())) != DATA["float32_every_mantissa"]["sha256"]


def test_the_standalone_mkl_compatible_kernel_is_noticed():
    assert _mismatches(cases.compatible_library_sqrt32, "float32") >= 48


def test_estimates_one_unit_off_are_noticed(monkeypatch):
    # rsqrtps with the last bit of every other estimate flipped
    bits = vml_sqrt._RSQRT ^ np.where(np.arange(vml_sqrt.TABLE_SIZE) % 2 == 0, np.uint32(1 << 11), np.uint32(0)).astype(np.uint32)
    monkeypatch.setattr(vml_sqrt, "_RSQRT32", bits + np.uint32(63 << 23))
    monkeypatch.setattr(vml_sqrt, "_RSQRT64", bits.view(np.float32).astype(np.float64).view(np.int64))
    assert _mismatches(vml_sqrt.sqrt, "float32") > 0 and _mismatches(vml_sqrt.sqrt, "float64") > 0


def test_a_fused_last_step_is_noticed(monkeypatch):
    # g + (x - g*g) * h evaluated in double and rounded once (as an FMA-based kernel might)
    def fused(x: np.ndarray, out: np.ndarray) -> None:
        y = (vml_sqrt._RSQRT32[((x.view(np.uint32) >> np.uint32(11)) & np.uint32(0x1FFF)).astype(np.intp)]
             - ((x.view(np.uint32) >> np.uint32(24)) << np.uint32(23))).view(np.float32)
        g, h = x * y, y * np.float32(0.5)
        e = np.float32(0.5) - g * h
        g, h = (g + g * e).astype(np.float64), (h + h * e).astype(np.float64)
        out[:] = g + (x - g * g) * h
    monkeypatch.setattr(vml_sqrt, "_sqrt32_fast", fused)
    assert _mismatches(vml_sqrt.sqrt, "float32") > 0
