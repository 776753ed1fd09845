"""``gradcli explain FILE NAME [--wrt LEAF ...]`` and the REPL's ``:explain NAME [--wrt LEAF ...]``.

Light at import: the explanation (and SymPy) load when the command runs.
"""

# No `from __future__ import annotations`: Typer reads the command's annotations.
import shlex
import sys
from typing import Any, List, Optional

from gradcli.views.commands import FILE_HELP

EXPLAIN_HELP = ("Run a script, then show how NAME was computed as equations with the script's names, and "
                "its derivative by each leaf from SymPy beside autograd's value (for graphs of up to 64 tensor "
                "elements; larger ones get the chain rule node by node).")
WRT_HELP = "A leaf to differentiate by (repeat for several); default: every leaf NAME depends on."
USAGE_ERROR = 2


def register(app: Any, kit: Any) -> None:
    import typer

    @app.command("explain", cls=kit.command_class, help=EXPLAIN_HELP)
    @kit.shared_options("run")
    def explain_command(
        ctx: typer.Context,
        file: str = typer.Argument(..., metavar="FILE", help=FILE_HELP),
        name: str = typer.Argument(..., metavar="NAME", help="The tensor to explain: a variable of the script."),
        wrt: Optional[List[str]] = typer.Option(None, "--wrt", metavar="LEAF", help=WRT_HELP),
        **options: Any,
    ) -> None:
        script = kit.read_script(file)
        if isinstance(script, int):
            kit.exit_with(script)
            return
        kit.exit_with(explain_script(*script, name, wrt or [], **options))


def explain_script(text: str, filename: str, name: str, wrt: List[str], *, no_color: bool = False,
                   **run_options: Any) -> int:
    """Run the script, explain NAME on stdout; the exit status (the script's own when it failed)."""
    from gradcli.lang.output import wants_color
    from gradcli.views.explain.autograd_values import BackwardLog
    from gradcli.views.script_run import run_for_view

    log = BackwardLog().start()
    try:
        run = run_for_view(text, filename, no_color=no_color, **run_options)
    finally:
        log.stop()
    status = 0 if run.ok else (run.outcome.exit_code or 1)
    if name not in run.session.globals:
        if run.ok:
            _error(_unknown_name(name, run.session.globals, filename))
        else:
            _error(f"explain: the script stopped before it bound {name}")
        return status or USAGE_ERROR
    code = _show(run.provenance, run.session.globals[name], name, wrt, log, sys.stdout,
                 wants_color(sys.stdout, no_color), run_options.get("debug", False))
    return status or code


def explain_in_repl(console: Any, argument: str) -> bool:
    """``:explain NAME [--wrt LEAF ...]``: True when it worked."""
    try:
        words = shlex.split(argument)
    except ValueError as error:
        _error(f":explain: {error}", console)
        return False
    name, wrt, problem = _parse(words)
    if problem:
        _error(problem, console)
        return False
    names = console.session.globals
    if name not in names:
        _error(_unknown_name(name, names, None), console)
        return False
    from gradcli.engine.autograd import observe
    with observe.paused():  # explain's own autograd calls are no part of the session's graph or trace
        return _show(console.provenance, names[name], name, wrt, None, console.stdout, console.color, False,
                     console) == 0


def _parse(words: List[str]) -> tuple:
    name, wrt = None, []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--wrt":
            if i + 1 >= len(words):
                return None, [], ":explain: --wrt needs a leaf name"
            wrt.append(words[i + 1])
            i += 2
            continue
        if word.startswith("--wrt="):
            wrt.append(word.split("=", 1)[1])
        elif name is None:
            name = word
        else:
            return None, [], f":explain takes one tensor name (then --wrt LEAF ...), not {word!r} too"
        i += 1
    if name is None:
        return None, [], ":explain TENSOR needs a tensor name"
    return name, wrt, None


def _show(provenance: Any, tensor: Any, name: str, wrt: List[str], log: Any, stream: Any, color: bool,
          debug: bool, console: Any = None) -> int:
    from gradcli.views.explain.explanation import ExplainError, explain
    from gradcli.views.explain.render import render, write
    if provenance is None:
        _error("explain needs the graph's provenance, which this session does not record", console)
        return 1
    try:
        found = explain(provenance, tensor, name, wrt, log)
    except ExplainError as error:
        _error(f"explain: {error}", console)
        return USAGE_ERROR
    except Exception as error:  # a bug in gradcli: say so, as the CLI does
        if debug:
            raise
        _error(f"internal error while explaining {name}: {type(error).__name__}: {error} "
               "(--debug shows the traceback)", console)
        return 1
    write(render(found), stream, color)
    return 0


def _unknown_name(name: str, names: dict, filename: Optional[str]) -> str:
    import difflib

    from gradcli.engine.tensor import Tensor
    tensors = sorted(n for n, v in names.items() if isinstance(v, Tensor) and not n.startswith("_"))
    where = f" of {filename}" if filename else ""
    close = difflib.get_close_matches(name, tensors, n=1)
    hint = f"; did you mean {close[0]}?" if close else (f" (its tensors: {', '.join(tensors)})" if tensors else "")
    return f"explain: {name} is not a variable{where}{hint}"


def _error(message: str, console: Any = None) -> None:
    if console is not None:
        console.stdout.end_line()
        stream = console.stderr
    else:
        stream = sys.stderr
    stream.write(f"gradcli: {message}\n")
    stream.flush()
