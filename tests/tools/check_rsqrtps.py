#!/usr/bin/env python
"""Check that this CPU's ``rsqrtps`` is the one gradcli's MKL square root assumes (kernels/vml_sqrt.py).

MKL's SSE4.2 square roots (what PyTorch 2.13 runs under MKL_CBWR=COMPATIBLE) start from ``rsqrtps``,
the SSE approximate reciprocal square root.  gradcli computes its 12-bit estimates with a formula
(``vml_sqrt.rsqrtps_estimates``: 1/sqrt of the midpoint of each interval of 2**13 floats, rounded
to 12 fraction bits), found on an Intel CPU.  This tool runs the instruction itself (a small C
program, gcc) on every positive normal float and checks both the formula's 2048 values and that
each result is one of them scaled by the exponent.  AMD's ``rsqrtps`` is known to differ; where this
check fails, PyTorch's square roots differ from gradcli's.

Run from the repository root on an x86-64 machine with gcc:

    python tests/tools/check_rsqrtps.py
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gradcli.engine.kernels.vml_sqrt import rsqrtps_estimates  # noqa: E402

C_SOURCE = r"""
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t rsqrt_bits(uint32_t b) {
    float f, r;
    memcpy(&f, &b, 4);
    r = _mm_cvtss_f32(_mm_rsqrt_ps(_mm_set1_ps(f)));
    memcpy(&b, &r, 4);
    return b;
}

/* The 2048 results for [0.5, 2) (index = the input's bits 13..23), then the number of positive
   normal floats whose result is not that entry scaled by 2**-k, x = x0 * 4**k, x0 in [0.5, 2). */
int main(void) {
    static uint32_t tab[2048];
    unsigned long long bad = 0;
    for (uint32_t i = 0; i < 2048; i++) tab[i] = rsqrt_bits(0x3f000000u + (i << 13));
    for (uint32_t b = 0x00800000u; b < 0x7f800000u; b += 4) {
        uint32_t in[4], out[4];
        __m128 v, r;
        for (int j = 0; j < 4; j++) in[j] = b + j;
        memcpy(&v, in, 16);
        r = _mm_rsqrt_ps(v);
        memcpy(out, &r, 16);
        for (int j = 0; j < 4; j++) {
            int32_t k = ((int32_t)(in[j] >> 23) - 126) >> 1;
            if (out[j] != tab[(in[j] >> 13) & 0x7ff] - (uint32_t)(k * (1 << 23))) bad++;
        }
    }
    for (int i = 0; i < 2048; i++) printf("%08x\n", tab[i]);
    printf("%llu\n", bad);
    return 0;
}
"""


def measure() -> np.ndarray:
    """The 2048 ``rsqrtps`` results (float32 bits), after checking that they serve every positive
    normal float."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "rsqrtps.c", Path(tmp) / "rsqrtps"
        src.write_text(C_SOURCE)
        subprocess.run(["gcc", "-O2", "-msse2", str(src), "-o", str(exe)], check=True)
        lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    table = np.array([int(v, 16) for v in lines[:2048]], np.uint32)
    if int(lines[2048]) != 0:
        sys.exit(f"rsqrtps is not a 2048-entry table scaled by the exponent here ({lines[2048]} misses)")
    return table


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    measured = measure()
    differ = np.nonzero(measured != rsqrtps_estimates())[0]
    if differ.size:
        sys.exit(f"rsqrtps differs from gradcli's estimates for {differ.size} of 2048 intervals "
                 f"(first: {[hex(0x3F000000 + (int(i) << 13)) for i in differ[:4]]})")
    print("rsqrtps here is gradcli's: all 2048 estimates, every positive normal float")


if __name__ == "__main__":
    main()
