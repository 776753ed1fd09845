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

Format: ``{"torch": version, "scenarios": {name: [outcome, ...]}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import reference_torch  # noqa: E402,F401  (before torch: MKL's reference path)

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "parity_expected.json"
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from parity_scenarios import SCENARIOS  # noqa: E402

def outcomes() -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for name, scenario in SCENARIOS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result[name] = scenario(torch)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; list the outcomes that changed")
    args = parser.parse_args()
    reference_torch.check_version(torch)
    result = outcomes()
    text = json.dumps({"torch": torch.__version__, "scenarios": result}, indent=1) + "\n"
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
