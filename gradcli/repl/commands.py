"""The REPL's own commands.  A leading ``:`` keeps them apart from the language,
where no statement can start with one.

    :help  :vars  :reset  :load FILE  :save FILE  :trace on|off  :quit

A unique prefix is enough (``:q``).  Python's ``exit()``, ``quit()`` and
``help`` also work, unless the user has bound those names themselves.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
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
        _fail(console, f"{command.usage} needs {_wanted(command.argument)}")
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
    render_table(console.user_names, console.stdout, color=console.color)
    return True


def _reset(console: "Console", argument: str) -> bool:
    console.reset()
    _say(console, "Session reset: no variables but torch, nn, F, optim and math; torch's defaults "
                  "(dtype, print options, grad mode, random seed) restored.")
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
    body = script_text(console.accepted)
    imports = prelude_used(body)
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(with_imports(body, imports))
    except OSError as error:
        _fail(console, f"cannot write '{path}': {_reason(error)}")
        return False
    count = len(console.accepted)
    imported = f" below the imports they use ({', '.join(imports)})" if imports else ""
    _say(console, f"Saved {count} input{'' if count == 1 else 's'}{imported} to {path} "
                  f"(gradcli run --echo {shlex.quote(path)} replays it with the echoes).")
    return True


def _trace(console: "Console", argument: str) -> bool:
    from gradcli.views.trace.repl import switch
    ok, message = switch(console, argument)
    if ok:
        _say(console, message)
    else:
        _fail(console, message)
    return ok


def _graph(console: "Console", argument: str) -> bool:
    from gradcli.views.graph.repl import graph_command
    return graph_command(console, argument)


def _quit(console: "Console", argument: str) -> bool:
    console.finished = True
    return True


COMMANDS: dict[str, Command] = {command.name: command for command in (
    Command("help", "", "this page", _help),
    Command("vars", "", "a table of your variables: type, value, and a tensor's shape, dtype, grad", _vars),
    Command("reset", "", "forget every variable (not the imports) and restore torch's defaults", _reset),
    Command("load", "FILE", "run a script in this session (its variables stay)", _load),
    Command("save", "FILE", "write the inputs that ran without error as a script, below the imports "
                            "they use", _save),
    Command("trace", "on|off", "show the chain rule step by step at each backward() and autograd.grad(), "
                               "on stderr", _trace),
    Command("graph", "TENSOR", "the backward graph of a tensor, with your names and lines", _graph),
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


def prelude_used(script: str) -> list[str]:
    """The names of the REPL's prelude (torch, nn, F, optim, math) that ``script`` reads before
    binding them itself: a script must import them, as in Python."""
    from gradcli.repl.core import PRELUDE
    try:
        tree = ast.parse(script)
    except (SyntaxError, ValueError):  # not Python's syntax after all: any mention counts
        return [name for name in PRELUDE if re.search(rf"(?<![\w.]){name}\b", script)]
    first: dict[str, bool] = {}   # name -> read (True) or bound (False) first
    for _, _, name, read in sorted(_prelude_events(tree, set(PRELUDE))):
        first.setdefault(name, read)
    return [name for name in PRELUDE if first.get(name)]


def _prelude_events(tree: ast.AST, names: set[str]) -> list[tuple[int, int, str, bool]]:
    """(line, column, name, is_read) for each read of a prelude name anywhere and each binding
    of one at module level (a function's own variable or parameter binds nothing for the script)."""
    events: list[tuple[int, int, str, bool]] = []

    def visit(node: ast.AST, module_level: bool) -> None:
        if isinstance(node, ast.Name) and node.id in names:
            read = not isinstance(node.ctx, (ast.Store, ast.Del))
            if read or module_level:
                events.append((node.lineno, node.col_offset, node.id, read))
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and module_level:
            for alias in node.names:
                top = alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name
                bound = alias.asname or top
                if bound in names:
                    events.append((node.lineno, node.col_offset, bound, False))
        inner = module_level and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                                       ast.ListComp, ast.SetComp, ast.DictComp,
                                                       ast.GeneratorExp, ast.ClassDef))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)
    visit(tree, True)
    return events


def with_imports(script: str, names: list[str]) -> str:
    """``script`` below the import statements of ``names``: the standard library's (math) first,
    then torch's, as PEP 8 groups them."""
    from gradcli.repl.core import PRELUDE
    if not names:
        return script
    statements = [PRELUDE[name][1] for name in names]
    groups = [[line for line in statements if line == "import math"],
              [line for line in statements if line != "import math"]]
    header = "\n\n".join("\n".join(group) for group in groups if group)
    return header + "\n\n" + script if script else header + "\n"


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


def _wanted(argument: str) -> str:
    """What a command's missing argument is: ``a file name``, or ``on or off`` for ``on|off``."""
    if "|" in argument:
        return " or ".join(argument.split("|"))
    return f"a {argument.lower()} name"


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
