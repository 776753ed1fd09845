"""Warnings PyTorch would print (``UserWarning: ...``), routed to the front end.

The engine never writes to stderr itself: a front end installs a handler that
knows where in the script the warning happened.  Like Python's default
filter, each distinct warning is reported once per location by the handler's
own policy; the engine just reports every occurrence.
"""

from __future__ import annotations

import sys
from typing import Callable

Handler = Callable[[str, str], None]


def _default_handler(category: str, message: str) -> None:
    sys.stderr.write(f"{category}: {message}\n")


_handler: Handler = _default_handler


def set_warning_handler(handler: Handler | None) -> None:
    """Install ``handler(category, message)``; ``None`` restores the default."""
    global _handler
    _handler = handler or _default_handler


def warn(message: str, category: str = "UserWarning") -> None:
    _handler(category, message)


_warned_once: set[str] = set()


def warn_once(message: str, category: str = "UserWarning") -> None:
    """PyTorch's TORCH_WARN_ONCE: reported the first time in a process, then never again."""
    if message not in _warned_once:
        _warned_once.add(message)
        warn(message, category)


def reset_warned_once() -> None:
    _warned_once.clear()
