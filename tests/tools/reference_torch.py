"""The PyTorch every expected value in tests/ comes from: torch 2.13.0 (CPU), set up as the reference was.

The reference outputs (the corpus gradcli is held to) were made by a PyTorch
whose MKL took its code path without fused multiply-adds; ``MKL_CBWR=COMPATIBLE``
selects that path on any CPU, so the last bits of matrix products and LU
factorisations come out as there.  Import this module before torch (it sets
the variable for this process) and pass ``ENV`` to a torch subprocess.
"""

from __future__ import annotations

import os
import sys

VERSION = "2.13.0"
os.environ.setdefault("MKL_CBWR", "COMPATIBLE")
ENV = dict(os.environ)


def check_version(torch: object) -> None:
    """Stop unless ``torch`` is the reference version."""
    version = getattr(torch, "__version__", "")
    if not version.startswith(VERSION):
        sys.exit(f"needs torch {VERSION}, found {version}")
