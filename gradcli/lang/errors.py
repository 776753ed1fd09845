"""Errors of the script language and where in the script they happened.

Errors gradcli.lang raises on purpose for a script's mistake (a name that is
not defined, a bad call of a user function, a forbidden attribute) are
instances of ``Script*`` classes: they subclass the builtin Python raises and
the marker ``ScriptError``, and carry the builtin's ``__name__``, so a report
reads ``NameError: name 'y' is not defined`` exactly as Python's does.
"""

from __future__ import annotations

from typing import Any

# Exit statuses of a run.
EXIT_OK = 0
EXIT_SCRIPT_ERROR = 1
EXIT_INTERNAL_ERROR = 70   # EX_SOFTWARE: a bug in gradcli
EXIT_INTERRUPTED = 130     # 128 + SIGINT, as shells report Ctrl-C


class ScriptError(Exception):
    """Marker: a mistake in the script, worded as Python words it."""


def _visible(base: type[BaseException]) -> type:
    cls = type(base.__name__, (base, ScriptError), {"__module__": __name__})
    cls.__qualname__ = "Script" + base.__name__
    return cls


ScriptNameError = _visible(NameError)
ScriptUnboundLocalError = _visible(UnboundLocalError)
ScriptTypeError = _visible(TypeError)
ScriptValueError = _visible(ValueError)
ScriptAttributeError = _visible(AttributeError)
ScriptAssertionError = _visible(AssertionError)
ScriptRecursionError = _visible(RecursionError)
ScriptImportError = _visible(ImportError)
ScriptModuleNotFoundError = _visible(ModuleNotFoundError)
ScriptNotImplementedError = _visible(NotImplementedError)
ScriptRuntimeError = _visible(RuntimeError)
ScriptStopIteration = _visible(StopIteration)
ScriptPermissionError = _visible(PermissionError)
ScriptFileNotFoundError = _visible(FileNotFoundError)

# The modules whose error classes print as a builtin they subclass (ScriptValueError is ValueError).
_VISIBLE_MODULES = (__name__, "gradcli.engine.errors")


def visible_class(cls: type) -> type:
    """The class a script sees for an exception class: the builtin a gradcli error class stands
    for (``type(e)`` of a TorchRuntimeError is ``RuntimeError``), else ``cls`` itself."""
    if cls.__module__ in _VISIBLE_MODULES and issubclass(cls, BaseException):
        for base in cls.__mro__[1:]:
            if base.__module__ == "builtins":
                return base
    return cls


class ScriptTimeout(BaseException):
    """The run took longer than ``--timeout``; a BaseException so no script code swallows it."""


class ScriptSyntaxError(Exception):
    """A syntax error found before anything runs.

    ``incomplete`` says the input simply ended early (an open bracket, a block
    with no body yet): the REPL then asks for another line instead of failing.
    """

    def __init__(self, message: str, line: int, column: int, *, end_column: int | None = None,
                 kind: str = "SyntaxError", incomplete: bool = False, hint: str | None = None,
                 text: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.end_column = end_column
        self.kind = kind
        self.incomplete = incomplete
        self.hint = hint    # gradcli's own words, shown on a ``hint:`` line
        self.text = text    # the line to show instead of the source's (CPython's "(a b)" for f-strings)


class Source:
    """The text of one script (or one REPL entry) and the name diagnostics use for it."""

    __slots__ = ("filename", "text", "_lines")

    def __init__(self, text: str, filename: str) -> None:
        self.filename = filename
        self.text = text
        self._lines: list[str] | None = None

    def line(self, number: int) -> str:
        if self._lines is None:
            self._lines = self.text.splitlines()
        if 1 <= number <= len(self._lines):
            return self._lines[number - 1]
        return ""


class Span:
    """Where a node is: 1-based line and column, end column exclusive."""

    __slots__ = ("source", "line", "column", "end_line", "end_column")

    def __init__(self, source: Source, line: int, column: int, end_line: int, end_column: int) -> None:
        self.source = source
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column

    def __repr__(self) -> str:
        return f"Span({self.source.filename}:{self.line}:{self.column}-{self.end_line}:{self.end_column})"


SPAN_ATTRIBUTE = "_gradcli_span"
# What "Did you mean" needs (gradcli.lang.suggestions, read when the error is reported): a
# NameError's (local names, globals, builtins); True on an AttributeError whose .obj/.name are set.
SUGGEST_ATTRIBUTE = "_gradcli_suggest"
CALL_ATTRIBUTE = "_gradcli_call"
# (line, column) the parser had reached when something stopped it (the time limit, Ctrl-C)
POSITION_ATTRIBUTE = "_gradcli_position"


def mark(exc: BaseException, span: Span) -> None:
    """Record the innermost script node an exception passed through (first mark wins)."""
    try:
        if SPAN_ATTRIBUTE not in exc.__dict__:
            exc.__dict__[SPAN_ATTRIBUTE] = span
    except AttributeError:  # an exception type without __dict__: no location then
        pass


def mark_call(exc: BaseException, span: Span, callee: object, args: tuple) -> None:
    """Like ``mark``, and remember what was called, for hints that describe the arguments."""
    try:
        if SPAN_ATTRIBUTE not in exc.__dict__:
            exc.__dict__[SPAN_ATTRIBUTE] = span
            exc.__dict__[CALL_ATTRIBUTE] = (callee, args)
    except AttributeError:
        pass


def span_of(exc: BaseException) -> Span | None:
    return getattr(exc, "__dict__", {}).get(SPAN_ATTRIBUTE)


def place_of(exc: BaseException, source: Source) -> Span | None:
    """Where in ``source`` an exception stopped the parser or compiler (None: unknown)."""
    span = span_of(exc)
    if span is None:
        position = getattr(exc, "__dict__", {}).get(POSITION_ATTRIBUTE)
        if position is not None:   # (a line of the parsed text: of the input, if it starts later)
            line = position[0] + getattr(source, "first", 1) - 1
            span = Span(source, line, position[1], line, position[1] + 1)
    return span


def name_error(message: str, name: str, local_names: Any, global_names: dict, builtin_names: dict) -> Exception:
    """A NameError about ``name`` that can suggest a close name from these scopes."""
    error = ScriptNameError(message)
    error.name = name
    error.__dict__[SUGGEST_ATTRIBUTE] = (local_names, global_names, builtin_names)
    return error


def attribute_error(message: str, obj: Any, name: str) -> Exception:
    """An AttributeError raised reading ``obj.name``: it can suggest a close attribute."""
    error = ScriptAttributeError(message, name=name, obj=obj)
    error.__dict__[SUGGEST_ATTRIBUTE] = True
    return error
