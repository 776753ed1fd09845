"""Run a snippet with the real CPython, in process, for tests that compare gradcli with it."""

from __future__ import annotations

import contextlib
import io
import re
import sys

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def cpython(code: str) -> tuple[str, str | None]:
    """(stdout, ``Type: message`` of the uncaught error or None) of ``code`` run as ``__main__``."""
    out = io.StringIO()
    error = None
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, "test.ag", "exec"), {"__name__": "__main__"})
        except Exception as exc:  # noqa: BLE001 - the snippet's own error, to compare
            # Python's own report (3.11's traceback module lacks "Did you mean")
            report = io.StringIO()
            with contextlib.redirect_stderr(report):
                sys.__excepthook__(type(exc), exc, None)
            error = report.getvalue().strip().splitlines()[-1]
    return out.getvalue(), error


def same_as_cpython(run, code: str) -> None:
    """gradcli prints what CPython prints (addresses aside), and fails with its error line."""
    expected, error = cpython(code)
    result = run(code)
    assert ADDRESS.sub("0x?", result.out) == ADDRESS.sub("0x?", expected), result.err
    if error is None:
        assert result.code == 0, result.err
    else:
        assert result.code == 1, result.out
        assert result.headline == error, result.err
