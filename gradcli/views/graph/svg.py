"""SVG of the picture: by Graphviz's ``dot`` when it is installed, else by the pure-Python layout
(svg_layout), so that a picture never needs a system install."""

from __future__ import annotations

import os
import shutil
import subprocess

from gradcli.views.graph.picture import Picture

LAYOUTS = ("auto", "dot", "python")
DOT_TIMEOUT = 60.0   # seconds; a graph dot cannot lay out in a minute is drawn by the Python layout


class LayoutError(Exception):
    """``layout="dot"`` was asked for and the dot program is missing or failed."""


def dot_program() -> str | None:
    """The dot program, unless GRADCLI_NO_DOT is set (to test or to prefer the Python layout)."""
    if os.environ.get("GRADCLI_NO_DOT"):
        return None
    return shutil.which("dot")


def picture_svg(picture: Picture, layout: str = "auto") -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    if layout != "python":
        program = dot_program()
        if program is not None:
            try:
                return render_with_dot(picture, program)
            except LayoutError:
                if layout == "dot":
                    raise
        elif layout == "dot":
            raise LayoutError("the dot program (Graphviz) is not installed"
                              + (" or GRADCLI_NO_DOT is set" if os.environ.get("GRADCLI_NO_DOT") else ""))
    from gradcli.views.graph.svg_layout import to_svg
    return to_svg(picture)


def render_with_dot(picture: Picture, program: str) -> str:
    from gradcli.views.graph.dot import to_dot

    try:
        done = subprocess.run([program, "-Tsvg"], input=to_dot(picture).encode("utf-8"), capture_output=True,
                              timeout=DOT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise LayoutError(f"dot failed: {error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LayoutError("dot failed" + (f": {message[-1]}" if message else ""))
    text = done.stdout.decode("utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else text   # (no XML prolog: the SVG may be put inside HTML)
