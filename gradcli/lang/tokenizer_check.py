"""The errors CPython 3.11's tokenizer finds in a source, worded and placed as it places them.

Read only after the parser has failed (syntax.py): CPython reports a
tokenizer error (an unterminated string, ``1abc``, a bracket that does not
match, an unindent that matches no block, ...) in preference to the parser's
own error wherever in the file it is, because it tokenizes the whole source
before it settles on a syntax error.  ``scan`` walks the text once as
Parser/tokenizer.c does and returns the first such error, plus the innermost
bracket still open at the end (CPython's "'(' was never closed", which wins
only when the parser's error lies on a later line; the caller decides).

Positions follow CPython's SyntaxError: ``line`` and ``offset`` as
``compile()`` reports them (``offset`` 1-based, as gradcli's column).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradcli.lang.errors import ScriptSyntaxError

_PREFIXES = {"r", "u", "f", "b", "br", "rb", "fr", "rf"}
_OPENERS = "([{"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_THREE = {"**=", "...", "//=", ">>=", "<<=", "!=", "->"}
_TWO = {"!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=", ":=", "<<", "<=", "<>", "==",
        ">=", ">>", "@=", "^=", "|="}
MAX_INDENT = 100
MAX_LEVEL = 200
TAB_SIZE = 8


@dataclass
class OpenBracket:
    char: str
    line: int
    column: int     # 1-based


@dataclass
class ScanResult:
    error: ScriptSyntaxError | None
    unclosed: OpenBracket | None    # the innermost bracket open at the end of the text


def scan(text: str) -> ScanResult:
    """The first tokenizer error of ``text`` (None if it tokenizes) and the bracket left open."""
    try:
        unclosed = _Scanner(text).run()
    except ScriptSyntaxError as error:
        return ScanResult(error, None)
    return ScanResult(None, unclosed)


def _is_identifier_start(char: str) -> bool:
    return char.isalpha() or char == "_" or ord(char) >= 128


def _is_identifier_char(char: str) -> bool:
    return char.isalnum() or char == "_" or ord(char) >= 128


class _Scanner:
    def __init__(self, text: str) -> None:
        if not text.endswith("\n"):
            text += "\n"
        self.lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")[:-1]]
        self.line_count = len(self.lines)
        self.brackets: list[OpenBracket] = []
        self.indents = [0]
        self.alt_indents = [0]

    def error(self, message: str, line: int, offset: int, *, kind: str = "SyntaxError",
              incomplete: bool = False) -> ScriptSyntaxError:
        return ScriptSyntaxError(message, line, offset, kind=kind, incomplete=incomplete)

    def run(self) -> OpenBracket | None:
        number = 0
        continued = False   # the previous line ended in a backslash
        while number < self.line_count:
            line = self.lines[number]
            number += 1
            start = 0
            if not self.brackets and not continued:
                start = self._indentation(line, number)
                if start is None:
                    continue    # a blank or comment-only line
            number, continued = self._tokens(number, start)
        return self.brackets[-1] if self.brackets else None

    # ------------------------------------------------------------ indentation
    def _indentation(self, line: str, number: int) -> int | None:
        col = alt = index = 0
        while index < len(line):
            char = line[index]
            if char == " ":
                col, alt = col + 1, alt + 1
            elif char == "\t":
                col = (col // TAB_SIZE + 1) * TAB_SIZE
                alt += 1
            elif char == "\f":
                col = alt = 0
            else:
                break
            index += 1
        rest = line[index:]
        if not rest or rest.startswith("#"):
            return None
        if col == self.indents[-1]:
            if alt != self.alt_indents[-1]:
                raise self._tab_error(number)
        elif col > self.indents[-1]:
            if len(self.indents) >= MAX_INDENT:
                raise self.error("too many levels of indentation", number, len(line) + 1,
                                 kind="IndentationError")
            if alt <= self.alt_indents[-1]:
                raise self._tab_error(number)
            self.indents.append(col)
            self.alt_indents.append(alt)
        else:
            while len(self.indents) > 1 and col < self.indents[-1]:
                self.indents.pop()
                self.alt_indents.pop()
            if col != self.indents[-1]:
                raise self.error("unindent does not match any outer indentation level", number,
                                 len(line) + 1, kind="IndentationError")
            if alt != self.alt_indents[-1]:
                raise self._tab_error(number)
        return index

    def _tab_error(self, number: int) -> ScriptSyntaxError:
        return self.error("inconsistent use of tabs and spaces in indentation", number, 1, kind="TabError")

    # ------------------------------------------------------------ tokens
    def _tokens(self, number: int, index: int) -> tuple[int, bool]:
        """Tokens of line ``number`` (1-based) from ``index``; returns the next line to read and
        whether this line ended with a continuation backslash."""
        line = self.lines[number - 1]
        while index < len(line):
            char = line[index]
            if char in " \t\f":
                index += 1
                continue
            if char == "#":
                break
            if char == "\\":
                if index + 1 < len(line):
                    raise self.error("unexpected character after line continuation character",
                                     number, index + 2)
                if number >= self.line_count:
                    raise self.error("unexpected EOF while parsing", number, index + 2, incomplete=True)
                return number, True
            if _is_identifier_start(char):
                end = index
                while end < len(line) and _is_identifier_char(line[end]):
                    end += 1
                word = line[index:end]
                if word.lower() in _PREFIXES and end < len(line) and line[end] in "'\"":
                    number, line, index = self._string(number, index, end)
                    continue
                self._verify_identifier(word, number, index)
                index = end
                continue
            if char.isdigit() or (char == "." and line[index + 1:index + 2].isdigit()):
                index = self._number(line, number, index)
                continue
            if char in "'\"":
                number, line, index = self._string(number, index, index)
                continue
            if char in _OPENERS:
                if len(self.brackets) >= MAX_LEVEL:
                    raise self.error("too many nested parentheses", number, index + 1)
                self.brackets.append(OpenBracket(char, number, index + 1))
                index += 1
                continue
            if char in _CLOSERS:
                if not self.brackets:
                    raise self.error(f"unmatched '{char}'", number, index + 1)
                opener = self.brackets.pop()
                if opener.char != _CLOSERS[char]:
                    message = (f"closing parenthesis '{char}' does not match opening "
                               f"parenthesis '{opener.char}'")
                    if opener.line != number:
                        message += f" on line {opener.line}"
                    raise self.error(message, number, index + 1)
                index += 1
                continue
            # operators and any other character: a token the parser judges
            if line[index:index + 3] in _THREE:
                index += 3
            elif line[index:index + 2] in _TWO:
                index += 2
            else:
                index += 1
        return number, False

    def _verify_identifier(self, word: str, number: int, index: int) -> None:
        if word.isascii() or word.isidentifier():
            return
        valid = 0
        while valid < len(word) and word[:valid + 1].isidentifier():
            valid += 1
        char = word[valid]
        column = index + valid + 1
        if char.isprintable():
            raise self.error(f"invalid character '{char}' (U+{ord(char):04X})", number, column)
        raise self.error(f"invalid non-printable character U+{ord(char):04X}", number, column)

    # ------------------------------------------------------------ strings
    def _string(self, number: int, start: int, quote_at: int) -> tuple[int, str, int]:
        """Skip a string literal starting at ``start`` (its prefix) whose quote is at ``quote_at``;
        return the line and index after it."""
        line = self.lines[number - 1]
        first_line = number
        quote = line[quote_at]
        triple = line[quote_at:quote_at + 3] == quote * 3
        size = 3 if triple else 1
        index = quote_at + size
        while True:
            if index >= len(line):
                if not triple:
                    raise self.error(f"unterminated string literal (detected at line {number})",
                                     first_line, start + 1)
                if number >= self.line_count:
                    raise self.error("unterminated triple-quoted string literal (detected at line "
                                     f"{number})", first_line, start + 1, incomplete=True)
                number += 1
                line = self.lines[number - 1]
                index = 0
                continue
            char = line[index]
            if char == "\\":
                if index + 1 >= len(line):      # an escaped newline: the literal goes on
                    if number >= self.line_count:
                        message = ("unterminated triple-quoted string literal" if triple
                                   else "unterminated string literal")
                        raise self.error(f"{message} (detected at line {number})", first_line,
                                         start + 1, incomplete=triple)
                    number += 1
                    line = self.lines[number - 1]
                    index = 0
                    continue
                index += 2
                continue
            if line.startswith(quote * size, index):
                return number, line, index + size
            index += 1

    # ------------------------------------------------------------ numbers
    def _number(self, line: str, number: int, index: int) -> int:
        """Check a number literal as tok_get does; return the index after it."""
        reader = _Reader(line, index, number, self)
        return reader.number()


class _Reader:
    """A cursor over one line that mimics tok_nextc/tok_backup for number literals."""

    def __init__(self, line: str, start: int, number: int, scanner: _Scanner) -> None:
        self.text = line + "\n"
        self.start = start
        self.cur = start
        self.number_line = number
        self.scanner = scanner

    def next(self) -> str:
        char = self.text[self.cur] if self.cur < len(self.text) else ""
        self.cur += 1
        return char

    def back(self) -> None:
        self.cur -= 1

    def fail(self, message: str, offset: int | None = None) -> ScriptSyntaxError:
        # CPython's syntaxerror() reports the characters read so far as the offset
        return self.scanner.error(message, self.number_line, self.cur if offset is None else offset)

    def decimal_tail(self) -> str:
        while True:
            char = self.next()
            while char.isdigit():
                char = self.next()
            if char != "_":
                return char
            char = self.next()
            if not char.isdigit():
                self.back()
                raise self.fail("invalid decimal literal")

    def verify_end(self, char: str, kind: str) -> None:
        """verify_end_of_number: a keyword glued to a number is only warned about."""
        rest = self.text[self.cur:]
        if ((char == "a" and rest.startswith("nd")) or (char == "e" and rest.startswith("lse"))
                or (char == "f" and rest.startswith("or")) or (char == "i" and rest[:1] in ("f", "n", "s"))
                or (char == "o" and rest.startswith("r")) or (char == "n" and rest.startswith("ot"))):
            return
        if char and char.isascii() and _is_identifier_char(char):
            self.back()
            raise self.fail(f"invalid {kind} literal")

    def digits(self, valid: str, kind: str) -> str:
        """The digits of a 0x/0o/0b literal, with CPython's errors."""
        char = self.next()
        while True:
            if char == "_":
                char = self.next()
            if not char or char not in valid:
                if kind != "hexadecimal" and char.isdigit():
                    raise self.fail(f"invalid digit '{char}' in {kind} literal")
                self.back()
                raise self.fail(f"invalid {kind} literal")
            char = self.next()
            while char and char in valid:
                char = self.next()
            if char != "_":
                break
        if kind != "hexadecimal" and char.isdigit():
            raise self.fail(f"invalid digit '{char}' in {kind} literal")
        self.verify_end(char, kind)
        return char

    def number(self) -> int:
        char = self.next()
        if char == ".":
            return self.fraction(self.next())
        if char == "0":
            char = self.next()
            if char in "xX" and char:
                char = self.digits("0123456789abcdefABCDEF", "hexadecimal")
            elif char in "oO" and char:
                char = self.digits("01234567", "octal")
            elif char in "bB" and char:
                char = self.digits("01", "binary")
            else:
                nonzero = False
                while True:
                    if char == "_":
                        char = self.next()
                        if not char.isdigit():
                            self.back()
                            raise self.fail("invalid decimal literal")
                    if char != "0":
                        break
                    char = self.next()
                if char.isdigit():
                    nonzero = True
                    char = self.decimal_tail()
                if nonzero and char not in (".", "e", "E", "j", "J"):
                    self.back()
                    raise self.scanner.error("leading zeros in decimal integer literals are not "
                                             "permitted; use an 0o prefix for octal integers",
                                             self.number_line, self.start + 1)
                return self.after_integer(char)
            self.back()
            return self.cur
        self.back()
        return self.after_integer(self.decimal_tail())

    # tok_get's "fraction", "exponent" and "imaginary" labels: what may follow each part of a decimal
    def after_integer(self, char: str) -> int:
        if char == ".":
            return self.fraction(self.next())
        return self.after_fraction(char)

    def fraction(self, char: str) -> int:
        if char.isdigit():
            self.back()
            char = self.decimal_tail()
        return self.after_fraction(char)

    def after_fraction(self, char: str) -> int:
        if char in ("e", "E"):
            return self.exponent(char)
        return self.after_exponent(char)

    def exponent(self, e: str) -> int:
        char = self.next()
        if char in ("+", "-"):
            char = self.next()
            if not char.isdigit():
                self.back()
                raise self.fail("invalid decimal literal")
        elif not char.isdigit():
            self.back()
            self.verify_end(e, "decimal")   # raises unless a keyword follows ("1else")
            self.back()
            return self.cur
        self.back()
        return self.after_exponent(self.decimal_tail())

    def after_exponent(self, char: str) -> int:
        if char in ("j", "J"):
            return self.imaginary()
        self.verify_end(char, "decimal")
        self.back()
        return self.cur

    def imaginary(self) -> int:
        char = self.next()
        self.verify_end(char, "imaginary")
        self.back()
        return self.cur
