"""A figure as the plot views see it: one set of axes holding lines and scatters.

The same object is drawn in the terminal (``terminal``), written as SVG (``svg``) or PNG
(``png``); ``gradcli plot`` builds one for f and f', a script's ``matplotlib.pyplot`` calls
build them one call at a time.  Values are float64 NumPy arrays; non-finite points stay in
them and every drawing skips them (a line breaks there, as matplotlib's does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

# matplotlib's default figure: 6.4 x 4.8 inches, 100 dots per inch
DEFAULT_SIZE = (6.4, 4.8)
DEFAULT_DPI = 100


@dataclass
class Series:
    """One ``plot`` (kind "line", markers optional) or ``scatter`` (kind "scatter")."""
    x: np.ndarray
    y: np.ndarray
    kind: str = "line"                  # "line" | "scatter"
    color: Optional[str] = None         # "#rrggbb"; None: the next of the colour cycle, when drawn
    marker: Optional[str] = None        # matplotlib's marker letter ("o", "x", "+", ".", "s", "^", ...)
    linestyle: Optional[str] = "-"      # "-", "--", "-.", ":"; None: no line (markers only)
    label: Optional[str] = None
    linewidth: float = 1.5
    alpha: float = 1.0
    point_colors: Optional[list[str]] = None   # a scatter's colour per point (``c=`` values)
    size: float = 36.0                  # a scatter's marker area in points^2 (matplotlib's ``s``)

    @property
    def finite(self) -> np.ndarray:
        """Which points can be drawn."""
        return np.isfinite(self.x) & np.isfinite(self.y)


@dataclass
class Figure:
    """One figure with one axes (what ``plt.figure()`` and ``plt.subplots()`` make)."""
    number: int = 1
    size: tuple[float, float] = DEFAULT_SIZE     # inches, as figsize=
    dpi: float = DEFAULT_DPI
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    series: list[Series] = field(default_factory=list)
    legend: bool = False
    legend_labels: Optional[list[str]] = None   # plt.legend(["a", "b"]): labels in series order
    grid: bool = False
    xlim: tuple[Optional[float], Optional[float]] = (None, None)
    ylim: tuple[Optional[float], Optional[float]] = (None, None)

    def labelled(self) -> list[tuple[Series, str]]:
        """The series the legend lists, with their labels (matplotlib skips labels starting '_')."""
        if self.legend_labels is not None:
            return list(zip(self.series, self.legend_labels))
        return [(s, s.label) for s in self.series if s.label and not s.label.startswith("_")]

    def colors(self) -> list[str]:
        """Each series' colour: its own, or the next of matplotlib's cycle (C0, C1, ...)."""
        from gradcli.views.plot.colors import cycle_color
        chosen, index = [], 0
        for s in self.series:
            if s.color is None:
                chosen.append(cycle_color(index))
                index += 1
            else:
                chosen.append(s.color)
        return chosen

    def limits(self, margin: float = 0.05) -> tuple[tuple[float, float], tuple[float, float]]:
        """((x0, x1), (y0, y1)): what xlim/ylim set, else the finite data with matplotlib's 5 %
        margins; never empty (a single value is widened)."""
        xs = [s.x[s.finite] for s in self.series]
        ys = [s.y[s.finite] for s in self.series]
        return (_axis_limits(xs, self.xlim, margin), _axis_limits(ys, self.ylim, margin))

    def is_empty(self) -> bool:
        return not self.series and not (self.title or self.xlabel or self.ylabel)


def _axis_limits(parts: list[np.ndarray], fixed: tuple[Optional[float], Optional[float]],
                 margin: float) -> tuple[float, float]:
    values = np.concatenate(parts) if parts else np.zeros(0)
    if values.size:
        low, high = float(values.min()), float(values.max())
        spread = (high - low) * margin
        low, high = low - spread, high + spread
    else:
        low, high = 0.0, 1.0
    if fixed[0] is not None:
        low = float(fixed[0])
    if fixed[1] is not None:
        high = float(fixed[1])
    if high < low:
        low, high = high, low
    if high == low:  # one value: widen around it, as matplotlib's nonsingular does
        step = abs(low) * 0.05 or 0.05
        low, high = low - step, high + step
    return low, high
