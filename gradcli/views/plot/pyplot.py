"""``import matplotlib.pyplot as plt`` for scripts: the figure is drawn in the terminal.

The functions tutorials use - ``figure plot scatter xlabel ylabel title legend grid xlim ylim
subplot subplots gca gcf clf close show savefig tight_layout`` - keep matplotlib's state machine
(a current figure, made on first use, numbered from 1).  ``show()`` draws every open figure on
stderr (stdout stays byte for byte what PyTorch prints: real matplotlib's show() prints nothing
there) and closes them; ``savefig`` writes SVG or PNG only inside ``--plot-dir``.  A figure has
one axes; ``subplots(2, 1)`` and any pyplot function not listed say so.  ``matplotlib`` itself
offers ``pyplot`` and ``use`` (a backend choice, which changes nothing here).

Session.view_state["pyplot"] holds the state; ``figures(session)`` are the figures drawn or
saved during the run, then those still open (for the report page).
"""

from __future__ import annotations

import os
from typing import Any

from gradcli.lang.errors import ScriptNotImplementedError, ScriptTypeError, ScriptValueError
from gradcli.views.plot import artists, plot_args, savefile
from gradcli.views.plot.figure import Figure

PYPLOT_FUNCTIONS = ("figure", "plot", "scatter", "xlabel", "ylabel", "title", "legend", "grid", "xlim",
                    "ylim", "subplot", "subplots", "gca", "gcf", "clf", "close", "show", "savefig",
                    "tight_layout")


class Pyplot:
    """One session's pyplot: the open figures and the current one."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.open: dict[int, Figure] = {}
        self.current: Figure | None = None
        self.drawn: list[Figure] = []          # shown or saved, in order, each once
        self._handles: dict[int, artists.FigureHandle] = {}
        self._axes: dict[int, artists.Axes] = {}

    # ------------------------------------------------------------ figures
    def new_figure(self, number: int | None = None, figsize: Any = None, dpi: Any = None) -> Figure:
        if number is None:
            number = max(self.open, default=0) + 1
        figure = Figure(number=number)
        if figsize is not None:
            figure.size = _figsize(figsize)
        if dpi is not None:
            figure.dpi = _positive(dpi, "dpi")
        self.open[number] = figure
        self.current = figure
        return figure

    def current_figure(self) -> Figure:
        if self.current is None:
            return self.new_figure()
        return self.current

    def handle(self, figure: Figure) -> artists.FigureHandle:
        return self._handles.setdefault(id(figure), artists.FigureHandle(self, figure))

    def axes_of(self, figure: Figure) -> artists.Axes:
        return self._axes.setdefault(id(figure), artists.Axes(self, figure))

    def has_axes(self, figure: Figure) -> bool:
        return id(figure) in self._axes or bool(figure.series)

    def one_axes(self, figure: Figure, function: str, args: tuple) -> artists.Axes:
        """``subplot(111)``, ``subplot(1, 1, 1)``, ``add_subplot()``: the figure's one axes."""
        if args not in ((), (111,), (1, 1, 1)):
            shown = ", ".join(repr(a) for a in args)
            raise ScriptNotImplementedError(
                f"gradcli's matplotlib.pyplot draws one axes per figure: {function}({shown}) is not supported "
                "(draw each panel in a figure of its own)")
        return self.axes_of(figure)

    def close(self, which: Any = None) -> None:
        if which is None:
            targets = [self.current] if self.current is not None else []
        elif isinstance(which, str):   # "all"; figures have no labels to close by
            targets = list(self.open.values()) if which == "all" else []
        elif isinstance(which, artists.FigureHandle):
            targets = [which._figure]
        elif isinstance(which, int) and not isinstance(which, bool):
            targets = [self.open[which]] if which in self.open else []
        else:
            raise ScriptTypeError("close() argument must be a Figure, an int, a string, or None, not "
                                  f"{type(which)!r}")
        for figure in targets:
            self.open.pop(figure.number, None)
        if self.current is not None and self.current.number not in self.open:
            self.current = self.open[max(self.open)] if self.open else None

    # ------------------------------------------------------------ drawing on a figure
    def plot_on(self, figure: Figure, args: tuple, kwargs: dict) -> list:
        made = plot_args.line_series(args, kwargs)
        figure.series.extend(made)
        return [artists.Line2D() for _ in made]

    def scatter_on(self, figure: Figure, args: tuple, kwargs: dict) -> artists.PathCollection:
        if len(args) < 2 and not {"x", "y"} <= set(kwargs):
            raise ScriptTypeError("scatter() missing 2 required positional arguments: 'x' and 'y'"
                                  if not args else "scatter() missing 1 required positional argument: 'y'")
        figure.series.append(plot_args.scatter_series(*args, **kwargs))
        return artists.PathCollection()

    def legend_on(self, figure: Figure, args: tuple, kwargs: dict) -> artists.Legend | None:
        labels = kwargs.pop("labels", None)
        kwargs.pop("handles", None)
        if len(args) == 1:
            labels = args[0]
        elif len(args) == 2:   # (handles, labels): in plotting order here
            labels = args[1]
        elif len(args) > 2:
            raise ScriptTypeError(f"legend() takes 0-2 positional arguments but {len(args)} were given")
        if labels is not None:
            if isinstance(labels, str):
                labels = list(labels)   # (matplotlib too takes a string as its characters)
            figure.legend_labels = [str(label) for label in labels]
        elif not figure.labelled():
            self.session.warn("UserWarning", "No artists with labels found to put in legend.  Note that "
                              "artists whose label start with an underscore are ignored when legend() is "
                              "called with no argument.")
        figure.legend = True
        return artists.Legend()

    def grid_on(self, figure: Figure, visible: Any, kwargs: dict) -> None:
        if visible is None:
            figure.grid = bool(kwargs) or not figure.grid   # grid() toggles; grid(color=...) turns on
        else:
            figure.grid = bool(visible)

    def limits_on(self, figure: Figure, axis: str, args: tuple, kwargs: dict) -> tuple:
        names = ("left", "right") if axis == "x" else ("bottom", "top")
        low, high = (kwargs.pop(names[0], None), kwargs.pop(names[1], None))
        low = kwargs.pop(f"{axis}min", low)
        high = kwargs.pop(f"{axis}max", high)
        if kwargs:
            raise ScriptTypeError(f"set_{axis}lim() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            args = tuple(args[0])
        if len(args) == 2:
            low, high = args
        elif args:
            raise ScriptTypeError(f"{axis}lim() takes a (low, high) pair")
        current = getattr(figure, f"{axis}lim")
        low = current[0] if low is None else _finite(low, f"{axis}lim")
        high = current[1] if high is None else _finite(high, f"{axis}lim")
        setattr(figure, f"{axis}lim", (low, high))
        limits = figure.limits()
        return limits[0] if axis == "x" else limits[1]

    def save(self, figure: Figure, fname: Any, kwargs: dict) -> None:
        unknown = set(kwargs) - {"dpi", "format", "bbox_inches", "pad_inches", "transparent", "facecolor",
                                 "edgecolor", "metadata"}
        if unknown:
            raise ScriptTypeError(f"savefig() got an unexpected keyword argument '{sorted(unknown)[0]}'")
        name, kind = savefile.file_format(fname, kwargs.get("format"))
        dpi = kwargs.get("dpi")
        dpi = figure.dpi if dpi is None or dpi == "figure" else _positive(dpi, "dpi")
        if figure.size[0] * dpi * figure.size[1] * dpi > 25_000_000:
            raise ScriptValueError(f"Image size of {round(figure.size[0] * dpi)}x{round(figure.size[1] * dpi)} "
                                   "pixels is too large")
        # the folder is checked before the picture is made: a refused save costs nothing
        if self.session.plot_dir is None:
            savefile.write_in_plot_dir(None, name, b"")
        if kind == "svg":
            from gradcli.views.plot.svg import figure_svg
            content = figure_svg(figure, dpi).encode("utf-8")
        else:
            from gradcli.views.plot.png import figure_png
            content = figure_png(figure, dpi)
        savefile.write_in_plot_dir(self.session.plot_dir, name, content)
        self._mark_drawn(figure)

    def show(self) -> None:
        session = self.session
        stream = session.reporter.stream
        session.output.flush()   # what the script printed comes first on a shared terminal
        from gradcli.views.plot.terminal import render, size_for
        columns = _columns(stream)
        for index, number in enumerate(sorted(self.open)):
            figure = self.open[number]
            if index:
                stream.write("\n")   # a blank line between figures
            width, height = size_for(figure, columns)
            stream.write(render(figure, width=width, height=height, color=session.reporter.color))
            self._mark_drawn(figure)
        stream.flush()
        self.open.clear()
        self.current = None

    def _mark_drawn(self, figure: Figure) -> None:
        if all(figure is not drawn for drawn in self.drawn):
            self.drawn.append(figure)

    def figures(self) -> list[Figure]:
        kept = list(self.drawn)
        kept += [f for f in self.open.values() if not f.is_empty() and all(f is not d for d in kept)]
        return kept


def _columns(stream: Any) -> int | None:
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        pass
    return None


def _finite(value: Any, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScriptTypeError(f"{what}() takes numbers, not {type(value).__name__}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ScriptValueError("Axis limits cannot be NaN or Inf")
    return number


def _positive(value: Any, what: str) -> float:
    number = _finite(value, what)
    if number <= 0:
        raise ScriptValueError(f"{what} must be positive, not {value!r}")
    return number


def _figsize(value: Any) -> tuple[float, float]:
    try:
        width, height = value
    except (TypeError, ValueError):
        raise ScriptValueError(f"figure size must be a (width, height) pair of inches, not {value!r}") from None
    width, height = _positive(width, "figsize"), _positive(height, "figsize")
    if width > 100 or height > 100:
        raise ScriptValueError(f"figure size {value!r} is too large (at most 100 x 100 inches)")
    return width, height


# ---------------------------------------------------------------- the module a script imports
def state_of(session: Any) -> Pyplot:
    state = session.view_state.get("pyplot")
    if state is None:
        state = session.view_state["pyplot"] = Pyplot(session)
    return state


def pyplot_members(session: Any, path: str = "matplotlib.pyplot") -> dict[str, Any]:
    """The members of the script's ``matplotlib.pyplot`` (one state per Session)."""
    state = state_of(session)

    def figure(num: Any = None, figsize: Any = None, dpi: Any = None, **kwargs: Any) -> artists.FigureHandle:
        if isinstance(num, artists.FigureHandle):
            num = num.number
        if num is not None and num in state.open:
            state.current = state.open[num]
        else:
            if num is not None and not (isinstance(num, int) and not isinstance(num, bool)):
                raise ScriptNotImplementedError(f"gradcli's plt.figure takes a figure number, not {num!r}")
            state.new_figure(num, figsize, dpi)
        return state.handle(state.current)

    def plot(*args: Any, **kwargs: Any) -> list:
        return state.plot_on(state.current_figure(), args, kwargs)

    def scatter(*args: Any, **kwargs: Any) -> artists.PathCollection:
        return state.scatter_on(state.current_figure(), args, kwargs)

    def xlabel(xlabel: Any, *args: Any, **kwargs: Any) -> artists.Text:
        return state.axes_of(state.current_figure()).set_xlabel(xlabel)

    def ylabel(ylabel: Any, *args: Any, **kwargs: Any) -> artists.Text:
        return state.axes_of(state.current_figure()).set_ylabel(ylabel)

    def title(label: Any, *args: Any, **kwargs: Any) -> artists.Text:
        return state.axes_of(state.current_figure()).set_title(label)

    def legend(*args: Any, **kwargs: Any) -> artists.Legend | None:
        return state.legend_on(state.current_figure(), args, kwargs)

    def grid(visible: Any = None, *args: Any, **kwargs: Any) -> None:
        state.grid_on(state.current_figure(), visible, kwargs)

    def xlim(*args: Any, **kwargs: Any) -> tuple:
        return state.limits_on(state.current_figure(), "x", args, kwargs)

    def ylim(*args: Any, **kwargs: Any) -> tuple:
        return state.limits_on(state.current_figure(), "y", args, kwargs)

    def subplot(*args: Any, **kwargs: Any) -> artists.Axes:
        return state.one_axes(state.current_figure(), "plt.subplot", args)

    def subplots(nrows: Any = 1, ncols: Any = 1, *, figsize: Any = None, dpi: Any = None,
                 **kwargs: Any) -> tuple:
        if (nrows, ncols) != (1, 1):
            raise ScriptNotImplementedError(
                f"gradcli's matplotlib.pyplot draws one axes per figure: plt.subplots({nrows!r}, {ncols!r}) is "
                "not supported (draw each panel in a figure of its own)")
        made = state.new_figure(None, figsize, dpi)
        return state.handle(made), state.axes_of(made)

    def gca() -> artists.Axes:
        return state.axes_of(state.current_figure())

    def gcf() -> artists.FigureHandle:
        return state.handle(state.current_figure())

    def clf() -> None:
        current = state.current_figure()
        fresh = Figure(number=current.number, size=current.size, dpi=current.dpi)
        current.__dict__.update(fresh.__dict__)

    def close(fig: Any = None) -> None:
        state.close(fig)

    def show(*args: Any, block: Any = None) -> None:
        state.show()

    def savefig(fname: Any, **kwargs: Any) -> None:
        state.save(state.current_figure(), fname, kwargs)

    def tight_layout(*args: Any, **kwargs: Any) -> None:
        """Nothing to do: the layout is matplotlib's default and the labels fit it."""

    members = dict(figure=figure, plot=plot, scatter=scatter, xlabel=xlabel, ylabel=ylabel, title=title,
                   legend=legend, grid=grid, xlim=xlim, ylim=ylim, subplot=subplot, subplots=subplots,
                   gca=gca, gcf=gcf, clf=clf, close=close, show=show, savefig=savefig, tight_layout=tight_layout)
    for name, function in members.items():
        function.__module__ = "matplotlib.pyplot"
        function.__qualname__ = name
    assert tuple(members) == PYPLOT_FUNCTIONS
    return members


def matplotlib_members(session: Any, path: str = "matplotlib") -> dict[str, Any]:
    """``matplotlib`` itself: ``use(backend)`` (any backend: the figure is drawn here either way);
    ``pyplot`` is added by the language as the submodule."""
    def use(backend: Any, *, force: Any = True) -> None:
        if not isinstance(backend, str):
            raise ScriptTypeError(f"use() takes the name of a backend, not {type(backend).__name__}")
    use.__module__ = "matplotlib"
    return {"use": use}


def missing_member(path: str, name: str) -> str:
    """The AttributeError for a name gradcli's matplotlib lacks."""
    if path == "matplotlib.pyplot":
        return f"gradcli's matplotlib.pyplot does not support plt.{name}"
    return f"gradcli's matplotlib does not support matplotlib.{name}"

