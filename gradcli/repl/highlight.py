"""Syntax highlighting as you type: keywords, names gradcli knows, numbers, strings, comments.

One regular expression scans the whole entry (so a triple-quoted string may
span lines); ``tokens`` is plain Python and ``ScriptLexer`` hands its result
to prompt_toolkit line by line.
"""

from __future__ import annotations

import keyword
import re
from typing import Callable, Collection

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.lexers import Lexer

KEYWORDS = frozenset(keyword.kwlist) - {"True", "False", "None"}
CONSTANTS = frozenset({"True", "False", "None"})

_COMMAND = re.compile(r"\s*:[A-Za-z]*")
_TOKEN = re.compile(r"""
    (?P<comment>\#[^\n]*)
  | (?P<string>(?<![\w])[rRbBuUfF]{0,2}
        (?: '''(?:\\.|[^\\])*?(?:'''|\Z) | \"\"\"(?:\\.|[^\\])*?(?:\"\"\"|\Z)
          | '(?:\\.|[^\\'\n])*(?:'|$) | "(?:\\.|[^\\"\n])*(?:"|$) ))
  | (?P<number>(?<![\w.])(?:0[xXoObB][0-9a-fA-F_]+
        | (?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?j?))
  | (?P<attribute>(?<=\.)[A-Za-z_]\w*)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<operator>[-+*/%@<>=!&|^~]+)
""", re.VERBOSE | re.MULTILINE | re.DOTALL)


def tokens(text: str, builtins: Collection[str] = ()) -> StyleAndTextTuples:
    """``(style, text)`` pairs covering ``text`` exactly."""
    command = _COMMAND.match(text)
    if command:  # `:load FILE`: the rest is a file name, not code
        rest = text[command.end():]
        return [("class:command", command.group())] + ([("", rest)] if rest else [])
    result: StyleAndTextTuples = []
    position = 0
    for match in _TOKEN.finditer(text):
        if match.start() > position:
            result.append(("", text[position:match.start()]))
        kind = match.lastgroup or ""
        word = match.group()
        if kind == "name":
            kind = ("keyword" if word in KEYWORDS else "constant" if word in CONSTANTS
                    else "builtin" if word in builtins else "")
        elif kind == "attribute":
            kind = ""
        result.append((f"class:{kind}" if kind else "", word))
        position = match.end()
    if position < len(text):
        result.append(("", text[position:]))
    return result


class ScriptLexer(Lexer):
    """prompt_toolkit's view of ``tokens``; ``builtins()`` names what to show as known."""

    def __init__(self, builtins: Callable[[], Collection[str]] = frozenset) -> None:
        self.builtins = builtins

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        lines = list(split_lines(tokens(document.text, self.builtins())))

        def get_line(number: int) -> StyleAndTextTuples:
            return lines[number] if 0 <= number < len(lines) else []
        return get_line
