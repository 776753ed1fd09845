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
import math
from pathlib import Path

import pytest

pytest.importorskip("torch")

from case_scripts import lines_of, mismatches, run_both  # noqa: E402

CASES = Path(__file__).with_name("forward_ad_cases.ag")


def _lines(text: str) -> dict[tuple[str, str], str]:
    return lines_of(text)


def _close(a: object, b: object) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))


@pytest.fixture(scope="module")
def outputs() -> tuple[dict, dict]:
    want, got = run_both(CASES)
    return _lines(want), _lines(got)


def test_every_case_ran_on_both_sides(outputs: tuple[dict, dict]) -> None:
    want, got = outputs
    assert sorted(got) == sorted(want)
    assert len(want) > 300


def test_primals_tangents_and_errors_match(outputs: tuple[dict, dict]) -> None:
    want, got = outputs
    bad = mismatches(want, got, lambda a, b: _close(ast.literal_eval(a.replace("nan", "None")),
                                                    ast.literal_eval(b.replace("nan", "None"))))
    assert not bad, "\n".join(bad)
