"""Literals: numbers, ``None``/``True``/``False``/``...``, strings and f-strings.

An f-string's fields are parsed as expressions of their own and compiled with
the positions they have in the script, so an error inside ``{...}`` points at it.
"""

from __future__ import annotations

from typing import Any

from gradcli.lang import sizes
from gradcli.lang.compiler.base import CompilerBase, Evaluator, described
from gradcli.lang.errors import ScriptSyntaxError, Span, mark
from gradcli.lang.fstrings import Field, FStringError, parse_fstring, split_literal, unescape
from gradcli.lang.functions import Frame
from gradcli.lang.syntax import parse
from gradcli.lang.syntax_tree import Token, Tree


def constant(value: Any) -> Evaluator:
    """The closure of a value known at compile time."""
    def evaluate(frame: Frame) -> Any:
        return value
    evaluate.constant = value  # type: ignore[attr-defined]  # lets containers fold constants
    return evaluate


class LiteralCompiler(CompilerBase):
    def e_number(self, node: Tree) -> Evaluator:
        token = node.children[0]
        text = str(token)
        try:
            value = float(text) if token.type == "FLOAT_NUMBER" else int(text, 0)
        except ValueError as error:   # more decimal digits than sys.get_int_max_str_digits()
            raise ScriptSyntaxError(f"{error} - Consider hexadecimal for huge integer literals to avoid "
                                    "decimal conversion limits.", token.line, token.column,
                                    end_column=token.end_column) from None
        return constant(value)

    def e_const_none(self, node: Tree) -> Evaluator:
        return constant(None)

    def e_const_true(self, node: Tree) -> Evaluator:
        return constant(True)

    def e_const_false(self, node: Tree) -> Evaluator:
        return constant(False)

    def e_ellipsis(self, node: Tree) -> Evaluator:
        return constant(Ellipsis)

    def e_strings(self, node: Tree) -> Evaluator:
        pieces: list = []     # str constants and evaluators
        try:
            for token in node.children:
                body, prefix, raw = split_literal(str(token))
                if "f" in prefix:
                    try:
                        pieces.extend(self._fstring(token))
                    except FStringError as error:
                        # CPython reads the f-string once the parser has the token after the
                        # literal, and reports its malformations there
                        line, column = self._token_after(node)
                        raise ScriptSyntaxError(str(error), line, column) from None
                else:
                    pieces.append(body if raw else unescape(body))
        except UnicodeDecodeError as error:   # '\x4', '\N{nothing}', '\U99999999': placed as CPython
            raise ScriptSyntaxError(f"(unicode error) {error}", node.meta.end_line,   # places it
                                    node.meta.end_column) from None
        if all(isinstance(piece, str) for piece in pieces):
            return constant("".join(pieces))
        if len(pieces) == 1:
            return pieces[0]
        parts = tuple(pieces)

        def joined(frame: Frame) -> str:
            return "".join([part if part.__class__ is str else part(frame) for part in parts])
        return described(joined, "joined", parts)

    def _fstring(self, token: Token) -> list:
        text = str(token)
        body, prefix, raw = split_literal(text)
        quote_length = (len(text) - len(prefix) - len(body)) // 2
        offset = len(prefix) + quote_length   # where the body starts in the token
        parts = parse_fstring(body, raw)
        return [self._fstring_part(part, token, offset) for part in parts]

    def _token_after(self, node: Tree) -> tuple[int, int]:
        """Where the token after ``node`` starts (the NEWLINE at the end of its line)."""
        line, column = node.meta.end_line, node.meta.end_column
        depth = 0   # are we inside brackets? then the next token may be on a later line
        for char in self.source.text[:self._offset(node.meta.line, node.meta.column)]:
            depth += char in "([{"
            depth -= char in ")]}"
        while True:
            text = self.source.line(line)
            rest = text[column - 1:]
            stripped = rest.lstrip(" \t\f")
            if stripped and not stripped.startswith("#"):
                return line, column + len(rest) - len(stripped)
            if depth <= 0 or line >= self.source.text.count("\n") + 1:
                return line, len(text) + 1 if stripped.startswith("#") else column + len(rest)
            line, column = line + 1, 1

    def _offset(self, line: int, column: int) -> int:
        lines = self.source.text.split("\n")
        return sum(len(text) + 1 for text in lines[:line - 1]) + column - 1

    def _fstring_part(self, part: str | Field, token: Token, offset: int):
        if isinstance(part, str):
            return part
        line, column = self._position_in_token(token, offset + part.offset)
        expression = self._field_expression(part.expression, line, column)
        spec = None
        if part.spec is not None:
            spec_parts = [self._fstring_part(piece, token, offset) for piece in part.spec]
            text = "".join(piece for piece in spec_parts if isinstance(piece, str))
            if all(isinstance(piece, str) for piece in spec_parts) and not sizes.spec_width(text) >> 20:
                spec = constant(text)
            else:  # (computed, or a width of a million or more: checked at each run, gradcli.lang.sizes)
                spec_tuple = tuple(spec_parts)

                def spec(frame: Frame) -> str:
                    text = "".join([p if p.__class__ is str else p(frame) for p in spec_tuple])
                    sizes.check_format(text)
                    return text
                described(spec, "joined", spec_tuple)
        conversion = {"r": repr, "s": str, "a": ascii}.get(part.conversion or "")
        prefix = part.self_documenting
        if prefix is not None and conversion is None and spec is None:
            conversion = repr
        span = self._field_span(part.expression, line, column)

        def field(frame: Frame) -> str:
            try:
                value = expression(frame)
                if conversion is not None:
                    value = conversion(value)
                text = format(value, spec(frame) if spec is not None else "")
            except BaseException as error:
                mark(error, span)
                raise
            return text if prefix is None else prefix + text
        return described(field, "field", expression, conversion, spec, prefix, span)

    def _position_in_token(self, token: Token, index: int) -> tuple[int, int]:
        text = str(token)[:index]
        newlines = text.count("\n")
        if newlines == 0:
            return token.line, token.column + index
        return token.line + newlines, len(text) - text.rfind("\n")

    def _field_span(self, expression: str, line: int, column: int):
        lines = expression.split("\n")
        if len(lines) == 1:
            return Span(self.source, line, column, line, column + len(expression))
        return Span(self.source, line, column, line + len(lines) - 1, len(lines[-1]) + 1)

    def _field_expression(self, text: str, line: int, column: int) -> Evaluator:
        try:
            tree = parse("(" + text + ")", start="field_input")
        except ScriptSyntaxError as error:
            # CPython 3.11 parses the field as the text "(expression)" and reports the error
            # in that text: "f-string: " + message, the column within it, that text shown
            raise ScriptSyntaxError("f-string: " + error.message, line + error.line - 1, error.column,
                                    end_column=error.end_column, text=("(" + text + ")").split("\n")[
                                        error.line - 1] if error.line >= 1 else None) from None
        _shift_positions(tree, line - 1, column - 2)
        return self.expr(tree.children[0])


def _shift_positions(tree: Tree, lines: int, columns: int) -> None:
    """Move positions parsed from an f-string field to where the field is in the script."""
    for subtree in tree.iter_subtrees():
        meta = subtree.meta
        if getattr(meta, "empty", True):
            continue
        if meta.line == 1:
            meta.column += columns
        if meta.end_line == 1:
            meta.end_column += columns
        meta.line += lines
        meta.end_line += lines
        for child in subtree.children:
            if isinstance(child, Token) and child.line is not None:
                if child.line == 1:
                    child.column += columns
                if child.end_line == 1:
                    child.end_column += columns
                child.line += lines
                child.end_line += lines
