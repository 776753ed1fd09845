"""multinomial, exponential_, cauchy_, geometric_, log_normal_, poisson and topk's tie order.

Replays tests/data/sampling_vectors.json (PyTorch 2.13's own outputs, written by
tests/tools/make_sampling_vectors.py) through ``gradcli.engine.random`` and
``kernels.stl_sort``; no torch needed.  Each sampler case is followed by
``rand(2)``, so a sampler that draws one number too many or too few fails too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gradcli.engine.random as R
from gradcli.engine.errors import TorchRuntimeError
from gradcli.engine.kernels.stl_sort import nth_element, partial_sort, sort, topk_indices

DATA = json.loads((Path(__file__).parents[1] / "data" / "sampling_vectors.json").read_text())


def _floats(values: list[str], dtype: str) -> np.ndarray:
    return np.array([float.fromhex(v) for v in values], dtype=np.float64).astype(dtype)


def _as_json(a: np.ndarray) -> list:
    return [v.hex() if isinstance(v, float) else v for v in a.reshape(-1).tolist()]


def _run(case: dict[str, Any], gen: R.Generator) -> np.ndarray:
    fn, dtype = case["fn"], case["dtype"]
    if fn == "multinomial":
        p = _floats(case["p"], dtype)
        p = p.reshape(case["shape"][::-1]).T if case["transpose"] else p.reshape(case["shape"])
        return R.multinomial(p, case["n"], case["replacement"], generator=gen)
    if fn == "poisson":
        return R.poisson(_floats(case["rates"], dtype), generator=gen)
    out = np.empty(case["size"], dtype=dtype)
    getattr(R, fn)(out, *case["args"], generator=gen)
    return out


@pytest.mark.parametrize("case", DATA["samplers"], ids=lambda c: f"{c['fn']}-{c['dtype']}-{c['seed']}")
def test_sampler_matches_pytorch(case: dict[str, Any]) -> None:
    gen = R.Generator(case["seed"])
    values, after = case["outputs"]
    assert _as_json(_run(case, gen)) == values
    assert _as_json(R.uniform((2,), generator=gen)) == after


@pytest.mark.parametrize("case", DATA["topk"], ids=lambda c: f"n{len(c['values'])}-k{c['k']}-{c['largest']}")
def test_topk_tie_order_matches_pytorch(case: dict[str, Any]) -> None:
    row = np.array(case["values"], dtype=np.float32)
    assert topk_indices(row, case["k"], case["largest"]).tolist() == case["indices"]


def test_stl_algorithms_sort_like_sorted() -> None:
    rs = np.random.RandomState(3)
    less = lambda x, y: x < y  # noqa: E731
    for n in (0, 1, 2, 3, 4, 15, 16, 17, 40, 300):
        values = rs.randint(0, 7, n).tolist()
        a = list(values)
        sort(a, 0, n, less)
        assert a == sorted(values)
        for k in range(n):
            b = list(values)
            nth_element(b, 0, k, n, less)
            assert b[k] == sorted(values)[k] and max(b[:k] or [-1]) <= b[k] <= min(b[k + 1:] or [99])
        c = list(values)
        partial_sort(c, 0, n // 2, n, less)
        assert c[:n // 2] == sorted(values)[:n // 2]


# -- multinomial's checks, where torch makes them ------------------------------------------

def test_multinomial_data_checks() -> None:
    gen = R.Generator(0)
    for p, n, replacement, message in [
            ([0.5, -0.1], 1, False, "probability tensor contains either `inf`, `nan` or element < 0"),
            ([0.5, float("nan")], 2, False, "probability tensor contains either `inf`"),
            ([0.0, 0.0], 1, False, r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
            ([0.5, -0.1], 2, True, r"\(encountering probability entry < 0\)"),
            ([0.5, float("nan")], 2, True, r"\(encountering probability entry < 0\)"),
            ([0.5, float("inf")], 2, True, r"\(encountering probability entry = infinity or NaN\)"),
            ([0.0, 0.0], 2, True, r"\(sum of probabilities <= 0\)")]:
        with pytest.raises(TorchRuntimeError, match=message):
            R.multinomial(np.array(p, np.float32), n, replacement, generator=gen)
    with pytest.raises(TorchRuntimeError, match="sum of probabilities"):
        R.multinomial(np.zeros((3, 0), np.float32), 2, True, generator=gen)
    assert R.multinomial(np.zeros((0, 3), np.float32), 2, False, generator=gen).shape == (0, 2)


def test_multinomial_with_replacement_checks_rows_after_earlier_rows_drew() -> None:
    gen, fresh = R.Generator(1), R.Generator(1)
    with pytest.raises(TorchRuntimeError):
        R.multinomial(np.array([[0.5, 0.5], [0.5, -1.0]], np.float32), 3, True, generator=gen)
    fresh.uniform_f64(3)  # the first row's three samples
    assert gen.get_state() == fresh.get_state()


def test_empty_like_keeps_torch_layout() -> None:
    expanded = np.broadcast_to(np.arange(3.0), (4, 3))
    assert R.empty_like(expanded).strides == (24, 8)  # row-major, not NumPy's column-major
    transposed = np.zeros((3, 4)).T
    assert R.empty_like(transposed).strides == transposed.strides


def test_poisson_rate_checks() -> None:
    with pytest.raises(TorchRuntimeError, match="invalid Poisson rate"):
        R.poisson(np.array([1.0, -1.0]), generator=R.Generator(0))
    # an infinite rate: floor(inf) converted to int64 is INT64_MIN on x86, as torch returns
    assert R.poisson(np.array([np.inf]), generator=R.Generator(0))[0] == -(2.0 ** 63)
