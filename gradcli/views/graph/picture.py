"""The graph as a picture: boxes and arrows in torchviz's conventions, before any layout.

Backward nodes are grey boxes, leaves light blue, the tensors drawn from dark olive green, saved
tensors orange (tied to their node by a line without arrow), a view's base dotted.  Arrows run
as data flows forward: from a leaf through the nodes to the output.  A loop's copies are folded
as in the terminal tree: one box ``MulBackward0 ×1000``, or a dashed cluster holding one
iteration of a longer body.  The DOT writer and the pure-Python SVG writer both draw this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradcli.views.graph import describe
from gradcli.views.graph.fold import Folder

COLORS = {"backward": "lightgrey", "leaf": "lightblue", "output": "darkolivegreen1", "base": "darkolivegreen3",
          "saved": "orange", "folded": "khaki1"}


@dataclass
class Box:
    ident: str
    lines: list[str]
    kind: str                      # backward, folded, leaf, output, base, saved
    classes: str                   # the SVG group's classes besides "node"
    alert: bool = False            # drawn with a red border (a saved tensor modified in place)
    cluster: int | None = None     # the folded loop body it belongs to
    title: str = ""                # the tooltip (SVG <title>)

    @property
    def fill(self) -> str:
        return COLORS[self.kind]


@dataclass
class Arrow:
    tail: str
    head: str
    style: str = "solid"           # solid, dotted, dashed
    arrow: bool = True
    label: str = ""
    constraint: bool = True        # False: the arrow does not rank the boxes (a loop's arrow back)


@dataclass
class Picture:
    boxes: list[Box] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    clusters: dict[int, str] = field(default_factory=dict)   # number -> label
    parents: dict[int, int] = field(default_factory=dict)    # cluster -> the cluster it is inside

    @property
    def backward_boxes(self) -> list[Box]:
        return [b for b in self.boxes if b.kind in ("backward", "folded")]


class PictureBuilder:
    def __init__(self, model: Any, *, fold: bool = True, depth: int | None = None,
                 param_names: dict | None = None, show_saved: bool = True) -> None:
        self.model = model
        self.folder = Folder(model, enabled=fold)
        self.depth = depth
        self.param_names = param_names or {}
        self.show_saved = show_saved
        self.picture = Picture()
        self.ids: dict[int, str] = {}
        self.repeated = {key for key, count in model.key_count.items() if count > 1 and key[1] is not None}
        self._counter = 0
        self._readers: dict[int, list[str]] = {}   # id(run) -> boxes that read its next copy

    def build(self) -> Picture:
        for root, entry in zip(self.model.roots, self.model.entries):
            tensor_id = self._new("t")
            self.picture.boxes.append(Box(tensor_id, [root.label, describe.shape_text(root.shape)], "output",
                                          "tensor output", title=f"{root.label}: the tensor drawn from"))
            if root.base is not None:
                base_id = self._new("t")
                names = describe.tensor_names(root.base, self.model.provenance, self.param_names)
                self.picture.boxes.append(Box(base_id, [names or "(base)", describe.shape_text(
                    tuple(root.base._data.shape))], "base", "tensor base", title="the tensor it is a view of"))
                self.picture.arrows.append(Arrow(base_id, tensor_id, style="dotted"))
            if entry is not None:
                self.picture.arrows.append(Arrow(self._visit(entry), tensor_id))
        return self.picture

    def _new(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def _visit(self, first: Any) -> str:
        """Add ``first`` and everything below it (iteratively); its box's id."""
        # work: (gnode, the folded loops whose template it is drawn in, level, the box it feeds, style)
        stack: list[tuple[Any, tuple, int, str, str]] = []
        first_id = self._add(first, (), 1, stack)
        self._drain(stack)
        return first_id

    def _drain(self, stack: list, scope: Any = None, later: list | None = None) -> None:
        """Add what ``stack`` holds; with a ``scope`` (a run), only its template's nodes, the rest
        put on ``later``."""
        while stack:
            item = stack.pop()
            child, runs, level, parent_id, style = item
            if scope is not None and not any(run is scope for run in runs):
                later.append(item)
                continue
            self.picture.arrows.append(Arrow(self._add(child, runs, level, stack), parent_id, style=style))

    def _push(self, child: Any, runs: tuple, level: int, reader: str, stack: list) -> None:
        """``child`` feeds the box ``reader``: add it later, unless it is the next copy of a folded
        loop's template (then the loop draws an arrow back, see _add_run)."""
        for run in reversed(runs):
            if child is run.following:
                self._readers.setdefault(id(run), []).append(reader)
                return
        inside = tuple(run for run in runs if child in run.template_set)
        stack.append((child, inside, level, reader, "solid"))

    def _add(self, gnode: Any, runs: tuple, level: int, stack: list) -> str:
        """The box of ``gnode`` (made on first sight; its inputs pushed on ``stack``)."""
        known = self.ids.get(id(gnode))
        if known is not None:
            return known
        if self.depth is not None and level > self.depth:
            ident = self.ids[id(gnode)] = self._new("cut")
            self.picture.boxes.append(Box(ident, ["…", f"(--depth {self.depth})"], "backward", "more",
                                          title="more nodes below: raise --depth"))
            return ident
        found = self.folder.run_at(gnode, within=runs[-1] if runs else None)
        if found is not None:
            return self._add_run(found, runs, level, stack)
        ident = self.ids[id(gnode)] = self._new("gf")
        facts = describe.details(gnode, self.model.provenance, self.param_names, self.repeated)
        self._node_box(ident, gnode, facts, id(runs[-1]) if runs else None)
        for child in gnode.children:
            self._push(child, runs, level + 1, ident, stack)
        return ident

    def _node_box(self, ident: str, gnode: Any, facts: describe.Details, cluster: int | None,
                  count: int | None = None, iterations: str = "") -> None:
        kind = "backward" if count is None else "folded"
        title = gnode.name
        if gnode.leaf is not None:
            lines = [gnode.name]
            lines += [hook.short for hook in facts.hooks]
            self.picture.boxes.append(Box(ident, lines, kind, "backward accumulate", cluster=cluster, title=title))
            leaf_id = self._new("t")
            label = facts.leaf or "(leaf)"
            shape = describe.shape_text(gnode.outputs[0][0]) if 0 in gnode.outputs else ""
            grad = facts.grad
            if gnode.leaf._grad is not None and len(grad) > 32:
                grad = describe.values_text(gnode.leaf._grad, brief=True)
            grad = f"grad {grad}"
            self.picture.boxes.append(Box(leaf_id, [label, shape, grad], "leaf", "tensor leaf",
                                          title=f"{label}: a leaf; its .grad is {facts.grad}"))
            self.picture.arrows.append(Arrow(leaf_id, ident))
            return
        names = facts.names if count is None else list(dict.fromkeys(n.split(" (line ")[0] for n in facts.names))
        head = gnode.name + (f" ×{count}" if count is not None else "")
        lines = [head]
        said = (", ".join(names) + " = " if names and facts.text else ", ".join(names)) + facts.text
        if said:
            lines.append(_shorten(said))
        where = facts.where if count is None else facts.where.split(",")[0] + (f", {iterations}" if iterations else "")
        if where:
            lines.append(where)
        if facts.output:
            lines.append(facts.output)
        lines += [hook.short for hook in facts.hooks]
        self.picture.boxes.append(Box(ident, lines, kind, "backward" + (" folded" if count else ""),
                                      cluster=cluster, title=title + (f": {said}" if said else "")))
        if self.show_saved:
            for saved in facts.saved:
                saved_id = self._new("s")
                state = {"freed": "freed by backward", "unchanged": f"version {saved.version}",
                         "modified": f"version {saved.version} ≠ {saved.saved_at}: modified",
                         "number": ""}[saved.state]
                text = saved.attr[len("_saved_"):] if saved.attr.startswith("_saved_") else saved.attr
                if saved.source:
                    text += f" = {_shorten(saved.source, 24)}"
                box_lines = [text] + ([describe.shape_text(saved.meta[0])] if saved.meta else []) + [state]
                self.picture.boxes.append(Box(saved_id, box_lines, "saved", "tensor saved",
                                              alert=saved.state == "modified", cluster=cluster,
                                              title=saved.text()))
                self.picture.arrows.append(Arrow(ident, saved_id, arrow=False))

    def _add_run(self, run: Any, runs: tuple, level: int, stack: list) -> str:
        entry = run.entry
        facts = describe.details(entry, self.model.provenance, self.param_names, set())
        iterations = _iterations(run)
        if len(run.template) == 1:
            ident = self.ids[id(entry)] = self._new("gf")
            self._node_box(ident, entry, facts, id(runs[-1]) if runs else None, count=run.count,
                           iterations=iterations)
            reads = []
            for child in entry.children:
                target = run.continuation if child is run.following else child
                if target is not None and all(target is not r for r in reads):
                    reads.append(target)
                    self._push(target, runs, level + 1, ident, stack)
            return ident
        # a longer body: one iteration in a dashed cluster; its entry's output feeds the copy
        # before it (a dashed arrow back), and the first iteration reads the continuation
        where = f" at line {entry.origin.line}" if entry.origin is not None and entry.origin.line else ""
        self.picture.clusters[id(run)] = (f"a loop{where}: ×{run.count}, {iterations} "
                                          f"({len(run.template)} nodes each, {run.folded_nodes} in all)")
        if runs:
            self.picture.parents[id(run)] = id(runs[-1])
        local: list = []
        ident = self._add(entry, runs + (run,), level, local)
        later: list = []
        self._drain(local, run, later)   # the template's own nodes now: the arrows back need them
        stack.extend(later)
        for reader in self._readers.pop(id(run), []):
            self.picture.arrows.append(Arrow(ident, reader, style="dashed", label="previous iteration",
                                             constraint=False))
            if run.continuation is not None:
                self._push(run.continuation, runs, level + 1, reader, stack)
        return ident


def _iterations(run: Any) -> str:
    first = getattr(run.entry.origin, "iteration", None)
    last = getattr(run.last_entry.origin, "iteration", None)
    if first is None or last is None or first == last:
        return ""
    return f"iterations {first}…{last}"


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
