"""A figure as PNG, drawn with Pillow (imported only here, when a PNG is asked for).

The shapes of ``layout`` are drawn at three times the size and scaled down, which smooths the
edges Pillow's ImageDraw leaves jagged; the data are drawn on a layer of their own, cut to the
axes, so that nothing spills over the frame.  Text uses DejaVu Sans (matplotlib's font) when
the system has it, else Pillow's own font.
"""

from __future__ import annotations

import io
import math
from typing import Any

from gradcli.views.plot.colors import rgb
from gradcli.views.plot.figure import Figure
from gradcli.views.plot.layout import Marker, Polyline, Rect, Text, layout
from gradcli.views.plot.svg import marker_outline

_SCALE = 3
_fonts: dict[int, Any] = {}


def figure_png(figure: Figure, dpi: float = 100.0) -> bytes:
    from PIL import Image, ImageDraw

    scene = layout(figure, dpi)
    size = (scene.width * _SCALE, scene.height * _SCALE)
    page = Image.new("RGBA", size, (255, 255, 255, 255))
    data = Image.new("RGBA", size, (0, 0, 0, 0))   # the shapes clipped to the axes
    pending = False
    for shape in scene.shapes:
        if getattr(shape, "clip", False):
            _draw(data, shape, ImageDraw)
            pending = True
            continue
        if pending:   # the data go under what follows them (the frame, the legend)
            page = _flatten(page, data, scene.axes)
            data = Image.new("RGBA", size, (0, 0, 0, 0))
            pending = False
        _draw(page, shape, ImageDraw)
    if pending:
        page = _flatten(page, data, scene.axes)
    small = page.convert("RGB").resize((scene.width, scene.height), Image.LANCZOS)
    buffer = io.BytesIO()
    small.save(buffer, format="PNG", dpi=(dpi, dpi))
    return buffer.getvalue()


def _flatten(page: Any, data: Any, axes: Rect) -> Any:
    from PIL import Image
    box = tuple(round(v * _SCALE) for v in (axes.x, axes.y, axes.x + axes.width, axes.y + axes.height))
    mask = Image.new("L", page.size, 0)
    mask.paste(255, box)
    cut = Image.new("RGBA", page.size, (0, 0, 0, 0))
    cut.paste(data, (0, 0), mask)
    return Image.alpha_composite(page, cut)


def _color(hex_color: str, alpha: float = 1.0) -> tuple[int, int, int, int]:
    return (*rgb(hex_color), round(alpha * 255))


def _draw(image: Any, shape: Any, image_draw: Any) -> None:
    s = _SCALE
    if isinstance(shape, Text):
        _text(image, shape)
        return
    if isinstance(shape, Rect) and shape.opacity != 1:
        # ImageDraw replaces the pixels of an RGBA image: a see-through box (the legend's) is
        # drawn on a layer of its own and laid over what is below
        from PIL import Image
        layer_image = Image.new("RGBA", image.size, (0, 0, 0, 0))
        _draw(layer_image, Rect(shape.x, shape.y, shape.width, shape.height, shape.fill, shape.stroke,
                                shape.stroke_width, shape.radius), image_draw)
        alpha = layer_image.getchannel("A").point(lambda v: round(v * shape.opacity))
        layer_image.putalpha(alpha)
        image.alpha_composite(layer_image)
        return
    layer = image_draw.Draw(image, "RGBA")
    if isinstance(shape, Rect):
        box = [shape.x * s, shape.y * s, (shape.x + shape.width) * s, (shape.y + shape.height) * s]
        fill = _color(shape.fill, shape.opacity) if shape.fill else None
        outline = _color(shape.stroke) if shape.stroke else None
        width = max(1, round(shape.stroke_width * s)) if shape.stroke else 0
        if shape.radius:
            layer.rounded_rectangle(box, radius=shape.radius * s, fill=fill, outline=outline, width=width)
        else:
            layer.rectangle(box, fill=fill, outline=outline, width=width)
    elif isinstance(shape, Polyline):
        width = max(1, round(shape.width * s))
        color = _color(shape.color, shape.alpha)
        points = [(x * s, y * s) for x, y in shape.points]
        for run in (_dashed(points, [d * s for d in shape.dash]) if shape.dash else [points]):
            if len(run) > 1:
                layer.line(run, fill=color, width=width, joint="curve")
    elif isinstance(shape, Marker):
        kind, points = marker_outline(shape.shape, shape.x * s, shape.y * s, shape.size * s)
        color = _color(shape.color, shape.alpha)
        if kind == "circle":
            (cx, cy), (rim, _) = points
            r = rim - cx
            layer.ellipse([cx - r, cy - r, cx + r, cy + r], fill=color)
        elif kind == "polygon":
            layer.polygon(points, fill=color)
        else:
            for a, b in zip(points[0::2], points[1::2]):
                layer.line([a, b], fill=color, width=max(1, round(1.5 * s)))


def _dashed(points: list, pattern: list[float]) -> list[list]:
    """A polyline cut into its dashes (on, off, on, ... lengths, repeating)."""
    runs, run = [], [points[0]]
    index, left, drawing = 0, pattern[0], True
    for (xa, ya), (xb, yb) in zip(points, points[1:]):
        length = math.hypot(xb - xa, yb - ya)
        done = 0.0
        while length - done > left:
            done += left
            t = done / length
            point = (xa + (xb - xa) * t, ya + (yb - ya) * t)
            if drawing:
                run.append(point)
                runs.append(run)
            run = [point]
            drawing = not drawing
            index = (index + 1) % len(pattern)
            left = pattern[index]
        left -= length - done
        if drawing:
            run.append((xb, yb))
        else:
            run = [(xb, yb)]
    if drawing:
        runs.append(run)
    return runs


def _font(size: int) -> Any:
    from PIL import ImageFont
    if size not in _fonts:
        try:
            _fonts[size] = ImageFont.truetype("DejaVuSans.ttf", size)
        except OSError:
            _fonts[size] = ImageFont.load_default(size=size)
    return _fonts[size]


def _text(image: Any, text: Text) -> None:
    from PIL import Image, ImageDraw
    s = _SCALE
    font = _font(max(1, round(text.size * s)))
    width = font.getlength(text.text)
    ascent = font.getmetrics()[0]
    anchor_shift = {"start": 0.0, "middle": width / 2, "end": width}[text.anchor]
    if not text.rotate:
        ImageDraw.Draw(image).text((text.x * s - anchor_shift, text.y * s - ascent), text.text,
                                   font=font, fill=(0, 0, 0, 255))
        return
    ascent, descent = font.getmetrics()
    strip = Image.new("RGBA", (max(1, math.ceil(width)), ascent + descent), (0, 0, 0, 0))
    ImageDraw.Draw(strip).text((0, 0), text.text, font=font, fill=(0, 0, 0, 255))
    turned = strip.rotate(90, expand=True)
    # the baseline ran along x = text.x; the text's middle sits at text.y
    left = round(text.x * s - ascent)
    top = round(text.y * s - (width - anchor_shift) if text.anchor != "middle" else text.y * s - width / 2)
    image.alpha_composite(turned, (max(0, left), max(0, top)))
