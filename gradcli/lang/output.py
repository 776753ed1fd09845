"""Where a script's output goes: plain text, or coloured by Rich on a terminal.

Colour never changes the characters, only their style, and Rich is imported
only when colouring (it costs start-up time).
"""

from __future__ import annotations

import os
from typing import TextIO


def wants_color(stream: TextIO, no_color_flag: bool = False) -> bool:
    """Colour on a terminal, as no-color.org and force-color.org ask.

    Never with ``--no-color`` or a non-empty ``NO_COLOR``; always (even into a
    pipe) with a non-empty ``FORCE_COLOR``; otherwise only when ``stream`` is a
    terminal that is not ``TERM=dumb``.  An empty variable counts as unset.
    """
    if no_color_flag or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        terminal = bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False
    return terminal and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


class PlainOutput:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.write = stream.write

    def flush(self) -> None:
        self.stream.flush()


def closing_paren(text: str, start: int) -> int | None:
    """The index of the ``)`` that closes the ``(`` just before ``start``, if ``text`` holds it."""
    import re

    depth = 1
    for match in re.finditer(r"[()]", text[start:]):
        depth += 1 if match.group() == "(" else -1
        if depth == 0:
            return start + match.start()
    return None


class RichOutput:
    """Highlights numbers, ``tensor(...)``, ``grad_fn=<...>``, ``requires_grad=True``, strings."""

    def __init__(self, stream: TextIO) -> None:
        import re

        from rich.console import Console
        from rich.highlighter import RegexHighlighter
        from rich.text import Text
        from rich.theme import Theme

        tensor_open = re.compile(r"\btensor\(")

        class TensorHighlighter(RegexHighlighter):
            """The regular expressions below, and the ``)`` that closes each ``tensor(``
            (``tensor([], size=(0, 3))``: a regular expression cannot count brackets)."""

            base_style = "gradcli."
            highlights = [
                r"(?P<tensor>\btensor\(|(?<![\w/])torch\.\w+(\.\w+)*)",  # (not in a URL)
                r"(?P<grad_fn>grad_fn=<\w+>|<\w+Backward\d* object at 0x[0-9a-f]+>)",
                r"(?P<requires_grad>requires_grad=True)",
                r"(?P<dtype>dtype=torch\.\w+)",
                r"(?P<constant>\b(True|False|None|nan|inf)\b)",
                r"(?P<number>(?<![\w.])[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(?![\w.]))",
                r"(?P<string>'[^'\n]*'|\"[^\"\n]*\")",
            ]

            def highlight(self, text: Text) -> None:
                super().highlight(text)
                plain = text.plain
                for match in tensor_open.finditer(plain):
                    close = closing_paren(plain, match.end())
                    if close is not None:
                        text.stylize(f"{self.base_style}tensor", close, close + 1)

        theme = Theme({
            "gradcli.tensor": "bold blue", "gradcli.grad_fn": "magenta",
            "gradcli.requires_grad": "yellow", "gradcli.dtype": "green",
            "gradcli.constant": "italic cyan", "gradcli.number": "cyan", "gradcli.string": "green",
        })
        self.stream = stream
        self.console = Console(file=stream, force_terminal=True, highlight=False, markup=False,
                               emoji=False, soft_wrap=True, theme=theme)
        self.highlighter = TensorHighlighter()

    def write(self, text: str) -> None:
        self.console.print(self.highlighter(text), end="")

    def flush(self) -> None:
        self.stream.flush()


def make_output(stream: TextIO, color: bool) -> PlainOutput | RichOutput:
    return RichOutput(stream) if color else PlainOutput(stream)
