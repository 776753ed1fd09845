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
    inside: dict[int | None, list[str]] = {}   # cluster (None: none) -> its boxes' lines
    for box in picture.boxes:
        cluster = box.cluster if box.cluster in picture.clusters else None
        inside.setdefault(cluster, []).append(_box_line(box))
    children: dict[int | None, list[int]] = {}
    for cluster in picture.clusters:
        children.setdefault(picture.parents.get(cluster), []).append(cluster)
    numbers = {cluster: n + 1 for n, cluster in enumerate(picture.clusters)}

    def write(cluster: int | None, indent: str) -> None:   # (nesting is as deep as the loops)
        out.extend(f"{indent}{line}\n" for line in inside.get(cluster, ()))
        for inner in children.get(cluster, ()):
            out.append(f"{indent}subgraph cluster_{numbers[inner]} {{\n")
            out.append(f"{indent}    label={quote(picture.clusters[inner])}; style=dashed; color=goldenrod;\n")
            out.append(f'{indent}    id="loop{numbers[inner]}"; class="loop";\n')
            write(inner, indent + "    ")
            out.append(f"{indent}}}\n")
    write(None, "    ")
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
