"""gradcli.engine.random against live PyTorch on generated seeds and calls.

Skipped unless torch is importable (the project never depends on it).  Each
example seeds torch's default generator and a gradcli ``Generator`` alike,
runs the same calls on both and compares bit patterns, shapes and dtypes.
The reference machine must run torch's AVX2 or AVX512 kernels (any x86-64
from the last decade); examples stay small so the module runs in seconds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import gradcli.engine.random as R  # noqa: E402
from gradcli.engine.errors import TorchError  # noqa: E402

pytestmark = [
    pytest.mark.skipif(
        torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
        reason="the engine reproduces the AVX2/AVX512 kernels",
    ),
    # torch warns about float randint bounds beyond 2**24; the caller's business
    pytest.mark.filterwarnings("ignore:.*out of bounds.*:UserWarning"),
]

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TORCH = {
    "float32": torch.float32,
    "float64": torch.float64,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
FLOATS = st.sampled_from(["float32", "float64"])
seeds = st.one_of(st.integers(0, 2000), st.integers(-(2**63), 2**64 - 1))
shapes = st.lists(st.integers(0, 7), min_size=0, max_size=3).map(tuple) | st.sampled_from(
    [(15,), (16,), (17,), (33,), (5, 7), (2, 3, 9), (130,)]
)


def same(t: Any, a: np.ndarray) -> bool:
    """Same shape, dtype and bits (so -0.0 and NaN payloads count)."""
    tn = t.detach().numpy()
    if tn.shape != a.shape or tn.dtype != a.dtype:
        return False
    return tn.tobytes() == np.ascontiguousarray(a).tobytes()


def pair(seed: int) -> R.Generator:
    torch.manual_seed(seed)
    return R.Generator(seed)


# -- plain factories, chained so the normal cache carries over ---------------------------
call = st.one_of(
    st.tuples(st.just("rand"), shapes, FLOATS),
    st.tuples(st.just("randn"), shapes, FLOATS),
    st.tuples(st.just("uniform"), shapes, FLOATS, st.floats(-1e3, 1e3), st.floats(0, 1e3)),
    st.tuples(st.just("normal"), shapes, FLOATS, st.floats(-1e3, 1e3), st.floats(0, 50)),
    st.tuples(st.just("randint"), shapes, st.integers(-(2**40), 2**40), st.integers(1, 2**33)),
)


@SETTINGS
@given(seed=seeds, calls=st.lists(call, min_size=1, max_size=6))
def test_factory_chains(seed: int, calls: list[tuple[Any, ...]]) -> None:
    gen = pair(seed)
    for c in calls:
        kind, shape = c[0], c[1]
        if kind == "rand":
            t, a = torch.rand(shape, dtype=TORCH[c[2]]), R.uniform(shape, c[2], generator=gen)
        elif kind == "randn":
            t, a = torch.randn(shape, dtype=TORCH[c[2]]), R.normal(shape, c[2], generator=gen)
        elif kind == "uniform":
            low, high = c[3], c[3] + c[4]
            t = torch.empty(shape, dtype=TORCH[c[2]]).uniform_(low, high)
            a = R.uniform(shape, c[2], low, high, generator=gen)
        elif kind == "normal":
            t = torch.normal(c[3], c[4], shape, dtype=TORCH[c[2]])
            a = R.normal(shape, c[2], c[3], c[4], generator=gen)
        else:
            low, high = c[2], c[2] + c[3]
            t, a = torch.randint(low, high, shape), R.randint(low, high, shape, generator=gen)
        assert same(t, a), c
    assert torch.get_rng_state().numpy().tobytes() == gen.get_state()
    assert torch.initial_seed() == gen.initial_seed()


# -- integers ---------------------------------------------------------------------------
@SETTINGS
@given(
    seed=seeds,
    dtype=st.sampled_from(["int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64"]),
    low=st.integers(-(2**63), 2**63 - 2),
    span=st.integers(1, 2**64),
    small=st.booleans(),
)
def test_randint_dtypes_and_bounds(seed: int, dtype: str, low: int, span: int, small: bool) -> None:
    if small:
        low, span = low % 200 - 100, span % 300 + 1
    high = min(low + span, 2**63 - 1)
    try:
        torch.manual_seed(seed)
        t = torch.randint(low, high, (9,), dtype=TORCH[dtype])
    except (RuntimeError, ValueError) as exc:
        # validation is the caller's, except the float bound crossing
        if "casted to dtype" in str(exc):
            with pytest.raises(TorchError, match="casted to dtype"):
                R.randint(low, high, (9,), dtype, generator=R.Generator(seed))
        return
    a = R.randint(low, high, (9,), dtype, generator=R.Generator(seed))
    assert same(t, a)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, n=st.integers(0, 600), dtype=st.sampled_from(["int64", "int32", "float32"]))
def test_randperm(seed: int, n: int, dtype: str) -> None:
    gen = pair(seed)
    assert same(torch.randperm(n, dtype=TORCH[dtype]), R.randperm(n, dtype, generator=gen))
    assert same(torch.rand(2), R.uniform((2,), generator=gen))


@settings(max_examples=10, deadline=None)
@given(seed=seeds)
def test_random_no_bounds(seed: int) -> None:
    gen = pair(seed)
    for name in ["int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64"]:
        out = np.empty((4,), name)
        R.random_(out, generator=gen)
        assert same(torch.empty(4, dtype=TORCH[name]).random_(), out), name


# -- bernoulli and dropout ----------------------------------------------------------------
@SETTINGS
@given(
    seed=seeds,
    dtype=FLOATS,
    shape=shapes,
    p=st.floats(0, 1),
    drop=st.floats(0, 1),
)
def test_bernoulli_and_dropout(seed: int, dtype: str, shape: tuple[int, ...], p: float, drop: float) -> None:
    gen = pair(seed)
    probs = torch.rand(shape, dtype=TORCH[dtype])
    assert same(probs, R.uniform(shape, dtype, generator=gen))
    assert same(torch.bernoulli(probs), R.bernoulli(probs.numpy(), generator=gen))
    out = np.empty(shape, "float32")
    R.bernoulli_(out, p, generator=gen)
    assert same(torch.empty(shape).bernoulli_(p), out)
    x = torch.randn(shape, dtype=TORCH[dtype])
    xa = R.normal(shape, dtype, generator=gen)
    noise = R.dropout_noise(xa, drop, generator=gen)
    expected = xa if noise is None else xa * noise
    assert same(torch.nn.functional.dropout(x, drop, training=True), expected)
    assert same(torch.rand(3), R.uniform((3,), generator=gen))


# -- *_like and strided outputs -------------------------------------------------------------
layouts = st.sampled_from(["contig", "t", "perm", "slice"])


def _base(shape: tuple[int, int, int], dtype: str, how: str) -> tuple[Any, np.ndarray]:
    """A torch tensor and a NumPy array with the same strides (in elements)."""
    t = torch.zeros(shape, dtype=TORCH[dtype])
    a = np.zeros(shape, dtype)
    if how == "t":
        return t.transpose(0, 2), a.transpose(2, 1, 0)
    if how == "perm":
        return t.permute(1, 2, 0), a.transpose(1, 2, 0)
    if how == "slice":
        return t[:, :, ::2], a[:, :, ::2]
    return t, a


@SETTINGS
@given(
    seed=seeds,
    dtype=FLOATS,
    shape=st.tuples(st.integers(1, 4), st.integers(1, 5), st.integers(1, 6)),
    how=layouts,
)
def test_like_and_inplace_on_views(seed: int, dtype: str, shape: Any, how: str) -> None:
    gen = pair(seed)
    t, a = _base(shape, dtype, how)
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    out = R.empty_like(a)
    R.uniform_(out, generator=gen)
    assert same(torch.rand_like(t), out)
    out = R.empty_like(a)
    R.normal_(out, generator=gen)
    assert same(torch.randn_like(t), out)
    out = R.empty_like(a.astype("int64"))
    R.randint_(out, -3, 1000, generator=gen)
    assert same(torch.randint_like(t.long(), -3, 1000), out)
    # in place on the view itself (a slice is not dense: memory order still)
    t.normal_(1.5, 2.0)
    R.normal_(a, 1.5, 2.0, generator=gen)
    assert same(t, a)
    t.uniform_(-2, 3)
    R.uniform_(a, -2, 3, generator=gen)
    assert same(t, a)


# -- torch.normal's tensor overloads ------------------------------------------------------
@SETTINGS
@given(
    seed=seeds,
    form=st.sampled_from(["tensor_float", "float_tensor", "tensor_tensor"]),
    mshape=st.sampled_from([(), (1,), (3,), (20,), (4, 1), (2, 17)]),
    sshape=st.sampled_from([(), (1,), (20,), (1, 17), (4, 20)]),
    mdtype=FLOATS,
    sdtype=FLOATS,
)
def test_normal_tensor_forms(seed: int, form: str, mshape: Any, sshape: Any, mdtype: str, sdtype: str) -> None:
    gen = pair(seed)
    m = torch.rand(mshape, dtype=TORCH[mdtype]) * 10 - 5
    s = torch.rand(sshape, dtype=TORCH[sdtype]) * 3
    R.uniform(mshape, mdtype, generator=gen), R.uniform(sshape, sdtype, generator=gen)
    if form == "tensor_float":
        t, a = torch.normal(m, 0.75), R.normal_tensor(m.numpy(), 0.75, generator=gen)
    elif form == "float_tensor":
        t, a = torch.normal(-1.25, s), R.normal_tensor(-1.25, s.numpy(), generator=gen)
    else:
        try:
            t = torch.normal(m, s)
        except RuntimeError:
            return  # shapes that do not broadcast: the caller's error
        a = R.normal_tensor(m.numpy(), s.numpy(), generator=gen)
    assert same(t, a)


# -- saved state --------------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(0, 1300), odd=st.booleans())
def test_state_bytes_round_trip_with_torch(seed: int, n: int, odd: bool) -> None:
    gen = pair(seed)
    torch.rand(n), R.uniform((n,), generator=gen)
    if odd:
        torch.randn(1), R.normal((1,), generator=gen)  # fills the cache
    state = torch.get_rng_state()
    assert state.numpy().tobytes() == gen.get_state()
    other = R.Generator()
    other.set_state(state.numpy().tobytes())
    assert same(torch.randn(5, dtype=torch.float64), R.normal((5,), "float64", generator=other))
