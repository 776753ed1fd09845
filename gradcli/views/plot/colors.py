"""matplotlib's colours: the default cycle, the one-letter and named colours, hex, grey levels.

``parse_color`` turns what a script passes as ``color=``/``c=`` (or the letter of a format
string) into ``#rrggbb``; ``terminal_color`` picks the 256-colour terminal code nearest to it.
"""

from __future__ import annotations

from typing import Any, Optional

from gradcli.lang.errors import ScriptValueError

# matplotlib's default property cycle (the "tab10" colours, C0 ... C9)
CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")

# the one-letter colours of format strings ('r-', 'bo') and color='k', with matplotlib's values
LETTERS = {"b": "#0000ff", "g": "#008000", "r": "#ff0000", "c": "#00bfbf", "m": "#bf00bf",
           "y": "#bfbf00", "k": "#000000", "w": "#ffffff"}

# the named colours tutorials use (CSS names, as matplotlib has them), and the tab: names
NAMED = {"black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000",
         "blue": "#0000ff", "cyan": "#00ffff", "magenta": "#ff00ff", "yellow": "#ffff00",
         "orange": "#ffa500", "purple": "#800080", "brown": "#a52a2a", "pink": "#ffc0cb",
         "gray": "#808080", "grey": "#808080", "olive": "#808000", "navy": "#000080",
         "teal": "#008080", "lime": "#00ff00", "maroon": "#800000", "gold": "#ffd700",
         "violet": "#ee82ee", "indigo": "#4b0082", "crimson": "#dc143c", "coral": "#ff7f50",
         "salmon": "#fa8072", "orchid": "#da70d6", "turquoise": "#40e0d0", "silver": "#c0c0c0",
         "darkblue": "#00008b", "darkred": "#8b0000", "darkgreen": "#006400",
         "darkorange": "#ff8c00", "lightblue": "#add8e6", "lightgreen": "#90ee90",
         "lightgray": "#d3d3d3", "lightgrey": "#d3d3d3", "darkgray": "#a9a9a9", "darkgrey": "#a9a9a9",
         "skyblue": "#87ceeb", "steelblue": "#4682b4", "royalblue": "#4169e1", "tomato": "#ff6347",
         "firebrick": "#b22222", "forestgreen": "#228b22", "seagreen": "#2e8b57", "slategray": "#708090"}
_TAB_NAMES = ("blue", "orange", "green", "red", "purple", "brown", "pink", "gray", "olive", "cyan")
NAMED.update({f"tab:{name}": value for name, value in zip(_TAB_NAMES, CYCLE)})


def cycle_color(index: int) -> str:
    return CYCLE[index % len(CYCLE)]


def parse_color(value: Any) -> str:
    """``#rrggbb`` for a matplotlib colour; ValueError (the script's) for anything else."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in LETTERS:
            return LETTERS[text]
        if text in NAMED:
            return NAMED[text]
        if len(text) == 2 and text[0] == "c" and text[1].isdigit():
            return cycle_color(int(text[1]))
        if text.startswith("#") and len(text) in (4, 5, 7, 9) and _is_hex(text[1:]):
            digits = text[1:]
            if len(digits) in (3, 4):
                digits = "".join(d * 2 for d in digits[:3])
            return "#" + digits[:6]
        try:
            level = float(text)
        except ValueError:
            level = None
        if level is not None and 0 <= level <= 1:   # a grey level, "0.5"
            return _hex((level, level, level))
    elif isinstance(value, (tuple, list)) and len(value) in (3, 4) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        if all(0 <= v <= 1 for v in value):
            return _hex(value[:3])
    raise ScriptValueError(f"{value!r} is not a valid value for color")


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def _hex(rgb: Any) -> str:
    return "#" + "".join(f"{round(float(v) * 255):02x}" for v in rgb)


def rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def terminal_color(color: str) -> Optional[int]:
    """The xterm 256-colour code nearest ``color``; None (the terminal's own text colour) for
    colours too dark to see on a dark background (matplotlib's black 'k')."""
    red, green, blue = rgb(color)
    if max(red, green, blue) < 64:
        return None
    # the 6x6x6 cube's levels are 0, 95, 135, 175, 215, 255
    levels = (0, 95, 135, 175, 215, 255)

    def nearest(v: int) -> int:
        return min(range(6), key=lambda i: abs(levels[i] - v))

    r, g, b = nearest(red), nearest(green), nearest(blue)
    cube = 16 + 36 * r + 6 * g + b
    cube_error = sum((levels[i] - v) ** 2 for i, v in zip((r, g, b), (red, green, blue)))
    grey = min(23, max(0, round(((red + green + blue) / 3 - 8) / 10)))
    grey_level = 8 + 10 * grey
    grey_error = sum((grey_level - v) ** 2 for v in (red, green, blue))
    return 232 + grey if grey_error < cube_error else cube


def viridis(fraction: float) -> str:
    """matplotlib's default colormap at ``fraction`` in [0, 1] (from eight of its stops)."""
    stops = ((68, 1, 84), (70, 50, 127), (54, 92, 141), (39, 127, 142),
             (31, 161, 135), (74, 194, 109), (159, 218, 58), (253, 231, 37))
    position = min(max(fraction, 0.0), 1.0) * (len(stops) - 1)
    index = min(int(position), len(stops) - 2)
    t = position - index
    low, high = stops[index], stops[index + 1]
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(low, high))
