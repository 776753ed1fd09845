#!/usr/bin/env python
"""Regenerate tests/data/pow_bits.json with real PyTorch.

The bits of PyTorch 2.13's CPU ``pow`` (tensor ** tensor, tensor ** number, number ** tensor),
``atan2`` and ``hypot`` for the inputs and layouts of tests/engine/pow_cases.py, float32 and
float64.  Values are the float's bits as hex (float32: 8 digits, float64: 16); NaNs are
recorded as "nan" (their sign bits are not compared).

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_pow_bits.py [--check]

PyTorch runs on 2 threads, as gradcli assumes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import reference_torch  # noqa: E402,F401  (before torch: MKL's reference path)

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "pow_bits.json"
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from pow_cases import LAYOUTS, bits, cases, inputs  # noqa: E402


def nan_bits(a: np.ndarray) -> list[str]:
    return ["nan" if np.isnan(v) else b for v, b in zip(np.ascontiguousarray(a).reshape(-1), bits(a))]


def build() -> dict:
    out: dict = {"inputs": {}, "outputs": {}}
    for dtype in ("float32", "float64"):
        x, y = inputs(dtype)
        out["inputs"][dtype] = [bits(x), bits(y)]
        for name, fn in cases().items():
            for kind in LAYOUTS:
                out["outputs"][f"{name}/{dtype}/{kind}"] = nan_bits(fn(torch, x, y, kind).contiguous().numpy())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    args = parser.parse_args()
    reference_torch.check_version(torch)
    torch.set_num_threads(2)
    data = build()
    if args.check:
        if json.loads(OUT.read_text()) != data:
            sys.exit(f"{OUT} differs from what torch gives")
        print("unchanged")
        return
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(data['outputs'])} outputs)")


if __name__ == "__main__":
    main()
