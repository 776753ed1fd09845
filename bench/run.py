#!/usr/bin/env python
"""The issue-13 benchmark: gradcli against Python + PyTorch on bench/workloads/*.ag.

    python bench/run.py [--rounds N] [--only NAME[,NAME]] [--python PYTHON_WITH_TORCH]
                        [--gradcli CMD] [--json FILE]

Smoke check (a few seconds):  python bench/run.py --rounds 1 --only tutorial

The in-process gradcli run imports ``gradcli`` in this Python: from a checkout
that is not installed, set ``PYTHONPATH`` to it (and pass ``--gradcli`` if the
``gradcli`` command beside this Python is another copy).  A full run with the
default 5 rounds takes about a quarter of an hour, most of it million_nodes.

Every workload is a script that is also valid PyTorch.  Each round runs, for
every workload and interleaved so that machine load affects both alike:

* whole-process: ``gradcli run FILE`` and ``PYTHON FILE``, with the peak RSS of
  each process (``os.wait4``);
* after start-up: the same script run inside one process once the imports are
  done - gradcli through ``gradcli.lang.runtime.Session`` (in this Python, with
  the engine and ``torch.nn``/``torch.optim`` loaded and the parser built),
  PyTorch by ``exec`` of the file after ``import torch``.  Both timings include
  parsing/compiling the script.

The table gives medians over the rounds, gradcli / PyTorch ratios and the
goals of issue 13.  It also says when a workload's stdout differs between the
two (object addresses aside).  Without PyTorch only gradcli's columns are
filled.  Keep other heavy jobs off the machine while it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS_DIR = Path(__file__).resolve().parent / "workloads"
SECONDS_TAG = "BENCH_SECONDS="
GRADCLI_COLUMNS = (0, 1, 4, 5, 8)  # the table's columns that need no PyTorch


@dataclass(frozen=True)
class Goal:
    """Issue 13's targets: gradcli / PyTorch, whole-process and after start-up."""

    whole: float | None = None
    after_startup: float | None = None

    def describe(self) -> str:
        parts = [f"<= {self.whole:.2f}"] if self.whole is not None else []
        if self.after_startup is not None:
            parts.append(f"after <= {self.after_startup:.1f}")
        return ", ".join(parts) or "-"


GOALS: dict[str, Goal] = {
    "tutorial": Goal(0.07),
    "polynomial": Goal(0.50),
    "mlp_small": Goal(0.40, 1.3),
    "matmul_big": Goal(0.25, 1.1),
    "deep_chain": Goal(0.30),
    "nn_train": Goal(0.50),
    "million_nodes": Goal(),
}

# In-process runners: argv[1] is the script; the last stdout line is SECONDS_TAG + seconds.
GRADCLI_IN_PROCESS = f"""
import io, os, sys, time
from gradcli.engine import api
from gradcli.lang.runtime import Session
from gradcli.lang.syntax import prepare
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
Session(stdout=io.StringIO()).run_source("import torch\\nfrom torch import nn, optim\\n", "<warm-up>")
prepare(text)
session = Session(stdout=open(os.devnull, "w"))
start = time.perf_counter()
outcome = session.run_source(text, path)
elapsed = time.perf_counter() - start
if outcome.exit_code:
    sys.exit(outcome.exit_code)
print("{SECONDS_TAG}%r" % elapsed)
"""

TORCH_IN_PROCESS = f"""
import contextlib, os, sys, time
import torch
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
start = time.perf_counter()
with contextlib.redirect_stdout(open(os.devnull, "w")):
    exec(compile(text, path, "exec"), {{"__name__": "__main__", "__file__": path}})
elapsed = time.perf_counter() - start
print("{SECONDS_TAG}%r" % elapsed)
"""


@dataclass
class ProcessRun:
    seconds: float
    peak_mb: float
    stdout: str


@dataclass
class Samples:
    """One tool's measurements of one workload, a value per round."""

    whole: list[float] = field(default_factory=list)
    after_startup: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)

    def median(self, name: str) -> float | None:
        values = getattr(self, name)
        return statistics.median(values) if values else None


@dataclass
class Result:
    workload: str
    gradcli: Samples = field(default_factory=Samples)
    torch: Samples | None = None
    stdout_differs: bool = False


# ------------------------------------------------------------------ running
def run_process(cmd: list[str], cwd: str | None = None) -> ProcessRun:
    """Run ``cmd`` to its end: wall time, peak RSS (from ``os.wait4``) and stdout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.read().decode(errors='replace')}")
        # ru_maxrss is in kilobytes on Linux
        return ProcessRun(elapsed, usage.ru_maxrss / 1024, out.read().decode(errors="replace"))


def in_process_seconds(python: str, runner: str, script: Path) -> float:
    """The script's run time inside one already started process."""
    # (not from this folder: `python -c` would import the checkout beside it, not the gradcli
    # installed for that Python)
    stdout = run_process([python, "-c", runner, str(script)], cwd=tempfile.gettempdir()).stdout
    tagged = [line for line in stdout.splitlines() if line.startswith(SECONDS_TAG)]
    if not tagged:
        sys.exit(f"no timing from the in-process run of {script.name}:\n{stdout}")
    return float(tagged[-1].removeprefix(SECONDS_TAG))


def same_output(ours: str, theirs: str) -> bool:
    """Equal stdout, object addresses (``<AddBackward0 object at 0x...>``) aside."""
    def mask(text: str) -> str:
        return re.sub(r" at 0x[0-9a-fA-F]+", " at 0x?", text)
    return mask(ours) == mask(theirs)


def measure_round(script: Path, result: Result, gradcli: str, python: str | None) -> None:
    """One interleaved round of one workload: whole-process, then after start-up."""
    ours = run_process([gradcli, "run", str(script)])
    result.gradcli.whole.append(ours.seconds)
    result.gradcli.peak_mb.append(ours.peak_mb)
    if python is not None and result.torch is not None:
        theirs = run_process([python, str(script)])
        result.torch.whole.append(theirs.seconds)
        result.torch.peak_mb.append(theirs.peak_mb)
        result.stdout_differs |= not same_output(ours.stdout, theirs.stdout)
    result.gradcli.after_startup.append(in_process_seconds(sys.executable, GRADCLI_IN_PROCESS, script))
    if python is not None and result.torch is not None:
        result.torch.after_startup.append(in_process_seconds(python, TORCH_IN_PROCESS, script))


def warm_up(gradcli: str, python: str | None) -> None:
    """Fill the file cache and gradcli's parser cache before anything is timed."""
    script = WORKLOADS_DIR / "tutorial.ag"
    run_process([gradcli, "run", str(script)])
    if python is not None:
        run_process([python, str(script)])


# ------------------------------------------------------------------ report
def ratio(ours: float | None, theirs: float | None) -> float | None:
    return ours / theirs if ours is not None and theirs else None


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def goal_cell(goal: Goal, whole: float | None, after: float | None) -> str:
    """The goal, and whether it is met when PyTorch was measured."""
    checks = [(goal.whole, whole), (goal.after_startup, after)]
    judged = [(target, got) for target, got in checks if target is not None and got is not None]
    if not judged:
        return goal.describe()
    met = all(got <= target for target, got in judged)
    return f"{goal.describe()} ({'met' if met else 'missed'})"


def table_rows(results: list[Result]) -> list[list[str]]:
    header = ["workload", "gradcli s", "torch s", "ratio", "goal", "gradcli after start-up",
              "torch after start-up", "ratio", "peak MB gradcli", "peak MB torch"]
    rows = [header]
    for result in results:
        theirs = result.torch or Samples()
        whole = ratio(result.gradcli.median("whole"), theirs.median("whole"))
        after = ratio(result.gradcli.median("after_startup"), theirs.median("after_startup"))
        rows.append([
            result.workload + (" *" if result.stdout_differs else ""),
            fmt(result.gradcli.median("whole"), 3), fmt(theirs.median("whole"), 3), fmt(whole),
            goal_cell(GOALS.get(result.workload, Goal()), whole, after),
            fmt(result.gradcli.median("after_startup"), 3), fmt(theirs.median("after_startup"), 3),
            fmt(after), fmt(result.gradcli.median("peak_mb"), 0), fmt(theirs.median("peak_mb"), 0),
        ])
    return rows


def print_table(results: list[Result], rounds: int) -> None:
    """A Markdown table (it goes in the README as it is)."""
    rows = table_rows(results)
    if all(result.torch is None for result in results):
        rows = [[row[i] for i in GRADCLI_COLUMNS] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print(f"medians of {rounds} round(s); ratio = gradcli / PyTorch (lower is better)")
    print("\n".join(lines))
    if any(result.stdout_differs for result in results):
        print("* stdout differs between gradcli and PyTorch (object addresses aside)")


# ------------------------------------------------------------------ main
def find_gradcli() -> str:
    beside = Path(sys.executable).with_name("gradcli")
    return str(beside) if beside.exists() else shutil.which("gradcli") or "gradcli"


def has_torch(python: str) -> bool:
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def workloads(only: str | None) -> list[Path]:
    scripts = {path.stem: path for path in sorted(WORKLOADS_DIR.glob("*.ag"))}
    order = [name for name in GOALS if name in scripts] + [name for name in scripts if name not in GOALS]
    if only is None:
        return [scripts[name] for name in order]
    wanted = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in scripts]
    if unknown:
        sys.exit(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(order)}")
    return [scripts[name] for name in wanted]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--only", help="comma-separated workload names")
    parser.add_argument("--python", default=sys.executable, help="a Python with torch 2.13 (default: this one)")
    parser.add_argument("--gradcli", default=find_gradcli(), help="the gradcli command")
    parser.add_argument("--json", type=Path, help="also save the raw results here")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    scripts = workloads(args.only)
    python = args.python if has_torch(args.python) else None
    if python is None:
        print(f"PyTorch is not importable with {args.python}: gradcli's columns only", file=sys.stderr)
    results = [Result(script.stem, torch=Samples() if python else None) for script in scripts]
    warm_up(args.gradcli, python)
    for round_number in range(1, args.rounds + 1):
        for script, result in zip(scripts, results):
            print(f"round {round_number}/{args.rounds}: {script.stem}", file=sys.stderr, flush=True)
            measure_round(script, result, args.gradcli, python)
    print_table(results, args.rounds)
    if args.json:
        args.json.write_text(json.dumps({"rounds": args.rounds, "results": [asdict(r) for r in results]},
                                        indent=2) + "\n")


if __name__ == "__main__":
    main()
