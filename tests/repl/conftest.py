from __future__ import annotations

import pytest

from repl_helpers import Captured


@pytest.fixture
def repl() -> Captured:
    """A fresh REPL console whose output is captured."""
    return Captured()
