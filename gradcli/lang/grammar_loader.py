"""Load the Lark parser for ``grammar/gradcli.lark`` once, from a cache.

Building LALR tables takes ~0.3 s; loading them from Lark's pickle cache takes a
few milliseconds, which keeps ``gradcli run`` inside its start-up budget.  The
cache lives in the user's cache directory and Lark checks it against a hash of
the grammar and options, so an edited grammar rebuilds it.
"""

from __future__ import annotations

import os
from typing import Iterator

from lark import Lark, Token
from lark.lark import PostLex

from gradcli.lang.errors import ScriptSyntaxError

# os.path rather than pathlib: pathlib (with the urllib.parse and ipaddress it
# imports) would cost ~3 ms of every start, and nothing else at start-up needs it.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# Inside the wheel the grammar sits at gradcli/grammar/; in a source checkout
# at the repository's top level.
_GRAMMAR_CANDIDATES = (
    os.path.join(_PACKAGE, "grammar", "gradcli.lark"),
    os.path.join(os.path.dirname(_PACKAGE), "grammar", "gradcli.lark"),
)

OPENING = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
CLOSING = {"RPAR": ")", "RSQB": "]", "RBRACE": "}"}
_MATCHING = {")": "(", "]": "[", "}": "{"}
TAB_WIDTH = 8


def grammar_path() -> str:
    for candidate in _GRAMMAR_CANDIDATES:
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError("gradcli.lark not found next to the gradcli package")


class Indenter(PostLex):
    """Python's INDENT/DEDENT rules, plus the bracket bookkeeping syntax errors need.

    Newlines inside brackets are dropped (implicit line joining).  A bracket
    left open at the end, or closed by the wrong kind, becomes a
    ScriptSyntaxError worded like CPython's.
    """

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        levels = [(0, 0)]  # (width with tabs to 8, width with tabs as 1) of each open block
        open_brackets: list[Token] = []
        token = None
        first = True
        for token in stream:
            kind = token.type
            if first:
                first = False
                if token.column > 1 and kind != "_NEWLINE":
                    # CPython's offset here is the width of the indentation
                    raise ScriptSyntaxError("unexpected indent", token.line, token.column - 1,
                                            kind="IndentationError")
            if kind == "_NEWLINE":
                if open_brackets:
                    continue
                yield token
                yield from self._indentation(token, levels)
                continue
            if kind in OPENING:
                open_brackets.append(token)
            elif kind in CLOSING:
                closing = CLOSING[kind]
                if not open_brackets:
                    raise ScriptSyntaxError(f"unmatched '{closing}'", token.line, token.column)
                opener = open_brackets.pop()
                if OPENING[opener.type] != _MATCHING[closing]:
                    message = (f"closing parenthesis '{closing}' does not match opening "
                               f"parenthesis '{OPENING[opener.type]}'")
                    if opener.line != token.line:
                        message += f" on line {opener.line}"
                    raise ScriptSyntaxError(message, token.line, token.column)
            yield token
        if open_brackets:
            opener = open_brackets[-1]
            raise ScriptSyntaxError(f"'{OPENING[opener.type]}' was never closed",
                                    opener.line, opener.column, incomplete=True)
        while len(levels) > 1:
            levels.pop()
            yield Token.new_borrow_pos("_DEDENT", "", token) if token else Token("_DEDENT", "")

    @staticmethod
    def _indentation(newline: Token, levels: list[tuple[int, int]]) -> Iterator[Token]:
        """CPython's rule: the indentation is measured twice, tabs to multiples of 8 and tabs
        as one column; if the two measures disagree about the block structure, the mix of
        tabs and spaces is ambiguous (TabError)."""
        text = newline.value.rsplit("\n", 1)[1]
        width = 0
        for char in text:
            width = (width // TAB_WIDTH + 1) * TAB_WIDTH if char == "\t" else width + 1
        alt = len(text)
        line = newline.end_line
        if width > levels[-1][0]:
            if alt <= levels[-1][1]:
                raise _tab_error(line, text)
            levels.append((width, alt))
            yield Token.new_borrow_pos("_INDENT", text, newline)
            return
        while width < levels[-1][0]:
            levels.pop()
            yield Token.new_borrow_pos("_DEDENT", text, newline)
        if width != levels[-1][0]:
            raise ScriptSyntaxError("unindent does not match any outer indentation level",
                                    line, len(text) + 1, kind="IndentationError")
        if alt != levels[-1][1]:
            raise _tab_error(line, text)


def _tab_error(line: int, text: str) -> ScriptSyntaxError:
    return ScriptSyntaxError("inconsistent use of tabs and spaces in indentation", line, len(text) + 1,
                             kind="TabError")


def _cache_file(text: str) -> str | bool:
    """A writable cache path, or True for Lark's own temp-dir cache.

    The file is named after the grammar's hash, so that two gradcli versions (or checkouts) with
    different grammars do not keep replacing each other's tables."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "gradcli")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return True
    if not os.access(folder, os.W_OK):
        return True
    import hashlib

    import lark
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return os.path.join(folder, f"parser-lark{lark.__version__}-{digest}.cache")


_parser: Lark | None = None


def get_parser() -> Lark:
    """The one Lark LALR parser (start symbols ``file_input`` and ``field_input``)."""
    global _parser
    if _parser is None:
        with open(grammar_path(), encoding="utf-8") as grammar:
            text = grammar.read()
        cache = _cache_file(text)
        try:
            _parser = _build(text, cache)
        except OSError:
            # an unreadable or unwritable cache must never stop a run
            _parser = _build(text, False if cache is True else True)
    return _parser


def _build(text: str, cache: str | bool) -> Lark:
    return Lark(
        text,
        parser="lalr",
        lexer="basic",
        postlex=Indenter(),
        start=["file_input", "field_input"],
        propagate_positions=True,
        maybe_placeholders=True,
        cache=cache,
    )

