"""Golden tests: scripts whose expected output was printed by real PyTorch.

The expected files are made by ``tests/tools/make_golden.py``; running these
tests needs no PyTorch.  Each script runs in-process in a fresh Session with
the engine's global state reset, and its whole stdout is compared (see
compare.py for the one allowance on float rounding).  A case with a ``.err``
file must fail with that error line in its diagnostics.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gradcli.engine import api
from gradcli.lang import Session

from compare import first_mismatch  # tests/golden is on sys.path (pytest rootdir-relative import)

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CASES = sorted((HERE / "cases").rglob("*.ag"))
SAMPLES = sorted((ROOT / "samples").glob("*.ag"))


def run_script(path: Path) -> tuple[str, str, int]:
    api.reset_global_state(seed=12345)
    out, err = io.StringIO(), io.StringIO()
    session = Session(stdout=out, stderr=err)
    outcome = session.run_source(path.read_text(encoding="utf-8"), str(path))
    return out.getvalue(), err.getvalue(), outcome.exit_code


def check(path: Path, expected_dir: Path) -> None:
    expected_out = (expected_dir / (path.stem + ".out")).read_text(encoding="utf-8")
    err_file = expected_dir / (path.stem + ".err")
    out, err, code = run_script(path)
    mismatch = first_mismatch(expected_out, out)
    assert mismatch is None, f"{path.name}: {mismatch}\n--- stderr ---\n{err}"
    if err_file.exists():
        want = err_file.read_text(encoding="utf-8").strip()
        assert code == 1, f"{path.name}: expected a script error, exit code {code}\n{err}"
        assert want in err, f"{path.name}: diagnostics lack {want!r}:\n{err}"
    else:
        assert code == 0, f"{path.name}: exit code {code}\n{err}"


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(HERE / "cases")) for p in CASES])
def test_case_prints_what_pytorch_printed(path: Path) -> None:
    check(path, path.parent)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_prints_what_pytorch_printed(path: Path) -> None:
    check(path, HERE / "samples")


def test_there_are_cases() -> None:
    assert len(CASES) >= 40 and len(SAMPLES) >= 6
