"""Is an entry finished?  ``gradcli.lang.is_complete``, with two REPL rules on block bodies.

1. A block header at the very end of a nested block (``while c:`` then
   ``    if n:``) still needs its body: ask for more.  (``is_complete`` now
   answers so itself; the rule stays as a guard.)
2. An empty line right after a header that has no body yet ends the entry,
   and the run reports the IndentationError, as Python's REPL does, instead
   of asking for more forever.
"""

from __future__ import annotations

from typing import Literal

Completeness = Literal["complete", "incomplete", "invalid"]


def completeness(text: str) -> Completeness:
    from gradcli.lang.syntax import is_complete, parse
    from gradcli.lang.errors import ScriptSyntaxError

    state = is_complete(text)
    if state == "complete":
        return state
    try:
        parse(text)
    except ScriptSyntaxError as error:
        if not _missing_body_at_end(text, error):
            return state
    else:
        return state   # valid so far: a block waiting for its closing blank line
    lines = text.split("\n")
    return "invalid" if len(lines) > 1 and not lines[-1].strip() else "incomplete"


def _missing_body_at_end(text: str, error: Exception) -> bool:
    """The error is "expected an indented block" and nothing but blanks follow where it points."""
    if getattr(error, "kind", "") != "IndentationError":
        return False
    if not str(getattr(error, "message", "")).startswith("expected an indented block"):
        return False
    lines = text.split("\n")
    index = error.line - 1
    rest = [lines[index][error.column - 1:]] if 0 <= index < len(lines) else []
    return all(not line.strip() for line in rest + lines[index + 1:])
