"""Folding a loop's repeated part of the graph into one entry.

A loop body run N times leaves N copies of the same nodes, each copy feeding the next: one
``MulBackward0`` per iteration for ``y = y * 2``, four nodes and a fan-out per iteration for
``y = (y*1.0001 + 0.0001).sin() + y*0.5``.  Starting at a node ``s`` whose (name, source span)
occurs again in the graph, the *segment* of ``s`` is grown from ``s`` by taking each node all of
whose incoming edges come from the segment, stopping at the node with the same key as ``s``:
that node is where the next iteration begins.  Consecutive segments with the same shape (same
node keys, same edges between them, in order) are one run; the last iteration, whose edges
leave the loop instead of reaching another copy, joins the run when it matches the template.

Nodes that several iterations share (a weight every iteration reads) are no part of any
segment: they stay visible, drawn once, reached from the template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MIN_RUN = 3           # fewer iterations than this are drawn as they are
SEGMENT_LIMIT = 400   # a loop body larger than this many nodes is not folded


@dataclass(eq=False)
class Run:
    """``count`` consecutive copies of one segment, the first (outermost) one shown."""
    entry: Any                        # the first copy's entry node (a GNode)
    template: list                    # the first copy's nodes, entry first (BFS order)
    members: set                      # all nodes the run folds away, every copy
    count: int
    last_entry: Any                   # the entry of the last copy (the first iteration the loop ran)
    continuation: Any                 # the node the last copy reads where the template reads the next copy
    following: Any = None             # the second copy's entry: what the template reads of the next copy
    template_set: set = field(default_factory=set)

    @property
    def folded_nodes(self) -> int:
        return len(self.members)


class Folder:
    """Finds runs on demand (for the nodes a view is about to draw) and remembers them."""

    def __init__(self, model: Any, enabled: bool = True) -> None:
        self.model = model
        self.enabled = enabled
        self.runs: dict[int, Run | None] = {}   # id(entry GNode) -> its run, or None when none

    def run_at(self, gnode: Any, within: Run | None = None) -> Run | None:
        """The run starting at ``gnode``; inside the template of the run ``within`` (a loop in a
        loop), only a run of that template's own nodes."""
        if not self.enabled or gnode.node is None:
            return None
        key = id(gnode)
        if key not in self.runs:
            self.runs[key] = self._find(gnode) if self.model.key_count.get(gnode.key, 0) >= MIN_RUN else None
        run = self.runs[key]
        if run is not None and within is not None and not run.members <= within.template_set:
            return None
        return run

    def _find(self, start: Any) -> Run | None:
        first = _segment(start)
        if first is None:
            return None
        members_list, following, signature = first
        second = following
        members: set = set(members_list)
        count = 1
        entry = start
        while True:
            found = _segment(following)
            if found is not None and found[2] == signature:
                members.update(found[0])
                count += 1
                entry, following = following, found[1]
                continue
            # the last copy: its edges leave the loop where the template reads the next copy
            matched = _match_last(following, signature)
            if matched is not None:
                nodes, continuation = matched
                members.update(nodes)
                count += 1
                entry, following = following, continuation
            break
        if count < MIN_RUN:
            return None
        return Run(start, members_list, members, count, entry, following, second, set(members_list))


def _segment(start: Any) -> tuple[list, Any, tuple] | None:
    """(the segment's nodes in BFS order, the next copy's entry, the segment's signature), or
    None when no next copy ends it within SEGMENT_LIMIT nodes."""
    key = start.key
    inside = {id(start)}
    arrived: dict[int, int] = {}
    following = None
    queue = [start]
    position = 0
    while position < len(queue):
        node = queue[position]
        position += 1
        for child in node.children:
            count = arrived.get(id(child), 0) + 1
            arrived[id(child)] = count
            if count != child.parents or id(child) in inside:
                continue
            if child.key == key:
                if following is not None and following is not child:
                    return None   # two candidates for the next iteration: not a simple loop
                following = child
                continue
            inside.add(id(child))
            queue.append(child)
            if len(queue) > SEGMENT_LIMIT:
                return None
    if following is None:
        return None
    return queue, following, _signature(start, inside, following)


def _signature(start: Any, inside: set, following: Any) -> tuple:
    """The segment's shape: per node in BFS order, its key and what each of its edges reaches."""
    number = {id(start): 0}
    order = [start]
    signature = []
    position = 0
    while position < len(order):
        node = order[position]
        position += 1
        edges = []
        for child, nr in node.edges:
            if child is None:
                edges.append(("none",))
            elif child is following:
                edges.append(("next", nr))
            elif id(child) in inside:
                if id(child) not in number:
                    number[id(child)] = len(order)
                    order.append(child)
                edges.append(("in", number[id(child)], nr))
            else:
                edges.append(("out", nr))
        signature.append((node.key, tuple(edges)))
    return tuple(signature)


def _match_last(start: Any, signature: tuple) -> tuple[list, Any] | None:
    """Whether the copy at ``start`` has the template's shape, its edges to "the next copy" all
    reaching one node outside the loop: (its nodes, that node), else None."""
    if start is None or start.key != signature[0][0]:
        return None
    mapped = [start]
    seen = {id(start): 0}
    continuation = None
    for position, (key, edges) in enumerate(signature):
        if position >= len(mapped):
            return None
        node = mapped[position]
        if node.key != key or len(node.edges) != len(edges):
            return None
        for (child, nr), expected in zip(node.edges, edges):
            kind = expected[0]
            if kind == "none":
                if child is not None:
                    return None
            elif child is None:
                return None
            elif kind == "next":
                if (continuation is not None and child is not continuation) or id(child) in seen:
                    return None
                continuation = child
            elif kind == "in":
                index = expected[1]
                if index == len(mapped) and id(child) not in seen:
                    seen[id(child)] = index
                    mapped.append(child)
                elif seen.get(id(child)) != index:
                    return None
            elif id(child) in seen:   # "out": anything outside the copy
                return None
    if continuation is None or len(mapped) != len(signature):
        return None
    # every node of the copy but its entry is reached from the copy alone (else it is drawn elsewhere)
    arrived: dict[int, int] = {}
    for node in mapped:
        for child in node.children:
            arrived[id(child)] = arrived.get(id(child), 0) + 1
    if any(arrived.get(id(n), 0) != n.parents for n in mapped[1:]):
        return None
    return mapped, continuation
