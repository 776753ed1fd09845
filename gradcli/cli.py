"""The ``gradcli`` command line: ``run`` a script, ``eval`` a snippet, ``repl``, ``--version``.

Start-up matters (a calculator is run many times).  Typer (and the pydantic
it builds parameters with) costs ~0.1 s, so the everyday ``run``/``eval``/``repl``
invocations are parsed by ``parse_fast_path`` (and ``--version`` by ``main``)
and never import it; ``--help``, shell completion and malformed options go to
the Typer app.  The language, the engine and Rich are imported only when needed
(Rich only when colouring), and the REPL (prompt_toolkit) only for ``gradcli``
alone or ``gradcli repl``.

While a run sets up (imports NumPy and the engine, builds the session) the cyclic
garbage collector is paused: its passes over the hundreds of thousands of objects
that importing makes find nothing to free and cost about a tenth of a run.  Once
set up, those objects are frozen (``gc.freeze``) so that the script's own
collections never walk them again (how often those run: engine/collector.py).
NumPy's BLAS worker threads are asked not to spin for long when idle (BLAS_SPIN).
"""

# No `from __future__ import annotations`: Typer reads the commands' annotations,
# and `typer.Context` names the module imported inside build_app.
import gc
import os
import sys
from typing import Any, Callable, Optional

import gradcli

EXAMPLES = """\
Examples:

  gradcli                       (no command: the interactive REPL)

  gradcli eval 'x = ones(2, grad); y = mean((x + 2) ** 2); backward(y); x.grad'

  gradcli run tutorial.ag

  cat script.ag | gradcli run -

  gradcli run --echo --seed 0 experiment.ag
"""
APP_HELP = ("A command-line gradient calculator: PyTorch-style scripts, PyTorch's exact output, "
            "no PyTorch needed.\n\n"
            "gradcli alone opens the REPL; the REPL options below apply to it.")
VERSION_HELP = "Show gradcli's version and the PyTorch version it reproduces, and exit."
ECHO_HELP = "Echo the value of every bare expression statement, like Python's REPL."
NO_COLOR_HELP = "Plain output even on a terminal (NO_COLOR=1 does the same)."
DEBUG_HELP = "Show Python tracebacks (for reporting gradcli bugs)."
NO_HINTS_HELP = "Leave out gradcli's own 'hint:' lines under error messages."
MAX_ELEMENTS_HELP = "Refuse to create tensors with more elements than this."
MAX_MEMORY_HELP = ("Refuse to build a tensor, list or text that would take memory past this: bytes, "
                   "or 512M, 2G, 50% (of the machine's); none: no limit. By default 50%.")
# --timeout and --seed say what they stop or seed: the script, CODE, or the REPL's inputs.
TIMEOUT_HELP = {"run": "Stop the script after this many seconds. By default 60; 0 or none: no limit.",
                "eval": "Stop CODE after this many seconds. By default 60; 0 or none: no limit.",
                "repl": "Stop any one input after this many seconds. By default none: Ctrl-C stops an input."}
SEED_HELP = {"run": "Seed the random generator before the script runs (torch.manual_seed(N)).",
             "eval": "Seed the random generator before CODE runs (torch.manual_seed(N)).",
             "repl": "Seed the random generator when the REPL starts (torch.manual_seed(N))."}
TRACE_HELP = "Print the chain rule step by step on stderr at every backward() and autograd.grad()."
JSON_HELP = "Write one JSON document instead: printed lines, the error if any, the final variables."
PLOT_DIR_HELP = "The folder where plt.savefig(NAME) may write its files (refused without it)."
REPL_PANEL = "REPL options"
# The types Typer reads for the options every command shares (see taking_shared_options).
SHARED_TYPES = {"no_color": bool, "debug": bool, "no_hints": bool, "timeout": Optional[float],
                "max_elements": Optional[int], "max_memory": Optional[int], "plot_dir": Optional[str],
                "seed": Optional[int]}


# The values of --timeout, --max-elements and --seed, read alike by the fast
# path and by Typer; a ValueError says what is wrong in Click's words.
def parse_timeout(text: str) -> float:
    if text.strip().lower() == "none":
        return 0.0   # (no limit, as 0)
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or value != value:  # not a number, or nan
        raise ValueError(f"{text!r} is not a number.")
    if value < 0:
        raise ValueError(f"{text} is not in the range x>=0.")
    return value


def parse_max_memory(text: str) -> int:
    """Bytes; 0 for no limit (None is "not given": the default budget)."""
    from gradcli.engine.budget import parse_size  # (only when the option is given)
    return parse_size(text) or 0


def parse_max_elements(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise ValueError(f"{text} is not in the range x>=1.")
    return value


# torch.manual_seed takes any 64-bit seed, signed or unsigned
SEED_RANGE = (-2**63, 2**64 - 1)


def parse_plot_dir(text: str) -> str:
    if not text:
        raise ValueError("'' is not a folder.")
    return text


def parse_seed(text: str) -> int:
    value = _integer(text)
    low, high = SEED_RANGE
    if not low <= value <= high:
        raise ValueError(f"{text} is not in the range {low}<=x<={high}.")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an integer.") from None


def build_app() -> Any:
    """The Typer application (built on demand: importing Typer is the slow part)."""
    import typer
    from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

    from gradcli.views.commands import FILE_HELP, CommandKit, add_view_commands

    # Typer (0.29, with its own copy of Click) writes a type after every option
    # (`--echo <bool>`), `<str>` after an argument and `{FILE}` in the usage line.  These subclasses write
    # them as Click does: nothing after a flag, FILE alone, `[FILE]` when optional.
    # Typer builds the parameters itself, so Command.get_params re-classes them.
    class Argument(TyperArgument):
        def display_type_rich(self, ctx: Any) -> None:
            return None  # the name column already says FILE

        def _usage_display_name(self) -> str:
            name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
            return name if self.nargs == 1 else f"{name}..."

    class Option(TyperOption):
        def display_type_rich(self, ctx: Any) -> str | None:
            return None if self.is_flag or self.count else super().display_type_rich(ctx)

    def tidy(params: list) -> list:
        for param in params:
            if type(param) is TyperArgument:
                param.__class__ = Argument
            elif type(param) is TyperOption:
                param.__class__ = Option
        return params

    class Command(TyperCommand):
        def get_params(self, ctx: Any) -> list:
            return tidy(super().get_params(ctx))

    class Group(TyperGroup):
        def get_params(self, ctx: Any) -> list:
            return tidy(super().get_params(ctx))

    app = typer.Typer(
        name="gradcli",
        cls=Group,
        help=APP_HELP,
        epilog=EXAMPLES,
        add_completion=True,
        invoke_without_command=True,
        subcommand_metavar="[COMMAND] [ARGS]...",
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    def exit_with(code: int) -> None:
        if code:
            raise typer.Exit(code)

    def show_version(value: bool) -> None:
        if value:
            typer.echo(version_line())
            raise typer.Exit()

    def value_parser(parse: Callable[[str], Any]) -> Callable[[str], Any]:
        def parser(text: str) -> Any:
            try:
                return parse(text)
            except ValueError as error:
                raise typer.BadParameter(str(error)) from None
        return parser

    # The options every command shares, made fresh for each (Typer keeps per-parameter state).
    def shared_options(command: str, panel: str | None = None) -> dict[str, Any]:
        return {
            "no_color": typer.Option(False, "--no-color", help=NO_COLOR_HELP, rich_help_panel=panel),
            "debug": typer.Option(False, "--debug", help=DEBUG_HELP, rich_help_panel=panel),
            "no_hints": typer.Option(False, "--no-hints", help=NO_HINTS_HELP, rich_help_panel=panel),
            "timeout": typer.Option(None, "--timeout", metavar="SECONDS", min=0, help=TIMEOUT_HELP[command],
                                    parser=value_parser(parse_timeout), rich_help_panel=panel),
            "max_elements": typer.Option(None, "--max-elements", metavar="N", min=1, help=MAX_ELEMENTS_HELP,
                                         parser=value_parser(parse_max_elements), rich_help_panel=panel),
            "max_memory": typer.Option(None, "--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP,
                                       parser=value_parser(parse_max_memory), rich_help_panel=panel),
            "plot_dir": typer.Option(None, "--plot-dir", metavar="DIR", help=PLOT_DIR_HELP, rich_help_panel=panel,
                                     parser=value_parser(parse_plot_dir)),
            "seed": typer.Option(None, "--seed", metavar="N", help=SEED_HELP[command],
                                 parser=value_parser(parse_seed), rich_help_panel=panel),
        }

    def with_outer(ctx: typer.Context, **options: Any) -> dict[str, Any]:
        """A command's options, where `gradcli --no-color run ...` gave some before the command."""
        outer = ctx.obj or {}
        return {name: outer.get(name, value) if value is None or value is False else value
                for name, value in options.items()}

    def taking_shared_options(command: str, panel: str | None = None, leave_out: tuple[str, ...] = (),
                              helps: dict[str, str] | None = None) -> Callable[[Callable], Callable]:
        """A decorator: the command's function ends in ``**options`` and receives the shared options
        there (those given before the command merged in); Typer sees them as its last parameters."""
        import functools
        import inspect  # (here: the fast path never builds the Typer app)
        options = {name: option for name, option in shared_options(command, panel).items()
                   if name not in leave_out}
        for name, text in (helps or {}).items():
            options[name].help = text

        def decorate(function: Callable) -> Callable:
            own = [p for p in inspect.signature(function).parameters.values() if p.kind is not p.VAR_KEYWORD]
            shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option,
                                        annotation=SHARED_TYPES[name]) for name, option in options.items()]

            @functools.wraps(function)
            def command_function(ctx: typer.Context, *args: Any, **given: Any) -> Any:
                mine = {name: given.pop(name) for name in options}
                return function(ctx, *args, **given, **with_outer(ctx, **mine))

            command_function.__signature__ = inspect.Signature([*own, *shared])  # type: ignore[attr-defined]
            command_function.__annotations__ = {**{k: v for k, v in function.__annotations__.items()
                                                   if k != "options"},
                                                **{name: SHARED_TYPES[name] for name in options}}
            return command_function
        return decorate

    @app.callback()
    @taking_shared_options("repl", panel=REPL_PANEL)
    def main_options(
        ctx: typer.Context,
        version: bool = typer.Option(False, "--version", "-V", callback=show_version, is_eager=True,
                                     help=VERSION_HELP),
        **options: Any,
    ) -> None:
        if ctx.invoked_subcommand is None:
            exit_with(start_repl(**options))
        ctx.obj = options

    @app.command(cls=Command)
    @taking_shared_options("run")
    def run(
        ctx: typer.Context,
        file: str = typer.Argument(..., metavar="FILE", help=FILE_HELP),
        echo: bool = typer.Option(False, "--echo", help=ECHO_HELP),
        trace_backward: bool = typer.Option(False, "--trace-backward", help=TRACE_HELP),
        json: bool = typer.Option(False, "--json", help=JSON_HELP),
        **options: Any,
    ) -> None:
        """Run a script and print what `python script.py` with PyTorch would print."""
        exit_with(run_file(file, echo=echo, trace_backward=trace_backward, json=json, **options))

    @app.command("eval", cls=Command)
    @taking_shared_options("eval")
    def eval_command(
        ctx: typer.Context,
        code: str = typer.Argument(..., metavar="CODE", help="Statements to run; ';' separates them."),
        trace_backward: bool = typer.Option(False, "--trace-backward", help=TRACE_HELP),
        json: bool = typer.Option(False, "--json", help=JSON_HELP),
        **options: Any,
    ) -> None:
        """Run CODE and show the value of its last expression, if it ends with one."""
        exit_with(eval_code(code, trace_backward=trace_backward, json=json, **options))

    @app.command(cls=Command)
    @taking_shared_options("repl")
    def repl(ctx: typer.Context, **options: Any) -> None:
        """The interactive REPL (also `gradcli` alone); reads plain lines when stdin is not a terminal."""
        exit_with(start_repl(**options))

    add_view_commands(app, CommandKit(Command, taking_shared_options, exit_with, read_script))
    return app


def version_line() -> str:
    return f"gradcli {gradcli.__version__} (reproduces PyTorch {gradcli.TORCH_VERSION})"


def start_repl(**options: Any) -> int:
    """``gradcli repl``: the exit status."""
    try:
        from gradcli.repl.launch import main as repl_main
        return repl_main(**options)
    except Exception as error:  # a bug in gradcli (the REPL reports script errors itself)
        return _internal_error(error, options.get("debug", False))


def read_script(file: str) -> tuple[str, str] | int:
    """(text, filename) of FILE ('-' is stdin), or exit status 2 after saying why it cannot be read."""
    if file == "-":
        text = sys.stdin.read()
        # a byte order mark first is not part of the script, as Python reads stdin
        return text[1:] if text.startswith("\ufeff") else text, "<stdin>"
    try:
        with open(file, encoding="utf-8-sig") as handle:
            return handle.read(), file
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        sys.stderr.write(f"gradcli: cannot read '{file}': {reason}\n")
        return 2


def run_file(file: str, *, echo: bool = False, **options: Any) -> int:
    """``gradcli run FILE``: the exit status."""
    script = read_script(file)
    if isinstance(script, int):
        return script
    text, filename = script
    return _execute(text, filename, "all" if echo else "none", **options)


def eval_code(code: str, **options: Any) -> int:
    """``gradcli eval CODE``: the exit status."""
    return _execute(code, "<eval>", "last", **options)


def _execute(text: str, filename: str, echo: str, *, no_color: bool = False, debug: bool = False,
             no_hints: bool = False, timeout: Optional[float] = None,
             max_elements: Optional[int] = None, max_memory: Optional[int] = None, seed: Optional[int] = None,
             plot_dir: Optional[str] = None, trace_backward: bool = False, json: bool = False) -> int:
    """Run text in a fresh Session; return the exit status."""
    gc.disable()  # until the script starts: see the module's docstring
    try:
        from gradcli.lang.output import wants_color
        from gradcli.lang.runtime import Session
        from gradcli.lang.script_worker import DEFAULT_TIMEOUT

        timeout = DEFAULT_TIMEOUT if timeout is None else timeout or None

        session_options: dict[str, Any] = dict(
            color=wants_color(sys.stdout, no_color), diagnostics_color=wants_color(sys.stderr, no_color),
            hints=not no_hints, debug=debug, timeout=timeout, plot_dir=plot_dir)
        views = None
        if trace_backward or json:
            # the views are loaded only when asked for; a plain run never imports them
            from gradcli.views.run_views import RunViews
            views = RunViews(trace_backward=trace_backward, json=json, no_color=no_color, filename=filename)
            views.configure(session_options)
        session = Session(**session_options)
        if max_elements is not None:
            session.engine.set_max_elements(max_elements)
        if max_memory is not None:
            session.engine.set_max_memory(max_memory or None)
        if seed is not None:
            session.engine.TORCH["manual_seed"](seed)
        if views is not None:
            views.before(session)
    except Exception as error:  # gradcli itself failed to start: a bug, never a bare traceback
        gc.enable()
        return _internal_error(error, debug)
    gc.freeze()
    gc.enable()
    if timeout:  # a C call holding the interpreter past the limit: the process ends anyway
        from gradcli.lang.script_worker import hard_stop
        hard_stop(timeout + 1)
    outcome = session.run_source(text, filename, echo=echo)  # type: ignore[arg-type]
    if timeout:
        hard_stop(None)
    if views is not None:
        return views.after(session, outcome)
    return outcome.exit_code


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
# [options]`, `gradcli [repl] [options]`, `gradcli --version`) are parsed here
# instead; anything else (help, shell completion, a malformed option) goes to
# Typer, which also gives the usage errors.  tests/cli checks that these tables
# match the Typer commands.
FLAGS = {"run": {"--echo", "--no-color", "--debug", "--no-hints", "--trace-backward", "--json"},
         "eval": {"--no-color", "--debug", "--no-hints", "--trace-backward", "--json"},
         "repl": {"--no-color", "--debug", "--no-hints"}}
VALUED = {"--timeout": parse_timeout, "--max-elements": parse_max_elements, "--max-memory": parse_max_memory,
          "--seed": parse_seed, "--plot-dir": parse_plot_dir}
# Set by the shell when it asks for completions (Typer answers; with no arguments
# the fast path would start the REPL instead).
COMPLETE_VARIABLE = "_GRADCLI_COMPLETE"


def parse_fast_path(argv: list[str]) -> tuple[str, str | None, dict] | None:
    """(command, FILE or CODE (None for repl), options) for a plain run/eval/repl invocation, else None.

    ``gradcli [OPTIONS]`` (options, no command) is the REPL with those options."""
    if not argv:
        return "repl", None, {}
    if argv[0].startswith("-") and argv[0] != "-":
        argv = ["repl", *argv]
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
            try:
                options[name[2:].replace("-", "_")] = VALUED[name](value)
            except ValueError:
                return None
        elif argument.startswith("-") and argument != "-":
            return None
        else:
            positional.append(argument)
        index += 1
    if len(positional) != (0 if command == "repl" else 1):
        return None
    return command, positional[0] if positional else None, options


# NumPy's OpenBLAS starts a worker thread per core when NumPy is imported, and an idle worker
# spins for 2**28 cycles (~0.1 s) before it sleeps.  A whole tutorial run is about that long: on
# a busy machine the spinning worker takes the CPU the run needs (tens of ms).  2**20 cycles
# (~0.4 ms) still keeps it awake between the matrix products of a loop.  The threads and how
# they split a product are unchanged, so every result is the same bit for bit.
BLAS_SPIN = ("OPENBLAS_THREAD_TIMEOUT", "20")


def main() -> None:
    """Console-script entry point."""
    os.environ.setdefault(*BLAS_SPIN)  # (before anything imports NumPy; a user's own setting wins)
    try:
        argv = sys.argv[1:]
        if argv in (["--version"], ["-V"]):
            print(version_line())
            return
        fast = None if os.environ.get(COMPLETE_VARIABLE) else parse_fast_path(argv)
        if fast is None:
            # named gradcli in usage lines and completion scripts even as `python -m gradcli`
            build_app()(prog_name="gradcli")
            return
        command, target, options = fast
        if command == "repl":
            sys.exit(start_repl(**options))
        run_it = run_file if command == "run" else eval_code
        sys.exit(run_it(target, **options))
    except BrokenPipeError:
        # the reader went away (`gradcli run x.ag | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def entry() -> None:
    """The ``gradcli`` command: :func:`main`, then leave without the interpreter's teardown.

    Freeing every module and object at exit costs about 30 ms, an eighth of a run; nothing of
    gradcli's needs it (no atexit handlers, files are closed when written), so once the output
    is flushed the process ends at once with main's exit status.
    """
    try:
        main()
        code = 0
    except SystemExit as stop:
        code = _exit_status(stop.code)
    except KeyboardInterrupt:
        code = 130
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        code = code or 1
    try:
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass
    os._exit(code)


def _exit_status(code: Any) -> int:
    """What Python does with ``sys.exit(code)``: None is 0, a number is itself, else print it, 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def __getattr__(name: str) -> Any:
    # `gradcli.cli.app` (for tests and tools) without building it at import time
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
