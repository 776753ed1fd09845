#!/usr/bin/env python
"""Regenerate tests/data/float32_bits.json with real PyTorch.

The float32 results whose last bits depend on how PyTorch's CPU kernels
compute them, as ``float.hex`` text:

- ``sleef``: sigmoid of ``INPUTS`` (a whole vector block, and the first 7
  elements alone, which take the scalar path), and softmax and log_softmax
  over the last dim of ``INPUTS`` as a 4x8 matrix; read by
  tests/engine/test_transcendental.py.  The inputs include values where
  SLEEF's ``expf_u10`` differs from the correctly rounded exp.
- ``matmul_order``: products whose summation order is known (a row times a
  matrix, mv, and the column product of the polynomial tutorial); read by
  tests/engine/test_matmul_order.py, which builds the same tensors in gradcli.

Run from the repository root with a Python that has torch==2.13.0 installed:

    python tests/tools/make_float32_bits.py [--check]

``--check`` writes nothing; it lists the values that differ from the file and
fails if there are any.  PyTorch runs on 2 threads, as gradcli assumes; the
sleef values are those of PyTorch's AVX512 kernels.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import reference_torch  # noqa: E402,F401  (before torch: MKL's reference path)

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "float32_bits.json"

INPUTS = [
    '-0x1.d9999a0000000p+1', '-0x1.06516e0000000p-1', '0x0.0p+0', '0x1.62eb1c0000000p-2',
    '0x1.0000000000000p+0', '0x1.4000000000000p+1', '0x1.c800000000000p+2', '-0x1.8000000000000p+3',
    '0x1.62e42a0000000p-1', '0x1.3800000000000p+4', '-0x1.5c00000000000p+6', '0x1.6200000000000p+6',
    '0x1.ee086a0000000p-3', '-0x1.10e9ba0000000p+3', '-0x1.7ff6340000000p+2', '-0x1.2609760000000p+4',
    '0x1.f304a20000000p+3', '0x1.29d8c20000000p+4', '-0x1.518e6a0000000p+3', '0x1.e0d9200000000p+2',
    '0x1.176ffe0000000p+3', '-0x1.27ba340000000p+4', '0x1.1ccf540000000p+3', '0x1.b5f9f60000000p+3',
    '0x1.ae52ae0000000p-2', '-0x1.ecd3800000000p+3', '0x1.3fccc40000000p+4', '0x1.14aa080000000p+0',
    '0x1.d6e88c0000000p+3', '0x1.2559840000000p+4', '-0x1.39027a0000000p+3', '-0x1.1b72cc0000000p+4',
]

def hexes(t: torch.Tensor) -> list[str]:
    return [float(v).hex() for v in t.reshape(-1).tolist()]


def sleef() -> dict[str, list[str]]:
    x = torch.tensor([float.fromhex(h) for h in INPUTS], dtype=torch.float32)
    return {
        "inputs": hexes(x),
        "sigmoid": hexes(torch.sigmoid(x)),
        "sigmoid_of_first_7": hexes(torch.sigmoid(x[:7])),
        "softmax_4x8": hexes(torch.softmax(x.reshape(4, 8), -1)),
        "log_softmax_4x8": hexes(torch.log_softmax(x.reshape(4, 8), -1)),
    }


def matmul_order() -> dict[str, list[str]]:
    torch.manual_seed(0)
    row, m, a, v = torch.randn(1, 37), torch.randn(37, 5), torch.randn(6, 3), torch.randn(3)
    x = torch.linspace(-math.pi, math.pi, 2000)
    xx = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))
    w = torch.tensor([[0.8571], [-0.0476], [-0.0919]])
    return {
        "row_times_matrix": hexes(torch.matmul(row, m)[0]),
        "mv": hexes(torch.mv(a, v)),
        "polynomial_column": hexes(torch.matmul(xx, w)[:8, 0]),
    }


def flat(data: dict[str, dict[str, list[str]]]) -> dict[str, str]:
    return {f"{section}.{name}[{i}]": value
            for section, lists in data.items() for name, values in lists.items() for i, value in enumerate(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; list the values that changed")
    args = parser.parse_args()
    reference_torch.check_version(torch)
    torch.set_num_threads(2)
    if torch.backends.cpu.get_cpu_capability() != "AVX512":
        print(f"warning: PyTorch dispatches to {torch.backends.cpu.get_cpu_capability()} here; the sleef values "
              "were recorded with AVX512", file=sys.stderr)
    data = {"sleef": sleef(), "matmul_order": matmul_order()}
    text = json.dumps({"torch": torch.__version__, **data}, indent=1) + "\n"
    if not args.check:
        OUT.write_text(text)
        print(f"wrote {OUT.relative_to(ROOT)}: {len(flat(data))} values")
        return
    old = json.loads(OUT.read_text())
    old_values = flat({section: old[section] for section in data})
    new_values = flat(data)
    changed = [f"{key}: {old_values.get(key)} -> {new_values.get(key)}"
               for key in sorted(set(old_values) | set(new_values)) if old_values.get(key) != new_values.get(key)]
    print("\n".join(changed) or "no value changed")
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
