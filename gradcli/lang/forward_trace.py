"""Where the forward pass is, as the traceback of its call: what an anomaly-mode node remembers.

PyTorch's anomaly mode keeps the Python traceback of the call that made each node and shows it
when the node fails in backward.  A script's traceback is its chain of user calls: for each
function now running (the script itself outermost), the script node it is at.
"""

from __future__ import annotations

import sys
from typing import Any

from gradcli.lang.errors import Span
from gradcli.lang.functions import UserFunction

_INVOKE = UserFunction.invoke.__code__   # (every call of a script function passes through it)

Place = tuple[tuple[str, Span], ...]


def forward_place() -> Place:
    """(function name, span) for each script function now running, outermost first."""
    from gradcli.lang.runtime import frame_span   # (runtime imports this module)
    entries: list[list] = []
    found = False      # whether the function being walked out of has its span yet
    frame: Any = sys._getframe(1)
    while frame is not None:
        if frame.f_code is _INVOKE:
            if found:
                entries[-1][0] = frame.f_locals["self"].__name__
            found = False
        elif not found:
            span = frame_span(frame)
            if span is not None:
                entries.append(["<module>", span])
                found = True
        frame = frame.f_back
    return tuple((name, span) for name, span in reversed(entries))


def describe_place(place: Place) -> str:
    """The place as Python's traceback lines (``  File "x.ag", line 4, in <module>``, the line)."""
    lines = []
    for name, span in place:
        lines.append(f'  File "{span.source.filename}", line {span.line}, in {name}\n')
        text = span.source.line(span.line).strip()
        if text:
            lines.append(f"    {text}\n")
    return "".join(lines)
