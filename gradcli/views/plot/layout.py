"""Where everything of a figure goes on a page of pixels, as matplotlib lays out one axes.

``layout(figure, dpi)`` gives a Scene: a list of shapes (rectangles, polylines, markers, texts)
in pixel coordinates, y downwards.  ``svg`` and ``png`` only write those shapes out, so the two
files look alike.  matplotlib's defaults are followed: the axes span 12.5 %-90 % of the width
and 11 %-88 % of the height, 10 pt text (12 pt title), ticks 3.5 pt long outside the frame,
5 % margins around the data, the tab10 colour cycle, the legend in the emptiest corner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from gradcli.views.plot.figure import Figure, Series
from gradcli.views.plot.ticks import nice_ticks, tick_labels

FONT = "DejaVu Sans"       # matplotlib's default font (its metrics below)
TEXT_COLOR = "#000000"
GRID_COLOR = "#b0b0b0"
# advance widths of DejaVu Sans, in ems, for ' ' (32) to '~' (126)
_WIDTHS = (
    "318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 636 636 636 636 636 636 636 "
    "636 636 636 337 337 838 838 838 531 1000 684 686 698 770 632 575 775 752 295 295 656 557 863 "
    "748 787 603 787 695 635 611 732 684 989 685 611 685 390 337 390 838 500 500 613 635 550 635 "
    "615 352 635 634 278 278 579 278 974 634 612 635 635 411 521 392 634 592 818 592 592 525 636 "
    "337 636 838")
_ADVANCE = {chr(32 + i): int(w) / 1000 for i, w in enumerate(_WIDTHS.split())}
_ADVANCE.update({"−": 0.838, "′": 0.227, "²": 0.401, "³": 0.401})
# matplotlib's dash patterns, in line widths
DASHES = {"--": (3.7, 1.6), "-.": (6.4, 1.6, 1.0, 1.6), ":": (1.0, 1.65)}


def text_width(text: str, size: float) -> float:
    """How wide ``text`` is at ``size`` pixels in DejaVu Sans (0.6 em for characters not listed)."""
    return sum(_ADVANCE.get(ch, 0.6) for ch in text) * size


@dataclass
class Rect:
    x: float
    y: float
    width: float
    height: float
    fill: Optional[str]
    stroke: Optional[str] = None
    stroke_width: float = 0.0
    radius: float = 0.0
    opacity: float = 1.0


@dataclass
class Polyline:
    points: list[tuple[float, float]]
    color: str
    width: float
    dash: Optional[tuple[float, ...]] = None   # on/off lengths in pixels
    alpha: float = 1.0
    clip: bool = True                          # drawn only inside the axes


@dataclass
class Marker:
    x: float
    y: float
    shape: str          # matplotlib's marker letter
    size: float         # pixels across
    color: str
    alpha: float = 1.0
    clip: bool = True


@dataclass
class Text:
    x: float
    y: float            # the baseline
    text: str
    size: float
    anchor: str = "middle"     # start | middle | end
    rotate: bool = False       # turned a quarter left (the y label)
    bold: bool = False


@dataclass
class Scene:
    width: int
    height: int
    axes: Rect
    shapes: list = field(default_factory=list)


def layout(figure: Figure, dpi: float = 100.0) -> Scene:
    width = max(1, round(figure.size[0] * dpi))
    height = max(1, round(figure.size[1] * dpi))
    pt = dpi / 72.0
    left, right = 0.125 * width, 0.9 * width
    top, bottom = 0.12 * height, 0.89 * height
    axes = Rect(left, top, right - left, bottom - top, "#ffffff", "#000000", 0.8 * pt)
    scene = Scene(width, height, axes)
    shapes = scene.shapes
    shapes.append(Rect(0, 0, width, height, "#ffffff"))
    shapes.append(Rect(axes.x, axes.y, axes.width, axes.height, "#ffffff"))

    (x0, x1), (y0, y1) = figure.limits()

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (right - left)

    def py(y: float) -> float:
        return bottom - (y - y0) / (y1 - y0) * (bottom - top)

    size = 10 * pt
    x_ticks = nice_ticks(x0, x1, max(3, int(axes.width / (size * 4.2)) + 1))
    y_ticks = nice_ticks(y0, y1, max(3, int(axes.height / (size * 2.4)) + 1))
    if figure.grid:
        for t in x_ticks:
            shapes.append(Polyline([(px(t), top), (px(t), bottom)], GRID_COLOR, 0.8 * pt, clip=False))
        for t in y_ticks:
            shapes.append(Polyline([(left, py(t)), (right, py(t))], GRID_COLOR, 0.8 * pt, clip=False))

    colors = figure.colors()
    for series, color in zip(figure.series, colors):
        _series_shapes(shapes, series, color, px, py, pt)
    shapes.append(Rect(axes.x, axes.y, axes.width, axes.height, None, "#000000", 0.8 * pt))

    tick = 3.5 * pt
    x_texts = tick_labels(x_ticks, minus="−")
    for t, text in zip(x_ticks, x_texts):
        shapes.append(Polyline([(px(t), bottom), (px(t), bottom + tick)], TEXT_COLOR, 0.8 * pt, clip=False))
        shapes.append(Text(px(t), bottom + tick + 3.5 * pt + size * 0.76, text, size))
    y_texts = tick_labels(y_ticks, minus="−")
    widest = max([text_width(t, size) for t in y_texts] + [0])
    for t, text in zip(y_ticks, y_texts):
        shapes.append(Polyline([(left - tick, py(t)), (left, py(t))], TEXT_COLOR, 0.8 * pt, clip=False))
        shapes.append(Text(left - tick - 3.5 * pt, py(t) + size * 0.36, text, size, anchor="end"))
    if figure.xlabel:
        shapes.append(Text((left + right) / 2, bottom + tick + 3.5 * pt + size * 2.2, figure.xlabel, size))
    if figure.ylabel:
        shapes.append(Text(max(size, left - tick - 3.5 * pt - widest - size * 0.5), (top + bottom) / 2,
                           figure.ylabel, size, rotate=True))
    if figure.title:
        shapes.append(Text((left + right) / 2, top - 6 * pt, figure.title, 12 * pt))
    if figure.legend and figure.labelled():
        _legend(shapes, figure, colors, axes, px, py, pt)
    return scene


def _series_shapes(shapes: list, series: Series, color: str, px: Callable, py: Callable, pt: float) -> None:
    finite = series.finite
    xs = [px(float(v)) for v in series.x]
    ys = [py(float(v)) for v in series.y]
    if series.kind == "line" and series.linestyle is not None:
        dash = DASHES.get(series.linestyle)
        width = series.linewidth * pt
        run: list[tuple[float, float]] = []
        for i in range(len(xs) + 1):
            if i < len(xs) and finite[i]:
                run.append((xs[i], ys[i]))
                continue
            if len(run) > 1:   # a non-finite value breaks the line, as in matplotlib
                shapes.append(Polyline(run, color, width, tuple(d * width for d in dash) if dash else None,
                                       series.alpha))
            run = []
    if series.kind == "scatter":
        diameter = float(np.sqrt(series.size)) * pt
        shape = series.marker or "o"
    elif series.marker is not None:
        diameter = 6 * pt
        shape = series.marker
    else:
        return
    for i in np.flatnonzero(finite):
        point_color = series.point_colors[i] if series.point_colors is not None else color
        shapes.append(Marker(xs[i], ys[i], shape, diameter, point_color, series.alpha))


def _legend(shapes: list, figure: Figure, colors: list[str], axes: Rect, px: Callable, py: Callable,
            pt: float) -> None:
    """matplotlib's legend box: a line (and marker) sample 2 em long, then the label."""
    size = 10 * pt
    entries = figure.labelled()
    color_of = {id(s): c for s, c in zip(figure.series, colors)}
    row = size * 1.25
    sample = 2.0 * size
    box_width = 0.4 * size + sample + 0.8 * size + max(text_width(label, size) for _, label in entries) + 0.4 * size
    box_height = 0.4 * size + row * len(entries) + 0.2 * size
    pad = 0.5 * size
    corners = {
        "upper right": (axes.x + axes.width - pad - box_width, axes.y + pad),
        "upper left": (axes.x + pad, axes.y + pad),
        "lower left": (axes.x + pad, axes.y + axes.height - pad - box_height),
        "lower right": (axes.x + axes.width - pad - box_width, axes.y + axes.height - pad - box_height),
    }
    x, y = _emptiest(corners, box_width, box_height, figure, px, py)
    shapes.append(Rect(x, y, box_width, box_height, "#ffffff", "#cccccc", 0.8 * pt, radius=0.2 * size,
                       opacity=0.8))
    for number, (series, label) in enumerate(entries):
        middle = y + 0.4 * size + row * number + row / 2
        start, end = x + 0.4 * size, x + 0.4 * size + sample
        color = color_of[id(series)]
        if series.kind == "line" and series.linestyle is not None:
            dash = DASHES.get(series.linestyle)
            width = series.linewidth * pt
            shapes.append(Polyline([(start, middle), (end, middle)], color, width,
                                   tuple(d * width for d in dash) if dash else None, series.alpha, clip=False))
        if series.kind == "scatter" or series.marker is not None:
            diameter = float(np.sqrt(series.size)) * pt if series.kind == "scatter" else 6 * pt
            marker_color = series.point_colors[0] if series.point_colors else color
            shapes.append(Marker((start + end) / 2, middle, series.marker or "o", diameter, marker_color,
                                 series.alpha, clip=False))
        shapes.append(Text(end + 0.8 * size, middle + size * 0.36, label, size, anchor="start"))


def _emptiest(corners: dict, width: float, height: float, figure: Figure, px: Callable,
              py: Callable) -> tuple[float, float]:
    """The corner whose box covers the fewest data points (matplotlib's loc='best', roughly);
    ties go to the first, upper right."""
    points = [(px(float(a)), py(float(b))) for s in figure.series
              for a, b in zip(s.x[s.finite], s.y[s.finite])]
    best, fewest = None, None
    for x, y in corners.values():
        covered = sum(1 for a, b in points if x <= a <= x + width and y <= b <= y + height)
        if fewest is None or covered < fewest:
            best, fewest = (x, y), covered
    return best
