"""The picture as Graphviz DOT, in torchviz's style (filled boxes, monospace, small type).

Each box keeps its id and gets the SVG classes the report page counts: ``dot -Tsvg`` writes
``<g id="gf3" class="node backward">`` for a backward node.
"""

from __future__ import annotations

from gradcli.views.graph.picture import Picture

HEADER = ('digraph gradcli {\n'
          '    graph [rankdir=TB, nodesep=0.25, ranksep=0.35, fontname=monospace, fontsize=10];\n'
          '    node [style=filled, shape=box, align=left, fontsize=10, height=0.2, fontname=monospace];\n'
          '    edge [fontname=monospace, fontsize=9];\n')


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def label(lines: list[str]) -> str:
    return quote("\n".join(line for line in lines if line))


def to_dot(picture: Picture) -> str:
    out = [HEADER]
    clustered: dict[int, list] = {}
    for box in picture.boxes:
        line = _box_line(box)
        if box.cluster is not None and box.cluster in picture.clusters:
            clustered.setdefault(box.cluster, []).append(line)
        else:
            out.append("    " + line + "\n")
    for number, (cluster, lines) in enumerate(clustered.items()):
        out.append(f"    subgraph cluster_{number} {{\n")
        out.append(f"        label={quote(picture.clusters[cluster])}; style=dashed; color=goldenrod;\n")
        out.append(f'        id="loop{number + 1}"; class="loop";\n')
        out.extend("        " + line + "\n" for line in lines)
        out.append("    }\n")
    for arrow in picture.arrows:
        attrs = []
        if arrow.style != "solid":
            attrs.append(f"style={arrow.style}")
        if not arrow.arrow:
            attrs.append("dir=none")
        if not arrow.constraint:
            attrs.append("constraint=false")
        if arrow.label:
            attrs.append(f"label={quote(arrow.label)}")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        out.append(f"    {arrow.tail} -> {arrow.head}{suffix}\n")
    out.append("}\n")
    return "".join(out)


def _box_line(box) -> str:
    attrs = [f"label={label(box.lines)}", f"fillcolor={box.fill}", f'id="{box.ident}"',
             f'class="{box.classes}"']
    if box.title:
        attrs.append(f"tooltip={quote(box.title)}")
    if box.alert:
        attrs.append("color=red, penwidth=2")
    return f"{box.ident} [{', '.join(attrs)}]"
