"""A figure drawn with characters: plotille's braille canvas inside axes of our own.

plotille (pure Python, ~4 ms to import once NumPy is loaded) draws the curves, 2 x 4 dots a
character; the frame around them is ours, so that ticks sit at round values (``0.5``, not
``0.49953``), the title and axis labels are placed as matplotlib places them, and the legend
tells series apart without colour: on a pipe every series after the first is drawn with a
marker character of its own.  Colour (xterm's 256 colours, nearest to matplotlib's) only on
a terminal.  The grid and dash styles are not drawn here (they are in SVG and PNG).
"""

from __future__ import annotations

from typing import Iterator, Optional

import numpy as np

from gradcli.views.plot.colors import terminal_color
from gradcli.views.plot.figure import Figure, Series
from gradcli.views.plot.ticks import nice_ticks, tick_labels

# matplotlib's marker letters, as characters
MARKERS = {"o": "o", ".": "•", ",": "·", "x": "x", "X": "x", "+": "+", "P": "+", "*": "*",
           "s": "▪", "D": "◆", "d": "◆", "^": "▴", "v": "▾", "<": "◂", ">": "▸",
           "p": "•", "h": "•", "H": "•", "8": "•", "|": "|", "_": "_", "1": "Y", "2": "Y",
           "3": "Y", "4": "Y"}
# what tells the second, third, ... series apart on a pipe
PLAIN_MARKERS = ("•", "+", "x", "*", "▪", "▴", "◆")
_BLANK = "\u2800"   # an empty braille cell
_RESET = "\x1b[0m"


def size_for(figure: Figure, columns: Optional[int] = None) -> tuple[int, int]:
    """The plot area in characters for a figure's figsize (6.4 x 4.8 in: 58 x 16; at most
    200 x 60), within ``columns`` (the terminal's width) when given."""
    width = min(200, max(20, round(figure.size[0] * 9)))
    height = min(60, max(6, round(figure.size[1] * 3.3)))
    if columns:
        width = max(20, min(width, columns - 12))
    return width, height


def render(figure: Figure, *, width: int, height: int, color: bool = False) -> str:
    """The figure as lines of text (ending in a newline), ``width`` x ``height`` characters of plot."""
    import plotille

    (x0, x1), (y0, y1) = figure.limits()
    # plotille maps [min, max) onto its dots: widen max by one dot so that max itself is drawn
    dot_x = (x1 - x0) / (2 * width - 1)
    dot_y = (y1 - y0) / (4 * height - 1)
    canvas = plotille.Canvas(width, height, x0, y0, x1 + dot_x, y1 + dot_y, mode="byte")
    colors = figure.colors()
    taken = {_marker_of(s, 0, True, iter(())) for s in figure.series}
    plain_marker = iter([m for m in PLAIN_MARKERS if m not in taken])
    legend_samples: list[str] = []
    drawn = []
    for index, series in enumerate(figure.series):
        marker = _marker_of(series, index, color, plain_marker)
        tone = terminal_color(colors[index]) if color else None
        drawn.append((series, marker, tone))
        legend_samples.append(_sample(series, marker, tone))
    # lines first, then the markers that only tell lines apart on a pipe, then the markers a
    # script asked for (scatter, 'o-'): a character cell holds one mark, and those say most
    box = (x0, x1, y0, y1)
    for series, _, tone in drawn:
        _draw_line(canvas, series, tone, box)
    for layer in (False, True):
        for series, marker, tone in drawn:
            asked = series.kind == "scatter" or series.marker is not None
            if marker is not None and asked == layer:
                _draw_markers(canvas, series, marker, tone, color, box)

    rows = canvas.plot(linesep="\n").replace(_BLANK, " ").split("\n")
    y_ticks = nice_ticks(y0, y1, max(2, height // 3 + 1))
    y_texts = tick_labels(y_ticks)
    tick_rows = {height - 1 - int(round((t - y0) / dot_y)) // 4: text for t, text in zip(y_ticks, y_texts)}
    gutter = max([len(t) for t in y_texts] + [1]) + 1

    out: list[str] = []
    paint = _painter(color)
    if figure.title:
        out.append(_centred(figure.title, width, gutter + 1, paint))
    if figure.ylabel:
        out.append(paint(figure.ylabel, "1"))
    for number, row in enumerate(rows):
        label = tick_rows.get(number)
        axis = "┤" if label is not None else "│"
        out.append(f"{(label or '').rjust(gutter - 1)} {axis}{row}".rstrip())
    out.extend(_x_axis(x0, x1, width, gutter))
    if figure.xlabel:
        out.append(_centred(figure.xlabel, width, gutter + 1, paint))
    labelled = figure.labelled()
    if figure.legend and labelled:
        samples = {id(s): sample for s, sample in zip(figure.series, legend_samples)}
        out.append("")
        for series, label in labelled:
            out.append(" " * (gutter + 1) + f"{samples[id(series)]} {label}")
    return "\n".join(out) + "\n"


def _centred(text: str, width: int, indent: int, paint) -> str:
    return " " * (indent + max(0, (width - len(text)) // 2)) + paint(text, "1")


def _painter(color: bool):
    def paint(text: str, code: str) -> str:
        return f"\x1b[{code}m{text}{_RESET}" if color and text else text
    return paint


def _marker_of(series: Series, index: int, color: bool, plain_markers: Iterator[str]) -> Optional[str]:
    """The character drawn at each point, or None for braille dots."""
    if series.marker is not None:
        return MARKERS.get(series.marker, "•")
    if series.kind == "scatter":
        return MARKERS["o"]
    if not color and index > 0:
        return next(plain_markers, "•")
    return None


def _sample(series: Series, marker: Optional[str], tone: Optional[int]) -> str:
    """What the legend shows for a series: its line, its marker, or both."""
    line = series.kind == "line" and series.linestyle is not None
    if marker is None:
        text = "⠤⠤⠤"
    elif line:
        text = f"⠤{marker}⠤"
    else:
        text = f" {marker} "
    return f"\x1b[38;5;{tone}m{text}{_RESET}" if tone is not None else text


def _draw_line(canvas, series: Series, tone: Optional[int], box: tuple[float, float, float, float]) -> None:
    if series.kind != "line" or series.linestyle is None:
        return
    x, y, finite = series.x, series.y, series.finite
    for i in range(len(x) - 1):
        if finite[i] and finite[i + 1]:   # a value that is not finite breaks the line
            clipped = clip_segment(x[i], y[i], x[i + 1], y[i + 1], box)
            if clipped is not None:
                canvas.line(*clipped, color=tone)


def _draw_markers(canvas, series: Series, marker: str, tone: Optional[int], color: bool,
                  box: tuple[float, float, float, float]) -> None:
    x, y = series.x, series.y
    x0, x1, y0, y1 = box
    point_tones = None
    if series.point_colors is not None and color:
        point_tones = [terminal_color(c) for c in series.point_colors]
    for i in np.flatnonzero(series.finite):
        if x0 <= x[i] <= x1 and y0 <= y[i] <= y1:
            canvas.point(float(x[i]), float(y[i]), color=point_tones[i] if point_tones else tone,
                         marker=marker)


def clip_segment(xa: float, ya: float, xb: float, yb: float,
                 box: tuple[float, float, float, float]) -> Optional[tuple[float, float, float, float]]:
    """The part of a segment inside the box (Liang-Barsky), or None: the canvas then never
    walks the dots of a line to a point far outside (1/x near 0)."""
    x0, x1, y0, y1 = box
    dx, dy = xb - xa, yb - ya
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, xa - x0), (dx, x1 - xa), (-dy, ya - y0), (dy, y1 - ya)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return (float(xa + t0 * dx), float(ya + t0 * dy), float(xa + t1 * dx), float(ya + t1 * dy))


def _x_axis(x0: float, x1: float, width: int, gutter: int) -> list[str]:
    """The axis line with a tick at each round value, and the values centred under them."""
    ticks = nice_ticks(x0, x1, max(2, width // 8 + 1))
    texts = tick_labels(ticks)
    span = (x1 - x0) or 1.0
    line = ["─"] * width
    labels = [" "] * (width + gutter * 2)
    taken_until = -1
    for tick, text in zip(ticks, texts):
        column = min(width - 1, int(round((tick - x0) / span * (2 * width - 1))) // 2)
        line[column] = "┬"
        start = gutter + 1 + column - (len(text) - 1) // 2
        start = max(start, 0)
        if start <= taken_until + 1:   # would touch the previous label
            continue
        labels[start:start + len(text)] = list(text)
        taken_until = start + len(text)
    return [" " * gutter + "└" + "".join(line), "".join(labels).rstrip()]
