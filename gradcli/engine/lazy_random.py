"""``gradcli.engine.random``, imported on first use.

The random package loads NumPy's random module (about 10 ms), which a script
that draws no random numbers should not pay for at start-up; ``rng.normal``
and the like import it the first time they are read.
"""

from __future__ import annotations

import importlib
from typing import Any


class _LazyRandom:
    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module("gradcli.engine.random"), name)


rng = _LazyRandom()
