"""SVG of the picture: by Graphviz's ``dot`` when it is installed, else by the pure-Python layout
(svg_layout), so that a picture never needs a system install."""

from __future__ import annotations

import os
import shutil
import subprocess

from gradcli.views.graph.picture import Picture

LAYOUTS = ("auto", "dot", "python")
DOT_TIMEOUT = 60.0   # seconds
LARGE = 400          # boxes: a picture this big takes dot (and grandalf) a long time to lay out


class LayoutError(Exception):
    """The picture could not be laid out: dot missing (``layout="dot"``), failed or too slow."""


class DotCrashed(LayoutError):
    """dot ran and failed (``layout="auto"`` then draws with the Python layout)."""


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
            except DotCrashed:
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
    except subprocess.TimeoutExpired:
        raise LayoutError(f"dot took more than {DOT_TIMEOUT:g} s to lay out {len(picture.boxes)} boxes: "
                          "fold the loops (leave out --full) or draw less (--depth N)") from None
    except OSError as error:
        raise DotCrashed(f"dot failed: {error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DotCrashed("dot failed" + (f": {message[-1]}" if message else ""))
    text = done.stdout.decode("utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else text   # (no XML prolog: the SVG may be put inside HTML)
