"""Parse source text into a Lark tree, turning Lark's errors into CPython-like ones.

``is_complete`` tells the REPL whether an entry is finished, needs more lines,
or can never become valid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from gradcli.lang.errors import POSITION_ATTRIBUTE, ScriptSyntaxError
from gradcli.lang.syntax_tree import Tree
from gradcli.lang.tree_cache import cached_parse, is_cached

if TYPE_CHECKING:
    from lark import UnexpectedToken

Completeness = Literal["complete", "incomplete", "invalid"]

# What may begin an expression, and what may continue one, by token text (or
# terminal name): an error that expects these says "an expression" / "an operator".
_EXPRESSION_TEXTS = {"NAME", "DEC_NUMBER", "FLOAT_NUMBER", "HEX_NUMBER", "OCT_NUMBER", "BIN_NUMBER",
                     "STRING", "LONG_STRING", "(", "[", "{", "-", "+", "~", "not", "lambda", "None",
                     "True", "False", "...", "*", "**"}
_OPERATOR_TEXTS = {"+", "-", "*", "/", "//", "%", "@", "**", "|", "^", "&", "<<", ">>", "<", ">",
                   "==", ">=", "<=", "!=", "in", "not", "is", "and", "or", "if", ".", "(", "[",
                   "AUG_OP"}
_NAMED = {
    "NAME": "a name",
    "DEC_NUMBER": "a number", "FLOAT_NUMBER": "a number", "HEX_NUMBER": "a number",
    "OCT_NUMBER": "a number", "BIN_NUMBER": "a number",
    "STRING": "a string", "LONG_STRING": "a string",
    "_NEWLINE": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "$END": "end of input", "AUG_OP": "an augmented assignment",
}
_BLOCK_HEADERS = {"if": "'if' statement", "elif": "'elif' statement", "else": "'else' statement",
                  "while": "'while' statement", "for": "'for' statement",
                  "with": "'with' statement", "def": "function definition", "try": "'try' statement",
                  "except": "'except' statement", "finally": "'finally' statement",
                  "class": "class definition"}
# Python statements outside the gradcli subset: say so instead of "invalid syntax".
_UNSUPPORTED = {"yield": "generators ('yield')", "async": "'async' code", "await": "'async' code",
                "except*": "exception groups ('except*')"}
_COMPOUND = {"if_stmt", "while_stmt", "for_stmt", "with_stmt", "try_stmt", "try_finally_stmt", "funcdef",
             "classdef", "decorated"}


def parse(text: str, start: str = "file_input", interactive: bool = False) -> Tree:
    """Parse a script (or an f-string field with ``start="field_input"``) into a
    gradcli.lang.syntax_tree tree.

    A failure raises the ScriptSyntaxError CPython 3.11 raises for the text
    (gradcli.lang.syntax_errors, read on the first failure).  ``interactive``
    is a REPL entry: as in Python's REPL, what follows the error is not read.
    A script's tree comes from the tree cache when it holds one: then Lark is
    not even imported.
    """
    if not text.endswith("\n"):
        text += "\n"
    if "\0" in text:
        raise _null_byte(text)
    if interactive:  # REPL entries: short, and many are incomplete
        return _parse_with_lark(text, start, interactive)
    return cached_parse(text, start, lambda: _parse_with_lark(text, start, interactive))


def _parse_with_lark(text: str, start: str, interactive: bool) -> Tree:
    from lark import UnexpectedInput

    from gradcli.lang.grammar_loader import get_parser
    from gradcli.lang.syntax_tree import from_lark
    from gradcli.lang import lalr_driver
    parser = get_parser()
    try:
        tree = lalr_driver.parse(parser, text, start)   # (None: an error, which Lark's parse words)
        return from_lark(tree if tree is not None else parser.parse(text, start=start))
    except UnexpectedInput as error:
        from gradcli.lang.syntax_errors import explain
        raise explain(error, text, interactive) from None
    except ScriptSyntaxError as error:    # the indenter's: a bracket or an indentation
        from gradcli.lang.syntax_errors import explain_tokenizer_error
        raise explain_tokenizer_error(error, text, interactive) from None
    except BaseException as error:   # the time limit, Ctrl-C, no memory left: say where it was
        from gradcli.lang.indenter import Indenter
        token = Indenter.last
        if token is not None:
            try:
                error.__dict__[POSITION_ATTRIBUTE] = (token.line, token.column)
            except AttributeError:
                pass
        raise


def _null_byte(text: str) -> ScriptSyntaxError:
    """CPython's error for a NUL in the source, showing the line up to it (never the NUL)."""
    index = text.index("\0")
    line = text.count("\n", 0, index) + 1
    start = text.rfind("\n", 0, index) + 1
    return ScriptSyntaxError("source code cannot contain null bytes", line, index - start + 1,
                             text=text[start:index])


def prepare(text: str) -> None:
    """Build (or load) the parser now unless a script's tree is cached, so that the time it
    takes is gradcli's and not counted against the script's time limit."""
    if not is_cached(text if text.endswith("\n") else text + "\n", "file_input"):
        from gradcli.lang.grammar_loader import get_parser
        get_parser()


def is_complete(text: str) -> Completeness:
    """``complete``, ``incomplete`` (the input ended early: ask for more) or ``invalid``.

    As in Python's REPL, an entry holding a compound statement (``if``, ``def``,
    ``for``, ...) is complete only once its last line is blank.
    """
    try:
        tree = parse(text, interactive=True)
    except ScriptSyntaxError as error:
        if error.incomplete:
            return "incomplete"
        if _missing_body_at_end(text, error):
            # `while c:` then `    if n:` at the end: the inner block is still to come,
            # unless the user already ended the entry with a blank line (then Python
            # reports the IndentationError, and so does the run).
            lines = text.split("\n")
            return "invalid" if len(lines) > 1 and not lines[-1].strip() else "incomplete"
        return "invalid"
    has_block = any(isinstance(child, Tree) and child.data in _COMPOUND for child in tree.children)
    if has_block and text.split("\n")[-1].strip() != "":
        return "incomplete"
    return "complete"


def _missing_body_at_end(text: str, error: ScriptSyntaxError) -> bool:
    """The error is "expected an indented block" with nothing but blanks after where it points."""
    if error.kind != "IndentationError" or not error.message.startswith("expected an indented block"):
        return False
    lines = text.split("\n")
    index = error.line - 1
    rest = [lines[index][error.column - 1:]] if 0 <= index < len(lines) else []
    return all(not line.strip() for line in rest + lines[index + 1:])


def unsupported_statement(text: str, line: int) -> ScriptSyntaxError | None:
    """A line that starts with a Python keyword gradcli leaves out (``try:``, ``class A:``)."""
    source_line = text.split("\n")[line - 1] if 0 < line <= text.count("\n") + 1 else ""
    stripped = source_line.lstrip()
    word = stripped.split(None, 1)[0].rstrip(":") if stripped else ""
    if stripped.startswith("except") and stripped[6:].lstrip().startswith("*"):
        word = "except*"
    if word not in _UNSUPPORTED:
        return None
    column = len(source_line) - len(stripped) + 1
    return ScriptSyntaxError(f"gradcli does not support {_UNSUPPORTED[word]}", line, column,
                             end_column=column + len(word))


def unsupported_expression(error: UnexpectedToken, text: str) -> ScriptSyntaxError | None:
    """Python literals and operators outside the subset, which the lexer splits apart:
    ``1j`` (a number, then the name j), ``b"x"`` (the name b, then a string), ``:=``."""
    token = error.token
    position = getattr(token, "start_pos", None)
    if position is None or token.line is None:
        return None
    before = text[position - 1] if position > 0 else ""
    line, column = token.line, token.column
    if token.type == "NAME" and token.value[:1] in "jJ" and (before.isdigit() or before == "."):
        start = position
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "._"):
            start -= 1      # back to the start of the number, for the caret
        return ScriptSyntaxError("gradcli does not support complex numbers", line,
                                 column - (position - start), end_column=token.end_column)
    if token.type in ("STRING", "LONG_STRING") and before and before in "bBrR":
        prefix = 2 if text[max(0, position - 2):position].lower() in ("rb", "br") else 1
        if prefix == 1 and before in "rR":
            return None
        return ScriptSyntaxError("gradcli does not support bytes literals", line, column - prefix,
                                 end_column=token.end_column)
    if text.startswith(":=", position):
        return ScriptSyntaxError("gradcli does not support assignment expressions (':=')", line, column,
                                 end_column=column + 2)
    source_line = text.split("\n")[line - 1] if 0 < line <= text.count("\n") + 1 else ""
    stripped = source_line.strip()
    word = stripped.split(None, 1)[0] if stripped else ""
    if word in ("match", "case") and stripped.endswith(":"):
        start = len(source_line) - len(source_line.lstrip()) + 1
        return ScriptSyntaxError("gradcli does not support 'match' statements", line, start,
                                 end_column=start + len(word))
    return None


def parser_expected(error: UnexpectedToken) -> set[str]:
    """Terminals the parser could take here (the contextual lexer's own list misses _INDENT)."""
    interactive = getattr(error, "interactive_parser", None)
    if interactive is not None:
        choices = set(interactive.accepts())
        if choices:
            return choices
    return set(error.expected)


def expected_block(text: str, line: int) -> str:
    lines = text.split("\n")
    for number in range(min(line, len(lines)), 0, -1):
        words = lines[number - 1].split()
        if not words or words[0].startswith("#"):
            continue
        keyword = words[0].rstrip(":")
        if keyword in _BLOCK_HEADERS:
            return f"expected an indented block after {_BLOCK_HEADERS[keyword]} on line {number}"
        break
    return "expected an indented block"


def describe_token(token) -> str:
    """``'b'``, ``number 2``, ``string "hi"``, ``end of line``."""
    if token.type in ("DEC_NUMBER", "FLOAT_NUMBER", "HEX_NUMBER", "OCT_NUMBER", "BIN_NUMBER"):
        return f"number {token.value}"
    if token.type in ("STRING", "LONG_STRING"):
        return f"string {token.value}"
    if token.type in _NAMED and token.type != "NAME":
        return _NAMED[token.type]
    return f"'{token.value}'"


def describe_expected(expected: set[str]) -> str:
    """A short English list: "an expression", "an operator", then concrete tokens like "')'"."""
    literal = _terminal_literals()
    texts = {literal.get(name, name) for name in expected}
    parts: list[str] = []
    if {"NAME", "DEC_NUMBER", "("} <= texts:
        parts.append("an expression")
        texts -= _EXPRESSION_TEXTS
    if len(texts & _OPERATOR_TEXTS) >= 3:
        parts.append("an operator")
        texts -= _OPERATOR_TEXTS
    named = sorted({_NAMED.get(text) or (f"'{text}'" if text in literal.values() else None)
                    for text in texts} - {None}, key=_PREFERRED.get_order)
    parts.extend(named[: max(0, 4 - len(parts))])
    if not parts:
        return "something else"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


class _PREFERRED:
    """Closing brackets, commas and colons first: they are what people usually forgot."""

    ORDER = ["')'", "']'", "'}'", "','", "':'", "'='", "end of line"]

    @classmethod
    def get_order(cls, item: str) -> tuple[int, str]:
        return (cls.ORDER.index(item) if item in cls.ORDER else len(cls.ORDER), item)


_literals: dict[str, str] | None = None


def _terminal_literals() -> dict[str, str]:
    """Terminal name -> its fixed text, for terminals that are plain strings ("(" is LPAR)."""
    global _literals
    if _literals is None:
        from gradcli.lang.grammar_loader import get_parser
        _literals = {}
        for terminal in get_parser().terminals:
            if terminal.pattern.type == "str":
                _literals[terminal.name] = terminal.pattern.value
    return _literals
