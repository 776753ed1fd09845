"""A script as HTML, one string per line, lightly highlighted: comments, strings, numbers,
keywords and the names ``torch``/``nn``/``F``.

A regular expression reads the text, so a script with a syntax error is shown as well; a
string that runs over several lines is closed at each line end and opened again on the next,
so every line is a complete piece of HTML.
"""

from __future__ import annotations

import html
import keyword
import re

_TOKEN = re.compile(r"""
    (?P<comment>\#[^\n]*)
  | (?P<string>(?:[rRbBuUfF]{1,2})?(?:'''[\s\S]*?(?:'''|$(?![\s\S]))|\"\"\"[\s\S]*?(?:\"\"\"|$(?![\s\S]))
                                 |'(?:\\.|[^'\\\n])*'?|"(?:\\.|[^"\\\n])*"?))
  | (?P<number>(?<![\w.])(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?j?))
  | (?P<name>[A-Za-z_]\w*)
""", re.VERBOSE)

_LIBRARY_NAMES = frozenset({"torch", "nn", "F", "np", "math", "plt", "optim"})
_CONSTANTS = frozenset({"True", "False", "None"})


def _kind(match: re.Match) -> str | None:
    kind = match.lastgroup
    if kind != "name":
        return kind
    word = match.group()
    if word in _CONSTANTS:
        return "constant"
    if keyword.iskeyword(word):
        return "keyword"
    if word in _LIBRARY_NAMES:
        return "library"
    return None


def _wrapped(text: str, kind: str | None) -> list[str]:
    """``text`` escaped, in a span of class ``kind`` on each of its lines."""
    pieces = [html.escape(piece, quote=False) for piece in text.split("\n")]
    if kind is None:
        return pieces
    return [f'<span class="tok-{kind}">{piece}</span>' if piece else "" for piece in pieces]


def highlighted_lines(text: str) -> list[str]:
    """The lines of ``text`` (as ``str.split('\\n')`` gives them, less a final empty one) as HTML."""
    lines = [""]
    position = 0
    for match in _TOKEN.finditer(text):
        _append(lines, _wrapped(text[position:match.start()], None))
        _append(lines, _wrapped(match.group(), _kind(match)))
        position = match.end()
    _append(lines, _wrapped(text[position:], None))
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def _append(lines: list[str], pieces: list[str]) -> None:
    lines[-1] += pieces[0]
    lines.extend(pieces[1:])
