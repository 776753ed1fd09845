"""``gradcli graph FILE [NAME ...]``: run a script, then draw the backward graph of its tensors.

Only Typer's parameters are declared at import; the run and the drawing load on use.
"""

# No `from __future__ import annotations`: Typer reads the command's annotations, and
# `typer.Context` names the module imported inside register.
from typing import Any, List, Optional

from gradcli.views.commands import FILE_HELP

GRAPH_HELP = ("Run a script and draw the backward graph of NAME (default: the tensors of its last "
              "backward() or autograd.grad() call, else the last tensor it bound), with the script's "
              "names, lines, saved tensors and hooks.")
FORMATS = ("tree", "dot", "svg")
EXTENSIONS = {".svg": "svg", ".dot": "dot", ".gv": "dot"}


def register(app: Any, kit: Any) -> None:
    import typer

    @app.command("graph", cls=kit.command_class, help=GRAPH_HELP)
    @kit.shared_options("run")
    def graph(
        ctx: typer.Context,
        file: str = typer.Argument(..., metavar="FILE", help=FILE_HELP),
        names: Optional[List[str]] = typer.Argument(
            None, metavar="NAME", help="Variables to draw (model.fc.weight-style paths too)."),
        depth: Optional[int] = typer.Option(None, "--depth", metavar="N", min=1,
                                            help="Draw N levels below each tensor."),
        full: bool = typer.Option(False, "--full", help="Draw every node: no folding of a loop's copies."),
        format: Optional[str] = typer.Option(None, "--format", metavar="tree|dot|svg",
                                             help="tree (the terminal view; the default), Graphviz dot, "
                                                  "or svg (default: from -o's extension, else tree)."),
        layout: str = typer.Option("auto", "--layout", metavar="auto|dot|python",
                                   help="How svg is laid out: the dot program when installed (auto), "
                                        "dot only, or the pure-Python layout."),
        output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE",
                                             help="Write the drawing to FILE instead of stdout."),
        show_output: bool = typer.Option(False, "--show-output",
                                         help="Let the script's own printed output through to stdout."),
        **options: Any,
    ) -> None:
        if format is not None and format not in FORMATS:
            raise typer.BadParameter(f"{format!r} is not one of tree, dot, svg.", param_hint="'--format'")
        if layout not in ("auto", "dot", "python"):
            raise typer.BadParameter(f"{layout!r} is not one of auto, dot, python.", param_hint="'--layout'")
        script = kit.read_script(file)
        if isinstance(script, int):
            kit.exit_with(script)
            return
        try:
            status = run_graph(*script, names=list(names or ()), depth=depth, full=full, format=format,
                               layout=layout, output=output, show_output=show_output, **options)
        except Exception as error:   # a bug in gradcli: one line (a traceback with --debug)
            status = internal_error(error, options["debug"])
        kit.exit_with(status)


def run_graph(text: str, filename: str, *, names: list[str], depth: int | None = None, full: bool = False,
              format: str | None = None, layout: str = "auto", output: str | None = None,
              show_output: bool = False, no_color: bool = False, **run_options: Any) -> int:
    """Run the script and draw; the exit status (the script's, when it failed)."""
    from gradcli.views.graph.roots import CannotDraw, LastBackward, param_names, pick_roots
    from gradcli.views.graph.svg import LayoutError
    from gradcli.views.script_run import run_for_view

    recorder = LastBackward().install()
    try:
        view_run = run_for_view(text, filename, show_output=show_output, no_color=no_color, **run_options)
    finally:
        recorder.remove()
    failed = view_run.outcome.exit_code
    try:
        roots, headings = pick_roots(view_run, names, recorder)
    except CannotDraw as error:
        say(str(error) + (" (the script stopped at its error before)" if failed else ""))
        return failed or error.status
    if failed:
        say("the graph as far as the script got:")
    if format is None:
        format = EXTENSIONS.get(_extension(output), "tree")
    params = param_names(view_run.session.globals)
    try:
        drawing = draw(roots, view_run.provenance, format, headings=headings, depth=depth, fold=not full,
                       layout=layout, param_names=params, color=output is None and _wants_color(no_color))
    except LayoutError as error:   # dot missing (--layout dot), failing or too slow
        say(str(error))
        return failed or 1
    if output is None:
        write_stdout(drawing)
    else:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(drawing if isinstance(drawing, str) else str(drawing))
        except OSError as error:
            say(f"cannot write '{output}': {error.strerror or error}")
            return failed or 1
    return failed


def draw(roots: list, provenance: Any, format: str, *, headings: list[str] | None, depth: int | None,
         fold: bool, layout: str, param_names: dict, color: bool) -> Any:
    """The drawing: a str, or a Rich Text for the coloured tree."""
    if format == "tree":
        from gradcli.views.graph.model import build, collector_paused
        from gradcli.views.graph.tree_text import TreeDrawer, render
        with collector_paused():
            drawer = TreeDrawer(build(roots, provenance), fold=fold, depth=depth, param_names=param_names)
            return render(drawer.lines(headings), color)
    from gradcli.views.graph import graph_dot, graph_picture
    if format == "dot":
        return graph_dot(roots, provenance, fold=fold, depth=depth, param_names=param_names)
    from gradcli.views.graph.svg import LARGE, picture_svg
    picture = graph_picture(roots, provenance, fold=fold, depth=depth, param_names=param_names)
    if len(picture.boxes) > LARGE:
        say(f"laying out {len(picture.boxes)} boxes: this can take minutes"
            + (" (leave out --full to fold the loops, or give --depth N)" if not fold else " (try --depth N)"))
    return picture_svg(picture, layout=layout)


def write_stdout(drawing: Any) -> None:
    import sys
    if isinstance(drawing, str):
        sys.stdout.write(drawing)
        sys.stdout.flush()
        return
    from rich.console import Console
    Console(file=sys.stdout, force_terminal=True, highlight=False).print(drawing, end="", soft_wrap=True)


def internal_error(error: Exception, debug: bool) -> int:
    import sys
    import traceback

    from gradcli.lang.diagnostics import Reporter
    from gradcli.lang.errors import EXIT_INTERNAL_ERROR
    Reporter(sys.stderr).internal_error(error, "".join(traceback.format_exception(error)) if debug else None)
    return EXIT_INTERNAL_ERROR


def say(message: str) -> None:
    import sys
    sys.stdout.flush()
    sys.stderr.write(f"gradcli: graph: {message}\n")
    sys.stderr.flush()


def _wants_color(no_color: bool) -> bool:
    import sys

    from gradcli.lang.output import wants_color
    return wants_color(sys.stdout, no_color)


def _extension(path: str | None) -> str:
    import os
    return os.path.splitext(path)[1].lower() if path else ""
