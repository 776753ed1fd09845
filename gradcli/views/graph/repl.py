"""``:graph NAME [NAME ...] [--full] [--depth N]`` in the REPL: the tree of ``gradcli graph`` for
the session's tensors, on the console's stdout."""

from __future__ import annotations

import shlex
from typing import Any

USAGE = ":graph NAME [NAME ...] [--full] [--depth N]"


def graph_command(console: Any, argument: str) -> bool:
    """Draw; False (after saying why on stderr) when the argument names nothing to draw."""
    from gradcli.views.graph import graph_text
    from gradcli.views.graph.roots import CannotDraw, param_names, resolve

    try:
        names, fold, depth = _parse(argument)
    except ValueError as error:
        return _fail(console, str(error))
    session_globals = console.session.globals
    try:
        roots = [resolve(name, session_globals, owner="the session") for name in names]
    except CannotDraw as error:
        return _fail(console, str(error))
    text = graph_text(roots, console.provenance, color=console.color, fold=fold, depth=depth,
                      param_names=param_names(session_globals))
    console.stdout.write(text)
    console.stdout.flush()
    return True


def _parse(argument: str) -> tuple[list[str], bool, int | None]:
    try:
        words = shlex.split(argument)
    except ValueError as error:
        raise ValueError(f"{USAGE}: {error}") from None
    names, fold, depth = [], True, None
    position = 0
    while position < len(words):
        word = words[position]
        if word == "--full":
            fold = False
        elif word == "--depth" or word.startswith("--depth="):
            value = word.partition("=")[2] if "=" in word else (words[position + 1] if position + 1 < len(words) else "")
            position += 0 if "=" in word else 1
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"--depth wants a whole number of levels, 1 or more (usage: {USAGE})")
            depth = int(value)
        elif word.startswith("-"):
            raise ValueError(f"unknown option {word} (usage: {USAGE})")
        else:
            names.append(word)
        position += 1
    if not names:
        raise ValueError(f"name a tensor to draw (usage: {USAGE})")
    return names, fold, depth


def _fail(console: Any, message: str) -> bool:
    from gradcli.repl.commands import _fail as say
    say(console, message)
    return False
