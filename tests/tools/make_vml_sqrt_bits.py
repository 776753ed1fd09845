#!/usr/bin/env python
"""Regenerate tests/data/vml_sqrt_bits.json with real PyTorch: what its ``torch.sqrt`` (MKL VML) gives.

Read by tests/engine/test_vml_sqrt.py (no torch needed) and used by the oracle tests to tell whether
the torch they import runs MKL's reference path.  Values are bit patterns in hex (a NaN's sign is kept):

- ``float32`` / ``float64``: ``inputs`` and ``outputs`` -- the special values of vml_sqrt_cases.py,
  inputs where MKL's result is not the correctly rounded one (spread over exponents and both
  parities), float32 inputs where the standalone MKL's COMPATIBLE kernel differs from PyTorch's, and
  random bit patterns;
- ``float32_every_mantissa``: sha256 of torch.sqrt of all 2**24 floats of [0.5, 2) and how many of
  them are not correctly rounded; ``float64_sample``: the same for vml_sqrt_cases.float64_sample().

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_vml_sqrt_bits.py [--check]

``--check`` writes nothing; it lists what differs from the file and fails if anything does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import reference_torch  # noqa: E402  (before torch: MKL's reference path)

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "vml_sqrt_bits.json"
sys.path.insert(0, str(ROOT / "tests" / "engine"))

import vml_sqrt_cases as cases  # noqa: E402

PER_KIND = 48  # inputs of each kind chosen


def _torch_sqrt(x: np.ndarray) -> np.ndarray:
    return torch.sqrt(torch.from_numpy(np.ascontiguousarray(x))).numpy()


def _spread(x: np.ndarray, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """PER_KIND of ``x[where]``, evenly spaced through it, each moved to a random even exponent shift
    (MKL's square root is scale invariant by 4, so the shifted inputs keep their property)."""
    picked = x[np.nonzero(where)[0]]
    picked = picked[np.linspace(0, picked.size - 1, PER_KIND).astype(int)]
    limit = 60 if x.dtype == np.float32 else 500
    return (picked * np.float_power(4.0, rng.integers(-limit, limit, PER_KIND))).astype(x.dtype)


def float32_cases(rng: np.random.Generator) -> dict:
    x = cases.every_float32_mantissa()
    ref = _torch_sqrt(x)
    rounded = ref != np.sqrt(x)
    compatible = ref != cases.compatible_library_sqrt32(x)
    random_bits = rng.integers(0, 1 << 32, PER_KIND, dtype=np.uint64).astype(np.uint32).view(np.float32)
    inputs = np.concatenate([cases.SPECIALS32, _spread(x, rounded, rng), _spread(x, compatible & ~rounded, rng),
                             random_bits])
    return {"inputs": inputs, "outputs": _torch_sqrt(inputs),
            "every_mantissa": {"sha256": cases.digest(ref), "not_correctly_rounded": int(rounded.sum())}}


def float64_cases(rng: np.random.Generator) -> dict:
    sample = cases.float64_sample()
    ref = _torch_sqrt(sample)
    with np.errstate(invalid="ignore"):  # signalling NaNs among the sample
        rounded = (ref != np.sqrt(sample)) & ~np.isnan(ref)
    unit = (sample >= 0.5) & (sample < 2)  # shifted by up to 4**500, these stay normal
    random_bits = rng.integers(0, 1 << 64, PER_KIND, dtype=np.uint64).view(np.float64)
    inputs = np.concatenate([cases.SPECIALS64, _spread(sample, rounded & unit, rng), random_bits])
    return {"inputs": inputs, "outputs": _torch_sqrt(inputs),
            "sample": {"sha256": cases.digest(ref), "not_correctly_rounded": int(rounded.sum())}}


def _hexes(a: np.ndarray) -> list[str]:
    width = a.dtype.itemsize * 2
    return [f"{v:0{width}x}" for v in a.view(f"u{a.dtype.itemsize}").tolist()]


def build() -> dict:
    rng = np.random.default_rng(20240602)
    f32, f64 = float32_cases(rng), float64_cases(rng)
    return {
        "torch": torch.__version__,
        "float32": {"inputs": _hexes(f32["inputs"]), "outputs": _hexes(f32["outputs"])},
        "float64": {"inputs": _hexes(f64["inputs"]), "outputs": _hexes(f64["outputs"])},
        "float32_every_mantissa": f32["every_mantissa"],
        "float64_sample": f64["sample"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; list what changed")
    args = parser.parse_args()
    reference_torch.check_version(torch)
    data = build()
    text = json.dumps(data, indent=1) + "\n"
    if not args.check:
        OUT.write_text(text)
        print(f"wrote {OUT.relative_to(ROOT)}: {len(data['float32']['inputs'])} float32 and "
              f"{len(data['float64']['inputs'])} float64 cases")
        return
    old = json.loads(OUT.read_text())
    changed = [key for key in data if old.get(key) != data[key]]
    print("changed: " + ", ".join(changed) if changed else "nothing changed")
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
