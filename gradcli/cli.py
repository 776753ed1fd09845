"""The ``gradcli`` command line: ``run`` a script, ``eval`` a snippet, ``repl``, ``--version``.

Start-up matters (a calculator is run many times).  Typer (and the pydantic
it builds parameters with) costs ~0.1 s, so the everyday ``run``/``eval``
invocations are parsed by ``parse_fast_path`` and never import it; ``--help``,
``--version`` and malformed options go to the Typer app.  The language, the
engine and Rich are imported only when needed (Rich only when colouring), and
the REPL (prompt_toolkit) only for ``gradcli`` alone or ``gradcli repl``.
"""

from __future__ import annotations

import sys
from typing import Any, Optional

import gradcli

EXAMPLES = """\
Examples:

  gradcli                       (no arguments: the interactive REPL)

  gradcli eval 'x = ones(2, 2, grad); out = mean((x + 2) ** 2); backward(out); x.grad'

  gradcli run tutorial.ag

  cat script.ag | gradcli run -

  gradcli run --echo --seed 0 experiment.ag
"""
ECHO_HELP = "Echo the value of every bare expression statement, like Python's REPL."
NO_COLOR_HELP = "Plain output even on a terminal (the NO_COLOR variable does the same)."
DEBUG_HELP = "Show Python tracebacks (for reporting gradcli bugs)."
NO_HINTS_HELP = "Leave out gradcli's own 'hint:' lines under error messages."
TIMEOUT_HELP = "Stop the script after this many seconds."
MAX_ELEMENTS_HELP = "Refuse to create tensors with more elements than this."
SEED_HELP = "Seed the random generator before the script runs (torch.manual_seed(N))."


def build_app() -> Any:
    """The Typer application (built on demand: importing Typer is the slow part)."""
    import typer

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

    def exit_with(code: int) -> None:
        if code:
            raise typer.Exit(code)

    def show_version(value: bool) -> None:
        if value:
            typer.echo(f"gradcli {gradcli.__version__} (reproduces PyTorch {gradcli.TORCH_VERSION})")
            raise typer.Exit()

    @app.callback()
    def main_options(
        version: bool = typer.Option(False, "--version", callback=show_version, is_eager=True,
                                     help="Show gradcli's version and the PyTorch version it reproduces."),
    ) -> None:
        """A command-line gradient calculator: PyTorch-style scripts, PyTorch's exact output."""

    # The options every command shares, made fresh for each (Typer keeps per-parameter state).
    def no_color_option() -> Any:
        return typer.Option(False, "--no-color", help=NO_COLOR_HELP)

    def debug_option() -> Any:
        return typer.Option(False, "--debug", help=DEBUG_HELP)

    def no_hints_option() -> Any:
        return typer.Option(False, "--no-hints", help=NO_HINTS_HELP)

    def timeout_option(help: str = TIMEOUT_HELP) -> Any:
        return typer.Option(None, "--timeout", metavar="SECONDS", min=0, help=help)

    def max_elements_option() -> Any:
        return typer.Option(None, "--max-elements", metavar="N", min=1, help=MAX_ELEMENTS_HELP)

    def seed_option() -> Any:
        return typer.Option(None, "--seed", metavar="N", help=SEED_HELP)

    @app.command()
    def run(
        file: str = typer.Argument(..., metavar="FILE", help="The .ag script to run ('-' reads stdin)."),
        echo: bool = typer.Option(False, "--echo", help=ECHO_HELP),
        no_color: bool = no_color_option(),
        debug: bool = debug_option(),
        no_hints: bool = no_hints_option(),
        timeout: Optional[float] = timeout_option(),
        max_elements: Optional[int] = max_elements_option(),
        seed: Optional[int] = seed_option(),
    ) -> None:
        """Run a script and print what `python script.py` with PyTorch would print."""
        exit_with(run_file(file, echo=echo, no_color=no_color, debug=debug, no_hints=no_hints,
                           timeout=timeout, max_elements=max_elements, seed=seed))

    @app.command("eval")
    def eval_command(
        code: str = typer.Argument(..., metavar="CODE", help="Statements to run; ';' separates them."),
        no_color: bool = no_color_option(),
        debug: bool = debug_option(),
        no_hints: bool = no_hints_option(),
        timeout: Optional[float] = timeout_option(),
        max_elements: Optional[int] = max_elements_option(),
        seed: Optional[int] = seed_option(),
    ) -> None:
        """Run CODE and show the value of its last expression, if it ends with one."""
        exit_with(eval_code(code, no_color=no_color, debug=debug, no_hints=no_hints, timeout=timeout,
                            max_elements=max_elements, seed=seed))

    @app.command()
    def repl(
        no_color: bool = no_color_option(),
        debug: bool = debug_option(),
        no_hints: bool = no_hints_option(),
        timeout: Optional[float] = timeout_option("Stop any one input after this many seconds."),
        max_elements: Optional[int] = max_elements_option(),
        seed: Optional[int] = seed_option(),
    ) -> None:
        """The interactive REPL (also `gradcli` alone); reads plain lines when stdin is not a terminal."""
        exit_with(start_repl(no_color=no_color, debug=debug, no_hints=no_hints, timeout=timeout,
                             max_elements=max_elements, seed=seed))

    return app


def start_repl(**options: Any) -> int:
    """``gradcli repl``: the exit status."""
    try:
        from gradcli.repl.launch import main as repl_main
        return repl_main(**options)
    except Exception as error:  # a bug in gradcli (the REPL reports script errors itself)
        return _internal_error(error, options.get("debug", False))


def run_file(file: str, *, echo: bool = False, **options: Any) -> int:
    """``gradcli run FILE``: the exit status."""
    if file == "-":
        text, filename = sys.stdin.read(), "<stdin>"
    else:
        try:
            with open(file, encoding="utf-8-sig") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            sys.stderr.write(f"gradcli: cannot read '{file}': {reason}\n")
            return 2
        filename = file
    return _execute(text, filename, "all" if echo else "none", **options)


def eval_code(code: str, **options: Any) -> int:
    """``gradcli eval CODE``: the exit status."""
    return _execute(code, "<eval>", "last", **options)


def _execute(text: str, filename: str, echo: str, *, no_color: bool = False, debug: bool = False,
             no_hints: bool = False, timeout: Optional[float] = None,
             max_elements: Optional[int] = None, seed: Optional[int] = None) -> int:
    """Run text in a fresh Session; return the exit status."""
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
        return _internal_error(error, debug)
    return session.run_source(text, filename, echo=echo).exit_code  # type: ignore[arg-type]


def _internal_error(error: Exception, debug: bool) -> int:
    """gradcli could not even start a run: report it as a bug, in one line unless --debug."""
    from gradcli.lang.diagnostics import Reporter
    from gradcli.lang.errors import EXIT_INTERNAL_ERROR

    details = None
    if debug:
        import traceback
        details = "".join(traceback.format_exception(error))
    Reporter(sys.stderr).internal_error(error, details)
    return EXIT_INTERNAL_ERROR


# ---------------------------------------------------------------- fast path
# Typer builds its parameters with pydantic, which costs ~60 ms at every start.
# The everyday invocations (`gradcli run FILE [options]`, `gradcli eval CODE
# [options]`) are parsed here instead; anything else (help, --version, a
# malformed option) goes to Typer, which also gives the usage errors.
# tests/cli checks that these tables match the Typer commands.
FLAGS = {"run": {"--echo", "--no-color", "--debug", "--no-hints"},
         "eval": {"--no-color", "--debug", "--no-hints"},
         "repl": {"--no-color", "--debug", "--no-hints"}}
VALUED = {"--timeout": (float, 0), "--max-elements": (int, 1), "--seed": (int, None)}


def parse_fast_path(argv: list[str]) -> tuple[str, str | None, dict] | None:
    """(command, FILE or CODE (None for repl), options) for a plain run/eval/repl invocation, else None."""
    if not argv:
        return "repl", None, {}
    if argv[0] not in FLAGS:
        return None
    command, flags = argv[0], FLAGS[argv[0]]
    options: dict = {}
    positional: list[str] = []
    index = 1
    while index < len(argv):
        argument = argv[index]
        name, has_value, value = argument.partition("=")
        if argument == "--":
            positional.extend(argv[index + 1:])
            break
        if argument in flags:
            options[argument[2:].replace("-", "_")] = True
        elif name in VALUED:
            if not has_value:
                index += 1
                if index >= len(argv):
                    return None
                value = argv[index]
            convert, minimum = VALUED[name]
            try:
                number = convert(value)
            except ValueError:
                return None
            if minimum is not None and number < minimum:
                return None
            options[name[2:].replace("-", "_")] = number
        elif argument.startswith("-") and argument != "-":
            return None
        else:
            positional.append(argument)
        index += 1
    if len(positional) != (0 if command == "repl" else 1):
        return None
    return command, positional[0] if positional else None, options


def main() -> None:
    """Console-script entry point."""
    try:
        fast = parse_fast_path(sys.argv[1:])
        if fast is None:
            build_app()()
            return
        command, target, options = fast
        if command == "repl":
            sys.exit(start_repl(**options))
        run_it = run_file if command == "run" else eval_code
        sys.exit(run_it(target, **options))
    except BrokenPipeError:
        # the reader went away (`gradcli run x.ag | head`): stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def __getattr__(name: str) -> Any:
    # `gradcli.cli.app` (for tests and tools) without building it at import time
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
