"""Whether the torch in this process runs the vector kernels gradcli reproduces: PyTorch's AVX512 ones.

The reference outputs (the conformance corpus, the golden files) come from PyTorch on an AVX512 CPU,
and gradcli's float32 kernels reproduce that machine's (SLEEF's routines in 16-lane blocks, scalar
code on the tails).  On a CPU without AVX512 (an AMD EPYC here: AVX2, 8 lanes) live PyTorch's own
last bits differ where the tails fall, so the bit-for-bit comparisons with it skip there; the
recorded references still check gradcli on every machine.
"""

from __future__ import annotations

from typing import Any

import pytest


def only_avx512(torch: Any) -> pytest.MarkDecorator:
    return pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512",
                              reason="gradcli reproduces PyTorch's AVX512 kernels; this CPU runs another width")
