"""What ``plt.plot`` and ``plt.scatter`` make of their arguments, as matplotlib reads them.

``plot(y)``, ``plot(x, y)``, ``plot(x, y, 'r--')``, ``plot(x1, y1, 'o', x2, y2)``; values from
lists, tuples, NumPy arrays and tensors, read with ``np.asarray`` as matplotlib reads them, so a
tensor that requires grad fails with PyTorch's own "Can't call numpy() on Tensor that requires
grad. Use tensor.detach().numpy() instead." (``.detach()`` first, as with real matplotlib).  A
2-D ``y`` is one line per column.  Errors are matplotlib's words as ValueError/TypeError.
"""

from __future__ import annotations

import re
from typing import Any, Optional

import numpy as np

from gradcli.lang.errors import ScriptAttributeError, ScriptNotImplementedError, ScriptTypeError, ScriptValueError
from gradcli.views.plot.colors import LETTERS, parse_color, viridis
from gradcli.views.plot.figure import Series

LINE_STYLES = ("-", "--", "-.", ":")
NO_LINE = ("None", "none", " ", "")
MARKERS = frozenset(".,ov^<>12348sp*hH+xDd|_PX")

# plot's keywords: what they set; the styling ones gradcli does not draw are accepted
_LINE_KEYWORDS = {"color": "color", "c": "color", "linestyle": "linestyle", "ls": "linestyle",
                  "linewidth": "linewidth", "lw": "linewidth", "marker": "marker", "label": "label",
                  "alpha": "alpha"}
_LINE_IGNORED = frozenset({"markersize", "ms", "zorder", "markerfacecolor", "mfc", "markeredgecolor",
                           "mec", "markeredgewidth", "mew", "antialiased", "aa", "solid_capstyle",
                           "solid_joinstyle", "dash_capstyle", "dash_joinstyle"})


def values(data: Any) -> np.ndarray:
    """A float64 array of what a script passes as data (np.asarray, as matplotlib does)."""
    if isinstance(data, str):
        raise ScriptTypeError(f"gradcli's matplotlib.pyplot plots numbers, not the string {data!r}")
    try:
        array = np.asarray(data)
    except (ValueError, TypeError) as error:   # a ragged list, say
        raise ScriptValueError(str(error)) from None
    if array.dtype.kind in "US":
        raise ScriptTypeError("gradcli's matplotlib.pyplot plots numbers, not strings (categorical axes "
                              "are not supported)")
    if array.dtype.kind not in "biuf":
        raise ScriptTypeError(f"gradcli's matplotlib.pyplot plots numbers, not {array.dtype} values")
    return array.astype(np.float64)


def parse_format(fmt: str) -> tuple[Optional[str], Optional[str], Optional[str]]:
    """(linestyle, marker, colour) of a format string, as matplotlib's _process_plot_format:
    'r--' is red dashed, 'o' markers and no line, 'C1' a colour, 'ks-' black squares and a line."""
    try:   # just a colour ('red', 'C1', '0.5'), but not a number that is also a marker ('1')
        color = parse_color(fmt)
        if not fmt.isdigit():
            return None, None, color
    except ScriptValueError:
        pass
    linestyle = marker = color = None
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if fmt[i:i + 2] in ("--", "-."):
            style, i = fmt[i:i + 2], i + 2
        elif c in "-:":
            style, i = c, i + 1
        else:
            style = None
        if style is not None:
            if linestyle is not None:
                raise _format_error(fmt, "two linestyle symbols")
            linestyle = style
        elif c in MARKERS:
            if marker is not None:
                raise _format_error(fmt, "two marker symbols")
            marker, i = c, i + 1
        elif c in LETTERS:
            if color is not None:
                raise _format_error(fmt, "two color symbols")
            color, i = LETTERS[c], i + 1
        elif c == "C":
            number = re.match(r"C\d+", fmt[i:])
            if not number:
                raise _format_error(fmt, "'C' must be followed by a number")
            color, i = parse_color(f"C{int(number[0][1:]) % 10}"), i + len(number[0])
        else:
            raise _format_error(fmt, f"unrecognized character {c!r}")
    if linestyle is None and marker is None:
        linestyle = "-"
    return linestyle, marker, color


def _format_error(fmt: str, why: str) -> Exception:
    return ScriptValueError(f"{fmt!r} is not a valid format string ({why})")


def line_series(args: tuple, kwargs: dict) -> list[Series]:
    """The lines one ``plot(...)`` call draws."""
    style = _line_keywords(kwargs)
    groups, rest = [], list(args)
    while rest:   # matplotlib's _process_plot_var_args: x, y, then a format string if one follows
        group, rest = rest[:2], rest[2:]
        if rest and isinstance(rest[0], str):
            group.append(rest.pop(0))
        groups.append(group)
    made: list[Series] = []
    for group in groups:
        fmt = group.pop() if len(group) > 1 and isinstance(group[-1], str) else None
        if any(isinstance(item, str) for item in group):
            raise ScriptValueError(f"{next(i for i in group if isinstance(i, str))!r} is not a valid format "
                                   "string (gradcli's plt.plot takes no data= keys)")
        if len(group) == 1:
            y = values(group[0])
            x = np.arange(y.shape[0] if y.ndim else 1, dtype=np.float64)
        else:
            x, y = values(group[0]), values(group[1])
        made.extend(_columns(x, y, fmt, style))
    return made


def _line_keywords(kwargs: dict) -> dict:
    style: dict[str, Any] = {}
    for name, value in kwargs.items():
        if name in _LINE_IGNORED:
            continue
        if name not in _LINE_KEYWORDS:
            raise ScriptAttributeError(f"Line2D.set() got an unexpected keyword argument '{name}'")
        style[_LINE_KEYWORDS[name]] = value
    if "color" in style and style["color"] is not None:
        style["color"] = parse_color(style["color"])
    if "linestyle" in style:
        ls = style["linestyle"]
        if ls in NO_LINE or ls is None:
            style["linestyle"] = None
        elif ls not in LINE_STYLES:
            named = {"solid": "-", "dashed": "--", "dashdot": "-.", "dotted": ":"}
            if ls not in named:
                raise ScriptValueError(f"{ls!r} is not a valid value for ls; supported values are "
                                       "'-', '--', '-.', ':', 'None', ' ', '', 'solid', 'dashed', "
                                       "'dashdot', 'dotted'")
            style["linestyle"] = named[ls]
    if "marker" in style and style["marker"] is not None:
        marker = style["marker"]
        if marker in NO_LINE:
            style["marker"] = None
        elif not (isinstance(marker, str) and marker in MARKERS):
            raise ScriptValueError(f"Unrecognized marker style {marker!r}")
    for name in ("linewidth", "alpha"):
        if name in style:
            style[name] = _number(style[name], name)
    if "label" in style and style["label"] is not None:
        style["label"] = str(style["label"])
    return style


def _number(value: Any, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ScriptTypeError(f"{name} must be a number, not {type(value).__name__}") from None


def _columns(x: np.ndarray, y: np.ndarray, fmt: Optional[str], style: dict) -> list[Series]:
    x, y = np.atleast_1d(x), np.atleast_1d(y)
    if x.ndim > 2 or y.ndim > 2:
        raise ScriptValueError(f"x and y can be no greater than 2D, but have shapes {x.shape} and {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise ScriptValueError(f"x and y must have same first dimension, but have shapes {x.shape} and {y.shape}")
    xs = x if x.ndim == 2 else x[:, None]      # one column per line
    ys = y if y.ndim == 2 else y[:, None]
    if xs.shape[1] != ys.shape[1] and 1 not in (xs.shape[1], ys.shape[1]):
        raise ScriptValueError(f"x has {xs.shape[1]} columns but y has {ys.shape[1]} columns")
    linestyle, marker, color = parse_format(fmt) if fmt is not None else ("-", None, None)
    count = max(xs.shape[1], ys.shape[1])
    made = []
    for column in range(count):
        series = Series(xs[:, min(column, xs.shape[1] - 1)].copy(), ys[:, min(column, ys.shape[1] - 1)].copy(),
                        color=color, marker=marker, linestyle=linestyle)
        for name, value in style.items():
            setattr(series, name, value)
        if series.marker is None and series.linestyle is None:
            series.linestyle = "-" if "linestyle" not in style else None
        made.append(series)
    return made


def scatter_series(x: Any, y: Any, s: Any = None, c: Any = None, marker: Any = None, cmap: Any = None,
                   vmin: Any = None, vmax: Any = None, alpha: Any = None, label: Any = None,
                   color: Any = None, **ignored: Any) -> Series:
    """The markers one ``scatter(...)`` call draws (``c=`` numbers coloured by viridis)."""
    for name in ignored:
        if name not in ("linewidths", "edgecolors", "edgecolor", "zorder", "norm", "plotnonfinite"):
            raise ScriptTypeError(f"scatter() got an unexpected keyword argument '{name}'")
    xs, ys = values(x).ravel(), values(y).ravel()
    if xs.size != ys.size:
        raise ScriptValueError("x and y must be the same size")
    series = Series(xs, ys, kind="scatter", linestyle=None, label=None if label is None else str(label))
    if marker is not None:
        if not (isinstance(marker, str) and marker in MARKERS):
            raise ScriptValueError(f"Unrecognized marker style {marker!r}")
        series.marker = marker
    if s is not None:
        sizes = values(s).ravel()
        if sizes.size != 1:
            raise ScriptNotImplementedError("gradcli's plt.scatter draws every marker the same size: "
                                            "give s= one number")
        series.size = float(sizes[0])
    if alpha is not None:
        series.alpha = _number(alpha, "alpha")
    if color is not None and c is not None:
        raise ScriptValueError("Supply a 'c' argument or a 'color' kwarg but not both; they differ but "
                               "their functionalities overlap.")
    chosen = c if c is not None else color
    if chosen is not None:
        _scatter_colors(series, chosen, cmap, vmin, vmax)
    return series


def _scatter_colors(series: Series, c: Any, cmap: Any, vmin: Any, vmax: Any) -> None:
    if isinstance(c, (str, tuple)) and not (isinstance(c, tuple) and len(c) != len(series.x)):
        series.color = parse_color(c)
        return
    if isinstance(c, list) and c and all(isinstance(item, str) for item in c):
        colors = [parse_color(item) for item in c]
    else:
        if cmap is not None and cmap != "viridis":
            raise ScriptNotImplementedError("gradcli's plt.scatter colours c= values with viridis only "
                                            f"(cmap={cmap!r} is not supported)")
        numbers = values(c).ravel()
        if numbers.size == 1:
            colors = [viridis(0.0)] * len(series.x)
        else:
            low = float(np.nanmin(numbers)) if vmin is None else float(vmin)
            high = float(np.nanmax(numbers)) if vmax is None else float(vmax)
            spread = (high - low) or 1.0
            colors = [viridis((float(v) - low) / spread) for v in numbers]
    if len(colors) != len(series.x):
        raise ScriptValueError(f"'c' argument has {len(colors)} elements, which is inconsistent with 'x' and "
                               f"'y' with size {len(series.x)}.")
    series.point_colors = colors
