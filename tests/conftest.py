"""Set-up for every test: where a test compares with PyTorch, PyTorch runs as the reference did.

The reference outputs were made with ``MKL_CBWR=COMPATIBLE`` (tests/tools/reference_torch.py), which
changes the last bits of MKL's square roots and matrix products.  MKL reads the variable once, so it
is set here, before any test module imports torch; a value set by the caller is kept (the oracle tests
check what torch really does: tests/engine/mkl_reference.py).

Hypothesis runs without its per-example deadline: speed is bench/'s to check, and on a loaded
machine the first example (which imports what a kernel needs) can take a second.
"""

from __future__ import annotations

import os

os.environ.setdefault("MKL_CBWR", "COMPATIBLE")

try:
    from hypothesis import settings
except ImportError:   # (the test extras bring it; without them only the hypothesis tests fail)
    pass
else:
    settings.register_profile("gradcli", deadline=None)
    settings.load_profile("gradcli")


def pytest_addoption(parser) -> None:
    """The fuzzer's options (tests/fuzz): a nightly-size run, its seed, its size, where failures go."""
    group = parser.getgroup("fuzz", "gradcli's fuzzer (tests/fuzz)")
    group.addoption("--fuzz-long", action="store_true", default=False,
                    help="run the nightly-size fuzz campaign (100 000 programs) instead of the CI one (5 000)")
    group.addoption("--fuzz-seed", type=int, default=None,
                    help="the fuzzer's seed (default: a fixed one, so a CI run is reproducible)")
    group.addoption("--fuzz-count", type=int, default=None, help="how many programs the campaign runs")
    group.addoption("--fuzz-jobs", type=int, default=None, help="worker processes (default: 2)")
    group.addoption("--fuzz-out", default=None,
                    help="directory for the programs of new failures (default: pytest's temporary directory)")
