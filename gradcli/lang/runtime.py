"""Run scripts: a Session keeps one module namespace across ``run_source`` calls.

    session = Session()                      # stdout/stderr, engine = gradcli.engine.api
    outcome = session.run_source(text, "demo.ag")
    sys.exit(outcome.exit_code)

The REPL keeps one Session and calls ``run_source(entry, "<stdin>", echo="all")``
for each complete entry (see ``gradcli.lang.is_complete``); variables persist.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

from gradcli.engine import allocator, collector
from gradcli.engine.autograd import anomaly
from gradcli.lang import builtins as _builtins_module
from gradcli.lang import forward_trace
from gradcli.lang.compiler import CLOSURE_MODULES, FUSED_FILES, FUSED_FUNCTION_NAME, RunContext, compile_module
from gradcli.lang.compiler.base import EchoMode
from gradcli.lang.diagnostics import Reporter
from gradcli.lang.error_origin import is_script_error
from gradcli.lang.errors import (EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_SCRIPT_ERROR,
                                 ScriptSyntaxError, ScriptTimeout, Source, Span, place_of, span_of)
from gradcli.lang.functions import Frame
from gradcli.lang.namespaces import Modules
from gradcli.lang.output import make_output
from gradcli.lang import script_thread
from gradcli.lang.script_worker import CEILING_SLACK, Stopped, Worker, data_memory
from gradcli.lang.syntax import parse, prepare
from gradcli.lang.syntax_tree import Token

_COMPILED_CODE_FILES = frozenset(os.path.abspath(module.__file__) for module in CLOSURE_MODULES)
_FUSED_CODE_FILE = FUSED_FILES[0]

# Modules a script may import that a layer above the language provides: import path -> (module,
# function giving the members for one Session, function wording a name the module lacks).  The
# language only names them: the module is imported when a script first reads a member, so a plain
# run never loads the views, and gradcli.views keeps depending on gradcli.lang, not the reverse.
PROVIDED_MODULES: dict[str, tuple[str, str, str]] = {
    "matplotlib": ("gradcli.views.plot.pyplot", "matplotlib_members", "missing_member"),
    "matplotlib.pyplot": ("gradcli.views.plot.pyplot", "pyplot_members", "missing_member"),
}

# Each level of user recursion costs a dozen interpreter frames; the user-level
# limit (functions.MAX_USER_DEPTH) is the one scripts see.
_INTERPRETER_RECURSION_LIMIT = 30000


@dataclass(frozen=True)
class Outcome:
    status: str          # "ok", "error", "interrupted", "internal-error"
    exit_code: int

    @property
    def ok(self) -> bool:
        return self.status == "ok"


OK = Outcome("ok", EXIT_OK)
SCRIPT_ERROR = Outcome("error", EXIT_SCRIPT_ERROR)
INTERRUPTED = Outcome("interrupted", EXIT_INTERRUPTED)
INTERNAL_ERROR = Outcome("internal-error", EXIT_INTERNAL_ERROR)


class Session:
    """One script namespace plus where its output and diagnostics go."""

    def __init__(self, *, engine: Any = None, stdout: TextIO | None = None,
                 stderr: TextIO | None = None, color: bool = False, diagnostics_color: bool = False,
                 hints: bool = True, debug: bool = False, timeout: float | None = None,
                 plot_dir: str | None = None) -> None:
        if engine is None:
            from gradcli.engine import api as engine
        self.engine = engine
        anomaly.set_front_end(forward_trace.forward_place, forward_trace.describe_place)
        collector.tune()  # scripts build graphs: full collections spaced out (see engine/collector.py)
        allocator.keep_freed_memory()  # arrays reuse freed pages (engine/allocator.py)
        self.output = make_output(stdout or sys.stdout, color)
        self.reporter = Reporter(stderr or sys.stderr, color=diagnostics_color, hints=hints)
        self.debug = debug
        self.timeout = timeout
        # where plt.savefig may write (gradcli --plot-dir); None refuses
        self.plot_dir = plot_dir
        self.modules = Modules(engine)
        # what the views keep for this session (matplotlib.pyplot: its figures)
        self.view_state: dict[str, Any] = {}
        for path, (module, members, missing) in PROVIDED_MODULES.items():
            self.modules.provide(path, partial(_provided, module, members, self, path),
                                 partial(_provided, module, missing, path))
        self.globals: dict[str, Any] = {}
        self.builtins = self.modules.script_builtins(self.output.write, self.output.flush)
        self.builtins.update(_builtins_module.introspection_builtins(
            self.output.write, self.modules, self.builtins, self.globals))
        self.context = RunContext(globals=self.globals, builtins=self.builtins,
                                  import_module=self.modules.import_module,
                                  import_name=self.modules.import_name, echo=self._echo)
        self._frame = Frame(self.globals, None)
        self._warned: set[tuple] = set()
        self._statement_span: Span | None = None
        # a run left behind at Ctrl-C or the time limit, with what to put back once it ends
        self._abandoned: tuple[Worker, Reporter, dict] | None = None
        self._data_at_start: int | None = None   # (read at the first run)

    def _echo(self, value: Any) -> None:
        # like sys.displayhook: show the repr and keep the value as `_`
        self.builtins["_"] = value
        self.output.write(repr(value) + "\n")

    # ------------------------------------------------------------ running
    def run_source(self, text: str, filename: str = "<stdin>", echo: EchoMode = "none",
                   first_line: int = 1) -> Outcome:
        """Parse, compile and run ``text``; report any error; return how it ended.

        ``first_line`` is the line of its input ``text`` starts at (an entry of the piped
        REPL), so that reports give the line in the whole input.  The run is a worker thread's
        (script_worker): the time limit and Ctrl-C end the wait for it at once."""
        self._finish_abandoned()
        prepare(text)   # the parser, before the time limit starts: it is gradcli's time, not the script's
        if script_thread.in_script_thread():   # a run inside a run: already on the script thread
            return self._run_here(text, filename, echo, first_line)
        self._statement_span = None
        worker = Worker(partial(script_thread.marked, self._run_here, text, filename, echo, first_line),
                        stack_size=script_thread.STACK_BYTES)
        deadline = time.monotonic() + self.timeout if self.timeout else None
        try:
            return worker.run(deadline, self._memory_ceiling())
        except Stopped as stop:
            return self._stopped(worker, stop, filename)

    def _memory_ceiling(self) -> int | None:
        """The data memory the process may hold while this session runs: what it held when the
        session first ran, plus the budget (--max-memory), plus gradcli's own slack."""
        from gradcli.engine import budget
        limit = budget.max_memory()
        if limit is None:
            return None
        if self._data_at_start is None:
            self._data_at_start = data_memory()
        return self._data_at_start + limit + CEILING_SLACK if self._data_at_start else None

    def _stopped(self, worker: Worker, stop: Stopped, filename: str) -> Outcome:
        """Ctrl-C or the time limit: the run is told (raised at its next bytecode, it reports where
        it was itself and ends); if it cannot hear it at once, inside a long NumPy call, this
        thread reports where it is and leaves it behind."""
        import io
        worker.tell(ScriptTimeout if stop.reason == "timeout" else KeyboardInterrupt)
        if worker.finish(_GRACE):
            return worker.outcome()
        reporter = self.reporter
        # what the abandoned run still reports goes nowhere; its variables come back as they are now
        self.reporter = muted = Reporter(io.StringIO())
        if worker.finished:   # it ended just now: what it reported, if not yet seen, is in `muted`
            self.reporter = reporter
            reporter.stream.write(muted.stream.getvalue())
            return worker.outcome()
        self._abandoned = (worker, reporter, dict(self.globals))
        frame = worker.frame() or stop.frame
        span = (innermost_span(frame) if frame is not None else None) or self._statement_span
        self.output.flush()
        if stop.reason == "timeout":
            reporter.error(self._timeout_error(), span, filename=filename)
            return SCRIPT_ERROR
        start_line_after_ctrl_c(reporter.stream)
        reporter.interrupted("KeyboardInterrupt", statement_around(span))
        return INTERRUPTED

    def _finish_abandoned(self) -> None:
        """Before the next run: wait for an abandoned one to end (it is raised out of at its
        next bytecode), then put back the reporter and the variables as they were when it was
        left (Ctrl-C interrupts the wait, and it is waited for again at the next run)."""
        if self._abandoned is None:
            return
        worker, reporter, variables = self._abandoned
        if not worker.finish(1.0):   # (a NumPy call cannot be cut short: say why nothing happens)
            reporter.stream.write("gradcli: waiting for the interrupted run to end its NumPy call "
                                  "(Ctrl-C stops waiting)\n")
            reporter.stream.flush()
            worker.finish()
        self._abandoned = None
        self.reporter = reporter
        self.globals.clear()
        self.globals.update(variables)

    def _run_here(self, text: str, filename: str, echo: EchoMode, first_line: int) -> Outcome:
        """Parse, compile and run on the script thread; every exception becomes a report."""
        source = Source(text, filename) if first_line == 1 else _LaterLines(text, filename, first_line)
        with _RunGuard(self):
            return self._run_guarded(text, source, echo, first_line)

    def _run_guarded(self, text: str, source: Source, echo: EchoMode, first_line: int) -> Outcome:
        # The parser and the compiler build trees and closures that live until the run: the
        # collector would only walk them again and again (a third of the time of a long file).
        collecting = gc.isenabled()
        gc.disable()
        try:
            # a REPL entry (echo="all") is read as Python's REPL reads one: not past its error
            compiled = compile_module(_parse(text, first_line, interactive=echo == "all"), source,
                                      self.context, echo)
        except ScriptSyntaxError as error:
            self.reporter.syntax_error(error, source)
            return SCRIPT_ERROR
        except (RecursionError, MemoryError, KeyboardInterrupt, ScriptTimeout) as error:
            return self._stopped_before_running(error, source)
        except Exception as error:
            return self._report(error)
        finally:
            if collecting:
                gc.enable()
        try:
            for statement in compiled:
                self._statement_span = statement.span
                statement.run(self._frame)
        except KeyboardInterrupt as interrupt:
            self.output.flush()
            start_line_after_ctrl_c(self.reporter.stream)
            where = statement_around(span_of(interrupt) or self._statement_span)
            self.reporter.interrupted("KeyboardInterrupt", where)
            return INTERRUPTED
        except ScriptTimeout as timeout:
            self.output.flush()
            self.reporter.error(self._timeout_error(), span_of(timeout) or self._statement_span)
            return SCRIPT_ERROR
        except BrokenPipeError:
            raise  # the reader of our output went away: the caller stops quietly
        except BaseException as error:    # (a script may raise a BaseException of its own)
            self.output.flush()
            return self._report(error)
        finally:
            self.output.flush()
        return OK

    def _stopped_before_running(self, error: BaseException, source: Source) -> Outcome:
        """Report what stopped the parser or the compiler, where it was (else at 1:1)."""
        where = place_of(error, source) or Span(source, 1, 1, 1, 2)
        if isinstance(error, KeyboardInterrupt):
            start_line_after_ctrl_c(self.reporter.stream)
            self.reporter.interrupted("KeyboardInterrupt", where)
            return INTERRUPTED
        if isinstance(error, ScriptTimeout):
            report: BaseException = self._timeout_error()
        elif isinstance(error, RecursionError):   # (CPython's words for an expression too deep)
            report = RecursionError("maximum recursion depth exceeded during compilation")
        else:
            report = MemoryError("the script is too large or too deeply nested to compile")
        self.reporter.error(report, where)
        return SCRIPT_ERROR

    def _timeout_error(self) -> TimeoutError:
        return TimeoutError(f"the script ran longer than the time limit of {self.timeout:g} s (--timeout)")

    def _report(self, error: BaseException) -> Outcome:
        if type(error) is MemoryError and not error.args and self._data_at_start and not _raised(error):
            error = _past_the_ceiling(error)    # Python's bare MemoryError, at the run's memory ceiling
        elif isinstance(error, MemoryError) and not is_script_error(error):
            error = _allocation_failure(error)  # (not --max-memory's own: it is worded already)
        import traceback  # (here: a run that ends well never needs it)
        if is_script_error(error):
            self.reporter.error(error, span_of(error), self._statement_span)
            if self.debug:
                self.reporter.stream.write("".join(traceback.format_exception(error)))
            return SCRIPT_ERROR
        details = "".join(traceback.format_exception(error)) if self.debug else None
        self.reporter.internal_error(error, details)
        return INTERNAL_ERROR

    # ------------------------------------------------------------ warnings
    def warn(self, category: str, message: str) -> None:
        """The engine's warning handler: report once per place, like Python's default filter."""
        span = innermost_span() or self._statement_span
        key = (category, message, span.source.filename if span else None, span.line if span else None)
        if key in self._warned:
            return
        self._warned.add(key)
        self.output.flush()
        self.reporter.warning(category, message, span)


def _provided(module: str, function: str, *args: Any) -> Any:
    """Call ``function`` of ``module`` (one of PROVIDED_MODULES), importing it on the first call."""
    import importlib
    return getattr(importlib.import_module(module), function)(*args)


def start_line_after_ctrl_c(stream: TextIO) -> None:
    """The terminal echoed Ctrl-C as ``^C`` where the cursor was: a report written to it next
    starts on a line of its own."""
    try:
        import termios
        if not stream.isatty():
            return
        flags = termios.tcgetattr(stream.fileno())[3]
    except Exception:  # no terminal, or not one termios knows: nothing was echoed there
        return
    if flags & termios.ECHO and flags & getattr(termios, "ECHOCTL", termios.ECHO):
        stream.write("\n")
        stream.flush()


# The grammar's statements (simple_stmt only groups `a; b` on one line).
_STATEMENT_RULES = ("funcdef", "decorated")


def statement_around(span: Span | None) -> Span | None:
    """The innermost statement holding ``span``: where an interrupted script was, as the last
    frame of Python's traceback names the line that ran (``span`` itself if it cannot be found)."""
    if span is None:
        return None
    source = span.source
    try:
        tree = _parse(source.text, getattr(source, "first", 1))
    except Exception:
        return span
    found = None
    start, end = (span.line, span.column), (span.end_line, span.end_column)
    for node in tree.iter_subtrees():
        rule, meta = str(node.data), node.meta
        if rule == "simple_stmt" or not (rule.endswith("_stmt") or rule in _STATEMENT_RULES):
            continue
        if getattr(meta, "empty", True):
            continue
        if (meta.line, meta.column) <= start and end <= (meta.end_line, meta.end_column):
            if found is None or (meta.line, meta.column) > (found.line, found.column):
                found = meta
    if found is None:
        return span
    return Span(source, found.line, found.column, found.end_line, found.end_column)


# How long a run told to stop has to end by itself before it is left behind (seconds).
_GRACE = 0.1


class _LaterLines(Source):
    """A text that starts at line ``first`` of its input: its line N is the input's line N."""

    __slots__ = ("first",)

    def __init__(self, text: str, filename: str, first: int) -> None:
        super().__init__(text, filename)
        self.first = first

    def line(self, number: int) -> str:
        return super().line(number - self.first + 1)


def _parse(text: str, first_line: int, interactive: bool = False) -> Any:
    """``parse(text)`` with the positions of a text that starts at line ``first_line``."""
    if first_line == 1:
        return parse(text, interactive=interactive)
    try:
        tree = parse(text, interactive=interactive)
    except ScriptSyntaxError as error:
        # rare: parse again below blank lines, so that messages naming a line ("... on line 3") name
        # the input's line too
        try:
            parse("\n" * (first_line - 1) + text, interactive=interactive)
        except ScriptSyntaxError as placed:
            raise placed from None
        error.line += first_line - 1
        raise
    lines = first_line - 1
    for subtree in tree.iter_subtrees():
        meta = subtree.meta
        if not getattr(meta, "empty", True):
            meta.line += lines
            meta.end_line += lines
        for child in subtree.children:
            if isinstance(child, Token) and child.line is not None:
                child.line += lines
                child.end_line += lines
    return tree


def _allocation_failure(error: MemoryError) -> Exception:
    """NumPy's MemoryError as PyTorch's allocator reports it: the script asked for too much,
    which is its mistake, not a bug in gradcli."""
    from gradcli.engine.errors import TorchRuntimeError
    shape, dtype = getattr(error, "shape", None), getattr(error, "dtype", None)
    size = ""
    if shape is not None and dtype is not None:
        count = 1
        for n in shape:
            count *= int(n)
        size = f": you tried to allocate {count * dtype.itemsize} bytes"
    replacement = TorchRuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                                    f"allocate memory{size}. Error code 12 (Cannot allocate memory)")
    replacement.__dict__.update(error.__dict__)  # keeps the span the failing expression marked
    return replacement


def _raised(error: BaseException) -> bool:
    """Whether a script's ``raise`` statement raised ``error`` (not an allocation that failed)."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is not None and trace.tb_frame.f_code.co_name in ("raise_statement", "reraise")


def _past_the_ceiling(error: MemoryError) -> Exception:
    """Python could not allocate: the run reached the memory it may hold (script_worker.cap_memory)."""
    from gradcli.engine import budget
    from gradcli.engine.errors import TorchMemoryError
    limit = budget.max_memory()
    text = budget.size_text(limit) if limit is not None else "the limit"
    replacement = TorchMemoryError(f"the script's memory reached the limit of {text} (see --max-memory)")
    replacement.__dict__.update(error.__dict__)  # keeps the span the failing expression marked
    return replacement


def innermost_span(frame: Any = None) -> Span | None:
    """The span of the innermost compiled node now running (for warnings raised by the engine,
    and for the views' provenance, which asks at every node made), or of the one ``frame`` is in."""
    if frame is None:
        frame = sys._getframe(1)
    while frame is not None:
        span = frame_span(frame)
        if span is not None:
            return span
        frame = frame.f_back
    return None


def frame_span(frame: Any) -> Span | None:
    """The span of the script node ``frame`` runs, if it runs one (a compiled node's closure,
    or an instruction of a hot loop rebuilt as Python code)."""
    code = frame.f_code
    known = _HOLDS_SPAN.get(code)
    if known is None:
        if code.co_filename == _FUSED_CODE_FILE:   # (not kept: a script may fuse many loops)
            known = _FUSED if code.co_name == FUSED_FUNCTION_NAME else False
        else:
            known = _HOLDS_SPAN[code] = ("span" in code.co_freevars
                                         and os.path.abspath(code.co_filename) in _COMPILED_CODE_FILES)
    if known is _FUSED:
        # a hot loop rebuilt as Python code: the record of the instruction now running
        return frame.f_globals["_TABLE"].record_at(frame.f_lasti).where
    if known:
        span = frame.f_locals.get("span")
        if isinstance(span, Span):
            return span
    return None


_FUSED = "fused"   # (a code a hot loop was rebuilt as: compiler.fusion)

# code object -> whether its frames are compiled script nodes holding a `span` (asked once per code)
_HOLDS_SPAN: dict[Any, bool] = {}


class _RunGuard:
    """Set up and restore what one run needs: recursion limit, warning handler.  (The time
    limit is the waiting thread's: see run_source and script_worker.)"""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.previous_limit = sys.getrecursionlimit()

    def __enter__(self) -> _RunGuard:
        sys.setrecursionlimit(max(self.previous_limit, _INTERPRETER_RECURSION_LIMIT))
        try:
            from gradcli.engine import warnings as engine_warnings
        except ImportError:  # pragma: no cover - the engine package always ships warnings.py
            engine_warnings = None
        self.engine_warnings = engine_warnings
        if engine_warnings is not None:
            engine_warnings.set_warning_handler(self.session.warn)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self.engine_warnings is not None:
            self.engine_warnings.set_warning_handler(None)
        sys.setrecursionlimit(self.previous_limit)
