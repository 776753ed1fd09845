#!/usr/bin/env python
"""Regenerate the expected output of the golden tests with real PyTorch.

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_golden.py [-k SUBSTRING] [--check]

Every ``tests/golden/cases/<area>/<name>.ag`` is run as a Python program with
PyTorch 2.13 (CPU) -- or its twin ``<name>.torch.py`` when the case uses the
calculator shorthand, which is not Python -- in a fresh process with the
case's folder as cwd.  Its stdout goes to ``<name>.out``; if it raised,
``<name>.err`` gets one line, ``Type: first line of the message``.  The
samples in ``samples/`` are treated the same way (their expected files live
in ``tests/golden/samples/``).  ``--check`` writes nothing and lists cases
whose output changed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import reference_torch

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "golden" / "cases"
SAMPLES = ROOT / "samples"
SAMPLE_EXPECTED = ROOT / "tests" / "golden" / "samples"

TORCH_ENV = reference_torch.ENV  # (MKL's reference path)

# Appended to each program: report an uncaught exception as one line on stderr.
HARNESS = '''
import sys as _sys, runpy as _runpy, traceback as _tb
try:
    _runpy.run_path(_sys.argv[1], run_name="__main__")
except BaseException as _exc:
    _sys.stdout.flush()
    # a SyntaxError's last traceback line is its msg (str() adds the file and line)
    _text = _exc.msg if isinstance(_exc, SyntaxError) else str(_exc)
    _sys.stderr.write("@@ERROR@@" + type(_exc).__name__ + ": " + (_text.splitlines() or [""])[0] + "\\n")
    _sys.exit(1)
'''
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def program_for(case: Path, twins: Path) -> Path:
    twin = twins / (case.stem + ".torch.py")
    return twin if twin.exists() else case


def run(case: Path, expected_dir: Path, twins: Path, check: bool) -> bool:
    program = program_for(case, twins)
    proc = subprocess.run([sys.executable, "-c", HARNESS, str(program)], cwd=case.parent,
                          capture_output=True, text=True, timeout=300, env=TORCH_ENV)
    out_path = expected_dir / (case.stem + ".out")
    err_path = expected_dir / (case.stem + ".err")
    error = next((line[len("@@ERROR@@"):] for line in proc.stderr.splitlines()
                  if line.startswith("@@ERROR@@")), None)
    if proc.returncode != 0 and error is None:
        sys.exit(f"{case}: PyTorch run failed:\n{proc.stderr}")
    if check:
        old = out_path.read_text() if out_path.exists() else None
        same = old is not None and ADDRESS.sub("0x?", old) == ADDRESS.sub("0x?", proc.stdout)
        old_err = err_path.read_text().strip() if err_path.exists() else None
        if not same or old_err != error:
            print(f"changed: {case.relative_to(ROOT)}")
            return False
        return True
    expected_dir.mkdir(parents=True, exist_ok=True)
    out_path.write_text(proc.stdout)
    if error is not None:
        err_path.write_text(error + "\n")
    elif err_path.exists():
        err_path.unlink()
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", default="", help="only cases whose path contains this")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    import torch  # noqa: F401  (fail early without the oracle)
    ok = True
    for case in sorted(CASES.rglob("*.ag")):
        if args.k in str(case):
            ok &= run(case, case.parent, case.parent, args.check)
    for sample in sorted(SAMPLES.glob("*.ag")):
        if args.k in str(sample):
            ok &= run(sample, SAMPLE_EXPECTED, SAMPLE_EXPECTED, args.check)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
