"""The graph as a tree for the terminal: each root's node first, its inputs below it.

A node reached a second time is drawn once and referred to (``↑ see [4]``); a loop's copies are
folded into one entry (``MulBackward0 ×1000``).  Lines are built as (text, style) pieces: plain
text on a pipe, Rich styles on a terminal.  The tree is drawn here rather than with
``rich.tree.Tree`` so that a graph of tens of thousands of nodes (``--full``) is drawn in well
under a second and its indentation stops growing past ``MAX_NESTING`` levels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradcli.views.graph import describe
from gradcli.views.graph.fold import Folder, Run

MAX_NESTING = 40   # deeper levels are drawn without more indentation

STYLES = {
    "id": "dim", "op": "bold cyan", "names": "bold green", "text": "", "where": "dim",
    "meta": "magenta", "leaf": "bold blue", "grad": "yellow", "fold": "bold yellow", "ref": "dim italic",
    "detail": "dim", "heading": "bold", "note": "dim", "warn": "red",
}

Line = list  # [(text, style name), ...]


@dataclass
class Item:
    kind: str                 # "node", "next" (the loop's iteration before), "cut" (--depth)
    gnode: Any = None
    runs: tuple = ()          # the folded loops whose template the node is drawn in, innermost last
    lead: str = ""            # words before the node's own label


class TreeDrawer:
    def __init__(self, model: Any, *, fold: bool = True, depth: int | None = None,
                 param_names: dict | None = None, show_rules: bool = True) -> None:
        self.model = model
        self.folder = Folder(model, enabled=fold)
        self.depth = depth
        self.param_names = param_names or {}
        self.show_rules = show_rules
        self.ids: dict[int, int] = {}    # id(GNode) -> its number in the drawing
        self.repeated = {key for key, count in model.key_count.items() if count > 1 and key[1] is not None}
        self.capped = False

    # -- the whole drawing ---------------------------------------------------------------------
    def lines(self, headings: list[str] | None = None) -> list[Line]:
        out: list[Line] = []
        for index, (root, entry) in enumerate(zip(self.model.roots, self.model.entries)):
            if index:
                out.append([])
            heading = headings[index] if headings else None
            out.append(self._heading(root, entry, heading))
            if entry is not None:
                self._draw(Item("node", entry), out)
        return out

    def _heading(self, root: Any, entry: Any, extra: str | None) -> Line:
        line: Line = [(root.label, "names"), ("  " + describe.meta_text((root.shape, root.dtype)), "meta")]
        if entry is None:
            line.append(("  ·  requires_grad=False: in no backward graph", "note"))
        else:
            nodes, leaves = self._count(entry)
            line.append((f"  ·  {nodes} backward node{'s' * (nodes != 1)}, "
                         f"{leaves} lea{'ves' if leaves != 1 else 'f'}", "note"))
        if extra:
            line.append((f"  ({extra})", "note"))
        return line

    def _count(self, entry: Any) -> tuple[int, int]:
        if len(self.model.roots) == 1:
            return len(self.model.nodes), len(self.model.leaves)
        seen = {id(entry)}
        stack = [entry]
        leaves = 0
        while stack:
            node = stack.pop()
            if node.leaf is not None:
                leaves += 1
            for child in node.children:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        return len(seen), leaves

    # -- one tree ------------------------------------------------------------------------------
    def _draw(self, first: Item, out: list[Line]) -> None:
        # (item, prefix for its line, prefix for what goes below it, depth)
        stack = [(first, "└── ", "    ", 1)]
        while stack:
            item, head, below, level = stack.pop()
            label, details, children = self._expand(item, level)
            out.append([(head, "guide")] + label)
            if children and self.depth is not None and level >= self.depth:
                children = [Item("cut")]
            deeper = below
            if level >= MAX_NESTING:
                if not self.capped:
                    self.capped = True
                    details = details + [[(f"(deeper than {MAX_NESTING} levels: drawn without more "
                                           "indentation)", "note")]]
            for detail in details:
                out.append([(below + ("│   " if children else "    "), "guide")] + detail)
            pending = []
            for position, child in enumerate(children):
                last = position == len(children) - 1
                if level >= MAX_NESTING:
                    pending.append((child, below + ("└── " if last else "├── "), below, level + 1))
                else:
                    pending.append((child, deeper + ("└── " if last else "├── "),
                                    deeper + ("    " if last else "│   "), level + 1))
            stack.extend(reversed(pending))

    def _expand(self, item: Item, level: int) -> tuple[Line, list[Line], list[Item]]:
        """The item's label, its detail lines and its children."""
        if item.kind == "cut":
            return [(f"… more below (--depth {self.depth})", "note")], [], []
        if item.kind == "next":
            run = item.runs[-1]
            where = self._where(run.entry)
            lead = [(item.lead, "note")] if item.lead else []
            return lead + [(f"↻ the iteration before (the loop{' at ' + where if where else ''} again, "
                            f"{self._iterations(run, after_first=True)})", "ref")], [], []
        gnode = item.gnode
        if id(gnode) in self.ids:
            return ([(item.lead, "note")] if item.lead else []) + self._reference(gnode), [], []
        run = self.folder.run_at(gnode, within=item.runs[-1] if item.runs else None)
        if run is not None:
            return self._expand_run(run, item)
        self.ids[id(gnode)] = len(self.ids) + 1
        facts = describe.details(gnode, self.model.provenance, self.param_names, self.repeated)
        label = ([(item.lead, "note")] if item.lead else []) + self._label(gnode, facts)
        children = [self._child(child, item.runs) for child in gnode.children]
        return label, self._detail_lines(facts), children

    @staticmethod
    def _child(child: Any, runs: tuple, lead: str = "") -> Item:
        """The item for ``child`` seen from inside the templates ``runs``: the iteration before
        where a template reads its next copy; a node of the templates it is in."""
        for run in reversed(runs):
            if child is run.following:
                return Item("next", runs=(run,), lead=lead)
        return Item("node", child, runs=tuple(r for r in runs if child in r.template_set), lead=lead)

    def _expand_run(self, run: Run, item: Item) -> tuple[Line, list[Line], list[Item]]:
        entry = run.entry
        lead = [(item.lead, "note")] if item.lead else []
        if len(run.template) == 1:
            self.ids[id(entry)] = len(self.ids) + 1
            facts = describe.details(entry, self.model.provenance, self.param_names, set())
            label = lead + self._label(entry, facts, run=run)
            children: list[Item] = []
            for child in entry.children:
                if child is run.following:   # the copies' chain: what the last copy reads, once
                    if run.continuation is not None and all(c.gnode is not run.continuation for c in children):
                        children.append(self._child(run.continuation, item.runs))
                else:
                    children.append(self._child(child, item.runs))
            return label, self._detail_lines(facts), children
        where = self._where(entry)
        label = lead + [(f"×{run.count}", "fold"),
                        (f"  a loop{' at ' + where if where else ''}: {len(run.template)} nodes per iteration, "
                         f"{self._iterations(run)} ({run.folded_nodes} nodes)", "note")]
        children = [Item("node", entry, runs=item.runs + (run,))]
        if run.continuation is not None:
            children.append(self._child(run.continuation, item.runs, lead="before the loop: "))
        return label, [], children

    # -- pieces ----------------------------------------------------------------------------------
    def _label(self, gnode: Any, facts: describe.Details, run: Run | None = None) -> Line:
        number = self.ids[id(gnode)]
        line: Line = [(f"[{number}] ", "id"), (gnode.name, "op")]
        if run is not None:
            line.append((f" ×{run.count}", "fold"))
        if gnode.leaf is not None:
            line.append(("  ", ""))
            if facts.leaf:
                line.append((facts.leaf, "names"))
                line.append(("  ", ""))
            line.append(("leaf" if facts.leaf else "a leaf the script gave no name", "leaf"))
            if facts.where:
                line.append((f", {facts.where}", "where"))
            line.append((f"  {facts.output}", "meta"))
            line.append((f"  grad {facts.grad}", "grad"))
            return line
        names = facts.names
        if run is not None:   # the copies' names, without each one's iteration
            names = list(dict.fromkeys(n.split(" (line ")[0] for n in names))
        if names or facts.text:
            line.append(("  ", ""))
        if names:
            line.append((", ".join(names), "names"))
            if facts.text:
                line.append((" = ", "text"))
        if facts.text:
            line.append((facts.text, "text"))
        where = facts.where
        if run is not None:
            where = facts.where.split(",")[0] + (f", {self._iterations(run)}" if where else "")
        if where:
            line.append((f"  {where}", "where"))
        if facts.output:
            line.append((f"  {facts.output}", "meta"))
        return line

    def _detail_lines(self, facts: describe.Details) -> list[Line]:
        lines: list[Line] = []
        if self.show_rules:
            lines += [[(rule, "detail")] for rule in facts.rules]
        for saved in facts.saved:
            style = "warn" if saved.state == "modified" else "detail"
            lines.append([("saved ", "detail"), (saved.text(), style)])
        lines += [[(f"hook: {hook.text()}", "detail")] for hook in facts.hooks]
        lines += [[(note, "detail")] for note in facts.notes]
        return lines

    def _reference(self, gnode: Any) -> Line:
        names = ""
        if gnode.leaf is not None:
            names = describe.tensor_names(gnode.leaf, self.model.provenance, self.param_names)
        elif self.model.provenance is not None and gnode.node is not None:
            names = ", ".join(b.label() for nr in sorted(gnode.outputs) or [0]
                              for b in self.model.provenance.names_of_output(gnode.node, nr))
        return [(f"↑ see [{self.ids[id(gnode)]}] {gnode.name}" + (f" ({names})" if names else ""), "ref")]

    @staticmethod
    def _where(gnode: Any) -> str:
        origin = gnode.origin
        return f"line {origin.line}" if origin is not None and origin.line is not None else ""

    @staticmethod
    def _iterations(run: Run, after_first: bool = False) -> str:
        first = getattr(run.entry.origin, "iteration", None)
        last = getattr(run.last_entry.origin, "iteration", None)
        if first is None or last is None:
            return f"{run.count - after_first} more" if after_first else f"{run.count} copies"
        if after_first:
            first += -1 if first > last else 1
        if first == last:
            return f"iteration {first}"
        return f"iterations {first}…{last}"


def render(lines: list[Line], color: bool) -> Any:
    """Plain text, or (with colour) a Rich Text."""
    if not color:
        return "\n".join("".join(text for text, _ in line).rstrip() for line in lines) + "\n"
    from rich.text import Text

    text = Text()
    for line in lines:
        for piece, style in line:
            if style == "guide":
                text.append(piece, style="dim")
            else:
                text.append(piece, style=STYLES.get(style, "") or None)
        text.append("\n")
    return text
