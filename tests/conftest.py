"""Set-up for every test: where a test compares with PyTorch, PyTorch runs as the reference did.

The reference outputs were made with ``MKL_CBWR=COMPATIBLE`` (tests/tools/reference_torch.py), which
changes the last bits of MKL's square roots and matrix products.  MKL reads the variable once, so it
is set here, before any test module imports torch; a value set by the caller is kept (the oracle tests
check what torch really does: tests/engine/mkl_reference.py).
"""

from __future__ import annotations

import os

os.environ.setdefault("MKL_CBWR", "COMPATIBLE")
