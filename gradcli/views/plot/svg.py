"""A figure as a standalone SVG document: the shapes of ``layout`` written as SVG elements.

The data are clipped to the axes (a ``clipPath``), so a value far outside xlim/ylim never
draws over the labels.  The document is self-contained (no fonts, scripts or links), so the
HTML report can put it inline.
"""

from __future__ import annotations

import itertools

from gradcli.views.plot.figure import Figure
from gradcli.views.plot.layout import FONT, Marker, Polyline, Rect, Text, layout

_ids = itertools.count(1)


def figure_svg(figure: Figure, dpi: float = 100.0) -> str:
    scene = layout(figure, dpi)
    clip_id = f"gradcli-axes-{next(_ids)}"   # unique within a page that holds several figures
    axes = scene.axes
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" height="{scene.height}" '
           f'viewBox="0 0 {scene.width} {scene.height}" font-family="{FONT}, Bitstream Vera Sans, '
           f'Arial, sans-serif">',
           f'<defs><clipPath id="{clip_id}"><rect x="{_n(axes.x)}" y="{_n(axes.y)}" '
           f'width="{_n(axes.width)}" height="{_n(axes.height)}"/></clipPath></defs>']
    for shape in scene.shapes:
        if isinstance(shape, Rect):
            out.append(_rect(shape))
        elif isinstance(shape, Polyline):
            out.append(_polyline(shape, clip_id))
        elif isinstance(shape, Marker):
            out.append(_marker(shape, clip_id))
        elif isinstance(shape, Text):
            out.append(_text(shape))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def escape(text: str) -> str:
    """Text as XML character data (xml.sax.saxutils would import urllib: 25 ms)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _n(value: float) -> str:
    """A coordinate in few characters (two decimals are well below a pixel)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _rect(rect: Rect) -> str:
    fill = rect.fill or "none"
    attributes = [f'x="{_n(rect.x)}" y="{_n(rect.y)}" width="{_n(rect.width)}" height="{_n(rect.height)}"',
                  f'fill="{fill}"']
    if rect.stroke:
        attributes.append(f'stroke="{rect.stroke}" stroke-width="{_n(rect.stroke_width)}"')
    if rect.radius:
        attributes.append(f'rx="{_n(rect.radius)}"')
    if rect.opacity != 1:
        attributes.append(f'fill-opacity="{_n(rect.opacity)}"')
    return f"<rect {' '.join(attributes)}/>"


def _polyline(line: Polyline, clip_id: str) -> str:
    points = " ".join(f"{_n(x)},{_n(y)}" for x, y in line.points)
    attributes = [f'points="{points}" fill="none" stroke="{line.color}" stroke-width="{_n(line.width)}"',
                  'stroke-linejoin="round" stroke-linecap="square"' if line.dash is None else
                  f'stroke-linejoin="round" stroke-dasharray="{" ".join(_n(d) for d in line.dash)}"']
    if line.alpha != 1:
        attributes.append(f'stroke-opacity="{_n(line.alpha)}"')
    if line.clip:
        attributes.append(f'clip-path="url(#{clip_id})"')
    return f"<polyline {' '.join(attributes)}/>"


def marker_outline(shape: str, x: float, y: float, size: float) -> tuple[str, list[tuple[float, float]]]:
    """("circle" | "polygon" | "cross", points) for a marker: polygons and crosses as points
    (a cross is pairs of segment ends); a circle as its centre and a point on the rim."""
    r = size / 2
    if shape in ("o", ".", ",", "8", "h", "H", "p"):
        radius = r * (0.5 if shape in (".", ",") else 1.0)
        return "circle", [(x, y), (x + radius, y)]
    if shape == "s":
        return "polygon", [(x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)]
    if shape in ("D", "d"):
        w = r * (0.6 if shape == "d" else 1.0)
        return "polygon", [(x, y - r), (x + w, y), (x, y + r), (x - w, y)]
    triangles = {"^": ((0, -1), (1, 0.8), (-1, 0.8)), "v": ((0, 1), (1, -0.8), (-1, -0.8)),
                 "<": ((-1, 0), (0.8, -1), (0.8, 1)), ">": ((1, 0), (-0.8, -1), (-0.8, 1))}
    if shape in triangles:
        return "polygon", [(x + a * r, y + b * r) for a, b in triangles[shape]]
    if shape == "*":
        import math
        points = []
        for k in range(10):
            radius = r if k % 2 == 0 else r * 0.4
            angle = math.pi / 2 + k * math.pi / 5
            points.append((x + radius * math.cos(angle), y - radius * math.sin(angle)))
        return "polygon", points
    if shape in ("x", "X"):
        return "cross", [(x - r, y - r), (x + r, y + r), (x - r, y + r), (x + r, y - r)]
    if shape in ("+", "P"):
        return "cross", [(x - r, y), (x + r, y), (x, y - r), (x, y + r)]
    if shape == "|":
        return "cross", [(x, y - r), (x, y + r)]
    if shape == "_":
        return "cross", [(x - r, y), (x + r, y)]
    return "circle", [(x, y), (x + r, y)]


def _marker(marker: Marker, clip_id: str) -> str:
    kind, points = marker_outline(marker.shape, marker.x, marker.y, marker.size)
    extra = f' clip-path="url(#{clip_id})"' if marker.clip else ""
    if marker.alpha != 1:
        extra += f' opacity="{_n(marker.alpha)}"'
    if kind == "circle":
        (cx, cy), (rim, _) = points
        return f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(rim - cx)}" fill="{marker.color}"{extra}/>'
    if kind == "polygon":
        text = " ".join(f"{_n(a)},{_n(b)}" for a, b in points)
        return f'<polygon points="{text}" fill="{marker.color}"{extra}/>'
    segments = " ".join(f"M{_n(a)},{_n(b)} L{_n(c)},{_n(d)}"
                        for (a, b), (c, d) in zip(points[0::2], points[1::2]))
    return f'<path d="{segments}" stroke="{marker.color}" stroke-width="1.5" fill="none"{extra}/>'


def _text(text: Text) -> str:
    attributes = [f'x="{_n(text.x)}" y="{_n(text.y)}" font-size="{_n(text.size)}"',
                  f'text-anchor="{text.anchor}" fill="#000000"']
    if text.bold:
        attributes.append('font-weight="bold"')
    if text.rotate:
        attributes.append(f'transform="rotate(-90 {_n(text.x)} {_n(text.y)})"')
    return f"<text {' '.join(attributes)} xml:space=\"preserve\">{escape(text.text)}</text>"

