"""The REPL's semantics, free of any terminal: lines in, results and errors out.

    console = Console()
    console.push("for i in range(2):")   # True: more input needed, prompt "... "
    console.push("    i")                 # True
    console.push("")                      # False: the block ran and echoed 0 and 1

As in ``code.InteractiveConsole``, ``push`` collects lines until they form a
complete entry and then runs it in one persistent Session, echoing the repr
of every bare expression's value (nothing for None) as Python's REPL does.
The terminal front end edits a whole entry at once: it asks ``needs_more``
on Enter and hands the finished text to ``run_entry``.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from gradcli.repl import commands
from gradcli.repl.completeness import completeness
from gradcli.repl.streams import SharedTerminalStream, TrackedStream, is_terminal

PS1 = ">>> "
PS2 = "... "
STDIN = "<stdin>"

# What the REPL has imported before the first prompt, as if these statements had run
# (scripts keep Python's rule: they import what they use).  name -> (module, statement).
PRELUDE: dict[str, tuple[str, str]] = {
    "torch": ("torch", "import torch"),
    "nn": ("torch.nn", "import torch.nn as nn"),
    "F": ("torch.nn.functional", "import torch.nn.functional as F"),
    "optim": ("torch.optim", "import torch.optim as optim"),
    "math": ("math", "import math"),
}

# Words that continue a compound statement instead of starting a new one.
_CONTINUATIONS = ("else", "elif", "except", "finally")


class Console:
    """One REPL session: a line buffer, a Session for the language, the inputs that ran."""

    def __init__(self, *, stdout: TextIO | None = None, stderr: TextIO | None = None,
                 color: bool = False, diagnostics_color: bool = False, hints: bool = True,
                 debug: bool = False, timeout: float | None = None,
                 max_elements: int | None = None, max_memory: int | None = None, seed: int | None = None,
                 plot_dir: str | None = None) -> None:
        self.stdout = TrackedStream(stdout or sys.stdout)
        self.stderr = stderr or sys.stderr
        if is_terminal(self.stdout) and is_terminal(self.stderr):
            self.stderr = SharedTerminalStream(self.stderr, self.stdout)
        self.color = color
        self.diagnostics_color = diagnostics_color
        self._session_options = dict(color=color, diagnostics_color=diagnostics_color, hints=hints,
                                     debug=debug, timeout=timeout, plot_dir=plot_dir)
        self.max_elements = max_elements
        self.max_memory = max_memory   # bytes, 0 for no limit, None for the default budget
        self.seed = seed
        self.buffer: list[str] = []
        self.first_line = 1             # the input's line number of buffer[0] (see push)
        self.accepted: list[str] = []   # entries that ran without error, for :save
        self.failures = 0               # entries and commands that failed
        self.finished = False           # :quit (or exit()) was asked for
        self._session: Any = None
        self.provenance: Any = None     # gradcli.views.provenance.Provenance, with the session
        self.backward_trace: Any = None  # :trace on's tracer
        # the shell builds the Session in a background thread while the user types
        self._session_lock = threading.Lock()

    # ------------------------------------------------------------ the language session
    @property
    def session(self) -> Any:
        """The ``gradcli.lang.Session`` behind the REPL (built on first use: it loads the engine)."""
        with self._session_lock:
            if self._session is None:
                self._session = self._new_session()
            return self._session

    @property
    def loaded_session(self) -> Any:
        """The Session if it is built already, else None (never waits for it)."""
        return self._session

    def _new_session(self) -> Any:
        from gradcli.lang.runtime import Session
        session = Session(stdout=self.stdout, stderr=self.stderr, **self._session_options)
        if self.max_elements is not None:
            session.engine.set_max_elements(self.max_elements)
        if self.max_memory is not None:
            session.engine.set_max_memory(self.max_memory or None)
        if self.seed is not None:
            session.engine.TORCH["manual_seed"](self.seed)
        for name, (path, _) in PRELUDE.items():
            session.globals[name] = session.modules.import_module(path)
        # the REPL's :graph, :explain and :trace need to know where each node came from
        from gradcli.views.provenance import Provenance
        previous = getattr(self, "provenance", None)
        if previous is not None:
            previous.stop()
        self.provenance = Provenance().start(session.context)
        return session

    def warm_up(self) -> None:
        """Load the engine and the parser now, so the first entry answers at once."""
        self.session  # the property builds it
        from gradcli.lang.syntax import is_complete
        is_complete("x")

    @property
    def names(self) -> dict[str, Any]:
        """The session's variables, in definition order: the prelude's modules, then the user's."""
        return self.session.globals

    @property
    def user_names(self) -> dict[str, Any]:
        """The variables the user defined: ``names`` without the prelude's modules (unless rebound)."""
        return {name: value for name, value in self.session.globals.items()
                if not self.is_prelude(name, value)}

    def is_prelude(self, name: str, value: Any) -> bool:
        """``name`` is bound to the module the prelude bound it to."""
        module = PRELUDE.get(name)
        return module is not None and value is self.session.modules.by_path.get(module[0])

    def reset(self) -> None:
        """Forget every variable and entry; put torch's global state and the imports back as at start."""
        self.buffer.clear()
        self.accepted.clear()
        engine = self.session.engine
        reset_global_state = getattr(engine, "reset_global_state", None)
        if reset_global_state is not None:
            reset_global_state(self.seed)
        with self._session_lock:
            self._session = self._new_session()

    # ------------------------------------------------------------ lines in
    @property
    def prompt(self) -> str:
        return PS2 if self.buffer else PS1

    def push(self, line: str, number: int | None = None) -> bool:
        """Add one line; run the buffer once it is a complete entry.  True: more input needed.

        ``number`` is the line's number in the whole input (the piped REPL counts them), so
        that reports name it; without one, each entry's lines count from 1, as in Python's REPL."""
        if not self.buffer and commands.is_command(line):
            self.run_entry(line)
            return False
        if self.buffer and _starts_statement(line) and self._buffer_is_finished_block():
            # A file would run the block and go on; Python's REPL would refuse the
            # line. Run the block, then take the line as the start of a new entry.
            self.run_entry(self._take_buffer(), self.first_line)
            if self.finished:
                return False
            return self.push(line, number)
        if not self.buffer:
            self.first_line = number or 1
        self.buffer.append(line)
        text = "\n".join(self.buffer)
        if self.needs_more(text):
            return True
        self.buffer.clear()
        self.run_entry(text, self.first_line)
        return False

    def needs_more(self, text: str) -> bool:
        """Does ``text`` need more lines (open bracket, block header, block not closed by a blank line)?"""
        if not text.strip() or commands.is_command(text):
            return False
        return completeness(text) == "incomplete"

    def can_run(self, text: str) -> bool:
        """Could ``text`` run as it is: complete, or a block that lacks only its closing empty line?"""
        return not self.needs_more(text) or completeness(text + "\n") == "complete"

    def flush(self) -> None:
        """End of input: run whatever is left in the buffer (an unclosed bracket is reported)."""
        if self.buffer:
            self.run_entry(self._take_buffer(), self.first_line)

    def interrupt(self, echoed: bool = False) -> None:
        """Ctrl-C at a prompt: drop the lines typed so far and say so, as Python does."""
        self.buffer.clear()
        self.report_interrupt(echoed)

    def report_interrupt(self, echoed: bool = False) -> None:
        """``KeyboardInterrupt`` on a line of its own; ``echoed``: the terminal may have shown
        ``^C`` (it does outside the line editor), and the word goes on the next line."""
        from gradcli.lang.runtime import start_line_after_ctrl_c
        word = "KeyboardInterrupt"
        if self.diagnostics_color:
            word = f"\x1b[1m{word}\x1b[0m"
        if echoed:
            start_line_after_ctrl_c(self.stderr)
        self.stdout.end_line()
        self.stderr.write(word + "\n")
        self.stderr.flush()

    # ------------------------------------------------------------ running
    def run_entry(self, text: str, first_line: int = 1) -> Any:
        """Run one complete entry (code or a ``:command``); the Outcome of code, else None.
        ``first_line``: the input's line the entry starts at, for reports."""
        text = _without_trailing_blank_lines(text)
        if not text.strip():
            return None
        if commands.is_command(text):
            if not commands.run(self, text):
                self.failures += 1
            return None
        if commands.run_alias(self, text):
            return None
        outcome = self.run_source(text, STDIN, echo="all", first_line=first_line)
        if outcome.ok:
            self.accepted.append(text)
        return outcome

    def run_source(self, text: str, filename: str, echo: str = "all", first_line: int = 1) -> Any:
        """Run text in the session; errors are reported by the session, in gradcli run's format."""
        session = self.session
        try:
            outcome = session.run_source(text, filename, echo=echo, first_line=first_line)
        except KeyboardInterrupt:  # landed outside the run itself (e.g. while it was set up)
            from gradcli.lang.runtime import INTERRUPTED
            self.report_interrupt(echoed=True)
            outcome = INTERRUPTED
        if not outcome.ok:
            self.failures += 1
        return outcome

    def _take_buffer(self) -> str:
        text = "\n".join(self.buffer)
        self.buffer.clear()
        return text

    def _buffer_is_finished_block(self) -> bool:
        return completeness("\n".join(self.buffer) + "\n") == "complete"


def _starts_statement(line: str) -> bool:
    """An unindented line that cannot continue the statement before it."""
    if not line.strip() or line[0] in " \t#":
        return False
    word = line.split(None, 1)[0].split(":", 1)[0]
    return word not in _CONTINUATIONS


def _without_trailing_blank_lines(text: str) -> str:
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)
