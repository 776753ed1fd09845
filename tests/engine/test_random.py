"""gradcli.engine.random against PyTorch's recorded outputs and its CPU generator's mechanics.

``test_vector_sequence`` replays every AVX2-tagged call sequence of
tests/data/rng_vectors.json (PyTorch 2.13's own outputs).  The other tests
check the mechanics of PyTorch's CPU sampling (draw counts, the normal cache,
memory order, saved state) against a plain transcription of torch's engine
written here.
"""

from __future__ import annotations

import importlib
import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradcli.engine.random import (
    DEFAULT_SEED,
    Generator,
    bernoulli,
    bernoulli_,
    default_generator,
    dropout_noise,
    empty_like,
    normal,
    normal_,
    randint,
    randint_,
    random_,
    randperm,
    uniform,
    uniform_,
)
from gradcli.engine.random.integer_sampling import adjust_float_bounds

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "rng_vectors.json").read_text())
AVX2 = [seq for seq in VECTORS if seq["capability"] == "AVX2"]


# -- replaying the vector file ----------------------------------------------------
def _size(call: dict[str, Any], key: str = "size") -> tuple[int, ...]:
    return tuple(call[key])


def run_call(gen: Generator, call: dict[str, Any]) -> Any:
    """Map one call record of rng_vectors.json to the API.

    A sequence is ``{"id", "note", "calls", "capability", "outputs"}``; each call is
    ``{"seed": n}`` (manual_seed) or ``{"fn": name, ...its arguments}``, and ``outputs``
    has one entry per call: None for a seed, else the values the call returned
    (floats as ``float.hex`` text).
    """
    fn = call["fn"]
    dtype = np.dtype(call.get("dtype", "float32"))
    if fn == "initial_seed":
        return np.array([gen.initial_seed()], dtype=object)
    if fn == "rand":
        return uniform(_size(call), dtype, generator=gen)
    if fn == "randn":
        return normal(_size(call), dtype, generator=gen)
    if fn == "uniform_":
        out = np.empty(_size(call), dtype)
        uniform_(out, call["low"], call["high"], generator=gen)
        return out
    if fn == "normal":
        return normal(_size(call), dtype, call["mean"], call["std"], generator=gen)
    if fn == "randint":
        return randint(call["low"], call["high"], _size(call), generator=gen)
    if fn == "randperm":
        return randperm(call["n"], generator=gen)
    if fn == "random_":
        out = np.empty(_size(call), dtype)
        random_(out, generator=gen)
        return out
    if fn == "bernoulli":
        p = np.array([float.fromhex(h) for h in call["p"]], dtype=dtype)
        return bernoulli(p, generator=gen)
    if fn == "bernoulli_":
        out = np.empty(_size(call), dtype)
        bernoulli_(out, call["p"], generator=gen)
        return out
    if fn == "dropout":
        x = np.ones(_size(call), dtype)
        noise = dropout_noise(x, call["p"], generator=gen)
        return x if noise is None else x * noise
    if fn in ("rand_like", "randn_like", "randint_like"):
        base = np.empty(_size(call, "base_size"), dtype)
        if call.get("transpose"):
            base = base.T
        out = empty_like(base)
        if fn == "rand_like":
            uniform_(out, generator=gen)
        elif fn == "randn_like":
            normal_(out, generator=gen)
        else:
            randint_(out, call["low"], call["high"], generator=gen)
        return out
    raise AssertionError(f"unknown call {fn}")


def _as_records(values: np.ndarray) -> list[Any]:
    """Logical row-major values as the file stores them (hex floats, ints)."""
    flat = np.asarray(values).reshape(-1).tolist()
    if np.asarray(values).dtype.kind == "f":
        return [float(v).hex() for v in flat]
    return [int(v) for v in flat]


def _normalise(expected: list[Any]) -> list[Any]:
    return [float.fromhex(v).hex() if isinstance(v, str) else v for v in expected]


@pytest.mark.parametrize("seq", AVX2, ids=[seq["id"] for seq in AVX2])
def test_vector_sequence(seq: dict[str, Any]) -> None:
    gen = Generator()
    for i, (call, expected) in enumerate(zip(seq["calls"], seq["outputs"], strict=True)):
        if "seed" in call:
            gen.manual_seed(call["seed"])
            assert expected is None
            continue
        got = _as_records(run_call(gen, call))
        assert got == _normalise(expected), f"call {i}: {call}"


def test_every_avx2_sequence_is_replayed() -> None:
    assert len(AVX2) == 83
    fns = {call.get("fn") for seq in AVX2 for call in seq["calls"]} - {None}
    assert len(fns) == 14  # every call kind of the vocabulary occurs


# -- a plain transcription of torch's mt19937, for cross-checks ------------------------
class RefMT:
    """torch's ``at::mt19937`` state machine, one Python int at a time."""

    def __init__(self, seed32: int) -> None:
        w = [seed32 & 0xFFFFFFFF]
        for i in range(1, 624):
            w.append((1812433253 * (w[-1] ^ (w[-1] >> 30)) + i) & 0xFFFFFFFF)
        self.words, self.left, self.next = w, 1, 0

    def _twist(self) -> None:
        w = self.words
        for i in range(624):
            y = (w[i] & 0x80000000) | (w[(i + 1) % 624] & 0x7FFFFFFF)
            w[i] = w[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self.left, self.next = 624, 0

    def random(self) -> int:
        self.left -= 1
        if self.left == 0:
            self._twist()
        y = self.words[self.next]
        self.next += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return (y ^ (y >> 18)) & 0xFFFFFFFF


def _state_fields(gen: Generator) -> tuple[int, int, int, int, list[int]]:
    raw = gen.get_state()
    seed, left, seeded, next_ = struct.unpack_from("<QiiQ", raw, 0)
    words = list(struct.unpack_from("<624Q", raw, 24))
    return seed, left, seeded, next_, words


@pytest.mark.parametrize("seed", [0, 1, 5489, 2**32 - 1, 123456789])
def test_stream_matches_reference_mt19937(seed: int) -> None:
    gen = Generator(seed)
    ref = RefMT(seed)
    got = gen.random_u32(1500).tolist()
    assert got == [ref.random() for _ in range(1500)]
    _, left, _, next_, words = _state_fields(gen)
    assert (left, next_, words) == (ref.left, ref.next, ref.words)


@pytest.mark.parametrize("sizes", [[1, 5, 700], [623, 1, 1, 1300], [2000], [3, 624, 624, 5, 1249]])
def test_own_twist_and_numpys_give_one_stream(sizes: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine twists by itself, then hands its state to numpy.random's MT19937 (after
    OWN_TWIST_WORDS words, made small here): every word and every saved state is torch's."""
    from gradcli.engine.random import mt19937
    monkeypatch.setattr(mt19937, "OWN_TWIST_WORDS", 1000)
    for seed in (0, 7, 2**32 - 1):
        engine, ref = mt19937.MT19937(seed), RefMT(seed)
        for n in sizes * 2:
            assert engine.random_u32(n).tolist() == [ref.random() for _ in range(n)]
            words, left, next_ = engine.get_state()
            assert (words.tolist(), left, next_) == (ref.words, ref.left, ref.next)
        assert engine._bits is not None  # the hand-over happened


def test_a_state_restored_before_or_after_the_hand_over_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.engine.random import mt19937
    monkeypatch.setattr(mt19937, "OWN_TWIST_WORDS", 1000)
    ref = RefMT(3)
    ref.left, ref.next = 5, 3   # a crafted state: words 3..6 are still due
    for drawn_first in (0, 2000):  # restore into an engine still on its own twist, then one on NumPy's
        engine = mt19937.MT19937(9)
        engine.random_u32(drawn_first)
        engine.set_state(np.array(ref.words, dtype=np.uint32), 5, 3)
        copy = RefMT(3)
        copy.left, copy.next = 5, 3
        assert engine.random_u32(1500).tolist() == [copy.random() for _ in range(1500)]


def test_the_package_names_where_each_of_its_names_lives() -> None:
    import gradcli.engine.random as package
    assert set(package.__all__) == set(package._HOMES)
    for name in package.__all__:
        assert getattr(package, name) is getattr(importlib.import_module(f"gradcli.engine.random.{package._HOMES[name]}"), name)


def test_a_small_script_never_imports_numpy_random() -> None:
    code = ("import sys; from gradcli.engine.random import default_generator, normal; "
            "default_generator.manual_seed(0); normal((3, 4)); print('numpy.random' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


# -- seeding ------------------------------------------------------------------------
def test_negative_seed_wraps_to_64_bits() -> None:
    gen = Generator(-1)
    assert gen.initial_seed() == 2**64 - 1
    assert gen.random_u32(5).tolist() == Generator(2**32 - 1).random_u32(5).tolist()
    assert Generator(-(2**63)).initial_seed() == 2**63


def test_only_low_32_bits_seed_the_engine() -> None:
    a, b = Generator(5), Generator(2**32 + 5)
    assert a.initial_seed() == 5 and b.initial_seed() == 2**32 + 5
    assert uniform((40,), generator=a).tolist() == uniform((40,), generator=b).tolist()


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1, 10**30])
def test_seed_overflow(seed: int) -> None:
    with pytest.raises(ValueError, match=r"^Overflow when unpacking long long$"):
        Generator().manual_seed(seed)


def test_generator_defaults_and_reseeding() -> None:
    assert DEFAULT_SEED == 67280421310721
    assert Generator().initial_seed() == DEFAULT_SEED
    gen = Generator()
    assert gen.manual_seed(7) is gen
    s1 = gen.seed()
    assert gen.initial_seed() == s1 and 0 <= s1 < 2**64
    first = uniform((3,), generator=gen).tolist()
    assert uniform((3,), generator=Generator(s1)).tolist() == first
    assert gen.seed() != s1  # 2**-64 chance of a false failure


def test_fresh_process_seeds_default_generator_randomly() -> None:
    code = "from gradcli.engine.random import default_generator as g; print(g.initial_seed())"
    root = Path(__file__).parents[2]
    seeds = {
        subprocess.run(
            [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(seeds) == 2


def test_default_generator_is_used_without_generator_argument() -> None:
    saved = default_generator.get_state()
    try:
        default_generator.manual_seed(11)
        got = normal((20,)).tolist() + uniform((3,), np.float64).tolist()
        gen = Generator(11)
        assert got == normal((20,), generator=gen).tolist() + uniform(
            (3,), np.float64, generator=gen
        ).tolist()
    finally:
        default_generator.set_state(saved)


# -- draw counts and emptiness ----------------------------------------------------------
def _used(action: Any, seed: int = 3) -> int:
    gen = Generator(seed)
    gen.random_u32(1)  # leave the just-seeded state so next counts from 1
    _, _, _, next0, _ = _state_fields(gen)
    action(gen)
    _, _, _, next1, _ = _state_fields(gen)
    return next1 - next0


@pytest.mark.parametrize("n", [16, 17, 31, 32, 100])
@pytest.mark.parametrize("dtype, width", [(np.float32, 1), (np.float64, 2)])
def test_block_path_draw_count(n: int, dtype: Any, width: int) -> None:
    tail = 16 if n % 16 else 0
    assert _used(lambda g: normal((n,), dtype, generator=g)) == width * (n + tail)


@pytest.mark.parametrize("n", [1, 2, 3, 15])
def test_per_element_draw_count_and_cache(n: int) -> None:
    gen = Generator(9)
    gen.random_u32(1)
    for cached in (0, 1):
        if cached:
            gen.cached_normal = 0.5
        else:
            gen.cached_normal = None
        _, _, _, before, _ = _state_fields(gen)
        normal((n,), np.float64, generator=gen)
        _, _, _, after, _ = _state_fields(gen)
        assert after - before == 4 * -(-(n - cached) // 2)
        assert (gen.cached_normal is not None) == ((n - cached) % 2 == 1)


def test_empty_outputs_draw_nothing() -> None:
    gen = Generator(4)
    normal((1,), generator=gen)  # fills the cache
    cache = gen.cached_normal
    state = gen.get_state()
    uniform((0,), generator=gen)
    normal((0, 3), np.float64, generator=gen)
    normal_(np.empty((5, 0)), generator=gen)
    randint(0, 10, (0,), generator=gen)
    random_(np.empty(0, np.int64), generator=gen)
    bernoulli_(np.empty(0), 0.5, generator=gen)
    bernoulli(np.empty((0, 2), np.float32), generator=gen)
    assert randperm(0, generator=gen).tolist() == []
    assert randperm(1, generator=gen).tolist() == [0]
    assert dropout_noise(np.empty(0, np.float32), 0.5, generator=gen).size == 0
    assert gen.get_state() == state and gen.cached_normal == cache


@pytest.mark.parametrize(
    "high, words", [(10, 1), (2**28 - 1, 1), (2**28, 2), (2**28 + 1, 2), (2**40, 2)]
)
def test_randint_word_threshold(high: int, words: int) -> None:
    assert _used(lambda g: randint(0, high, (7,), generator=g)) == 7 * words


def test_randperm_and_bernoulli_draw_counts() -> None:
    assert _used(lambda g: randperm(50, generator=g)) == 49
    assert _used(lambda g: bernoulli_(np.empty(6, np.float32), 0.3, generator=g)) == 12
    p32 = np.full(6, 0.5, np.float32)
    assert _used(lambda g: bernoulli(p32, generator=g)) == 6
    assert _used(lambda g: bernoulli(p32.astype(np.float64), generator=g)) == 12
    assert _used(lambda g: dropout_noise(np.ones(5), 0.0, generator=g)) == 0
    assert _used(lambda g: dropout_noise(np.ones(5), 1.0, generator=g)) == 0


def test_dropout_extremes() -> None:
    gen = Generator(0)
    assert dropout_noise(np.ones(5), 0.0, generator=gen) is None
    assert dropout_noise(np.ones(5), 1.0, generator=gen).tolist() == [0.0] * 5
    noise = dropout_noise(np.ones(2000, np.float32), 0.25, generator=gen)
    assert noise.dtype == np.float32
    assert set(noise.tolist()) == {0.0, float(np.float32(1) / np.float32(0.75))}


# -- the normal cache -------------------------------------------------------------
def test_cache_survives_block_path_and_other_samplers() -> None:
    gen = Generator(0)
    first = normal((1,), generator=gen)
    cached = gen.cached_normal
    assert cached is not None and cached != float(first[0])
    normal((16,), generator=gen)
    uniform((5,), generator=gen)
    randint(0, 9, (3,), generator=gen)
    randperm(4, generator=gen)
    state = gen.get_state()
    again = normal((1,), np.float64, generator=gen)
    assert again.tolist() == [cached]  # one double cache, any dtype
    assert gen.get_state()[:5016] == state[:5016]  # drew nothing
    assert gen.cached_normal is None


def test_manual_seed_clears_cache() -> None:
    gen = Generator(0)
    normal((1,), generator=gen)
    assert gen.cached_normal is not None
    gen.manual_seed(0)
    assert gen.cached_normal is None and gen.cached_float_normal is None


def test_cached_value_is_scaled_by_mean_and_std() -> None:
    gen = Generator(2)
    normal((1,), np.float64, generator=gen)
    g = gen.cached_normal
    assert normal((1,), np.float64, 3.0, 0.5, generator=gen).tolist() == [g * 0.5 + 3.0]


# -- memory order -------------------------------------------------------------------
def test_uniform_fills_transposed_view_in_storage_order() -> None:
    base = np.empty((4, 5), np.float32)
    uniform_(base.T, generator=Generator(1))
    expected = uniform((20,), generator=Generator(1))
    assert base.reshape(-1).tolist() == expected.tolist()


def test_normal_on_non_contiguous_uses_per_element_path() -> None:
    base = np.empty((4, 5))
    normal_(base.T, generator=Generator(1))
    strided = np.empty(40)[::2]
    normal_(strided, generator=Generator(1))
    assert base.reshape(-1).tolist() == strided.tolist()
    block = normal((20,), np.float64, generator=Generator(1))
    assert base.reshape(-1).tolist() != block.tolist()


def test_per_element_path_is_block_independent_below_16() -> None:
    # 15 elements: per-element path, and a prefix of the 1-element-at-a-time sequence
    gen = Generator(8)
    fifteen = normal((15,), np.float64, generator=gen).tolist()
    gen = Generator(8)
    singles = [normal((1,), np.float64, generator=gen)[0] for _ in range(15)]
    assert fifteen == singles


def test_randint_like_and_bernoulli_follow_memory_order() -> None:
    out = empty_like(np.empty((3, 4), np.int64).T)
    randint_(out, -5, 5, generator=Generator(6))
    flat = randint(-5, 5, (12,), generator=Generator(6))
    assert out.T.reshape(-1).tolist() == flat.tolist()
    p = np.linspace(0, 1, 12).reshape(3, 4)
    out = np.empty((4, 3)).T  # storage order differs from logical order
    bernoulli_(out, p, generator=Generator(6))
    ref = bernoulli(p.T.copy(), generator=Generator(6))  # same pairing, C order
    assert out.T.tolist() == ref.tolist()


# -- saved state ----------------------------------------------------------------------
def test_state_layout_after_seed_and_draws() -> None:
    gen = Generator(2**40 + 3)
    seed, left, seeded, next_, words = _state_fields(gen)
    assert (seed, left, seeded, next_) == (2**40 + 3, 1, 1, 0)
    assert words == RefMT(3).words
    for k in (1, 7, 624):
        gen = Generator(3)
        gen.random_u32(k)
        _, left, _, next_, _ = _state_fields(gen)
        assert (left, next_) == (625 - k, k)
    normal((1,), generator=gen)
    raw = gen.get_state()
    assert len(raw) == 5056
    assert struct.unpack_from("<d", raw, 5024)[0] == gen.cached_normal
    assert struct.unpack_from("<i", raw, 5040)[0] == 1
    assert raw[5016:5024] == bytes(8) and raw[5032:5040] == bytes(8)


def test_state_round_trip_replays() -> None:
    gen = Generator(12)
    normal((3,), generator=gen)  # leaves the cache full
    uniform((700,), generator=gen)
    saved = gen.get_state()
    first = [normal((1,), generator=gen).tolist(), uniform((900,), np.float64, generator=gen).tolist()]
    other = Generator(99)
    other.set_state(saved)
    assert other.initial_seed() == 12
    again = [normal((1,), generator=other).tolist(), uniform((900,), np.float64, generator=other).tolist()]
    assert again == first
    assert other.get_state() == gen.get_state()


def test_set_state_with_unusual_left_and_next() -> None:
    # left=5, next=3: torch reads words 3..6 before regenerating (a crafted state)
    gen = Generator(21)
    raw = bytearray(gen.get_state())
    struct.pack_into("<i", raw, 8, 5)
    struct.pack_into("<Q", raw, 16, 3)
    gen.set_state(bytes(raw))
    ref = RefMT(21)
    ref.left, ref.next = 5, 3
    assert gen.random_u32(700).tolist() == [ref.random() for _ in range(700)]


def test_set_state_errors() -> None:
    gen = Generator()
    with pytest.raises(RuntimeError, match=r"^Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 10$"):
        gen.set_state(bytes(10))
    raw = bytearray(gen.get_state())
    struct.pack_into("<i", raw, 12, 0)
    with pytest.raises(RuntimeError, match=r"^Invalid mt19937 state$"):
        gen.set_state(bytes(raw))
    with pytest.raises(RuntimeError, match=r"^Invalid mt19937 state$"):
        gen.set_state(bytes(5056))


# -- integer details ----------------------------------------------------------------
def test_float_bound_adjustment_is_a_no_op_in_exact_range() -> None:
    for lo, hi in [(0, 10), (-(2**24), 2**24), (-5, 2**20)]:
        assert adjust_float_bounds(lo, hi, np.float32) == (lo, hi)
    assert adjust_float_bounds(0, 2**60, np.int64) == (0, 2**60)
    lo, hi = adjust_float_bounds(0, 2**28 - 1, np.float32)
    assert lo == 0 and hi < 2**28 - 1
    assert float(np.float32(hi)) == hi  # moved down onto a float32 value


def test_randint_crossing_float_bounds_raises() -> None:
    with pytest.raises(RuntimeError, match="casted to dtype"):
        randint(2**30 + 1, 2**30 + 2, (2,), np.float32, generator=Generator())


def test_randint_values_wrap_like_cpp_casts() -> None:
    gen = Generator(5)
    wide = randint(-(2**63), 2**63 - 1, (50,), generator=gen)
    assert wide.dtype == np.int64 and wide.min() < 0 < wide.max()
    small = randint(0, 3, (20,), np.bool_, generator=Generator(5))
    assert small.tolist() == (randint(0, 3, (20,), generator=Generator(5)) != 0).tolist()


# -- signed zeros the kernels' fma turns positive -------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_path_zero_radius_gives_positive_zero(dtype: Any) -> None:
    from gradcli.engine.random import normal_sampling as ns

    u = np.full(16, 0.1, dtype)  # angles 0.1 * 2pi: cosine and sine positive
    u[:8] = 0.0  # radius uniform 0: t = 1, log = +0, sqrt(-2 * +0) = -0.0
    fill = ns._fill16_f32 if dtype == np.float32 else ns._fill16_f64
    out = fill(u, 0.0, 1.0)  # -0.0 * positive = -0.0, and fma(-0, 1, +0) = +0
    assert not out.any() and not np.signbit(out).any()
    assert np.signbit(fill(u, -0.0, 1.0)).all()  # fma(-0, 1, -0) = -0
    assert not np.signbit(fill(u, -0.0, -1.0)).any()  # fma(-0, -1, -0) = +0


@pytest.mark.parametrize("n", [3, 40])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_negative_zero_mean_is_not_the_identity(n: int, dtype: Any) -> None:
    # fma(v, 1, -0.0) keeps a -0.0 result; with mean +0.0 it would become +0.0
    from gradcli.engine.random import normal_sampling as ns

    assert ns._is_identity(0.0, 1.0) and not ns._is_identity(-0.0, 1.0)
    assert not ns._is_identity(0.0, 2.0)
    a = normal((n,), dtype, -0.0, 1.0, generator=Generator(3))
    b = normal((n,), dtype, generator=Generator(3))
    assert a.tolist() == b.tolist()  # equal values (signs of zero aside)


def test_bernoulli_with_float_p_matches_in_place_form() -> None:
    out = np.empty((3, 5), np.float64)
    bernoulli_(out, 0.3, generator=Generator(14))
    got = bernoulli(0.3, (3, 5), np.float64, generator=Generator(14))
    assert got.dtype == np.float64 and got.tolist() == out.tolist()
    assert bernoulli(0.5, (4,), generator=Generator(1)).dtype == np.float32
