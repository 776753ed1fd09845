#!/usr/bin/env python
"""Measure this CPU's ``rsqrtps`` and compare it with the table gradcli's MKL square root uses.

MKL's square roots (kernels/vml_sqrt.py) start from ``rsqrtps``, the SSE approximate reciprocal
square root, and CPUs differ in it.  gradcli ships the reference CPU's (an AMD EPYC) as
gradcli/engine/kernels/rsqrtps_table.bin: 8192 results, one per interval of 2**11 floats of
[0.5, 2).  This tool runs the instruction itself (a small C program, gcc) on every positive normal
float, checks that each result is a table entry scaled by the exponent, and compares the table
with the shipped one; ``--write`` replaces the shipped one with this CPU's.  Intel's ``rsqrtps``
differs from the reference (one value per 2**13 floats, 12 fraction bits): where this check
fails, PyTorch's square roots differ from gradcli's in the last bit.

Run from the repository root on an x86-64 machine with gcc:

    python tests/tools/check_rsqrtps.py [--write]
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

from gradcli.engine.kernels import vml_sqrt  # noqa: E402

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

/* The 8192 results for [0.5, 2) (index = the input's bits 11..23), then the number of positive
   normal floats whose result is not that entry scaled by 2**-k, x = x0 * 4**k, x0 in [0.5, 2). */
int main(void) {
    static uint32_t tab[8192];
    unsigned long long bad = 0;
    for (uint32_t i = 0; i < 8192; i++) tab[i] = rsqrt_bits(0x3f000000u + (i << 11));
    for (uint32_t b = 0x00800000u; b < 0x7f800000u; b += 4) {
        uint32_t in[4], out[4];
        __m128 v, r;
        for (int j = 0; j < 4; j++) in[j] = b + j;
        memcpy(&v, in, 16);
        r = _mm_rsqrt_ps(v);
        memcpy(out, &r, 16);
        for (int j = 0; j < 4; j++) {
            int32_t k = ((int32_t)(in[j] >> 23) - 126) >> 1;
            if (out[j] != tab[(in[j] >> 11) & 0x1fff] - (uint32_t)(k * (1 << 23))) bad++;
        }
    }
    for (int i = 0; i < 8192; i++) printf("%08x\n", tab[i]);
    printf("%llu\n", bad);
    return 0;
}
"""


def measure() -> np.ndarray:
    """The 8192 ``rsqrtps`` results (float32 bits), after checking that they serve every positive
    normal float."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "rsqrtps.c", Path(tmp) / "rsqrtps"
        src.write_text(C_SOURCE)
        subprocess.run(["gcc", "-O2", "-msse2", str(src), "-o", str(exe)], check=True)
        lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    size = vml_sqrt.TABLE_SIZE
    table = np.array([int(v, 16) for v in lines[:size]], np.uint32)
    if int(lines[size]) != 0:
        sys.exit(f"rsqrtps is not a {size}-entry table scaled by the exponent here ({lines[size]} misses)")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--write", action="store_true", help="replace the shipped table with this CPU's")
    args = parser.parse_args()
    measured = measure()
    if args.write:
        path = Path(vml_sqrt.__file__).with_name(vml_sqrt.TABLE_FILE)
        path.write_bytes(measured.astype("<u4").tobytes())
        print(f"wrote this CPU's rsqrtps ({measured.size} entries) to {path.relative_to(ROOT)}")
        return
    differ = np.nonzero(measured != vml_sqrt.rsqrtps_table())[0]
    if differ.size:
        sys.exit(f"rsqrtps here differs from gradcli's table for {differ.size} of {measured.size} intervals "
                 f"(first: {[hex(0x3F000000 + (int(i) << 11)) for i in differ[:4]]})")
    print(f"rsqrtps here is gradcli's: all {measured.size} entries, every positive normal float")


if __name__ == "__main__":
    main()
