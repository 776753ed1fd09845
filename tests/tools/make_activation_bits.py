#!/usr/bin/env python
"""Regenerate tests/data/activation_bits.json with real PyTorch.

The bits of PyTorch 2.13's CPU activations (torch.nn.functional) for a fixed set
of inputs, in the layouts that pick each path of the kernels: a contiguous
tensor whose length leaves a scalar tail (vector blocks, then the tail), every
other element of a longer one (all scalar), and rows cut from a wider matrix (a
vector part and a tail in every row).  float32 in every layout; float64 only
strided, the scalar path gradcli reproduces (its vector path is SLEEF's double
routines, which gradcli does not: see tests/engine/test_activation_rounding.py).
Values are the float's bits as hex (float32: 8 digits, float64: 16).

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_activation_bits.py [--check]

PyTorch runs on 2 threads, as gradcli assumes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import reference_torch  # noqa: E402,F401  (before torch: MKL's reference path)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "activation_bits.json"
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from activation_cases import ACTIVATIONS, LAYOUTS, bits, inputs, layout, view  # noqa: E402


def build() -> dict:
    out: dict = {"inputs": {}, "outputs": {}}
    for dtype in ("float32", "float64"):
        x = inputs(dtype)
        out["inputs"][dtype] = bits(x)
        for name, (fn, kw) in ACTIVATIONS.items():
            if dtype == "float64" and name == "logsigmoid":
                continue  # (it vectorises every element, the strided ones too)
            for kind in LAYOUTS if dtype == "float32" else ("strided",):
                y = getattr(F, fn)(view(torch, layout(x, kind), kind), **kw)
                out["outputs"][f"{name}/{dtype}/{kind}"] = bits(y.contiguous().numpy())
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
