"""The picture as SVG without Graphviz: a layered (Sugiyama) layout by grandalf, drawn by a small
SVG writer of our own (boxes with centred text, polyline edges with arrow heads, dashed clusters).

grandalf places the boxes, rank by rank, and routes each edge through the dummy points of the
ranks it crosses; everything else here is arithmetic on those coordinates.  A monospace font
keeps text widths predictable without measuring glyphs.
"""

from __future__ import annotations

from html import escape
from typing import Any

from gradcli.views.graph.picture import Picture

FONT_SIZE = 12
CHAR_WIDTH = 7.25        # of a 12 px monospace font (DejaVu Sans Mono, Liberation Mono, Courier)
LINE_HEIGHT = 15
PAD_X, PAD_Y = 9, 6
MARGIN = 16
GAP = 40                 # between the pictures of unconnected parts

HEX = {"lightgrey": "#d3d3d3", "lightblue": "#add8e6", "darkolivegreen1": "#caff70",
       "darkolivegreen3": "#a2cd5a", "orange": "#ffa500", "khaki1": "#fff68f"}


class _View:
    """What grandalf asks of a vertex: its size; it sets ``xy``, the centre."""
    def __init__(self, w: float, h: float) -> None:
        self.w, self.h = w, h
        self.xy = (0.0, 0.0)


class _EdgeView:
    def __init__(self) -> None:
        self._pts: list = []
        self.head_angle = 0.0

    def setpath(self, pts: list) -> None:
        self._pts = pts


def box_size(lines: list[str]) -> tuple[float, float]:
    lines = [line for line in lines if line] or [""]
    width = max(len(line) for line in lines) * CHAR_WIDTH + 2 * PAD_X
    return max(width, 40.0), len(lines) * LINE_HEIGHT + 2 * PAD_Y


def layout(picture: Picture) -> tuple[dict, dict, float, float]:
    """(box id -> (x, y, w, h) of its top left corner and size, arrow index -> points, width, height)."""
    from grandalf.graphs import Edge, Graph, Vertex
    from grandalf.layouts import SugiyamaLayout

    vertices = {}
    for box in picture.boxes:
        vertex = Vertex(box.ident)
        vertex.view = _View(*box_size(box.lines))
        vertices[box.ident] = vertex
    edges = {}
    for index, arrow in enumerate(picture.arrows):
        if arrow.constraint and arrow.tail != arrow.head:
            edge = Edge(vertices[arrow.tail], vertices[arrow.head])
            edge.view = _EdgeView()
            edges[index] = edge
    graph = Graph(list(vertices.values()), list(edges.values()))
    places: dict[str, tuple] = {}
    paths: dict[int, list] = {}
    left = float(MARGIN)
    height = 0.0
    for part in graph.C:
        sugiyama = SugiyamaLayout(part)
        sugiyama.xspace, sugiyama.yspace = 24, 34
        sugiyama.init_all()
        sugiyama.draw()   # (sets each edge's path: its ends' centres and a point per rank it crosses)
        bands = _bands(sugiyama)
        boxes = [v for v in part.sV]
        x0 = min(v.view.xy[0] - v.view.w / 2 for v in boxes)
        y0 = min(v.view.xy[1] - v.view.h / 2 for v in boxes)
        x1 = max(v.view.xy[0] + v.view.w / 2 for v in boxes)
        y1 = max(v.view.xy[1] + v.view.h / 2 for v in boxes)
        dx, dy = left - x0, MARGIN - y0
        for v in boxes:
            (cx, cy), w, h = v.view.xy, v.view.w, v.view.h
            places[v.data] = (cx - w / 2 + dx, cy - h / 2 + dy, w, h)
        for index, edge in edges.items():
            if edge.v[0] in part.sV:
                paths[index] = [(x + dx, y + dy) for x, y in _route(edge, bands)]
        left += (x1 - x0) + GAP
        height = max(height, y1 - y0)
    lanes: dict[str, int] = {}
    for index, arrow in enumerate(picture.arrows):
        if index not in paths:   # a loop's arrow back, or one that did not rank: around the boxes
            lane = lanes[arrow.tail] = lanes.get(arrow.tail, -1) + 1
            paths[index] = _around(places[arrow.tail], places[arrow.head], places, lane)
    _spread_parallel(picture, paths)
    return places, paths, left - GAP + MARGIN, height + 2 * MARGIN


def _spread_parallel(picture: Picture, paths: dict) -> None:
    """Arrows between the same two boxes (``y * y`` reads y twice) side by side, not on top of each other."""
    groups: dict[tuple, list[int]] = {}
    for index, arrow in enumerate(picture.arrows):
        groups.setdefault((arrow.tail, arrow.head), []).append(index)
    for indices in groups.values():
        for rank, index in enumerate(indices):
            shift = (rank - (len(indices) - 1) / 2) * 8
            if shift:
                paths[index] = [(x + shift, y) for x, y in paths[index]]


def _bands(sugiyama: Any) -> dict[float, tuple[float, float]]:
    """For each rank (by the y of its centre line): the top and bottom of its tallest box."""
    bands = {}
    for layer in sugiyama.layers:
        real = [v for v in layer if hasattr(v, "data")] or list(layer)
        y = real[0].view.xy[1]
        bands[y] = (min(v.view.xy[1] - v.view.h / 2 for v in real), max(v.view.xy[1] + v.view.h / 2 for v in real))
    return bands


def _route(edge: Any, bands: dict) -> list:
    """The edge's path: straight down out of its tail, across the gaps between ranks (never through
    a rank's band, where the boxes are) and straight down into its head."""
    points = edge.view._pts
    tail, head = edge.v[0].view, edge.v[1].view
    if len(points) < 2 or tail.xy[1] >= head.xy[1]:
        return list(points)
    route = [(tail.xy[0], tail.xy[1] + tail.h / 2), (tail.xy[0], bands[tail.xy[1]][1] + 4)]
    for x, y in points[1:-1]:   # the ranks it crosses: through each band vertically
        top, bottom = bands.get(y, (y, y))
        route += [(x, top - 4), (x, bottom + 4)]
    route += [(head.xy[0], bands[head.xy[1]][0] - 4), (head.xy[0], head.xy[1] - head.h / 2)]
    return route


def _around(tail: tuple, head: tuple, places: dict, lane: int = 0) -> list:
    """An arrow that does not rank (a loop's arrow back, up the picture): out of the right side of
    ``tail``, up right of every box in between, and into the top of ``head``."""
    tx, ty = tail[0] + tail[2], tail[1] + tail[3] / 2
    above = head[1] - 16
    low, high = min(above, ty), max(above, ty)
    right = max([tx, head[0] + head[2]] + [x + w for x, y, w, h in places.values() if y < high and y + h > low])
    bulge = right + 18 + 12 * lane   # (each arrow back from one box in its own lane)
    return [(tx, ty), (bulge, ty), (bulge, above), (head[0] + head[2] / 2, above),
            (head[0] + head[2] / 2, head[1])]


def to_svg(picture: Picture) -> str:
    places, paths, width, height = layout(picture)
    # room for the clusters' frames and labels and for the curves drawn right of the boxes
    frames = _cluster_frames(picture, places)
    right = max([width] + [x + w + MARGIN for x, _, w, _ in frames.values()]
                + [max(p[0] for p in pts) + MARGIN for pts in paths.values() if pts]
                + [_label_place(paths[i])[0] + 4 + len(a.label) * 6.2 + MARGIN
                   for i, a in enumerate(picture.arrows) if a.label and paths.get(i)])
    bottom = max([height] + [y + h + MARGIN for _, y, _, h in frames.values()])
    top_extra = max([0.0] + [MARGIN - y for _, y, _, _ in frames.values()])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{right:.0f}" height="{bottom + top_extra:.0f}" '
           f'viewBox="0 {-top_extra:.0f} {right:.0f} {bottom + top_extra:.0f}" '
           f'font-family="DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace" '
           f'font-size="{FONT_SIZE}">\n',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>\n',
           f'<rect x="0" y="{-top_extra:.0f}" width="100%" height="100%" fill="white"/>\n']
    for number, (cluster, (x, y, w, h)) in enumerate(frames.items()):
        out.append(f'<g class="cluster loop" id="loop{number + 1}">'
                   f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="none" '
                   f'stroke="#b8860b" stroke-dasharray="6,4" rx="4"/>'
                   f'<text x="{x + 6:.1f}" y="{y + h - 6:.1f}" fill="#6b5200">'
                   f'{escape(picture.clusters[cluster])}</text>'
                   '</g>\n')
    labelled: set = set()
    for index, arrow in enumerate(picture.arrows):
        pts = paths.get(index)
        if not pts:
            continue
        dash = {"dotted": ' stroke-dasharray="2,3"', "dashed": ' stroke-dasharray="6,4"'}.get(arrow.style, "")
        head = ' marker-end="url(#arrow)"' if arrow.arrow else ""
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        out.append(f'<g class="edge"><polyline points="{points}" fill="none" stroke="#333" '
                   f'stroke-width="1.1"{dash}{head}/>')
        if arrow.label and (arrow.tail, arrow.label) not in labelled:   # one label says it for all
            labelled.add((arrow.tail, arrow.label))
            mx, my = _label_place(pts)
            out.append(f'<text x="{mx + 4:.1f}" y="{my - 3:.1f}" font-size="10" fill="#555">'
                       f'{escape(arrow.label)}</text>')
        out.append('</g>\n')
    for box in picture.boxes:
        x, y, w, h = places[box.ident]
        stroke = ' stroke="red" stroke-width="2"' if box.alert else ' stroke="#222" stroke-width="1"'
        out.append(f'<g class="node {escape(box.classes)}" id="{escape(box.ident)}">'
                   f'<title>{escape(box.title or box.lines[0])}</title>'
                   f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="3" '
                   f'fill="{HEX.get(box.fill, box.fill)}"{stroke}/>')
        lines = [line for line in box.lines if line]
        for row, line in enumerate(lines):
            ty = y + PAD_Y + (row + 1) * LINE_HEIGHT - 3.5
            weight = ' font-weight="bold"' if row == 0 else ""
            out.append(f'<text x="{x + w / 2:.1f}" y="{ty:.1f}" text-anchor="middle"{weight}>{escape(line)}</text>')
        out.append('</g>\n')
    out.append('</svg>\n')
    return "".join(out)


def _label_place(pts: list) -> tuple[float, float]:
    """Beside the middle of the longest segment of a polyline."""
    best = max(range(len(pts) - 1), key=lambda i: abs(pts[i + 1][0] - pts[i][0]) + abs(pts[i + 1][1] - pts[i][1]))
    (x0, y0), (x1, y1) = pts[best], pts[best + 1]
    return (x0 + x1) / 2, (y0 + y1) / 2


def _cluster_frames(picture: Picture, places: dict) -> dict[Any, tuple]:
    """Each loop's frame: around its boxes and the frames of the loops inside it."""
    frames: dict[Any, tuple] = {}
    depth = {c: _nesting(picture, c) for c in picture.clusters}
    for cluster in sorted(picture.clusters, key=lambda c: -depth[c]):   # the innermost first
        inside = [places[b.ident] for b in picture.boxes if b.cluster == cluster and b.ident in places]
        inside += [frame for inner, frame in frames.items() if picture.parents.get(inner) == cluster]
        if not inside:
            continue
        x0 = min(x for x, _, _, _ in inside) - 10
        y0 = min(y for _, y, _, _ in inside) - 10
        x1 = max(x + w for x, _, w, _ in inside) + 10
        y1 = max(y + h for _, y, _, h in inside) + 10 + LINE_HEIGHT   # (room for the label, at the bottom)
        frames[cluster] = (x0, y0, x1 - x0, y1 - y0)
    return {c: frames[c] for c in picture.clusters if c in frames}


def _nesting(picture: Picture, cluster: Any) -> int:
    level = 0
    while cluster in picture.parents:
        cluster, level = picture.parents[cluster], level + 1
    return level
