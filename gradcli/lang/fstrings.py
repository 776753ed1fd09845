"""Split an f-string literal into literal text and ``{expression!conversion:spec}`` fields.

The compiler parses each field's expression with the script grammar; this
module only finds where the fields are (so positions in diagnostics point
into the f-string) and decodes the literal text between them.
"""

from __future__ import annotations

from dataclasses import dataclass


class FStringError(Exception):
    """A malformed f-string; ``offset`` is the index in the body where it was noticed."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


_OPENERS = {"(": ")", "[": "]", "{": "}"}


@dataclass
class Field:
    expression: str
    offset: int                       # index of the expression in the literal's body
    conversion: str | None = None     # "r", "s" or "a"
    spec: list | None = None          # literal pieces and nested fields of the format spec
    self_documenting: str | None = None   # the text up to and including "=" in {x=}


def split_literal(token_text: str) -> tuple[str, str, bool]:
    """(body between the quotes, lower-case prefix, raw?) of a string token such as ``rf'..'``."""
    prefix_length = 0
    while token_text[prefix_length] not in "'\"":
        prefix_length += 1
    prefix = token_text[:prefix_length].lower()
    triple = token_text[prefix_length:prefix_length + 3] in ('"""', "'''")
    quote_length = 3 if triple else 1
    start = prefix_length + quote_length
    return token_text[start:len(token_text) - quote_length], prefix, "r" in prefix


def unescape(text: str) -> str:
    """Decode backslash escapes of a (non-raw) string literal, keeping non-ASCII text intact."""
    if "\\" not in text:
        return text
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


def parse_fstring(body: str, raw: bool, start: int = 0, end: int | None = None, depth: int = 0) -> list:
    """Literal pieces (already unescaped) and fields of ``body[start:end]`` (``depth``: how deep
    in format specs this text is)."""
    end = len(body) if end is None else end
    parts: list = []
    literal: list[str] = []
    index = start
    while index < end:
        char = body[index]
        if char == "{":
            if body.startswith("{{", index):
                literal.append("{")
                index += 2
                continue
            if literal:
                parts.append(_decode("".join(literal), raw))
                literal = []
            if depth >= 2:
                raise FStringError("f-string: expressions nested too deeply", index)
            found, index = _field(body, index + 1, end, raw, depth)
            parts.append(found)
        elif char == "}":
            if body.startswith("}}", index):
                literal.append("}")
                index += 2
                continue
            raise FStringError("f-string: single '}' is not allowed", index)
        else:
            literal.append(char)
            index += 1
    if literal:
        parts.append(_decode("".join(literal), raw))
    return parts


def _decode(text: str, raw: bool) -> str:
    return text if raw else unescape(text)


def _field(body: str, start: int, end: int, raw: bool, depth: int = 0) -> tuple[Field, int]:
    """Parse one field whose expression begins at ``start``; return it and the index after '}'.

    The scan and its errors are CPython 3.11's (fstring_find_expr)."""
    index = start
    brackets: list[str] = []
    quote: str | None = None
    while index < end:
        char = body[index]
        if char == "\\":
            raise FStringError("f-string expression part cannot include a backslash", index)
        if quote:
            if body.startswith(quote, index):
                index += len(quote)
                quote = None
                continue
        elif char in "'\"":
            quote = char * 3 if body.startswith(char * 3, index) else char
            index += len(quote)
            continue
        elif char in _OPENERS:
            brackets.append(char)
        elif char == "#":
            raise FStringError("f-string expression part cannot include '#'", index)
        elif not brackets and char in "!:}=<>":
            if body[index + 1:index + 2] == "=" and char in "!=<>":
                index += 2
                continue
            if char in "<>":
                index += 1
                continue
            break
        elif char in ")]}":
            if not brackets:
                raise FStringError(f"f-string: unmatched '{char}'", index)
            opening = brackets.pop()
            if _OPENERS[opening] != char:
                raise FStringError(f"f-string: closing parenthesis '{char}' does not match opening "
                                   f"parenthesis '{opening}'", index)
        index += 1
    if quote:
        raise FStringError("f-string: unterminated string", index)
    if brackets:
        raise FStringError(f"f-string: unmatched '{brackets[-1]}'", index)
    if index >= end:
        raise FStringError("f-string: expecting '}'", start - 1)
    expression = body[start:index]
    if not expression.strip(" \t\n\f"):
        if body[index] in "!:=":
            raise FStringError(f"f-string: expression required before '{body[index]}'", start)
        raise FStringError("f-string: empty expression not allowed", start)
    found = Field(expression=expression, offset=start)
    if body[index] == "=":
        index += 1
        while index < end and body[index] in " \t":
            index += 1
        found.self_documenting = body[start:index]
    if index < end and body[index] == "!":
        conversion = body[index + 1:index + 2]
        if conversion not in ("r", "s", "a"):
            raise FStringError("f-string: invalid conversion character: expected 's', 'r', or 'a'",
                               index + 1)
        found.conversion = conversion
        index += 2
    if index < end and body[index] == ":":
        spec_start = index = index + 1
        nested = 0
        while index < end and (body[index] != "}" or nested):
            if body[index] == "{":
                nested += 1
            elif body[index] == "}":
                nested -= 1
            index += 1
        found.spec = parse_fstring(body, raw, spec_start, index, depth + 1)
    if index >= end or body[index] != "}":
        raise FStringError("f-string: expecting '}'", min(index, end - 1))
    return found, index + 1


def _is_self_doc_equals(body: str, index: int) -> bool:
    before = body[index - 1:index]
    after = body[index + 1:index + 2]
    return after != "=" and before not in ("=", "!", "<", ">")
