#!/usr/bin/env python
"""Start-up benchmark: the whole process, gradcli against Python + PyTorch.

    python bench/startup.py [--runs N] [--python PYTHON_WITH_TORCH] [SCRIPT]

Times `gradcli run SCRIPT` and `PYTHON SCRIPT` (the same file: the samples
are valid PyTorch programs) as separate processes, interleaved so that
machine load affects both alike, and prints the medians and their ratio.
The target is a ratio of at most 0.15.  Without PyTorch only gradcli's time
is printed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SCRIPT = ROOT / "samples" / "autograd_tutorial.ag"
TARGET = 0.15


def wall_time(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr.decode()}")
    return elapsed


def has_torch(python: str) -> bool:
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("script", nargs="?", default=str(DEFAULT_SCRIPT))
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--python", default=sys.executable, help="a Python with torch 2.13 installed")
    parser.add_argument("--gradcli", default=shutil.which("gradcli") or "gradcli")
    args = parser.parse_args()

    ours_cmd = [args.gradcli, "run", args.script]
    torch_cmd = [args.python, args.script] if has_torch(args.python) else None
    wall_time(ours_cmd)  # warm the file cache and the parser-table cache
    if torch_cmd:
        wall_time(torch_cmd)
    ours, theirs = [], []
    for _ in range(args.runs):
        ours.append(wall_time(ours_cmd))
        if torch_cmd:
            theirs.append(wall_time(torch_cmd))
    g = statistics.median(ours)
    print(f"script:             {Path(args.script).name} ({args.runs} runs each, interleaved)")
    print(f"gradcli run:        median {g * 1000:7.1f} ms  (min {min(ours) * 1000:.1f})")
    if not torch_cmd:
        print("python + PyTorch:   not measured (torch is not importable with --python)")
        return
    t = statistics.median(theirs)
    ratio = g / t
    print(f"python + PyTorch:   median {t * 1000:7.1f} ms  (min {min(theirs) * 1000:.1f})")
    print(f"ratio:              {ratio:.3f}  (target <= {TARGET}: {'met' if ratio <= TARGET else 'MISSED'})")


if __name__ == "__main__":
    main()
