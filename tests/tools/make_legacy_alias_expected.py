#!/usr/bin/env python
"""Regenerate tests/data/legacy_alias_expected.json with real PyTorch.

Evaluates every expression of tests/engine/legacy_alias_cases.py (NumPy-style
keyword aliases, torch.autograd.Variable, torch.FloatTensor and its siblings,
Tensor.type) on PyTorch 2.13 (CPU) and writes their outcomes;
tests/engine/test_legacy_and_aliases.py compares gradcli's with them.

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_legacy_alias_expected.py [--check]

``--check`` writes nothing; it lists the outcomes that differ from the file and
fails if there are any.  Format: ``{"torch": version, "aliases": {expression:
outcome}, "legacy": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import reference_torch  # noqa: E402,F401  (before torch: MKL's reference path)

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "legacy_alias_expected.json"
sys.path.insert(0, str(ROOT / "tests" / "engine"))

import legacy_alias_cases as cases  # noqa: E402


def outcomes() -> dict[str, dict[str, str]]:
    # every expression gets fresh names (some change theirs in place: t.requires_grad_())
    return {group: {e: cases.outcome(e, cases.setup(torch, torch.autograd.Variable)) for e in exprs}
            for group, exprs in (("aliases", cases.ALIASES), ("legacy", cases.LEGACY))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; list the outcomes that changed")
    args = parser.parse_args()
    reference_torch.check_version(torch)
    result = outcomes()
    if not args.check:
        OUT.write_text(json.dumps({"torch": torch.__version__, **result}, indent=1) + "\n")
        print(f"wrote {OUT.relative_to(ROOT)}: {sum(map(len, result.values()))} outcomes")
        return
    old = json.loads(OUT.read_text())
    changed = [f"{e}: {old[g].get(e)!r} -> {v!r}" for g in result for e, v in result[g].items() if old[g].get(e) != v]
    print("\n".join(changed) or "unchanged")
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
