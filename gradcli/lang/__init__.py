"""The gradcli script language: grammar, compiler, builtins and the namespaces a script sees.

Public API:

* ``Session`` -- one persistent script namespace; ``run_source(text, filename, echo=...)``
  parses, compiles and runs text, reports errors, and returns an ``Outcome``
  (``exit_code`` 0, 1 for a script error, 130 when interrupted, 70 for a bug).
* ``is_complete(text)`` -- ``"complete"``, ``"incomplete"`` (ask for more lines)
  or ``"invalid"``: what a REPL needs to decide between ``>>>`` and ``...``.
"""

from gradcli.lang.runtime import Outcome, Session
from gradcli.lang.syntax import is_complete

__all__ = ["Outcome", "Session", "is_complete"]
