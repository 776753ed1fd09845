"""The objects ``matplotlib.pyplot`` hands a script: a Figure, its one Axes, and what plot,
scatter, xlabel, title and legend return (Line2D, PathCollection, Text, Legend).

They print as matplotlib's do (``<Figure size 640x480 with 1 Axes>``, ``Text(0.5, 0, 'x')``,
``[<matplotlib.lines.Line2D object at 0x...>]`` in the REPL) and let a script reach only the
methods listed in ``__script_attrs__``; any other name says gradcli's pyplot lacks it.
"""

from __future__ import annotations

from typing import Any

from gradcli.views.plot.figure import Figure


def _unsupported(owner: str):
    def missing(name: str) -> str:
        return f"gradcli's matplotlib.pyplot does not support {owner}.{name}"
    return staticmethod(missing)


class _Opaque:
    """A return value a script keeps but cannot look into (matplotlib's has hundreds of setters)."""
    __slots__ = ()
    __script_attrs__ = frozenset()


class Line2D(_Opaque):
    __module__ = "matplotlib.lines"
    __script_missing__ = _unsupported("Line2D")


class PathCollection(_Opaque):
    __module__ = "matplotlib.collections"
    __script_missing__ = _unsupported("PathCollection")


class Legend(_Opaque):
    __module__ = "matplotlib.legend"
    __script_missing__ = _unsupported("Legend")


class Text:
    """What xlabel, ylabel and title return; prints as ``Text(0.5, 0, 'epoch')``."""
    __slots__ = ("_x", "_y", "_text")
    __module__ = "matplotlib.text"
    __script_attrs__ = frozenset({"get_text"})
    __script_missing__ = _unsupported("Text")

    def __init__(self, x: float, y: float, text: str) -> None:
        self._x, self._y, self._text = x, y, text

    def get_text(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Text({self._x}, {self._y}, {self._text!r})"


class Axes:
    """The one axes of a figure (``fig, ax = plt.subplots()``, ``plt.gca()``): the object-oriented
    spellings of pyplot's functions."""
    __module__ = "matplotlib.axes._axes"
    __script_attrs__ = frozenset({"plot", "scatter", "set_xlabel", "set_ylabel", "set_title", "legend",
                                  "grid", "set_xlim", "set_ylim", "get_xlim", "get_ylim", "get_figure",
                                  "figure", "get_title", "get_xlabel", "get_ylabel"})
    __script_missing__ = _unsupported("Axes")

    def __init__(self, pyplot: Any, figure: Figure) -> None:
        self._pyplot = pyplot
        self._figure = figure

    @property
    def figure(self) -> "FigureHandle":
        return self._pyplot.handle(self._figure)

    def get_figure(self) -> "FigureHandle":
        return self.figure

    def plot(self, *args: Any, **kwargs: Any) -> list:
        return self._pyplot.plot_on(self._figure, args, kwargs)

    def scatter(self, *args: Any, **kwargs: Any) -> PathCollection:
        return self._pyplot.scatter_on(self._figure, args, kwargs)

    def set_xlabel(self, xlabel: Any, *args: Any, **kwargs: Any) -> Text:
        self._figure.xlabel = str(xlabel)
        return Text(0.5, 0, self._figure.xlabel)

    def set_ylabel(self, ylabel: Any, *args: Any, **kwargs: Any) -> Text:
        self._figure.ylabel = str(ylabel)
        return Text(0, 0.5, self._figure.ylabel)

    def set_title(self, label: Any, *args: Any, **kwargs: Any) -> Text:
        self._figure.title = str(label)
        return Text(0.5, 1.0, self._figure.title)

    def get_title(self) -> str:
        return self._figure.title

    def get_xlabel(self) -> str:
        return self._figure.xlabel

    def get_ylabel(self) -> str:
        return self._figure.ylabel

    def legend(self, *args: Any, **kwargs: Any) -> Legend | None:
        return self._pyplot.legend_on(self._figure, args, kwargs)

    def grid(self, visible: Any = None, *args: Any, **kwargs: Any) -> None:
        self._pyplot.grid_on(self._figure, visible, kwargs)

    def set_xlim(self, *args: Any, **kwargs: Any) -> tuple:
        return self._pyplot.limits_on(self._figure, "x", args, kwargs)

    def set_ylim(self, *args: Any, **kwargs: Any) -> tuple:
        return self._pyplot.limits_on(self._figure, "y", args, kwargs)

    def get_xlim(self) -> tuple:
        return self._figure.limits()[0]

    def get_ylim(self) -> tuple:
        return self._figure.limits()[1]

    def __repr__(self) -> str:
        parts = []
        if self._figure.title:
            parts.append(f"title={{'center': {self._figure.title!r}}}")
        if self._figure.xlabel:
            parts.append(f"xlabel={self._figure.xlabel!r}")
        if self._figure.ylabel:
            parts.append(f"ylabel={self._figure.ylabel!r}")
        return f"<Axes: {', '.join(parts)}>"


class FigureHandle:
    """``plt.figure()``: savefig, add_subplot and gca on one figure."""
    __module__ = "matplotlib.figure"
    __script_attrs__ = frozenset({"savefig", "add_subplot", "gca", "tight_layout", "suptitle", "number"})
    __script_missing__ = _unsupported("Figure")

    def __init__(self, pyplot: Any, figure: Figure) -> None:
        self._pyplot = pyplot
        self._figure = figure

    @property
    def number(self) -> int:
        return self._figure.number

    def savefig(self, fname: Any, **kwargs: Any) -> None:
        self._pyplot.save(self._figure, fname, kwargs)

    def add_subplot(self, *args: Any, **kwargs: Any) -> Axes:
        return self._pyplot.one_axes(self._figure, "add_subplot", args)

    def gca(self) -> Axes:
        return self._pyplot.axes_of(self._figure)

    def tight_layout(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to do: the layout is fixed (matplotlib's defaults) and labels fit it."""

    def suptitle(self, t: Any, *args: Any, **kwargs: Any) -> Text:
        # one axes: the figure's title is drawn where the axes title goes
        self._figure.title = str(t)
        return Text(0.5, 0.98, self._figure.title)

    def __repr__(self) -> str:
        width, height = (round(v * self._figure.dpi) for v in self._figure.size)
        axes = 1 if self._pyplot.has_axes(self._figure) else 0
        return f"<Figure size {width}x{height} with {axes} Axes>"


FigureHandle.__name__ = FigureHandle.__qualname__ = "Figure"   # (as errors and reprs name it)
