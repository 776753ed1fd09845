"""The tensor printer against live PyTorch on generated tensors and options.

Skipped unless torch is importable (the project never depends on it). Each
example prints the same values under the same options with both printers and
compares the text, or the exception type and message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from gradcli.engine.printing import reset_printoptions, set_printoptions, tensor_repr  # noqa: E402

TORCH_DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "int64": torch.int64,
    "int32": torch.int32,
    "bool": torch.bool,
}
NUMPY_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "int64": np.int64,
    "int32": np.int32,
    "bool": np.bool_,
}
SETTINGS = settings(
    max_examples=400,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(autouse=True)
def _clean_state() -> Iterator[None]:
    yield
    torch.set_printoptions(profile="default")
    torch.set_printoptions()
    torch.set_default_dtype(torch.float32)
    reset_printoptions()


# ------------------------------------------------------------ strategies

SPECIAL_FLOATS = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-4, 9.99995e-5, 1e8, 1.0000001e8, 1000.0,
                  0.5, -0.5, 1e-45, 3e38, 5e-324, 1.7976931348623157e308, 9.99995, 99999.5, 1e100, 1e-100]
# Few distinct values, so that boundaries (ratio 1000, 1e-4, 1e8) and
# three-digit exponents meet ordinary numbers often.
POOL_FLOATS = SPECIAL_FLOATS + [1.0, 2.0, -1.0, -3.0, 2000.0, 0.001, 0.002, 10.0, 100.0, 1e4, 123.456, 0.1,
                                -1e-100, -1e100, 1e-5, 1e9]

# Values that sit exactly on a mode switch, in sets drawn together.
BOUNDARY_SETS = [
    (1.0, 1000.0), (-2.0, 2000.0), (0.001, 1.0), (1e8,), (5e7, 1e8), (1.0000001e8,), (1e-4,), (1e-4, 0.1),
    (1e-100, 5.0), (-1e-100, 3.0), (1e100, -2.0), (9.99995,), (-9.99995, 0.5), (1e-5, 1e-3), (0.5, 500.0),
]


def float_elements(dtype: str, profile: str) -> st.SearchStrategy[float]:
    width = 32 if dtype == "float32" else 64

    def fits(x: float) -> float:
        # Past float32's range a pool value becomes inf or 0 there, still a fine case.
        with np.errstate(over="ignore", under="ignore"):
            return float(np.float32(x)) if width == 32 else x

    if profile.startswith("boundary"):
        chosen = BOUNDARY_SETS[int(profile.split(":")[1])]
        return st.sampled_from([*chosen, 0.0, math.nan]).map(fits)
    if profile == "pool":
        return st.sampled_from(POOL_FLOATS).map(fits)
    if profile == "moderate":
        return st.floats(min_value=-1e4, max_value=1e4, width=width)
    if profile == "tiny":
        return st.floats(min_value=-(2.0**-10), max_value=2.0**-10, width=width)
    if profile == "ints":
        return st.one_of(st.integers(-(10**6), 10**6), st.integers(-999, 999)).map(float)
    if profile == "eighths":
        return st.integers(-999, 999).map(lambda k: k / 8)
    return st.one_of(st.floats(width=width), st.sampled_from(SPECIAL_FLOATS).map(fits))


def elements(dtype: str, profile: str) -> st.SearchStrategy[Any]:
    if dtype.startswith("float"):
        return float_elements(dtype, profile)
    if dtype == "bool":
        return st.booleans()
    bits = 64 if dtype == "int64" else 32
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return st.one_of(st.integers(-20, 20), st.integers(-(10**5), 10**5), st.integers(low, high))


@st.composite
def arrays(draw: st.DrawFn) -> tuple[np.ndarray, str]:
    dtype = draw(st.sampled_from(list(NUMPY_DTYPES)))
    profile = draw(st.sampled_from(["any", "pool", "boundary", "moderate", "tiny", "ints", "eighths"]))
    if profile == "boundary":
        profile += f":{draw(st.integers(0, len(BOUNDARY_SETS) - 1))}"
    shape = draw(
        st.one_of(
            hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
            hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=40),
        )
    )
    fill = st.nothing() if draw(st.booleans()) else None
    data = draw(hnp.arrays(NUMPY_DTYPES[dtype], shape, elements=elements(dtype, profile), fill=fill))
    return data, dtype


# Values torch accepts and only trips over (or not) while printing.
ODD_OPTIONS: dict[str, list[Any]] = {
    "precision": [-1, "3", 1.5, True],
    "threshold": [2.5, math.inf, -1, "3"],
    "edgeitems": [True, False, 1.5, 2.5, -2, "2"],
    "linewidth": [0, -5, 50.5, "80", math.inf],
    "sci_mode": [0, "yes"],
}


@st.composite
def print_options(draw: st.DrawFn) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        options["profile"] = draw(st.sampled_from(["default", "short", "full", "unknown"]))
    if draw(st.booleans()):
        options["precision"] = draw(st.integers(0, 12))
    if draw(st.booleans()):
        options["threshold"] = draw(st.integers(0, 60))
    if draw(st.booleans()):
        options["edgeitems"] = draw(st.one_of(st.integers(0, 4), st.just(-1)))
    if draw(st.booleans()):
        options["linewidth"] = draw(st.integers(1, 160))
    options["sci_mode"] = draw(st.sampled_from([None, None, True, False]))
    if draw(st.integers(0, 9)) == 0:
        name = draw(st.sampled_from(sorted(ODD_OPTIONS)))
        options[name] = draw(st.sampled_from(ODD_OPTIONS[name]))
    return options


# ------------------------------------------------------------ comparison


def outcome(render: Callable[[], str]) -> tuple[str, str]:
    try:
        return ("ok", render())
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def custom_node(x: Any, class_name: str) -> Any:
    fn = type(
        class_name,
        (torch.autograd.Function,),
        {"forward": staticmethod(lambda ctx, t: t.clone()), "backward": staticmethod(lambda ctx, g: g)},
    )
    return fn.apply(x)


def compare(
    data: np.ndarray, dtype: str, options: dict[str, Any], default64: bool, grad: str, fortran: bool = False
) -> None:
    default_dtype = "float64" if default64 else "float32"
    t = torch.from_numpy(np.array(data))
    if dtype.startswith("float") and grad != "none":
        t = t.requires_grad_(True)
        if grad == "mul":
            t = t * 1
        elif grad != "leaf":
            t = custom_node(t, grad)

    torch.set_default_dtype(TORCH_DTYPES[default_dtype])
    torch.set_printoptions(profile="default")
    torch.set_printoptions(**options)
    expected = outcome(lambda: repr(t))
    torch.set_default_dtype(torch.float32)

    reset_printoptions()
    set_printoptions(**options)
    values = t.detach().numpy()
    if fortran and values.ndim >= 2:
        values = np.asfortranarray(values)  # same values, not C-contiguous
    grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    got = outcome(
        lambda: tensor_repr(values, dtype, default_dtype=default_dtype, requires_grad=t.requires_grad, grad_fn=grad_fn)
    )
    assert got == expected, f"options={options} default={default_dtype}\n{got[1]}\n!=\n{expected[1]}"


grads = st.one_of(
    st.sampled_from(["none", "leaf", "mul"]),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", min_size=1, max_size=90),
)


@SETTINGS
@given(arrays(), print_options(), st.booleans(), grads, st.booleans())
def test_matches_torch_on_generated_tensors(
    array_and_dtype: tuple[np.ndarray, str], options: dict[str, Any], default64: bool, grad: str, fortran: bool
) -> None:
    data, dtype = array_and_dtype
    compare(data, dtype, options, default64, grad, fortran)


@settings(max_examples=40, deadline=None, database=None)
@given(
    st.sampled_from([(1500,), (1001,), (40, 40), (3, 400), (400, 3), (11, 10, 10), (4, 5, 6, 9), (2, 2, 300)]),
    st.sampled_from(["normal", "wide", "ints", "tiny", "bool", "int32"]),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["none", "mul"]),
)
def test_matches_torch_on_summarized_tensors(shape: tuple[int, ...], kind: str, seed: int, grad: str) -> None:
    rng = np.random.default_rng(seed)
    if kind == "normal":
        data, dtype = rng.standard_normal(shape).astype(np.float32), "float32"
    elif kind == "wide":
        data, dtype = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, shape), "float64"
    elif kind == "ints":
        data, dtype = rng.integers(-(10**9), 10**9, shape).astype(np.float32), "float32"
    elif kind == "tiny":
        data, dtype = (rng.standard_normal(shape) * 1e-6).astype(np.float32), "float32"
    elif kind == "bool":
        data, dtype = rng.random(shape) < 0.9, "bool"
    else:
        data, dtype = rng.integers(-(2**31), 2**31 - 1, shape, dtype=np.int32), "int32"
    compare(data, dtype, {}, False, grad)
