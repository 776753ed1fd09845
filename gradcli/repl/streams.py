"""An output stream that remembers whether the cursor is at the start of a line.

``print(1, end="")`` leaves the cursor after the ``1``; the next prompt must
then start on a fresh line instead of after (or over) the output, and so must
an error report when stdout and stderr share the terminal.
"""

from __future__ import annotations

from typing import Any, TextIO


class TrackedStream:
    """Passes everything through to ``stream`` and tracks the last character written."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.at_line_start = True

    def write(self, text: str) -> int:
        if text:
            self.at_line_start = text.endswith("\n")
        return self.stream.write(text)

    def end_line(self) -> None:
        """Finish a partial line of output, so that what follows starts at column 0."""
        if not self.at_line_start:
            self.write("\n")
            self.flush()

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ... (Rich asks for them)
        return getattr(self.stream, name)


class SharedTerminalStream:
    """stderr on the terminal stdout (a TrackedStream) writes to: a report starts on a line of
    its own after output that did not end its line, and the cursor they share is tracked."""

    def __init__(self, stream: TextIO, stdout: TrackedStream) -> None:
        self.stream = stream
        self.stdout = stdout

    def write(self, text: str) -> int:
        if not text:
            return 0
        if not text.startswith("\n"):
            self.stdout.end_line()
        written = self.stream.write(text)
        self.stdout.at_line_start = text.endswith("\n")
        return written

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # not a file, or a closed one
        return False
