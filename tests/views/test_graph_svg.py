"""SVG without Graphviz: grandalf's layered layout and our own SVG writer."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from gradcli.views.graph import graph_picture, graph_svg
from gradcli.views.graph.svg import LayoutError
from gradcli.views.script_run import run_for_view

from graph_helpers import TUTORIAL, model_of, run

SVG = "{http://www.w3.org/2000/svg}"


def node_rects(svg: str) -> dict[str, tuple]:
    """id -> (x, y, w, h) of each node's box."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        if "node" in g.get("class", "").split():
            rect = g.find(f"{SVG}rect")
            out[g.get("id")] = tuple(float(rect.get(k)) for k in ("x", "y", "width", "height"))
    return out


def classes_of(svg: str, kind: str) -> list:
    return [g for g in ET.fromstring(svg).iter(f"{SVG}g") if kind in g.get("class", "").split()]


def overlapping(rects: dict) -> list:
    boxes = list(rects.items())
    return [(a, b) for i, (a, (ax, ay, aw, ah)) in enumerate(boxes) for b, (bx, by, bw, bh) in boxes[i + 1:]
            if ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah]


def test_without_dot_the_python_layout_draws_every_node(monkeypatch):
    monkeypatch.setenv("GRADCLI_NO_DOT", "1")
    view_run = run_for_view(TUTORIAL.read_text(), str(TUTORIAL))
    roots = [("out", view_run.session.globals["out"])]
    svg = graph_svg(roots, view_run.provenance)            # layout="auto": dot is "missing"
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert "graphviz" not in svg
    picture = graph_picture(roots, view_run.provenance)
    assert len(classes_of(svg, "backward")) == len(model_of(view_run, "out").nodes) == 5
    assert len(classes_of(svg, "node")) == len(picture.boxes) == 10   # + 3 saved, the leaf, the output
    assert len(classes_of(svg, "edge")) == len(picture.arrows)
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "z = y * y * 3" in texts and "grad 4.5 (all 4 elements)" in texts
    rects = node_rects(svg)
    assert not overlapping(rects)
    width, height = float(root.get("width")), float(root.get("height"))
    assert all(0 <= x and x + w <= width and y + h <= height for x, y, w, h in rects.values())


def test_the_python_layout_of_a_folded_loop(monkeypatch):
    view_run = run("""
        x = torch.tensor(0.5, requires_grad=True)
        y = x * 1.0
        for i in range(100):
            y = (y * 1.0001 + 0.0001).sin() + y * 0.5
        z = y
        for i in range(100):
            z = z * 2
    """)
    svg = graph_svg([("z", view_run.session.globals["z"])], view_run.provenance, layout="python")
    assert len(classes_of(svg, "loop")) == 1                       # the 5-node body, framed
    folded = classes_of(svg, "folded")
    assert len(folded) == 1 and "MulBackward0 ×100" in "".join(folded[0].itertext())
    assert len(classes_of(svg, "backward")) == 1 + 5 + 1 + 1        # the chain, one body, y = x * 1.0, x
    assert not overlapping(node_rects(svg))


def test_layout_dot_without_dot_is_an_error(monkeypatch):
    monkeypatch.setenv("GRADCLI_NO_DOT", "1")
    view_run = run("""
        x = torch.tensor(0.5, requires_grad=True)
        y = x.exp()
    """)
    with pytest.raises(LayoutError, match="dot program"):
        graph_svg([("y", view_run.session.globals["y"])], view_run.provenance, layout="dot")
