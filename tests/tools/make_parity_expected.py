#!/usr/bin/env python
"""Regenerate tests/data/parity_expected.json with real PyTorch.

Runs every scenario of tests/engine/parity_scenarios.py on PyTorch 2.13 (CPU),
in order and in one process, with PyTorch's warnings silenced, and writes the
outcomes it gives; tests/engine/test_pytorch_parity.py runs the same scenarios
on gradcli and compares, outcome by outcome.

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_parity_expected.py [--check]

``--check`` writes nothing; it lists the outcomes that differ from the file
and fails if there are any.

Format: ``{"torch": version, "scenarios": {name: [outcome, ...]}, "kept": [...]}``.
``kept`` lists the outcomes (see ``KEPT``) that are written as first recorded
whatever this PyTorch gives, each with the reason.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "parity_expected.json"
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from parity_scenarios import SCENARIOS  # noqa: E402

# (scenario, index of the outcome) -> (the outcome kept, why).  Each of these is
# PyTorch 2.13's outcome under some configuration but not under every one, and
# is the one gradcli gives.
KEPT: dict[tuple[str, int], tuple[str, str]] = {
    ("writes_through_views_and_expanded_tensors", 1): (
        "torch._C._LinAlgError: linalg.inv: (Batch element 0): The diagonal element 3 is zero, the inversion "
        "could not be completed because the input matrix is singular.",
        "The matrix has three equal columns. Without fused multiply-add in MKL's LU factorization (MKL_CBWR="
        "COMPATIBLE, SSE4_2 or AVX, or a CPU without FMA) its last pivot is exactly 0 and PyTorch raises this, "
        "as gradcli does. With MKL's default code path on an AVX2 or AVX-512 CPU the pivot is 8.9e-16 and "
        "linalg.inv returns a matrix with entries up to about 1.1e15 instead.",
    ),
}


def outcomes() -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for name, scenario in SCENARIOS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result[name] = scenario(torch)
    return result


def keep_recorded(result: dict[str, list[str]]) -> list[dict[str, object]]:
    kept = []
    for (name, index), (outcome, why) in KEPT.items():
        if result[name][index] != outcome:
            print(f"kept {name}[{index}]: this PyTorch gives {result[name][index]!r}", file=sys.stderr)
            result[name][index] = outcome
        kept.append({"scenario": name, "index": index, "outcome": outcome, "why": why})
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; list the outcomes that changed")
    args = parser.parse_args()
    if not torch.__version__.startswith("2.13.0"):
        sys.exit(f"needs torch 2.13.0, found {torch.__version__}")
    result = outcomes()
    kept = keep_recorded(result)
    text = json.dumps({"torch": torch.__version__, "scenarios": result, "kept": kept}, indent=1) + "\n"
    if not args.check:
        OUT.write_text(text)
        print(f"wrote {OUT.relative_to(ROOT)}: {sum(map(len, result.values()))} outcomes of {len(result)} scenarios")
        return
    old = json.loads(OUT.read_text())["scenarios"]
    changed = [f"{name}[{i}]: {old_line!r} -> {new_line!r}"
               for name in sorted(set(old) | set(result))
               for i, (old_line, new_line) in enumerate(zip(old.get(name, []), result.get(name, [])))
               if old_line != new_line]
    changed += [f"{name}: {len(old.get(name, []))} outcomes -> {len(result.get(name, []))}"
                for name in sorted(set(old) | set(result)) if len(old.get(name, [])) != len(result.get(name, []))]
    print("\n".join(changed) or "no outcome changed")
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
