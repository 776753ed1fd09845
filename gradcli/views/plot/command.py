"""``gradcli plot EXPR --var x --from -3 --to 3``: f and f' (by autograd) in the terminal, or in
an SVG/PNG file with ``-o``.  Light at import: the work is in ``plot_expression``."""

# No `from __future__ import annotations`: Typer reads the annotations.
import keyword
import sys
from typing import Any, Optional

PLOT_HELP = ("Draw f(x) = EXPR and its derivative f'(x), computed by autograd, in the terminal "
             "(or in an SVG/PNG file with -o).\n\n"
             "EXPR is gradcli's language in the variable: 'sin(x)**2', 'x**3 - 2*x', 'torch.tanh(x)'. "
             "Put -- before an EXPR that starts with '-'.")
MAX_POINTS = 100_000


def register(app: Any, kit: Any) -> None:
    import typer

    @app.command("plot", cls=kit.command_class, help=PLOT_HELP)
    @kit.shared_options("eval", leave_out=("plot_dir",), helps={
        "timeout": "Stop evaluating EXPR after this many seconds.",
        "seed": "Seed the random generator before EXPR runs (torch.manual_seed(N))."})
    def plot(
        ctx: typer.Context,
        expr: str = typer.Argument(..., metavar="EXPR", help="The function of the variable to draw."),
        var: str = typer.Option("x", "--var", metavar="NAME", help="The variable EXPR is written in."),
        start: float = typer.Option(-3.0, "--from", metavar="A", help="Where the variable starts."),
        stop: float = typer.Option(3.0, "--to", metavar="B", help="Where it ends (greater than A)."),
        points: int = typer.Option(200, "--points", metavar="N", min=2, max=MAX_POINTS,
                                   help="How many values of the variable, evenly spaced from A to B."),
        width: int = typer.Option(60, "--width", metavar="W", min=20, max=1000,
                                  help="The terminal plot's width in characters."),
        height: int = typer.Option(15, "--height", metavar="H", min=5, max=500,
                                   help="The terminal plot's height in lines."),
        output: Optional[str] = typer.Option(None, "-o", "--output", metavar="FILE",
                                             help="Write an SVG or PNG file (by its extension) instead."),
        **options: Any,
    ) -> None:
        kit.exit_with(plot_expression(expr, var=var, start=start, stop=stop, points=points, width=width,
                                      height=height, output=output, **options))


def plot_expression(expr: str, *, var: str = "x", start: float = -3.0, stop: float = 3.0, points: int = 200,
                    width: int = 60, height: int = 15, output: Optional[str] = None, no_color: bool = False,
                    debug: bool = False, no_hints: bool = False, timeout: Optional[float] = None,
                    max_elements: Optional[int] = None, max_memory: Optional[int] = None,
                    seed: Optional[int] = None, stdout: Any = None,
                    stderr: Any = None) -> int:
    """Draw EXPR and its derivative; the exit status (2: bad options, 1: EXPR failed)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    problem = _check_options(var, start, stop, points, output)
    if problem:
        stderr.write(f"gradcli plot: {problem}\n")
        return 2
    from gradcli.lang.output import wants_color
    from gradcli.lang.runtime import Session
    from gradcli.views.plot.expression import ExprProblem, evaluate

    session = Session(stdout=stdout, stderr=stderr, diagnostics_color=wants_color(stderr, no_color),
                      hints=not no_hints, debug=debug, timeout=timeout or None)
    if max_elements is not None:
        session.engine.set_max_elements(max_elements)
    if max_memory is not None:
        session.engine.set_max_memory(max_memory or None)
    if seed is not None:
        session.engine.TORCH["manual_seed"](seed)
    try:
        curve = evaluate(session, expr, var, start, stop, points)
    except ExprProblem as problem:
        stderr.write(f"gradcli plot: {problem}\n")
        return 1
    if curve is None:
        return 1
    bad_f, bad_df = curve.not_finite()
    if bad_f == points:
        stderr.write(f"gradcli plot: f is not finite anywhere on [{start:g}, {stop:g}] (nan or inf at every "
                     "point): nothing to draw\n")
        return 1
    if bad_f or bad_df:
        stderr.write(f"gradcli plot: left out the points where a value is not finite: f at {bad_f}, "
                     f"f' at {bad_df} of {points} ({_where(curve, var)})\n")
    figure = _figure(curve, expr, var, start, stop)
    if output is not None:
        return _write(figure, output, stderr)
    from gradcli.views.plot.terminal import render
    stdout.write(render(figure, width=width, height=height, color=wants_color(stdout, no_color)))
    return 0


def _check_options(var: str, start: float, stop: float, points: int, output: Optional[str]) -> Optional[str]:
    if not var.isidentifier() or keyword.iskeyword(var):
        return f"--var {var!r} is not a variable name"
    if not (start == start and stop == stop) or abs(start) == float("inf") or abs(stop) == float("inf"):
        return "--from and --to must be finite numbers"
    if start >= stop:
        return f"--from ({start:g}) must be less than --to ({stop:g})"
    if not 2 <= points <= MAX_POINTS:
        return f"--points must be between 2 and {MAX_POINTS}"
    if output is not None and not output.lower().endswith((".svg", ".png")):
        return f"-o {output!r}: the file must end in .svg or .png"
    return None


def _where(curve: Any, var: str) -> str:
    import numpy as np
    bad = ~(np.isfinite(curve.f) & np.isfinite(curve.df))
    xs = [f"{v:g}" for v in curve.x[bad][:3]]
    more = ", ..." if bad.sum() > 3 else ""
    return f"at {var} = " + ", ".join(xs) + more


def _figure(curve: Any, expr: str, var: str, start: float, stop: float) -> Any:
    from gradcli.views.plot.figure import Figure, Series
    figure = Figure(title=f"f({var}) = {expr}", xlabel=var, legend=True, xlim=(start, stop))
    figure.series.append(Series(curve.x, curve.f, label=f"f({var})"))
    figure.series.append(Series(curve.x, curve.df, label=f"f′({var}) by autograd"))
    return figure


def _write(figure: Any, output: str, stderr: Any) -> int:
    if output.lower().endswith(".svg"):
        from gradcli.views.plot.svg import figure_svg
        content = figure_svg(figure).encode("utf-8")
    else:
        from gradcli.views.plot.png import figure_png
        content = figure_png(figure)
    try:
        with open(output, "wb") as stream:
            stream.write(content)
    except OSError as error:
        stderr.write(f"gradcli plot: cannot write {output!r}: {error.strerror or error}\n")
        return 1
    return 0
