"""The view sub-commands of ``gradcli`` (graph, explain, plot, report), added to the Typer app.

Each lives in its own module with a ``register(app, kit)`` function; ``kit`` carries what the
CLI shares with them (its Command class, the decorator that adds the shared options, ``exit_with``).
These modules import nothing heavy at the top: building ``--help`` must stay quick.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

VIEW_COMMAND_MODULES = (
    "gradcli.views.graph.command",
    "gradcli.views.explain.command",
    "gradcli.views.plot.command",
    "gradcli.views.report.command",
)


# What every command that runs a script says of its FILE argument.
FILE_HELP = "The .ag script to run ('-' reads stdin)."


@dataclass(frozen=True)
class CommandKit:
    command_class: type                          # the CLI's Command (tidy help, metavars)
    # taking_shared_options(command, leave_out=(), helps=None): a decorator; the command's function
    # ends in **options and gets the options every command takes (those before it merged in)
    shared_options: Callable[..., Callable[[Callable], Callable]]
    exit_with: Callable[[int], None]             # leave with a status
    read_script: Callable[[str], Any]            # FILE -> (text, filename) or exit status 2


def add_view_commands(app: Any, kit: CommandKit) -> None:
    for name in VIEW_COMMAND_MODULES:
        importlib.import_module(name).register(app, kit)
