"""Run a script once and make its report page: the script, its output, the error, the final
variables, and, from the other views, the backward graph, the backward trace and the plots.

A part whose view is not installed is left out of the page (never shown empty); a part that
fails to draw is replaced by a note saying so, so one bad picture does not cost the page.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, TextIO

from gradcli.views.json_output import Diagnostics, run_document
from gradcli.views.report.page import Section, escape, render_page
from gradcli.views.report.parts import PAGE_ORDER, available_parts
from gradcli.views.report.sections import (diagnostics_section, output_section, script_section,
                                            variables_section)
from gradcli.views.script_run import KeptStream, ViewRun, run_for_view


@dataclass
class ReportPage:
    """The finished page and what the run ended with."""
    html: str
    exit_code: int
    run: ViewRun
    sections: list[Section]


def build_report(text: str, filename: str, *, stderr: TextIO | None = None, **options: Any) -> ReportPage:
    """Run ``text`` (its diagnostics also go to ``stderr``, as a run's do) and make the page."""
    diagnostics_text = KeptStream(stderr if stderr is not None else sys.stderr)
    watching: dict[str, Any] = {"provenance": None, "printed": lambda: 0}
    diagnostics = Diagnostics(lambda: watching["printed"]())
    parts = available_parts()

    def prepare(session: Any, provenance: Any) -> None:
        session.reporter.listener = diagnostics.heard
        stream = session.output.stream         # the view run's stdout (it keeps what it is given)
        watching["printed"] = lambda: stream.kept.getvalue().count("\n")
        watching["provenance"] = provenance

    started = []
    try:
        for part in parts:
            part.start(lambda: watching["provenance"])
            started.append(part)
        run = run_for_view(text, filename, stderr=diagnostics_text, prepare=prepare, **options)
    finally:
        for part in reversed(started):
            part.stop()
    status, code = run.outcome.status, run.outcome.exit_code
    drawn = {part.id: _drawn(part, run) for part in parts}
    sections = [section for section in (
        diagnostics_section(diagnostics.error, diagnostics.warnings),
        script_section(text, diagnostics.error, diagnostics.warnings, lines_that_made_nodes(run)),
        output_section(run.printed, diagnostics_text.kept.getvalue()),
        *[drawn.get(name) for name in PAGE_ORDER],
        variables_section(run.session.globals),
    ) if section is not None]
    document = run_document(filename, status, code, run.printed, diagnostics.warning_data,
                            diagnostics.error_data, run.session.globals)
    return ReportPage(render_page(filename, status, code, sections, document), code, run, sections)


def lines_that_made_nodes(run: ViewRun) -> dict[int, list[str]]:
    """Line of the script -> the names of the backward nodes it made that are still alive
    (AccumulateGrad is a leaf's, not a line's: left out)."""
    made: dict[int, list[str]] = {}
    for reference, origin in list(run.provenance.origins.values()):
        node = reference()
        span = origin.span
        if node is None or span is None or span.source.filename != run.filename:
            continue
        name = type(node).__name__
        if name != "AccumulateGrad":
            made.setdefault(span.line, []).append(name)
    return made


def _drawn(part: Any, run: ViewRun) -> Section | None:
    try:
        return part.section(run)
    except Exception as error:  # a view's bug: the rest of the page still helps
        return Section(part.id, part.title,
                       f'<p class="note">This part could not be drawn: {escape(type(error).__name__)}: '
                       f"{escape(str(error))} (a bug in gradcli).</p>")

