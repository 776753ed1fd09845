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
import io
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gradcli.lang import Session  # noqa: E402

CASES = Path(__file__).with_name("vmap_cases.ag")


def _lines(text: str) -> dict[tuple[str, str], str]:
    found = {}
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in ("vmap", "error"):
            found[(parts[0], parts[1])] = parts[2]
    return found


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
    torch_run = subprocess.run([sys.executable, str(CASES)], capture_output=True, text=True, check=True)
    out = io.StringIO()
    outcome = Session(stdout=out).run_source(CASES.read_text(), str(CASES))
    assert outcome.exit_code == 0, out.getvalue()
    return _lines(torch_run.stdout), _lines(out.getvalue())


def test_every_case_ran_on_both_sides(outputs: tuple[dict, dict]) -> None:
    want, got = outputs
    assert sorted(got) == sorted(want)
    assert len(want) > 300


def test_values_and_errors_match(outputs: tuple[dict, dict]) -> None:
    want, got = outputs
    bad = []
    for key, value in want.items():
        if key[1] == "error":
            if got[key] != value:
                bad.append(f"{key}: gradcli {got[key]!r}, torch {value!r}")
        elif not _close(_value(value), _value(got[key])):
            bad.append(f"{key}: gradcli {got[key][:160]}, torch {value[:160]}")
    assert not bad, "\n".join(bad)
