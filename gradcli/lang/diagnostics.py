"""Error and warning reports: ``FILE:LINE:COL: ErrorType: message``, the line, a caret.

    demo.ag:4:1: RuntimeError: grad can be implicitly created only for scalar outputs
        backward(y)
        ^^^^^^^^^^^
    hint: ...

``ErrorType: message`` is Python's or PyTorch's exact text; the optional
``hint:`` line is gradcli's own and ``--no-hints`` turns it off.

A Reporter with a ``listener`` also hands each report over as a :class:`Report` (the same
facts as data, for ``gradcli run --json``); what it writes stays the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, TextIO

from gradcli.lang.errors import CALL_ATTRIBUTE, SUGGEST_ATTRIBUTE, ScriptSyntaxError, Source, Span

_BOLD_RED = "\x1b[1;31m"
_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_YELLOW = "\x1b[33m"
_CYAN = "\x1b[36m"
_RESET = "\x1b[0m"
TO_LINE_END = -1


def error_text(exc: BaseException) -> str:
    """``ErrorType: message`` as Python prints it (``AssertionError`` alone when there is no message;
    a library's own exception with its module: ``numpy.exceptions.AxisError``), with Python's
    "Did you mean: 'x'?" for a NameError or AttributeError."""
    name, message = error_parts(exc)
    return f"{name}: {message}" if message else name


def error_parts(exc: BaseException) -> tuple[str, str]:
    """The two halves of :func:`error_text`: the error type's name and the message."""
    cls = type(exc)
    module = cls.__module__
    if module == "__main__":     # a script's own exception class, named as Python's traceback names it
        name = cls.__qualname__
    elif module == "builtins" or module.startswith("gradcli."):
        name = cls.__name__
    else:
        name = f"{module}.{cls.__qualname__}"
    try:
        message = str(exc)       # (a script's __str__ runs here, and may fail as Python's would)
    except Exception:
        message = "<exception str() failed>"
    if SUGGEST_ATTRIBUTE in getattr(exc, "__dict__", {}):
        from gradcli.lang.suggestions import suggestion
        found = suggestion(exc)
        if found is not None:
            message += f". Did you mean: '{found}'?"
    return name, message


# ---------------------------------------------------------------- hints
Hint = Callable[[BaseException], "str | None"]
# (error type name, message prefix, hint); the first match gives the hint line.
HINTS: list[tuple[str, str, Hint]] = []


def hint(error_type: str, prefix: str) -> Callable[[Hint], Hint]:
    def register(function: Hint) -> Hint:
        HINTS.append((error_type, prefix, function))
        return function
    return register


def find_hint(exc: BaseException) -> str | None:
    if type(exc).__module__ == "__main__":
        return None     # a script's own exception: its message is all there is to say
    name = type(exc).__name__
    message = str(exc)
    if SUGGEST_ATTRIBUTE in getattr(exc, "__dict__", {}) and isinstance(exc, AttributeError):
        from gradcli.lang.suggestions import suggestion_hint
        found = suggestion_hint(exc)
        if found is not None:
            return found
    for error_type, prefix, function in HINTS:
        if name == error_type and message.startswith(prefix):
            try:
                return function(exc)
            except Exception:  # a hint must never turn an error report into a crash
                return None
    return None


@hint("RuntimeError", "grad can be implicitly created only for scalar outputs")
def _backward_needs_scalar(exc: BaseException) -> str | None:
    callee, args = exc.__dict__.get(CALL_ATTRIBUTE, (None, ()))
    output = getattr(callee, "__self__", None)
    if output is None or not hasattr(output, "shape"):
        output = args[0] if args and hasattr(args[0], "shape") else None
    if output is None:
        return None
    shape = list(output.shape)
    return (f"backward() needs a single number, but this output has shape {shape}; "
            "reduce it first (y.sum().backward()) or pass a gradient of the same shape "
            "(y.backward(torch.ones_like(y)))")


def _fixed(error_type: str, prefix: str, text: str) -> None:
    HINTS.append((error_type, prefix, lambda exc: text))


_fixed("RuntimeError", "element 0 of tensors does not require grad",
       "the output does not depend on any tensor with requires_grad=True; create the input with "
       "requires_grad=True (shorthand: tensor([1., 2.], grad))")
_fixed("RuntimeError", "a leaf Variable that requires grad is being used in an in-place operation",
       "update leaves inside `with torch.no_grad():` (or through x.data)")
_fixed("RuntimeError", "Only Tensors of floating point and complex dtype can require gradients",
       "use floating values (1. instead of 1) or dtype=torch.float32")
_fixed("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous",
       "reduce the comparison to one value first: (x > 0).all() or (x > 0).any()")


_fixed("ModuleNotFoundError", "No module named",
       "a script can import torch (with torch.nn, torch.nn.functional, torch.autograd, torch.linalg), "
       "math, numpy (the subset PyTorch's tutorials use), parts of random, functools, itertools "
       "and collections, and matplotlib.pyplot (drawn in the terminal)")


@hint("NameError", "name 'torch' is not defined")
def _missing_import(exc: BaseException) -> str:
    return "add `import torch` at the top, or use the bare name (ones(2) instead of torch.ones(2))"


# ---------------------------------------------------------------- as data
@dataclass(frozen=True)
class Report:
    """One diagnostic as data: what its text says, field by field (None where it says nothing)."""
    kind: str                  # "error", "syntax-error", "warning", "interrupted", "internal-error"
    type: str                  # "RuntimeError", "SyntaxError", "UserWarning", "KeyboardInterrupt", ...
    message: str
    filename: str | None = None
    line: int | None = None
    column: int | None = None  # 1-based, as the text report gives it
    end_line: int | None = None
    end_column: int | None = None  # exclusive: the caret stops before it
    hint: str | None = None


def _report_at(kind: str, type_: str, message: str, span: Span | None, filename: str | None = None,
               hint: str | None = None) -> Report:
    if span is None:
        return Report(kind, type_, message, filename, hint=hint)
    return Report(kind, type_, message, span.source.filename, span.line, span.column, span.end_line,
                  span.end_column, hint)


# ---------------------------------------------------------------- formatting
class Reporter:
    """Writes diagnostics to a stream (stderr), coloured with ANSI codes on a terminal."""

    def __init__(self, stream: TextIO, *, color: bool = False, hints: bool = True) -> None:
        self.stream = stream
        self.color = color
        self.hints = hints
        # hears every report as a Report, after its text is written (None: nobody asked)
        self.listener: Callable[[Report], None] | None = None

    def _paint(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text

    def error(self, exc: BaseException, span: Span | None, fallback: Span | None = None,
              filename: str | None = None) -> None:
        """Report a script error at ``span`` (or ``fallback``; or just ``filename`` if neither)."""
        where = span or fallback
        error_type, message = error_parts(exc)
        headline = f"{error_type}: {message}" if message else error_type
        name, _, rest = headline.partition(":")
        painted = self._paint(name, _BOLD_RED) + (":" + rest if rest or ":" in headline else "")
        location = self._location(where) if where is not None or filename is None else f"{filename}: "
        lines = [f"{location}{painted}"]
        if where is not None:
            end = where.end_column if where.end_line == where.line else TO_LINE_END
            lines.extend(self._excerpt(where.source, where.line, where.column, end))
        text = find_hint(exc) if self.hints else None
        if text:
            lines.append(self._paint("hint:", _CYAN) + " " + text)
        self._write(lines)
        if self.listener is not None:
            self.listener(_report_at("error", error_type, message, where, filename, text or None))

    def syntax_error(self, error: ScriptSyntaxError, source: Source) -> None:
        headline = self._paint(error.kind, _BOLD_RED) + ": " + error.message
        lines = [f"{source.filename}:{error.line}:{error.column}: {headline}"]
        shown = source if error.text is None else Source(error.text, source.filename)
        lines.extend(self._excerpt(shown, error.line if error.text is None else 1, error.column,
                                   error.end_column))
        hint = error.hint if self.hints and error.hint else None
        if hint:
            lines.append(self._paint("hint:", _CYAN) + " " + hint)
        self._write(lines)
        if self.listener is not None:
            self.listener(Report("syntax-error", error.kind, error.message, source.filename, error.line,
                                 error.column, error.line, error.end_column, hint))

    def warning(self, category: str, message: str, span: Span | None) -> None:
        self._write([f"{self._location(span)}{self._paint(category, _YELLOW)}: {message}"])
        if self.listener is not None:
            self.listener(_report_at("warning", category, message, span))

    def interrupted(self, what: str, span: Span | None) -> None:
        lines = [f"{self._location(span)}{self._paint(what, _BOLD)}"]
        if span is not None:
            lines.extend(self._excerpt(span.source, span.line, span.column, None)[:1])
        self._write(lines)
        if self.listener is not None:
            self.listener(_report_at("interrupted", what, "", span))

    def internal_error(self, exc: BaseException, traceback_text: str | None) -> None:
        lines = [traceback_text.rstrip("\n")] if traceback_text else []
        hint = ""
        if not traceback_text:
            from gradcli.lang.crash_log import save_traceback
            saved = save_traceback(exc)
            hint = f"; the traceback is in {saved}" if saved else "; run with --debug for the traceback"
        lines.append(f"gradcli: internal error: {error_text(exc)} (this is a bug in gradcli{hint})")
        self._write(lines)
        if self.listener is not None:
            self.listener(Report("internal-error", *error_parts(exc)))

    @staticmethod
    def _location(span: Span | None) -> str:
        if span is None:
            return ""
        return f"{span.source.filename}:{span.line}:{span.column}: "

    def _excerpt(self, source: Source, line: int, column: int, end_column: int | None) -> list[str]:
        """The source line and a caret under columns [column, end_column); one caret if no end,
        to the end of the line if ``end_column`` is TO_LINE_END."""
        text = source.line(line).rstrip()
        if not text.strip():
            return []
        indent = len(text) - len(text.lstrip())
        shown = text[indent:]
        start = min(max(column - 1 - indent, 0), len(shown))
        if end_column == TO_LINE_END:
            end = len(shown)
        elif end_column is None:
            end = start + 1
        else:
            end = min(end_column - 1 - indent, len(shown))
        end = max(end, start + 1)
        # keep tabs under tabs so the caret lines up however the terminal shows them
        prefix = "".join(char if char == "\t" else " " for char in shown[:start])
        caret = self._paint("^" * (end - start), _RED)
        return [f"    {shown}", f"    {prefix}{caret}"]

    def _write(self, lines: list[str]) -> None:
        self.stream.write("\n".join(lines) + "\n")
        self.stream.flush()

