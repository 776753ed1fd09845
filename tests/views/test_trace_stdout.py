"""The trace never changes what a script prints: stdout with ``--trace-backward`` is the stdout of
a plain run, byte for byte (object addresses aside, which differ from run to run), on every
golden case and sample that calls backward() or autograd.grad(); and the exit status is the same."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from trace_helpers import GOLDEN, ROOT, masked, run_file

_CALLS = re.compile(r"\.backward\(|autograd\.grad\(|autograd\.backward\(")
CASES = sorted(p for p in (ROOT / "tests" / "golden" / "cases").rglob("*.ag")
               if _CALLS.search(p.read_text(encoding="utf-8")))
SAMPLES = sorted(p for p in (ROOT / "samples").glob("*.ag") if _CALLS.search(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", CASES + SAMPLES, ids=[str(p.relative_to(ROOT)) for p in CASES + SAMPLES])
def test_stdout_is_unchanged_by_the_trace(path: Path) -> None:
    plain_out, plain_err, plain_code = run_file(path, trace=False)
    out, err, code = run_file(path)
    assert masked(out) == masked(plain_out)
    assert code == plain_code
    # what a plain run reports on stderr is still there, in its order (a warning raised inside
    # the backward pass, as anomaly mode's, comes among the trace's lines of that pass)
    assert _in_order(masked(plain_err).splitlines(), masked(err).splitlines())
    assert "── backward pass 1" in err or "── autograd.grad pass 1" in err or code != 0


def _in_order(wanted: list[str], lines: list[str]) -> bool:
    rest = iter(lines)
    return all(any(line == have for have in rest) for line in wanted)


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 40 and len(SAMPLES) >= 6


def _gradcli(*args: str) -> subprocess.CompletedProcess:
    import os
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)


def test_the_command_line_flag_on_run_and_eval() -> None:
    plain = _gradcli("run", "samples/autograd_tutorial.ag")
    traced = _gradcli("run", "--trace-backward", "samples/autograd_tutorial.ag")
    assert traced.returncode == plain.returncode == 0
    assert masked(traced.stdout) == masked(plain.stdout)
    # on a pipe: plain text, the golden trace
    assert traced.stderr == (GOLDEN / "autograd_tutorial.txt").read_text(encoding="utf-8")
    code = "import torch; x = torch.tensor(2.0, requires_grad=True); (x * x).backward(); x.grad"
    evaluated = _gradcli("eval", "--trace-backward", code)
    assert evaluated.returncode == 0 and evaluated.stdout == "tensor(4.)\n"
    assert "    x.grad    None → 4\n" in evaluated.stderr and "    x.grad = 2·" in evaluated.stderr
