"""Where the trace's lines go: plain text on a pipe, Rich colour on a terminal.

A line is a list of (text, style) pieces; colour changes only the style, never the characters,
so the plain text is the coloured text without its escapes.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, TextIO

Piece = tuple[str, str | None]
Line = list[Piece]

# Styles by the role of a piece in a line.
STYLES = {
    "pass": "bold",
    "node": "bold cyan",
    "where": "dim",
    "label": "dim",
    "rule": "magenta",
    "value": "green",
    "fanout": "yellow",
    "reduced": "yellow",
    "hook": "blue",
    "leaf": "bold green",
    "note": "dim italic",
    "chain": "bold magenta",
    "result": "bold green",
}


def plain(line: Sequence[Piece]) -> str:
    return "".join(text for text, _ in line)


class TraceOutput:
    """Writes lines to ``stream``; ``before_write`` runs first (it flushes the script's stdout, so
    that the two streams interleave in the order things happened when they share a terminal)."""

    def __init__(self, stream: TextIO, color: bool, before_write: Callable[[], None] | None = None) -> None:
        self.stream = stream
        self.color = color
        self.before_write = before_write
        self._console: Any = None

    def write(self, lines: Sequence[Sequence[Piece]]) -> None:
        if not lines:
            return
        if self.before_write is not None:
            self.before_write()
        if self.color:
            self._write_rich(lines)
        else:
            self.stream.write("".join(plain(line) + "\n" for line in lines))
        self.stream.flush()

    def _write_rich(self, lines: Sequence[Sequence[Piece]]) -> None:
        from rich.text import Text
        if self._console is None:
            from rich.console import Console
            self._console = Console(file=self.stream, force_terminal=True, highlight=False, soft_wrap=True,
                                    emoji=False, markup=False)
        for line in lines:
            text = Text()
            for piece, role in line:
                text.append(piece, style=STYLES.get(role, "") if role else "")
            self._console.print(text)
