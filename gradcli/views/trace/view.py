"""``--trace-backward`` on a run: the trace on stderr, the script's stdout untouched."""

from __future__ import annotations

from typing import Any

from gradcli.engine.autograd import observe
from gradcli.views.provenance import Provenance
from gradcli.views.trace.output import TraceOutput
from gradcli.views.trace.recorder import BackwardTrace


class TraceView:
    """One of ``RunViews``: watches the run from before it compiles to its end."""

    def __init__(self, no_color: bool = False) -> None:
        self.no_color = no_color
        self.provenance: Provenance | None = None
        self.tracer: BackwardTrace | None = None

    def configure(self, session_options: dict) -> None:
        """The Session is made as for a plain run (the trace goes to its stderr)."""

    def before(self, session: Any) -> None:
        from gradcli.lang.output import wants_color

        self.provenance = Provenance().start(session.context)
        stream = session.reporter.stream
        output = TraceOutput(stream, wants_color(stream, self.no_color), before_write=session.output.flush)
        self.tracer = BackwardTrace(output, lambda: self.provenance)
        observe.add_tracer(self.tracer)

    def after(self, session: Any, outcome: Any, code: int) -> int:
        if self.tracer is not None:
            observe.remove_tracer(self.tracer)
        if self.provenance is not None:
            self.provenance.stop()
        if self.tracer is not None and self.tracer.untraced:
            self.tracer.output.write(self.tracer.untraced_lines())
        if self.tracer is not None and self.tracer.passes == 0 and outcome.ok:
            self.tracer.output.write([[("--trace-backward: the script called no backward() and no "
                                        "torch.autograd.grad(), so there was nothing to trace", "note")]])
        return code
