"""The gradcli script language: grammar, compiler, builtins and the namespaces a script sees.

Public API:

* ``Session`` -- one persistent script namespace; ``run_source(text, filename, echo=...)``
  parses, compiles and runs text, reports errors, and returns an ``Outcome``
  (``exit_code`` 0, 1 for a script error, 130 when interrupted, 70 for a bug).
* ``is_complete(text)`` -- ``"complete"``, ``"incomplete"`` (ask for more lines)
  or ``"invalid"``: what a REPL needs to decide between ``>>>`` and ``...``.

They are loaded on first use, so importing a light submodule (``errors``,
``diagnostics``) does not pull in the parser and the engine.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Outcome", "Session", "is_complete"]


def __getattr__(name: str) -> Any:
    if name in ("Outcome", "Session"):
        from gradcli.lang import runtime
        return getattr(runtime, name)
    if name == "is_complete":
        from gradcli.lang.syntax import is_complete
        return is_complete
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
