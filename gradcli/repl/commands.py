"""The REPL's own commands.  A leading ``:`` keeps them apart from the language,
where no statement can start with one.

    :help  :vars  :reset  :load FILE  :save FILE  :quit

A unique prefix is enough (``:q``).  Python's ``exit()``, ``quit()`` and
``help`` also work, unless the user has bound those names themselves.
"""

from __future__ import annotations

import difflib
import os
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from gradcli.repl.core import Console


@dataclass(frozen=True)
class Command:
    name: str
    argument: str          # "FILE", or "" for none
    summary: str
    action: Callable[["Console", str], bool]   # True when it worked

    @property
    def usage(self) -> str:
        return f":{self.name} {self.argument}".rstrip()


def is_command(text: str) -> bool:
    return text.lstrip().startswith(":")


def run(console: "Console", text: str) -> bool:
    """Run ``:name [argument]``; report misuse on stderr.  True when the command worked."""
    word, _, argument = text.strip()[1:].partition(" ")
    argument = argument.strip()
    command = find(word)
    if command is None:
        _fail(console, _unknown(word))
        return False
    if command.argument and not argument:
        _fail(console, f"{command.usage} needs a {command.argument.lower()} name")
        return False
    if not command.argument and argument:
        _fail(console, f":{command.name} takes no argument")
        return False
    return command.action(console, argument)


def find(word: str) -> Command | None:
    """The command called ``word``, or the only one it is a prefix of."""
    if word in COMMANDS:
        return COMMANDS[word]
    matches = [command for name, command in COMMANDS.items() if word and name.startswith(word)]
    return matches[0] if len(matches) == 1 else None


def run_alias(console: "Console", text: str) -> bool:
    """``exit()``, ``quit()``, ``help`` typed as Python users would: handled here when True."""
    word = text.strip().removesuffix("()")
    if word not in ("exit", "quit", "help") or text.strip() not in (word, word + "()"):
        return False
    if word in console.names:   # the user's own variable wins
        return False
    if word == "help":
        return _help(console, "")
    return _quit(console, "")


# ---------------------------------------------------------------- the commands
def _help(console: "Console", argument: str) -> bool:
    from gradcli.repl.help_text import render_help
    console.stdout.write(render_help(COMMANDS.values(), color=console.color))
    console.stdout.flush()
    return True


def _vars(console: "Console", argument: str) -> bool:
    from gradcli.repl.variables import render_table
    render_table(console.names, console.stdout, color=console.color)
    return True


def _reset(console: "Console", argument: str) -> bool:
    console.reset()
    _say(console, "Session reset: no variables; torch's defaults (dtype, print options, grad mode, "
                  "random seed) restored.")
    return True


def _load(console: "Console", argument: str) -> bool:
    path = _path(argument)
    try:
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        _fail(console, f"cannot read '{path}': {_reason(error)}")
        return False
    outcome = console.run_source(text, path, echo="none")
    if outcome.ok and text.strip():
        console.accepted.append(f"# :load {path}\n{text.rstrip()}")
    return outcome.ok


def _save(console: "Console", argument: str) -> bool:
    path = _path(argument)
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(script_text(console.accepted))
    except OSError as error:
        _fail(console, f"cannot write '{path}': {_reason(error)}")
        return False
    count = len(console.accepted)
    _say(console, f"Saved {count} input{'' if count == 1 else 's'} to {path} "
                  f"(gradcli run --echo {shlex.quote(path)} replays it with the echoes).")
    return True


def _quit(console: "Console", argument: str) -> bool:
    console.finished = True
    return True


COMMANDS: dict[str, Command] = {command.name: command for command in (
    Command("help", "", "this page", _help),
    Command("vars", "", "a table of your variables: shape, dtype, requires_grad, grad_fn, grad", _vars),
    Command("reset", "", "forget every variable and restore torch's defaults", _reset),
    Command("load", "FILE", "run a script in this session (its variables stay)", _load),
    Command("save", "FILE", "write the inputs that ran without error as a script", _save),
    Command("quit", "", "leave (Ctrl-D on an empty line does the same)", _quit),
)}


# ---------------------------------------------------------------- helpers
def script_text(entries: list[str]) -> str:
    """The entries as a script: one per line, a blank line around multi-line ones."""
    lines: list[str] = []
    for entry in entries:
        block = "\n" in entry
        if block and lines and lines[-1]:
            lines.append("")
        lines.append(entry)
        if block:
            lines.append("")
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def _path(argument: str) -> str:
    """A file name as typed; quotes are allowed (for names with spaces) but not needed."""
    if argument[:1] in ("'", '"'):
        try:
            parts = shlex.split(argument)
        except ValueError:
            parts = []
        if len(parts) == 1:
            argument = parts[0]
    return os.path.expanduser(argument)


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _unknown(word: str) -> str:
    close = difflib.get_close_matches(word, list(COMMANDS), n=1)
    if not word:
        return "a command name must follow ':' (:help lists them)"
    maybe = f"; did you mean :{close[0]}?" if close else " (:help lists the commands)"
    return f"unknown command :{word}{maybe}"


def _say(console: "Console", text: str) -> None:
    console.stdout.write(text + "\n")
    console.stdout.flush()


def _fail(console: "Console", text: str) -> None:
    console.stdout.end_line()
    console.stderr.write(f"gradcli: {text}\n")
    console.stderr.flush()
