"""``gradcli run --json`` / ``eval --json``: one JSON document on stdout instead of the output.

The document holds what the script printed (as lines, in order), the warnings and the error
as data, how the run ended and its exit status, and the final variables.  Its JSON Schema is
``json_schema.json`` beside this module.  The diagnostics are still written on stderr as text,
as in a plain run: a tool reads stdout, a person watching sees stderr.  The exit status is the
plain run's.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any, Callable, TextIO

import gradcli
from gradcli.lang.diagnostics import Report

FORMAT = "gradcli-run"
FORMAT_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("json_schema.json")
NON_FINITE = ("nan", "inf", "-inf")     # how the document writes floats JSON has no number for


class CapturedOutput(io.TextIOBase):
    """The script's stdout, kept; writes after ``close_run`` are dropped (a ``__repr__`` of the
    script that prints while its variables are described)."""

    def __init__(self) -> None:
        self.kept = io.StringIO()
        self.open = True

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.open:
            self.kept.write(text)
        return len(text)

    def isatty(self) -> bool:
        return False

    def lines_so_far(self) -> int:
        """How many whole lines were printed up to now."""
        return self.kept.getvalue().count("\n")

    def close_run(self) -> str:
        self.open = False
        return self.kept.getvalue()


def dumps(value: Any, indent: str = "") -> str:
    """JSON indented by two spaces, with a list of numbers (a shape, a tensor's values) on one line
    and other lists (the output's lines) one item a line.  ``allow_nan=False``: the document never holds NaN or Infinity (they are strings)."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(key, ensure_ascii=False)}: {dumps(item, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and not all(_number_like(item) for item in value):
        return "[\n" + ",\n".join(inner + dumps(item, inner) for item in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _number_like(item: Any) -> bool:
    return item is None or isinstance(item, (bool, int, float)) or item in NON_FINITE


def report_data(report: Report) -> dict[str, Any]:
    """A diagnostic's fields as the document gives them (``file`` for its filename)."""
    return {"kind": report.kind, "type": report.type, "message": report.message, "file": report.filename,
            "line": report.line, "column": report.column, "end_line": report.end_line,
            "end_column": report.end_column, "hint": report.hint}


def output_lines(text: str) -> tuple[list[str], bool]:
    """Printed text as lines (split at ``\\n`` only) and whether it ended with a newline."""
    if not text:
        return [], True
    lines = text.split("\n")
    ends = lines[-1] == ""
    if ends:
        lines.pop()
    return lines, ends


class Diagnostics:
    """What a Reporter's listener heard: the warnings (each with how many output lines came
    before it) and the error that ended the run."""

    def __init__(self, lines_so_far: Callable[[], int]) -> None:
        self.lines_so_far = lines_so_far
        self.warnings: list[Report] = []
        self.warning_data: list[dict] = []
        self.error: Report | None = None

    def heard(self, report: Report) -> None:
        if report.kind == "warning":
            self.warnings.append(report)
            self.warning_data.append({**report_data(report), "after_line": self.lines_so_far()})
        else:
            self.error = report

    @property
    def error_data(self) -> dict | None:
        return None if self.error is None else report_data(self.error)


class JsonView:
    """Keeps stdout for the document; hears the diagnostics; writes the document at the end."""

    def __init__(self, filename: str | None = None) -> None:
        self.filename = filename
        self.captured = CapturedOutput()
        self.stdout: TextIO = sys.stdout
        self.diagnostics = Diagnostics(self.captured.lines_so_far)

    def configure(self, session_options: dict) -> None:
        self.stdout = session_options.get("stdout") or sys.stdout
        session_options["stdout"] = self.captured
        session_options["color"] = False

    def before(self, session: Any) -> None:
        session.reporter.listener = self.diagnostics.heard

    def after(self, session: Any, outcome: Any, code: int) -> int:
        session.reporter.listener = None
        document = self.document(session, outcome, code)
        self.stdout.write(dumps(document) + "\n")
        self.stdout.flush()
        return code

    def document(self, session: Any, outcome: Any, code: int) -> dict[str, Any]:
        return run_document(self.filename, outcome.status, code, self.captured.close_run(),
                            self.diagnostics.warning_data, self.diagnostics.error_data, session.globals)


def run_document(filename: str | None, status: str, exit_code: int, printed: str, warnings: list[dict],
                 error: dict | None, namespace: dict[str, Any]) -> dict[str, Any]:
    """The document (as the schema describes it) of a finished run."""
    from gradcli.views.values import describe_variables

    lines, ends = output_lines(printed)
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "gradcli": gradcli.__version__,
        "torch": gradcli.TORCH_VERSION,
        "file": filename,
        "status": status,
        "exit_code": exit_code,
        "output": lines,
        "output_ends_with_newline": ends,
        "warnings": warnings,
        "error": error,
        "variables": describe_variables(namespace),
    }
