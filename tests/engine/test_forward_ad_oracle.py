"""Forward-mode AD against live PyTorch 2.13 (skipped without torch).

``forward_ad_cases.ag`` runs ~180 ops on dual float64 tensors -- every family of the op table:
pointwise, shapes and views, reductions, linear algebra, losses, convolutions and pooling, in-place
writes through views -- and prints each output's primal and tangent with full precision, or the
error.  The script is run by PyTorch and by gradcli; primals and tangents must agree to 1e-9
(relative: gradcli's tangents come from the same formulas but not always in PyTorch's order of
operations), errors exactly.
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

CASES = Path(__file__).with_name("forward_ad_cases.ag")


def _lines(text: str) -> dict[tuple[str, str], str]:
    found = {}
    for line in text.splitlines():
        name, kind, value = line.split(" ", 2)
        found[(name, kind)] = value
    return found


def _close(a: object, b: object) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))


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


def test_primals_tangents_and_errors_match(outputs: tuple[dict, dict]) -> None:
    want, got = outputs
    bad = []
    for key, value in want.items():
        if key[1] == "error":
            if got[key] != value:
                bad.append(f"{key}: gradcli {got[key]!r}, torch {value!r}")
        elif not _close(ast.literal_eval(value.replace("nan", "None")), ast.literal_eval(got[key].replace("nan", "None"))):
            bad.append(f"{key}: gradcli {got[key][:120]}, torch {value[:120]}")
    assert not bad, "\n".join(bad)
