"""The ``gradcli`` command line: ``run`` a script, ``eval`` a snippet, ``--version``.

Start-up matters (a calculator is run many times): the language, the engine
and Rich are imported inside the commands, and Rich only when colouring.
"""

from __future__ import annotations

import sys
from typing import Optional

import typer

import gradcli

EXAMPLES = """\
Examples:

  gradcli eval 'x = ones(2, 2, grad); out = mean((x + 2) ** 2); backward(out); x.grad'

  gradcli run tutorial.ag

  cat script.ag | gradcli run -

  gradcli run --echo --seed 0 experiment.ag
"""

app = typer.Typer(
    name="gradcli",
    help="A command-line gradient calculator: PyTorch-style scripts, PyTorch's exact output, "
         "no PyTorch needed.",
    epilog=EXAMPLES,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gradcli {gradcli.__version__} (reproduces PyTorch {gradcli.TORCH_VERSION})")
        raise typer.Exit()


@app.callback()
def main_options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Show gradcli's version and the PyTorch version it reproduces."),
) -> None:
    """A command-line gradient calculator: PyTorch-style scripts, PyTorch's exact output."""


ECHO_HELP = "Echo the value of every bare expression statement, like Python's REPL."
NO_COLOR_HELP = "Plain output even on a terminal (the NO_COLOR variable does the same)."
DEBUG_HELP = "Show Python tracebacks (for reporting gradcli bugs)."
NO_HINTS_HELP = "Leave out gradcli's own 'hint:' lines under error messages."
TIMEOUT_HELP = "Stop the script after this many seconds."
MAX_ELEMENTS_HELP = "Refuse to create tensors with more elements than this."
SEED_HELP = "Seed the random generator before the script runs (torch.manual_seed(N))."


@app.command()
def run(
    file: str = typer.Argument(..., metavar="FILE", help="The .ag script to run ('-' reads stdin)."),
    echo: bool = typer.Option(False, "--echo", help=ECHO_HELP),
    no_color: bool = typer.Option(False, "--no-color", help=NO_COLOR_HELP),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
    no_hints: bool = typer.Option(False, "--no-hints", help=NO_HINTS_HELP),
    timeout: Optional[float] = typer.Option(None, "--timeout", metavar="SECONDS", min=0, help=TIMEOUT_HELP),
    max_elements: Optional[int] = typer.Option(None, "--max-elements", metavar="N", min=1,
                                               help=MAX_ELEMENTS_HELP),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="N", help=SEED_HELP),
) -> None:
    """Run a script and print what `python script.py` with PyTorch would print."""
    if file == "-":
        text, filename = sys.stdin.read(), "<stdin>"
    else:
        try:
            with open(file, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            sys.stderr.write(f"gradcli: cannot read '{file}': {reason}\n")
            raise typer.Exit(2)
        filename = file
    _execute(text, filename, "all" if echo else "none", no_color=no_color, debug=debug,
             no_hints=no_hints, timeout=timeout, max_elements=max_elements, seed=seed)


@app.command("eval")
def eval_command(
    code: str = typer.Argument(..., metavar="CODE", help="Statements to run; ';' separates them."),
    no_color: bool = typer.Option(False, "--no-color", help=NO_COLOR_HELP),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
    no_hints: bool = typer.Option(False, "--no-hints", help=NO_HINTS_HELP),
    timeout: Optional[float] = typer.Option(None, "--timeout", metavar="SECONDS", min=0, help=TIMEOUT_HELP),
    max_elements: Optional[int] = typer.Option(None, "--max-elements", metavar="N", min=1,
                                               help=MAX_ELEMENTS_HELP),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="N", help=SEED_HELP),
) -> None:
    """Run CODE and show the value of its last expression, if it ends with one."""
    _execute(code, "<eval>", "last", no_color=no_color, debug=debug, no_hints=no_hints,
             timeout=timeout, max_elements=max_elements, seed=seed)


def _execute(text: str, filename: str, echo: str, *, no_color: bool, debug: bool, no_hints: bool,
             timeout: Optional[float], max_elements: Optional[int], seed: Optional[int]) -> None:
    try:
        from gradcli.lang.output import wants_color
        from gradcli.lang.runtime import Session

        session = Session(color=wants_color(sys.stdout, no_color),
                          diagnostics_color=wants_color(sys.stderr, no_color),
                          hints=not no_hints, debug=debug, timeout=timeout)
        if max_elements is not None:
            session.engine.set_max_elements(max_elements)
        if seed is not None:
            session.engine.TORCH["manual_seed"](seed)
    except Exception as error:  # gradcli itself failed to start: a bug, never a bare traceback
        _internal_error(error, debug)
    outcome = session.run_source(text, filename, echo=echo)  # type: ignore[arg-type]
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


def _internal_error(error: Exception, debug: bool) -> None:
    from gradcli.lang.diagnostics import Reporter
    from gradcli.lang.errors import EXIT_INTERNAL_ERROR

    details = None
    if debug:
        import traceback
        details = "".join(traceback.format_exception(error))
    Reporter(sys.stderr).internal_error(error, details)
    raise typer.Exit(EXIT_INTERNAL_ERROR)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except BrokenPipeError:
        # the reader went away (`gradcli run x.ag | head`): stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
