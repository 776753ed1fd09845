"""The tensor printer against PyTorch's own output, without PyTorch.

The golden cases (tests/data/printing_golden.json) come from
tests/tools/make_printing_golden.py (real torch 2.13); the rest pins the
print-options API and the printer's cost.
"""

from __future__ import annotations

import json
import math
import pathlib
import time
from typing import Any

import numpy as np
import pytest

from gradcli.engine.printing import (
    get_printoptions,
    printoptions,
    reset_printoptions,
    set_printoptions,
    tensor_repr,
)

GOLDEN = pathlib.Path(__file__).parents[1] / "data" / "printing_golden.json"
CASES: list[dict[str, Any]] = json.loads(GOLDEN.read_text())["cases"]

NUMPY_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "int64": np.int64,
    "int32": np.int32,
    "bool": np.bool_,
}


@pytest.fixture(autouse=True)
def _default_options() -> Any:
    reset_printoptions()
    yield
    reset_printoptions()


# ------------------------------------------------------------ golden replay


def decode_value(value: Any, dtype: str) -> Any:
    if dtype.startswith("float"):
        return float(value) if isinstance(value, int) else float.fromhex(value)
    return value


def decode_array(case: dict[str, Any]) -> np.ndarray:
    dtype, shape = case["dtype"], tuple(case["shape"])
    values = case["values"]
    if isinstance(values, dict):
        count = math.prod(shape)
        flat = np.full(count, decode_value(values["fill"], dtype), dtype=NUMPY_DTYPES[dtype])
        for index, value in values["at"]:
            flat[index] = decode_value(value, dtype)
    else:
        flat = np.array([decode_value(v, dtype) for v in values], dtype=NUMPY_DTYPES[dtype])
    array = flat.reshape(shape)
    layout = case.get("layout", "c")
    if layout == "fortran":
        array = np.asfortranarray(array)
        assert array.ndim < 2 or not array.flags.c_contiguous
    elif layout == "strided":
        # Same values, every other element of a wider buffer.
        wide = np.zeros(shape[:-1] + (2 * shape[-1],), dtype=array.dtype)
        wide[..., ::2] = array
        array = wide[..., ::2]
        assert not array.flags.c_contiguous
    return array


def decode_option(value: Any) -> Any:
    if isinstance(value, dict):
        return float.fromhex(value["float"])
    return value


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden(case: dict[str, Any]) -> None:
    array = decode_array(case)
    set_printoptions(**{k: decode_option(v) for k, v in case.get("options", {}).items()})

    def render() -> str:
        return tensor_repr(
            array,
            case["dtype"],
            default_dtype=case.get("default_dtype", "float32"),
            requires_grad=case.get("requires_grad", False),
            grad_fn=case.get("grad_fn"),
        )

    if "error" in case:
        with pytest.raises(Exception) as info:
            render()
        assert type(info.value).__name__ == case["error"]["type"]
        assert str(info.value) == case["error"]["message"]
    else:
        assert render() == case["expected"]


def test_golden_file_covers_every_dtype_rank_option_and_layout() -> None:
    names = {c["name"] for c in CASES}
    assert len(names) == len(CASES) > 500
    assert {c["dtype"] for c in CASES} == set(NUMPY_DTYPES)
    assert {len(c["shape"]) for c in CASES} >= {0, 1, 2, 3, 4}
    assert any(0 in c["shape"] for c in CASES)
    assert any(c.get("default_dtype") == "float64" for c in CASES)
    assert any("error" in c for c in CASES)
    assert any(isinstance(c["values"], dict) for c in CASES)
    assert {c.get("layout", "c") for c in CASES} == {"c", "fortran", "strided"}
    used = {k for c in CASES for k in c.get("options", {})}
    assert used == {"precision", "threshold", "edgeitems", "linewidth", "profile", "sci_mode"}


# ------------------------------------------------------------ print options

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def test_defaults_match_torch() -> None:
    assert get_printoptions() == DEFAULTS
    assert list(get_printoptions()) == list(DEFAULTS)


def test_profiles() -> None:
    set_printoptions(profile="short")
    assert get_printoptions() == {**DEFAULTS, "precision": 2, "edgeitems": 2}
    set_printoptions(profile="full")
    assert get_printoptions() == {**DEFAULTS, "threshold": math.inf}
    set_printoptions(profile="short", precision=6, linewidth=100)
    assert get_printoptions() == {**DEFAULTS, "precision": 6, "edgeitems": 2, "linewidth": 100}
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULTS


def test_unknown_profile_is_ignored_like_torch() -> None:
    set_printoptions(precision=7)
    set_printoptions(profile="verbose")
    assert get_printoptions() == {**DEFAULTS, "precision": 7}


def test_sci_mode_resets_on_any_call() -> None:
    set_printoptions(sci_mode=True)
    assert get_printoptions()["sci_mode"] is True
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None


def test_values_are_stored_unvalidated_like_torch() -> None:
    set_printoptions(precision="3", sci_mode="yes")
    assert get_printoptions() == {**DEFAULTS, "precision": "3", "sci_mode": "yes"}


def test_reset_and_get_returns_a_copy() -> None:
    set_printoptions(precision=1, threshold=5, edgeitems=1, linewidth=20, sci_mode=False)
    snapshot = get_printoptions()
    snapshot["precision"] = 9
    assert get_printoptions()["precision"] == 1
    reset_printoptions()
    assert get_printoptions() == DEFAULTS


def test_printoptions_context_restores() -> None:
    set_printoptions(precision=6)
    with printoptions(precision=2, sci_mode=True):
        assert tensor_repr(np.array([1.5], np.float32), "float32") == "tensor([1.50e+00])"
    assert get_printoptions() == {**DEFAULTS, "precision": 6}


def test_argument_errors_match_python_signature() -> None:
    with pytest.raises(TypeError, match=r"^set_printoptions\(\) got an unexpected keyword argument 'foo'$"):
        set_printoptions(foo=2)  # type: ignore[call-arg]
    with pytest.raises(
        TypeError, match=r"^set_printoptions\(\) takes from 0 to 6 positional arguments but 7 were given$"
    ):
        set_printoptions(1, 2, 3, 4, "default", True, 7)  # type: ignore[call-arg]
    set_printoptions(2)
    assert get_printoptions()["precision"] == 2


def test_options_apply_at_print_time() -> None:
    x = np.array([1 / 3, 2 / 3], np.float32)
    assert tensor_repr(x, "float32") == "tensor([0.3333, 0.6667])"
    set_printoptions(precision=2)
    assert tensor_repr(x, "float32") == "tensor([0.33, 0.67])"


# ------------------------------------------------------------ inputs


def test_unknown_dtype_is_rejected() -> None:
    with pytest.raises(ValueError, match="float16"):
        tensor_repr(np.zeros(2, np.float16), "float16")


def test_data_is_taken_in_the_named_dtype() -> None:
    # A float64 array named float32 prints its float32 values.
    assert tensor_repr(np.array([0.1]), "float32", default_dtype="float64") == (
        "tensor([0.1000], dtype=torch.float32)"
    )
    assert tensor_repr([1, 2], "int64") == "tensor([1, 2])"


def test_reversed_and_transposed_views() -> None:
    base = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert tensor_repr(base.T, "int64") == "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])"
    assert tensor_repr(base[:, ::-1], "int64") == "tensor([[2, 1, 0],\n        [5, 4, 3]])"


# ------------------------------------------------------------ cost


def test_huge_tensor_reads_only_the_edges() -> None:
    # 10**12 elements that share one buffer: touching them all would never end.
    huge = np.broadcast_to(np.float32(1.5), (10**6, 10**6))
    row = "[1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000]"
    rows = [row] * 3 + ["..."] + [row] * 3
    expected = "tensor([" + ",\n        ".join(rows) + "])"
    start = time.perf_counter()
    assert tensor_repr(huge, "float32") == expected
    assert time.perf_counter() - start < 1.0


def test_huge_tensor_with_full_profile_would_need_everything() -> None:
    # Sanity check of the test above: the edges alone decide the output.
    values = np.full((1000, 1000), 1.5, np.float32)
    values[3:-3, 3:-3] = np.nan
    assert tensor_repr(values, "float32") == tensor_repr(np.broadcast_to(np.float32(1.5), (1000, 1000)), "float32")


def test_million_elements_print_fast() -> None:
    values = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    start = time.perf_counter()
    for _ in range(10):
        tensor_repr(values, "float32", grad_fn="MulBackward0")
    assert (time.perf_counter() - start) / 10 < 0.05


def test_small_tensors_print_fast() -> None:
    small = np.array([[1.5, -2.25, 3.0], [0.1, 4.0, 5.5]], np.float32)
    start = time.perf_counter()
    for _ in range(1000):
        tensor_repr(small, "float32")
    # About 30 microseconds each on a laptop; the bound only catches blowups.
    assert (time.perf_counter() - start) / 1000 < 0.002


def test_printer_imports_only_numpy_and_stdlib() -> None:
    import ast
    import sys

    import gradcli.engine.printing as printing

    allowed = set(sys.stdlib_module_names) | {"numpy", "__future__"}
    for path in pathlib.Path(printing.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert roots <= allowed, f"{path.name} imports {roots - allowed}"
