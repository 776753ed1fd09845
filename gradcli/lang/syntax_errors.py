"""Turn a failed parse into the SyntaxError CPython 3.11 reports for the same text.

Read only when a parse fails (syntax.py calls ``explain``).  CPython decides in
three steps, and so does this module:

1. its tokenizer's errors win (an unterminated string, ``1abc``, an unmatched
   bracket, an unindent that matches nothing), wherever in the file they are:
   ``tokenizer_check.scan`` finds them;
2. otherwise a second pass of its parser tries the grammar's ``invalid_*``
   rules, which word the common mistakes ("Perhaps you forgot a comma?",
   "Missing parentheses in call to 'print'", "expected 'else' after 'if'
   expression", ...): the rules below recognise the same shapes around the
   token where Lark's LALR parser stopped;
3. what is left is ``invalid syntax`` at that token -- and a bracket still open
   at the end of the file turns any error on a later line into "'(' was never
   closed".

gradcli's own description of what the parser expected (``unexpected 'b';
expected an operator, ')' or ','``) goes on the ``hint:`` line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lark import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from gradcli.lang.errors import ScriptSyntaxError
from gradcli.lang.tokenizer_check import scan

# ---------------------------------------------------------------- a light token list
# The text has no tokenizer error when these are read, so a plain regex tokenizer suffices.
_TOKEN = re.compile(r"""
    (?P<comment>\#[^\n]*)
  | (?P<newline>\n)
  | (?P<continuation>\\\n)
  | (?P<space>[ \t\f\r]+)
  | (?P<string>(?i:rb|br|rf|fr|r|u|f|b)?(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"
                |'(?:\\.|[^\\\n'])*'|"(?:\\.|[^\\\n"])*"))
  | (?P<number>(?:0[xXoObB][_0-9a-fA-F]*|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d[\d_]*)?[jJ]?|\d[\d_]*\.))
  | (?P<name>[^\W\d]\w*)
  | (?P<op>\*\*=|//=|>>=|<<=|\.\.\.|->|:=|[-+*/%@&|^<>!=]=|\*\*|//|<<|>>|.)
""", re.VERBOSE | re.DOTALL)

KEYWORDS = frozenset("""False None True and as assert async await break class continue def del elif
    else except finally for from global if import in is lambda nonlocal not or pass raise return
    try while with yield""".split())
_SOFT_KEYWORDS = frozenset({"match", "case", "_"})
_ATOM_KEYWORDS = frozenset({"None", "True", "False"})
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}
# operators that may stand inside a disjunction (CPython's `disjunction` rule)
_BINARY = frozenset("+ - * / // % @ ** | ^ & << >> < > == >= <= != . ~".split())
_WORD_OPERATORS = frozenset({"not", "and", "or", "is", "in"})
_BITWISE_STOP = frozenset("< > == >= <= != not and or is in if".split())


@dataclass
class Tok:
    kind: str        # name, number, string, op, newline, end
    text: str
    line: int
    column: int      # 1-based
    end_column: int  # 1-based, exclusive (on the last line of the token)
    start: int       # index in the text
    level: int       # brackets open before it

    @property
    def inner(self) -> int:
        """The depth of the brackets this token stands in (a closer stands in the ones it closes)."""
        return self.level + 1 if self.kind == "op" and self.text in _CLOSE else self.level

    def ends_atom(self) -> bool:
        if self.kind in ("number", "string"):
            return True
        if self.kind == "name":
            return self.text not in KEYWORDS or self.text in _ATOM_KEYWORDS
        return self.text in (")", "]", "}", "...")

    def starts_expression(self) -> bool:
        if self.kind in ("number", "string"):
            return True
        if self.kind == "name":
            return self.text not in KEYWORDS or self.text in _ATOM_KEYWORDS or self.text in ("lambda",)
        return self.text in ("{", "~", "...")


def tokenize(text: str) -> list[Tok]:
    tokens: list[Tok] = []
    line, line_start, level = 1, 0, 0
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "op"
        value = match.group()
        start = match.start()
        if kind in ("space", "comment"):
            continue
        if kind in ("newline", "continuation"):
            if kind == "newline" and level == 0:
                tokens.append(Tok("newline", value, line, start - line_start + 1,
                                  start - line_start + 1, start, level))
            line += 1
            line_start = match.end()
            continue
        column = start - line_start + 1
        newlines = value.count("\n")
        token_line = line
        if newlines:
            line += newlines
            line_start = start + value.rfind("\n") + 1
            end_column = match.end() - line_start + 1
        else:
            end_column = column + len(value)
        if value in _CLOSE:
            level = max(level - 1, 0)
        tokens.append(Tok(kind, value, token_line, column, end_column, start, level))
        if value in _OPEN:
            level += 1
    tokens.append(Tok("end", "", line, 1, 1, len(text), 0))
    return tokens


# ---------------------------------------------------------------- entry point
def explain(error: UnexpectedInput, text: str, interactive: bool = False) -> ScriptSyntaxError:
    """CPython's SyntaxError for ``text``, on which Lark raised ``error``."""
    found = _parser_error(error, text)
    result = scan(text)
    tokenizer_error = result.error
    if tokenizer_error is not None:
        # in a REPL, CPython tokenizes only as far as the parser read
        if not interactive or (tokenizer_error.line, tokenizer_error.column) <= (found.line, found.column):
            return tokenizer_error
    opener = result.unclosed
    if opener is not None and not interactive and _furthest_line(found) > opener.line:
        return ScriptSyntaxError(f"'{opener.char}' was never closed", opener.line, opener.column,
                                 incomplete=True)
    return found


def explain_tokenizer_error(error: ScriptSyntaxError, text: str,
                            interactive: bool = False) -> ScriptSyntaxError:
    """An error the indenter raised while Lark read the text: CPython's tokenizer finds the same
    one (or one before it), placed as CPython places it."""
    found = scan(text).error
    if found is not None and (not interactive or (found.line, found.column) <= (error.line, error.column)
                              or error.incomplete):
        return found
    return error


def _furthest_line(error: ScriptSyntaxError) -> float:
    return getattr(error, "furthest_line", error.line)


def _parser_error(error: UnexpectedInput, text: str) -> ScriptSyntaxError:
    original = getattr(error, "orig_exc", None)
    if isinstance(original, ScriptSyntaxError):   # raised by the indenter
        return original
    if isinstance(error, UnexpectedCharacters):
        return _bad_character(error, text)
    if isinstance(error, UnexpectedEOF):
        found = ScriptSyntaxError("invalid syntax", error.line, error.column, incomplete=True)
        found.furthest_line = float("inf")  # type: ignore[attr-defined]
        return found
    assert isinstance(error, UnexpectedToken)
    return _unexpected_token(error, text)


def _bad_character(error: UnexpectedCharacters, text: str) -> ScriptSyntaxError:
    """A character Lark cannot lex that CPython's tokenizer passes to its parser ('$', '?'):
    "invalid syntax" there (scan() has already looked for the tokenizer's own errors)."""
    line, column = error.line, error.column
    rest = text[error.pos_in_stream:]
    for quote in ('"""', "'''"):
        if rest.startswith(quote) or rest[1:].startswith(quote) or rest[2:].startswith(quote):
            return ScriptSyntaxError("unterminated triple-quoted string literal "
                                     f"(detected at line {text.count(chr(10))})",
                                     line, column, incomplete=True)
    if error.char in "'\"" or rest[:2].lstrip("rRfFuUbB")[:1] in ("'", '"'):
        return ScriptSyntaxError(f"unterminated string literal (detected at line {line})", line, column)
    return ScriptSyntaxError("invalid syntax", line, column, end_column=column + 1,
                             hint=f"unexpected character {error.char!r}")


# ---------------------------------------------------------------- parser errors
def _unexpected_token(error: UnexpectedToken, text: str) -> ScriptSyntaxError:
    from gradcli.lang import syntax
    token = error.token
    expected = syntax.parser_expected(error)
    line = token.line if token.line is not None else text.count("\n")
    column = token.column if token.column is not None else 1
    if token.type == "$END":
        if "_INDENT" in expected:
            return ScriptSyntaxError(syntax.expected_block(text, line), line, column, incomplete=True,
                                     kind="IndentationError")
        found = ScriptSyntaxError("invalid syntax", line, column, incomplete=True)
        found.furthest_line = float("inf")  # type: ignore[attr-defined]
        return found
    if token.type == "_INDENT":
        next_line = token.end_line or line
        return ScriptSyntaxError("unexpected indent", next_line, len(token.value), kind="IndentationError")
    if "_INDENT" in expected:
        header_line = line - 1   # the block's header ends the line before this token
        if token.type in ("_NEWLINE", "_DEDENT"):
            header_line = token.line
            line = token.end_line or line
            column = len(token.value.rsplit("\n", 1)[-1]) + 1
        lines = text.split("\n")
        source_line = lines[line - 1] if 0 < line <= len(lines) else ""
        return ScriptSyntaxError(syntax.expected_block(text, header_line), line, column,
                                 end_column=len(source_line.rstrip()) + 1, kind="IndentationError")
    unsupported = syntax.unsupported_statement(text, line) or syntax.unsupported_expression(error, text)
    if unsupported is not None:
        return unsupported
    if "COLON" in expected and token.type == "_NEWLINE":
        return ScriptSyntaxError("expected ':'", line, column)
    if {"EXCEPT", "FINALLY"} <= expected:    # a `try:` block with neither
        return ScriptSyntaxError("expected 'except' or 'finally' block", line, column,
                                 end_column=token.end_column)
    hint = (f"unexpected {syntax.describe_token(token)}; expected "
            f"{syntax.describe_expected(expected)}")
    tokens = tokenize(text if text.endswith("\n") else text + "\n")
    position = getattr(token, "start_pos", None)
    index = _token_index(tokens, position) if position is not None else None
    if index is not None:
        found = _second_pass(tokens, index, expected)
        if found is not None:
            return found
    return ScriptSyntaxError("invalid syntax", line, column, end_column=token.end_column, hint=hint)


def _token_index(tokens: list[Tok], position: int) -> int | None:
    for index, tok in enumerate(tokens):
        if tok.start >= position:
            return index
    return None


def _second_pass(tokens: list[Tok], index: int, expected: set[str]) -> ScriptSyntaxError | None:
    """The ``invalid_*`` rule of CPython's grammar that the mistake at ``tokens[index]`` matches."""
    bad = tokens[index]
    before = tokens[index - 1] if index > 0 else None
    for rule in (_legacy_print, _starred_comprehension, _generator_argument, _dict_entry,
                 _default_value, _missing_else, _assignment_in_condition, _missing_comma):
        found = rule(tokens, index, bad, before, expected)
        if found is not None:
            return found
    return None


def _error(message: str, start: Tok, end: Tok | None = None, furthest: Tok | None = None) -> ScriptSyntaxError:
    end_column = end.end_column if end is not None and end.line == start.line else None
    found = ScriptSyntaxError(message, start.line, start.column, end_column=end_column)
    if furthest is not None:
        found.furthest_line = float("inf") if furthest.kind == "end" else furthest.line  # type: ignore
    return found


# ---------------------------------------------------------------- walking expressions
def _matching_opener(tokens: list[Tok], index: int) -> int:
    """Index of the bracket that the closing bracket at ``index`` closes."""
    depth = 0
    for position in range(index, -1, -1):
        text = tokens[position].text if tokens[position].kind == "op" else ""
        if text in _CLOSE:
            depth += 1
        elif text in _OPEN:
            depth -= 1
            if depth == 0:
                return position
    return 0


def _matching_closer(tokens: list[Tok], index: int) -> int:
    depth = 0
    for position in range(index, len(tokens)):
        text = tokens[position].text if tokens[position].kind == "op" else ""
        if text in _OPEN:
            depth += 1
        elif text in _CLOSE:
            depth -= 1
            if depth == 0:
                return position
    return len(tokens) - 1


def _is_operator(tok: Tok, bitwise_only: bool = False) -> bool:
    if tok.kind == "op":
        if bitwise_only and tok.text in _BITWISE_STOP:
            return False
        return tok.text in _BINARY
    return tok.kind == "name" and tok.text in _WORD_OPERATORS and not bitwise_only


def expression_start(tokens: list[Tok], last: int) -> tuple[int, Tok | None]:
    """Where the disjunction ending at ``tokens[last]`` begins, and the token before it."""
    position = last
    while True:
        if tokens[position].kind == "op" and tokens[position].text in _CLOSE:
            position = _matching_opener(tokens, position)
        if position == 0:
            return 0, None
        here, previous = tokens[position], tokens[position - 1]
        before = tokens[position - 2] if position >= 2 else None
        if here.kind == "op" and here.text in "([" and previous.ends_atom():
            position -= 1          # a call or a subscript: back to its primary
            continue
        if here.kind == "string" and previous.kind == "string":
            position -= 1          # "a" "b": one atom
            continue
        if previous.kind == "name" and previous.text == "in" and before is not None and before.text == "not":
            if position >= 3 and tokens[position - 3].ends_atom():
                position -= 3      # a not in b
                continue
        if previous.kind == "name" and previous.text == "not" and before is not None and before.text == "is":
            position -= 3          # a is not b
            continue
        binary = previous.kind == "op" and previous.text in _BINARY and previous.text != "~"
        binary = binary or (previous.kind == "name" and previous.text in ("and", "or", "is", "in"))
        if binary and before is not None and before.ends_atom():
            position -= 2          # the left operand's last token
            continue
        if previous.text in ("-", "+", "~", "not") and (before is None or not before.ends_atom()):
            position -= 1          # a unary operator
            continue
        return position, previous


def expression_end(tokens: list[Tok], first: int, bitwise_only: bool = False) -> int:
    """The last token of the expression (a disjunction, or a bitwise_or) beginning at ``first``."""
    position = first
    while position < len(tokens) - 1:
        tok = tokens[position]
        if tok.kind == "op" and tok.text in _OPEN:
            position = _matching_closer(tokens, position)
        elif not tok.ends_atom() and not _is_operator(tok, bitwise_only):
            return max(position - 1, first)
        if position + 1 >= len(tokens):   # (an unclosed bracket runs to the end of the input)
            return position
        following = tokens[position + 1]
        if following.kind == "op" and following.text in "([" and tokens[position].ends_atom():
            position += 1
            continue
        if following.kind == "string" and tokens[position].kind == "string":
            position += 1
            continue
        if following.kind == "op" and following.text == "." and tokens[position].ends_atom():
            position += 2
            continue
        if _is_operator(following, bitwise_only) or (tok.ends_atom() is False and following.starts_expression()):
            position += 1
            continue
        if not tok.ends_atom() and (following.starts_expression() or following.text in _OPEN):
            position += 1
            continue
        return position
    return position


# ---------------------------------------------------------------- the rules
def _legacy_print(tokens, index, bad, before, expected):
    """``print x`` -- invalid_legacy_expression."""
    if before is None or before.kind != "name" or before.text not in ("print", "exec"):
        return None
    if index >= 2 and tokens[index - 2].text == ".":
        return None
    if not bad.starts_expression() and bad.text not in ("[", "-", "+", "*"):
        return None
    end = _star_expressions_end(tokens, index)
    return _error(f"Missing parentheses in call to '{before.text}'. Did you mean {before.text}(...)?",
                  before, tokens[end], tokens[min(end + 1, len(tokens) - 1)])


def _star_expressions_end(tokens: list[Tok], first: int) -> int:
    end = expression_end(tokens, first)
    while end + 2 < len(tokens) and tokens[end + 1].text == "," and tokens[end + 2].starts_expression():
        end = expression_end(tokens, end + 2)
    return end


def _missing_comma(tokens, index, bad, before, expected):
    """``[a b]`` -- invalid_expression: two expressions side by side inside brackets."""
    if before is None or bad.level == 0 or not before.ends_atom() or not bad.starts_expression():
        return None
    start, preceding = expression_start(tokens, index - 1)
    if preceding is not None and preceding.kind == "name" and preceding.text in ("if", "else", "for", "in"):
        return None     # inside a conditional expression or a comprehension: CPython says "invalid syntax"
    first = tokens[start]
    if first.kind == "name" and (first.text in _SOFT_KEYWORDS or tokens[start + 1].kind == "string"):
        return None     # !(NAME STRING | SOFT_KEYWORD)
    if first.kind == "name" and first.text in ("print", "exec") and start == index - 1:
        return None
    end = expression_end(tokens, index)
    return _error("invalid syntax. Perhaps you forgot a comma?", first, tokens[end],
                  tokens[min(end + 1, len(tokens) - 1)])


def _missing_else(tokens, index, bad, before, expected):
    """``x = a if b`` -- expected 'else' after 'if' expression."""
    if "ELSE" not in expected or bad.text == ":":
        return None
    position = index - 1
    while position > 0 and not (tokens[position].text == "if" and tokens[position].level == bad.inner):
        position -= 1
    if position <= 0:
        return None
    start, _ = expression_start(tokens, position - 1)
    return _error("expected 'else' after 'if' expression", tokens[start], before, bad)


def _assignment_in_condition(tokens, index, bad, before, expected):
    """``if x = 1:`` -- invalid_named_expression."""
    if bad.text != "=" or "EQUAL" in expected or before is None or not before.ends_atom():
        return None
    start, _ = expression_start(tokens, index - 1)
    first = tokens[start]
    if index + 1 >= len(tokens) or not (tokens[index + 1].starts_expression()
                                        or tokens[index + 1].text in ("(", "[", "-", "+")):
        return None
    value_end = expression_end(tokens, index + 1, bitwise_only=True)
    after = tokens[value_end + 1] if value_end + 1 < len(tokens) else tokens[-1]
    if after.text in ("=", ":="):
        return None
    if start == index - 1 and first.kind == "name" and first.text not in KEYWORDS:
        return _error("invalid syntax. Maybe you meant '==' or ':=' instead of '='?", first,
                      tokens[value_end], after)
    if any(_is_operator(tok) and tok.text in _BITWISE_STOP for tok in tokens[start:index]
           if tok.level == bad.level):
        return None
    if first.text in ("True", "False", "None") and start == index - 1:
        return None
    if first.text in ("[", "(") and _matching_closer(tokens, start) == index - 1:
        return None     # a list, tuple or generator display
    kind = expression_kind(" ".join(tok.text for tok in tokens[start:index]))
    if kind is None:
        return None
    return _error(f"cannot assign to {kind} here. Maybe you meant '==' instead of '='?", first,
                  before, after)


def _generator_argument(tokens, index, bad, before, expected):
    """``f(x for x in y, 1)`` -- Generator expression must be parenthesized."""
    if bad.level == 0 or bad.text not in (",", "for"):
        return None
    opener = index - 1
    while opener >= 0 and not (tokens[opener].text in _OPEN and tokens[opener].level == bad.inner - 1):
        opener -= 1
    if opener <= 0 or tokens[opener].text != "(" or not tokens[opener - 1].ends_atom():
        return None     # not a call
    start = opener + 1
    for position in range(index - 1, opener, -1):
        if tokens[position].text == "," and tokens[position].level == bad.level:
            start = position + 1
            break
    if bad.text == ",":
        if not any(tok.text == "for" and tok.level == bad.level for tok in tokens[start:index]):
            return None
        return _error("Generator expression must be parenthesized", tokens[start], before, bad)
    if start == opener + 1:
        return None
    closer = _matching_closer(tokens, opener)
    return _error("Generator expression must be parenthesized", tokens[start], tokens[closer - 1],
                  tokens[closer])


def _dict_entry(tokens, index, bad, before, expected):
    """``{1: 2, 3}`` and ``{1:}`` -- invalid_double_starred_kvpairs / invalid_kvpair."""
    if bad.inner == 0 or before is None:
        return None
    opener = index - 1
    while opener >= 0 and not (tokens[opener].text in _OPEN and tokens[opener].level == bad.inner - 1):
        opener -= 1
    if opener < 0 or tokens[opener].text != "{":
        return None
    items = tokens[opener + 1:index]
    if before.text == ":" and bad.text in ("}", ","):
        return _error("expression expected after dictionary key and ':'", before, before, bad)
    if before.text == ":" and bad.text == "*":
        end = expression_end(tokens, index + 1)
        return _error("cannot use a starred expression in a dictionary value", bad, tokens[end], tokens[end + 1])
    first_colon = any(tok.text == ":" and tok.level == bad.inner for tok in items)
    if bad.text in ("}", ",") and "COLON" in expected and first_colon and before.ends_atom():
        key_start, preceding = expression_start(tokens, index - 1)
        if preceding is None or preceding.text != ",":
            return None
        found = ScriptSyntaxError("':' expected after dictionary key", before.line, before.end_column - 1)
        return found
    return None


def _default_value(tokens, index, bad, before, expected):
    """``def f(x=):`` -- expected default value expression."""
    if before is None or before.text != "=" or bad.text not in (")", ","):
        return None
    opener = index - 1
    while opener >= 0 and not (tokens[opener].text == "(" and tokens[opener].level == bad.inner - 1):
        opener -= 1
    if opener >= 2 and tokens[opener - 2].text == "def":
        return _error("expected default value expression", before, before, bad)
    return None


def _starred_comprehension(tokens, index, bad, before, expected):
    """``[*a for a in b]`` -- iterable unpacking cannot be used in comprehension."""
    if bad.text != "for" or bad.level == 0:
        return None
    start, preceding = expression_start(tokens, index - 1)
    if preceding is None or preceding.text not in ("*", "**"):
        return None
    star = tokens[start - 1]
    if star.text == "**":
        return _error("dict unpacking cannot be used in dict comprehension", star, before, bad)
    return _error("iterable unpacking cannot be used in comprehension", star, before, bad)


# ---------------------------------------------------------------- naming expressions
_KIND_NAMES = {
    "call": "function call", "attribute": "attribute", "subscript": "subscript", "name": "name",
    "number": "literal", "strings": "literal", "const_none": "None", "const_true": "True",
    "const_false": "False", "ellipsis": "ellipsis", "comparison": "comparison",
    "lambdef": "lambda", "conditional": "conditional expression", "list_comp": "list comprehension",
    "dict_comp": "dict comprehension", "set_comp": "set comprehension",
    "generator": "generator expression", "dict": "dict literal", "set": "set display",
    "tuple": "tuple", "list": "list", "star_expr": "starred",
}


def expression_kind(source: str) -> str | None:
    """CPython's name for an expression (``_PyPegen_get_expr_name``): "function call", ..."""
    from gradcli.lang.syntax import parse
    try:
        tree = parse("(" + source + ")", start="field_input")
    except ScriptSyntaxError:
        return None
    node = tree.children[0]
    kind = getattr(node, "data", "")
    if kind == "strings" and any(str(token).lstrip("rRuUbB")[:1] in "fF" for token in node.children):
        return "f-string expression"
    return _KIND_NAMES.get(kind, "expression")
