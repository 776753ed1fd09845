"""vmap over every family of the op table against live PyTorch 2.13 (skipped without torch).

``vmap_cases.ag`` runs ~310 functions under vmap on float64 batches -- pointwise ops, comparisons,
shapes and views, indexing, reductions, matrix products and linear algebra, losses, convolution and
pooling, in-place writes -- and prints each result with full precision, or the error.  The script
is run by PyTorch and by gradcli: values must agree to 1e-12 (relative; PyTorch's kernels on a
whole batch are not always bit for bit its kernels on one sample, nor are gradcli's), dtypes and
shapes exactly, errors exactly.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

pytest.importorskip("torch")

from case_scripts import lines_of, mismatches, run_both  # noqa: E402

CASES = Path(__file__).with_name("vmap_cases.ag")


def _value(text: str) -> object:
    for name in ("float64", "float32", "int64", "bool"):
        text = text.replace(f"torch.{name}", repr(name))
    return ast.literal_eval(text.replace("nan", "None").replace("inf", "1e999"))


def _close(a: object, b: object) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-14)
    return a == b and type(a) is type(b)


@pytest.fixture(scope="module")
def outputs() -> tuple[dict, dict]:
    want, got = run_both(CASES)
    keep = ("vmap", "error").__contains__
    return lines_of(want, keep), lines_of(got, keep)


def test_every_case_ran_on_both_sides(outputs: tuple[dict, dict]) -> None:
    want, got = outputs
    assert sorted(got) == sorted(want)
    assert len(want) > 300


def test_values_and_errors_match(outputs: tuple[dict, dict]) -> None:
    want, got = outputs
    bad = mismatches(want, got, lambda a, b: _close(_value(a), _value(b)))
    assert not bad, "\n".join(bad)
