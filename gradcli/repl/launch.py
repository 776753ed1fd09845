"""Start the REPL: the prompt_toolkit shell on a terminal, the plain line reader otherwise."""

from __future__ import annotations

import sys

from gradcli.repl.core import Console


def main(*, no_color: bool = False, debug: bool = False, no_hints: bool = False,
         timeout: float | None = None, max_elements: int | None = None, max_memory: int | None = None,
         seed: int | None = None, plot_dir: str | None = None) -> int:
    """``gradcli`` / ``gradcli repl``: the exit status."""
    from gradcli.lang.output import wants_color

    console = Console(color=wants_color(sys.stdout, no_color),
                      diagnostics_color=wants_color(sys.stderr, no_color),
                      hints=not no_hints, debug=debug, timeout=timeout or None,
                      max_elements=max_elements, max_memory=max_memory, seed=seed, plot_dir=plot_dir)
    if _is_terminal(sys.stdin) and _is_terminal(sys.stdout):
        from gradcli.repl.shell import run_shell
        return run_shell(console, no_color=no_color)
    from gradcli.repl.lines import read_lines
    console.warm_up()   # a failure to start is reported once, here, not at every line
    return read_lines(console, sys.stdin, prompts=sys.stderr if _is_terminal(sys.stdin) else None)


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False
