"""The views that accompany a plain ``gradcli run``/``eval``: ``--trace-backward`` and ``--json``.

Each view may change how the Session is made (``--json`` keeps stdout for its document), set
itself up on the Session before the script runs, and have the last word on the exit status.
The script's own stdout is untouched by the trace, which writes to stderr.
"""

from __future__ import annotations

from typing import Any


class RunViews:
    """The views asked for on the command line, in the order they apply."""

    def __init__(self, *, trace_backward: bool = False, json: bool = False, no_color: bool = False,
                 filename: str | None = None) -> None:
        self.views: list[Any] = []
        if trace_backward:
            from gradcli.views.trace import TraceView
            self.views.append(TraceView(no_color=no_color))
        if json:
            from gradcli.views.json_output import JsonView
            self.views.append(JsonView(filename))

    def configure(self, session_options: dict) -> None:
        """Change the keyword arguments the Session will be made with."""
        for view in self.views:
            view.configure(session_options)

    def before(self, session: Any) -> None:
        """Set up on the Session (before the script is compiled: provenance hears assignments)."""
        for view in self.views:
            view.before(session)

    def after(self, session: Any, outcome: Any) -> int:
        """Finish (write the document, stop watching); the exit status."""
        code = outcome.exit_code
        for view in self.views:
            code = view.after(session, outcome, code)
        return code
