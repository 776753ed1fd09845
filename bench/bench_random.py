"""Wall time of gradcli's randn/rand against NumPy's generator and PyTorch.

Run from the repository root:  python bench/bench_random.py [--quick]

Prints the median of several runs for 10**6 and 10**7 elements; the ratio
column is gradcli / NumPy (``default_rng().standard_normal`` / ``.random``).
PyTorch is timed too when importable.  Keep other heavy jobs off the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gradcli.engine.random import Generator, normal, uniform  # noqa: E402

try:
    import torch
except ImportError:  # the project never needs it
    torch = None


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up: first-touch page faults, lazy imports
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def cases(gen: Generator, rng: np.random.Generator) -> list[tuple[str, str, int, dict[str, Callable[[], object]]]]:
    rows = []
    for n in (10**6, 10**7):
        for dtype in ("float32", "float64"):
            impls: dict[str, Callable[[], object]] = {
                "gradcli": lambda n=n, d=dtype: normal((n,), d, generator=gen),
                "numpy": lambda n=n, d=dtype: rng.standard_normal(n, dtype=d),
            }
            if torch is not None:
                impls["torch"] = lambda n=n, d=dtype: torch.randn(n, dtype=getattr(torch, d))
            rows.append(("randn", dtype, n, impls))
        impls = {
            "gradcli": lambda n=n: uniform((n,), "float32", generator=gen),
            "numpy": lambda n=n: rng.random(n, dtype="float32"),
        }
        if torch is not None:
            impls["torch"] = lambda n=n: torch.rand(n)
        rows.append(("rand", "float32", n, impls))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    gen, rng = Generator(0), np.random.default_rng(0)
    if torch is not None:
        torch.manual_seed(0)
        torch.set_num_threads(1)  # like-for-like: NumPy and gradcli use one core
    names = ["gradcli", "numpy"] + (["torch"] if torch is not None else [])
    print(f"{'op':6} {'dtype':8} {'n':>9} " + " ".join(f"{m + ' ms':>11}" for m in names) + "  gradcli/numpy")
    for op, dtype, n, impls in cases(gen, rng):
        repeats = 3 if args.quick or n >= 10**7 else 7
        times = {name: median_ms(fn, repeats) for name, fn in impls.items()}
        cells = " ".join(f"{times[m]:11.1f}" for m in names)
        print(f"{op:6} {dtype:8} {n:9d} {cells}  {times['gradcli'] / times['numpy']:13.2f}")


if __name__ == "__main__":
    main()
