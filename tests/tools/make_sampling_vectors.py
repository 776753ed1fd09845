#!/usr/bin/env python
"""Regenerate tests/data/sampling_vectors.json with real PyTorch.

PyTorch 2.13's own outputs for the samplers rng_vectors.json does not cover:
``multinomial`` (with and without replacement, ties among zero weights,
strided and 2-D inputs), ``exponential_``, ``cauchy_``, ``geometric_``,
``log_normal_`` and ``poisson``, each followed by ``rand(2)`` so the draw count
is checked too; and ``topk`` on rows with many ties (the order libstdc++ leaves
tied pairs in).  Read by tests/engine/test_random_sampling.py, which needs no torch.

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_sampling_vectors.py [--check]

Values are ``float.hex`` text (float32 widened exactly) or JSON integers; every
case starts from ``torch.manual_seed(seed)``.
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
OUT = ROOT / "tests" / "data" / "sampling_vectors.json"
DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "int32": torch.int32}


def _values(t: torch.Tensor) -> list:
    flat = t.reshape(-1).tolist()
    return [v.hex() if isinstance(v, float) else v for v in flat]


def _weights(rs: np.random.RandomState, shape: tuple[int, ...], dtype: str, zeros: float) -> list:
    w = rs.rand(*shape)
    w[rs.rand(*shape) < zeros] = 0
    w.reshape(-1, shape[-1])[:, 0] += 0.25  # no row sums to 0
    return [float(np.array(v, dtype=dtype)).hex() for v in w.reshape(-1)]


def multinomial_cases(rs: np.random.RandomState) -> list[dict]:
    cases = []
    for shape, n, replacement, zeros in [
            ((4,), 1, False, 0.0), ((4,), 3, False, 0.0), ((4,), 10, True, 0.0), ((5,), 5, False, 0.5),
            ((12,), 12, False, 0.7), ((3, 6), 6, False, 0.6), ((3, 6), 20, True, 0.3), ((2, 40), 30, False, 0.8),
            ((200,), 150, False, 0.95), ((3, 17), 1, True, 0.2), ((7,), 2, False, 0.0), ((1, 65), 64, False, 0.9)]:
        for dtype in ("float32", "float64"):
            cases.append({"fn": "multinomial", "seed": int(rs.randint(0, 2**31)), "shape": list(shape),
                          "dtype": dtype, "p": _weights(rs, shape, dtype, zeros), "n": n,
                          "replacement": replacement, "transpose": False})
    for dtype in ("float32", "float64"):  # a transposed (column-major) input draws in its memory order
        cases.append({"fn": "multinomial", "seed": 5, "shape": [6, 3], "dtype": dtype,
                      "p": _weights(rs, (6, 3), dtype, 0.3), "n": 2, "replacement": False, "transpose": True})
    return cases


def serial_cases(rs: np.random.RandomState) -> list[dict]:
    cases = []
    for fn, args in [("exponential_", [1.0]), ("exponential_", [3.5]), ("cauchy_", [0.0, 1.0]),
                     ("cauchy_", [2.0, 0.25]), ("geometric_", [0.3]), ("geometric_", [0.9]),
                     ("log_normal_", [1.0, 2.0]), ("log_normal_", [-0.5, 0.25])]:
        for dtype in ("float32", "float64"):
            for size in (1, 5, 40):
                cases.append({"fn": fn, "seed": int(rs.randint(0, 2**31)), "args": args, "dtype": dtype,
                              "size": size})
    cases.append({"fn": "geometric_", "seed": 3, "args": [0.05], "dtype": "int64", "size": 9})
    for dtype in ("float32", "float64"):
        for scale in (3.0, 40.0, 1e4):
            rates = rs.rand(25) * scale
            rates[::7] = 0
            cases.append({"fn": "poisson", "seed": int(rs.randint(0, 2**31)), "dtype": dtype,
                          "rates": [float(np.array(r, dtype=dtype)).hex() for r in rates]})
    return cases


def run_case(case: dict) -> list:
    torch.manual_seed(case["seed"])
    dtype = DTYPES[case["dtype"]]
    if case["fn"] == "multinomial":
        p = torch.tensor([float.fromhex(v) for v in case["p"]], dtype=dtype).reshape(case["shape"])
        if case["transpose"]:
            p = p.reshape(case["shape"][::-1]).t()
        out = torch.multinomial(p, case["n"], case["replacement"])
    elif case["fn"] == "poisson":
        out = torch.poisson(torch.tensor([float.fromhex(v) for v in case["rates"]], dtype=dtype))
    else:
        out = getattr(torch.empty(case["size"], dtype=dtype), case["fn"])(*case["args"])
    return [_values(out), _values(torch.rand(2))]


def topk_cases(rs: np.random.RandomState) -> list[dict]:
    cases = []
    for n, distinct, k in [(5, 2, 3), (17, 3, 9), (33, 2, 20), (100, 4, 1), (130, 5, 2), (300, 3, 250),
                           (64, 1, 64), (1000, 10, 15), (16, 16, 16), (4, 2, 2)]:
        for largest in (True, False):
            values = rs.randint(0, distinct, n).astype(np.float32)
            _, idx = torch.topk(torch.from_numpy(values), k, largest=largest)
            cases.append({"values": values.tolist(), "k": k, "largest": largest, "indices": idx.tolist()})
    return cases


def build() -> dict:
    rs = np.random.RandomState(20240613)
    cases = multinomial_cases(rs) + serial_cases(rs)
    for case in cases:
        case["outputs"] = run_case(case)
    return {"samplers": cases, "topk": topk_cases(rs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    args = parser.parse_args()
    reference_torch.check_version(torch)
    data = build()
    if args.check:
        if json.loads(OUT.read_text()) != data:
            sys.exit(f"{OUT} differs from what torch gives")
        print("unchanged")
        return
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(data['samplers'])} sampler cases, {len(data['topk'])} topk rows)")


if __name__ == "__main__":
    main()
