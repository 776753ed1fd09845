"""Print options shared by every tensor repr, with torch.set_printoptions semantics."""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any


@dataclasses.dataclass
class PrintOptions:
    """The five knobs torch keeps in ``torch._tensor_str.PRINT_OPTS``.

    Fields are typed ``Any`` on purpose: torch stores whatever it is given and
    only fails (with Python's own error) when a tensor is printed.
    """

    precision: Any = 4
    threshold: Any = 1000
    edgeitems: Any = 3
    linewidth: Any = 80
    sci_mode: Any = None


# The live options; the printer reads them on every call.
OPTIONS = PrintOptions()

# (precision, threshold, edgeitems, linewidth) per profile, checked in torch's order.
_PROFILES: tuple[tuple[str, tuple[Any, Any, Any, Any]], ...] = (
    ("default", (4, 1000, 3, 80)),
    ("short", (2, 1000, 2, 80)),
    ("full", (4, math.inf, 3, 80)),
)


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change the print options exactly like ``torch.set_printoptions``.

    A profile is applied first, then any explicit option overrides it. An
    unknown profile is ignored and nothing is validated here (torch does the
    same; a bad value raises when a tensor is printed). ``sci_mode`` is always
    assigned, so any call without it returns to automatic scientific mode.
    """
    if profile is not None:
        for name, values in _PROFILES:
            if profile == name:
                (
                    OPTIONS.precision,
                    OPTIONS.threshold,
                    OPTIONS.edgeitems,
                    OPTIONS.linewidth,
                ) = values
                break
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options as a new dict (keys and values as torch returns them)."""
    return dataclasses.asdict(OPTIONS)


def reset_printoptions() -> None:
    """Back to the defaults, ``sci_mode`` included (for tests and the REPL's :reset)."""
    defaults = PrintOptions()
    for field in dataclasses.fields(PrintOptions):
        setattr(OPTIONS, field.name, getattr(defaults, field.name))


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the options (torch._tensor_str.printoptions)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)
