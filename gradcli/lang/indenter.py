"""Python's INDENT/DEDENT rules for the Lark lexer's token stream (the parser's post-lexer).

Imported with the parser only (``grammar_loader.get_parser``): it subclasses Lark's
``PostLex``, and a run whose parse tree is cached imports no Lark at all.
"""

from __future__ import annotations

from typing import Iterator

from lark import Token
from lark.lark import PostLex

from gradcli.lang.errors import ScriptSyntaxError

OPENING = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
CLOSING = {"RPAR": ")", "RSQB": "]", "RBRACE": "}"}
_MATCHING = {")": "(", "]": "[", "}": "{"}
TAB_WIDTH = 8
# CPython's tokenizer limits (MAXLEVEL, MAXINDENT): deeper is a syntax error there too
MAX_LEVEL = 200
MAX_INDENT = 100


class Indenter(PostLex):
    """Python's INDENT/DEDENT rules, plus the bracket bookkeeping syntax errors need.

    Newlines inside brackets are dropped (implicit line joining).  A bracket
    left open at the end, or closed by the wrong kind, becomes a
    ScriptSyntaxError worded like CPython's.
    """

    # the last token read: where the parser was when something stopped it (the time limit)
    last: Token | None = None

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        Indenter.last = None
        levels = [(0, 0)]  # (width with tabs to 8, width with tabs as 1) of each open block
        open_brackets: list[Token] = []
        token = None
        first = True
        for token in stream:
            Indenter.last = token
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
                if len(open_brackets) >= MAX_LEVEL:   # (also keeps the parse tree shallow)
                    raise ScriptSyntaxError("too many nested parentheses", token.line, token.column)
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
            if len(levels) >= MAX_INDENT:
                raise ScriptSyntaxError("too many levels of indentation", line, len(text) + 1,
                                        kind="IndentationError")
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
