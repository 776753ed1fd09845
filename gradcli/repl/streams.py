"""An output stream that remembers whether the cursor is at the start of a line.

``print(1, end="")`` leaves the cursor after the ``1``; the next prompt must
then start on a fresh line instead of after (or over) the output.
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
