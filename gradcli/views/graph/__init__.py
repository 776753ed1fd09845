"""The backward graph with the script's names: a tree for the terminal, Graphviz DOT, or SVG.

``gradcli graph FILE [NAME ...]`` (command.py) and the REPL's ``:graph NAME`` draw it; the report
page calls ``graph_svg``.  Roots are tensors, ``(label, tensor)`` pairs, a mapping label -> tensor
or ``Root`` objects; ``provenance`` is the run's ``gradcli.views.provenance.Provenance``.

Options, for all three: ``fold`` (False draws every copy of a loop's nodes), ``depth`` (levels
drawn below each root), ``param_names`` (id(tensor) -> a name such as ``model.fc.weight``, for
leaves the script never bound to a variable).
"""

from __future__ import annotations

from typing import Any


def graph_model(roots: Any, provenance: Any) -> Any:
    """The walked graph (``model.GraphModel``): its nodes, edges and roots."""
    from gradcli.views.graph.model import build, collector_paused, roots_from
    with collector_paused():
        return build(roots_from(roots, provenance), provenance)


def graph_text(roots: Any, provenance: Any, color: bool = False, *, fold: bool = True, depth: int | None = None,
               param_names: dict | None = None, headings: list[str] | None = None,
               show_rules: bool = True) -> str:
    """The tree as text: plain, or with ANSI colours when ``color``."""
    from gradcli.views.graph.model import collector_paused
    from gradcli.views.graph.tree_text import TreeDrawer, render
    with collector_paused():
        drawer = TreeDrawer(graph_model(roots, provenance), fold=fold, depth=depth, param_names=param_names,
                            show_rules=show_rules)
        lines = drawer.lines(headings)
    if not color:
        return render(lines, False)
    import io

    from rich.console import Console
    buffer = io.StringIO()
    Console(file=buffer, force_terminal=True, color_system="standard", width=10_000,
            highlight=False).print(render(lines, True), end="", soft_wrap=True)
    return buffer.getvalue()


def graph_picture(roots: Any, provenance: Any, *, fold: bool = True, depth: int | None = None,
                  param_names: dict | None = None, show_saved: bool = True) -> Any:
    """The boxes and arrows (``picture.Picture``) the DOT and SVG writers draw."""
    from gradcli.views.graph.model import collector_paused
    from gradcli.views.graph.picture import PictureBuilder
    with collector_paused():
        return PictureBuilder(graph_model(roots, provenance), fold=fold, depth=depth, param_names=param_names,
                              show_saved=show_saved).build()


def graph_dot(roots: Any, provenance: Any, **options: Any) -> str:
    """Graphviz DOT in torchviz's conventions, labelled with the script's names."""
    from gradcli.views.graph.dot import to_dot
    return to_dot(graph_picture(roots, provenance, **options))


def graph_svg(roots: Any, provenance: Any, *, layout: str = "auto", **options: Any) -> str:
    """An SVG picture: laid out by Graphviz's ``dot`` when installed (``layout="auto"`` or
    ``"dot"``), else (or with ``layout="python"``, or GRADCLI_NO_DOT=1) by grandalf.  Each
    backward node is a ``<g class="node backward" id="gfN">`` (a folded loop's box also has the
    class ``folded``); tensors are ``<g class="node tensor ...">``."""
    from gradcli.views.graph.svg import picture_svg
    return picture_svg(graph_picture(roots, provenance, **options), layout=layout)
