"""multinomial, the serial samplers, topk's ties and torch.Generator against live PyTorch.

Skipped unless torch is importable.  Hypothesis draws weights (many zeros, so
the tie order of libstdc++'s algorithms matters), shapes, layouts and seeds; the
torch API side goes through ``gradcli.engine.api`` as a script would.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import gradcli.engine.random as R  # noqa: E402
from gradcli.engine import api  # noqa: E402
from gradcli.engine.errors import TorchError  # noqa: E402
from gradcli.engine.kernels.stl_sort import topk_indices  # noqa: E402

pytestmark = pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
                                reason="the engine reproduces the AVX2/AVX512 kernels")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
T = api.TORCH
seeds = st.integers(0, 2**32 + 10)


def _weights(seed: int, shape: tuple[int, ...], zeros: float, dtype: str) -> np.ndarray:
    rs = np.random.RandomState(seed % 2**32)
    w = rs.rand(*shape)
    w[rs.rand(*shape) < zeros] = 0
    w.reshape(-1, shape[-1])[:, 0] += 0.1
    return w.astype(dtype)


@SETTINGS
@given(seed=seeds, rows=st.sampled_from([0, 1, 2, 5]), categories=st.integers(1, 150),
       zeros=st.sampled_from([0.0, 0.5, 0.95]), dtype=st.sampled_from(["float32", "float64"]),
       replacement=st.booleans(), fraction=st.floats(0.01, 1.0), transpose=st.booleans())
def test_multinomial(seed: int, rows: int, categories: int, zeros: float, dtype: str, replacement: bool,
                     fraction: float, transpose: bool) -> None:
    shape = (categories,) if rows == 0 else (rows, categories)
    w = _weights(seed, shape, zeros, dtype)
    n = max(1, int(fraction * categories)) if not replacement else max(1, int(fraction * 60))
    tp = torch.from_numpy(w)
    gp = T["tensor"](w)
    if transpose and rows:
        tp = torch.from_numpy(np.ascontiguousarray(w.T)).t()
        gp = T["tensor"](np.ascontiguousarray(w.T)).t()
    torch.manual_seed(seed)
    T["manual_seed"](seed)
    expected = torch.multinomial(tp, n, replacement)
    got = T["multinomial"](gp, n, replacement)
    assert got.tolist() == expected.tolist()
    assert T["rand"](3).tolist() == torch.rand(3).tolist()


@SETTINGS
@given(seed=seeds, size=st.sampled_from([1, 2, 7, 33]), dtype=st.sampled_from(["float32", "float64"]),
       which=st.sampled_from(["exponential_", "cauchy_", "geometric_", "log_normal_"]),
       a=st.floats(0.05, 0.95), b=st.floats(0.1, 5.0), cached=st.booleans())
def test_serial_samplers(seed: int, size: int, dtype: str, which: str, a: float, b: float, cached: bool) -> None:
    args = {"exponential_": (b,), "cauchy_": (a, b), "geometric_": (a,), "log_normal_": (a, b)}[which]
    torch.manual_seed(seed)
    T["manual_seed"](seed)
    if cached:  # leaves a value in the normal cache, which log_normal_ uses
        assert T["randn"](1).tolist() == torch.randn(1).tolist()
    expected = getattr(torch.empty(size, dtype=getattr(torch, dtype)), which)(*args)
    got = getattr(T["empty"](size, dtype=T[dtype]), which)(*args)
    assert got.tolist() == expected.tolist()
    assert T["randn"](3).tolist() == torch.randn(3).tolist()


@SETTINGS
@given(seed=seeds, scale=st.sampled_from([0.5, 9.0, 11.0, 300.0]), dtype=st.sampled_from(["float32", "float64"]))
def test_poisson(seed: int, scale: float, dtype: str) -> None:
    rates = (np.random.RandomState(seed % 2**32).rand(12) * scale).astype(dtype)
    torch.manual_seed(seed)
    assert R.poisson(rates, generator=R.Generator(seed)).tolist() == torch.poisson(torch.from_numpy(rates)).tolist()


@SETTINGS
@given(values=st.lists(st.integers(0, 4), min_size=1, max_size=300), k=st.floats(0, 1), largest=st.booleans(),
       sort_result=st.booleans())
def test_topk_ties(values: list[int], k: float, largest: bool, sort_result: bool) -> None:
    row = np.array(values, dtype=np.float32)
    kk = max(1, int(k * len(values)))
    _, idx = torch.topk(torch.from_numpy(row), kk, largest=largest, sorted=sort_result)
    assert topk_indices(row, kk, largest, sort_result).tolist() == idx.tolist()


# -- torch.Generator -----------------------------------------------------------------------

@SETTINGS
@given(seed=st.integers(-(2**63), 2**64 - 1), draws=st.integers(0, 700))
def test_generator_streams_and_state(seed: int, draws: int) -> None:
    g, tg = T["Generator"]().manual_seed(seed), torch.Generator().manual_seed(seed)
    assert g.initial_seed() == tg.initial_seed()
    assert T["rand"](draws, generator=g).tolist() == torch.rand(draws, generator=tg).tolist()
    state, tstate = g.get_state(), tg.get_state()
    assert repr(state.dtype) == repr(tstate.dtype) and state.tolist() == tstate.tolist()
    assert T["randn"](5, generator=g).tolist() == torch.randn(5, generator=tg).tolist()
    assert g.set_state(state) is g
    assert T["randn"](5, generator=g).tolist() == torch.randn(5, generator=tg.set_state(tstate)).tolist()


def test_default_generator_is_the_process_generator() -> None:
    g = T["manual_seed"](3)
    assert g is T["default_generator"]
    assert T["get_rng_state"]().tolist() == torch.manual_seed(3).get_state().tolist()
    state = T["get_rng_state"]()
    first = T["rand"](4).tolist()
    T["set_rng_state"](state)
    assert T["rand"](4).tolist() == first == torch.rand(4).tolist()


def _error(fn: Any) -> tuple[str, str]:
    try:
        fn()
    except (TorchError, RuntimeError, TypeError, ValueError, NotImplementedError) as e:
        return type(e).__name__.replace("Torch", ""), str(e)
    return "", "no error"


@pytest.mark.parametrize("code", [
    "Generator('cuda')", "Generator(1)", "Generator(device=1.5)", "Generator('meta')", "Generator(devic='cpu')",
    "Generator().manual_seed(1.5)", "Generator().manual_seed(True)", "Generator().manual_seed(2**64)",
    "Generator().manual_seed()", "Generator().manual_seed(seed=3)", "Generator().initial_seed(3)",
    "Generator().set_state(zeros(5056))", "Generator().set_state(zeros(5056, dtype=uint8))",
    "Generator().set_state(zeros(3, dtype=uint8))", "Generator().set_state(5)", "set_rng_state(zeros(3))",
    "rand(2, generator=5)", "multinomial(tensor([0.2, 0.8]), 2, generator=1)", "empty(3).exponential_(0)",
    "empty(3, dtype=long).exponential_()", "empty(2).cauchy_(0, 0)", "empty(2, dtype=long).cauchy_()",
    "empty(2).log_normal_(0, -1)", "empty(2, dtype=long).log_normal_()", "empty(2).geometric_(1)",
    "poisson(tensor([1, 2]))", "multinomial(tensor(0.5), 1)", "multinomial(tensor([1, 2]), 1)",
    "multinomial(tensor([0.2, 0.8]), 0)", "multinomial(tensor([0.2, 0.8]), 3)", "multinomial(tensor([0.2, 0.8]), 1.0)",
    "multinomial(tensor([0.2, 0.8]), 2, True, out=zeros(2))", "tensor([0.2, 0.8]).multinomial(2, True, None)",
])
def test_errors_match_pytorch(code: str) -> None:
    expected = _error(lambda: eval(code, vars(torch)))
    got = _error(lambda: eval(code, dict(T)))
    assert got == expected
