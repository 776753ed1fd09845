"""Lark's position bookkeeping (``propagate_positions=True``), without its cost on every reduction.

Python's grammar is a long chain of precedence rules, so the LALR parser reduces about eight
times per token; most of those reductions are inlined rules (``?rule``) handing their one child
up unchanged.  Lark then recomputes the child's positions from the child itself, which changes
nothing, and that was half the parse time.  Here such a pass-through is skipped; any other
reduction gets the positions Lark gives it: a node starts where its first child's container
starts and ends where its last child's container ends (a container: the text an inlined rule
covered, its parentheses included).

Imported with the parser only (grammar_loader), as Lark is.
"""

from __future__ import annotations

from typing import Any

from lark import Token, Tree
from lark.tree import Meta
from lark import parse_tree_builder


class PassThroughPositions(parse_tree_builder.PropagatePositions):
    """Lark's PropagatePositions, answering a single child handed up unchanged at once."""

    def __call__(self, children: list) -> Any:
        result = self.node_builder(children)
        if len(children) == 1 and result is children[0]:
            return result   # (its positions, and its container's, are already its own)
        if isinstance(result, Tree):
            node_filter = self.node_filter
            _place(result.meta, _first_meta(children, node_filter), _first_meta(reversed(children), node_filter))
        return result


def _first_meta(children: Any, node_filter: Any) -> Any:
    """The positions of the first child (in the order given) that has any."""
    for child in children:
        if node_filter is not None and not node_filter(child):
            continue
        if isinstance(child, Tree):
            meta = child.meta
            if not meta.empty:
                return meta
        elif isinstance(child, Token):
            return child
        elif hasattr(child, "__lark_meta__"):
            return child.__lark_meta__()
    return None


def _place(meta: Any, first: Any, last: Any) -> None:
    # A token has no container; the meta of a node placed here always has one.
    if first is not None:
        if first.__class__ is Meta and hasattr(first, "container_line"):
            line, column, start = first.container_line, first.container_column, first.container_start_pos
        else:
            line = getattr(first, "container_line", first.line)
            column = getattr(first, "container_column", first.column)
            start = getattr(first, "container_start_pos", first.start_pos)
        if not hasattr(meta, "line"):   # (set already: the rule was inlined into this node)
            meta.line, meta.column, meta.start_pos = line, column, start
            meta.empty = False
        meta.container_line, meta.container_column, meta.container_start_pos = line, column, start
    if last is not None:
        if last.__class__ is Meta and hasattr(last, "container_end_line"):
            line, column, end = last.container_end_line, last.container_end_column, last.container_end_pos
        else:
            line = getattr(last, "container_end_line", last.end_line)
            column = getattr(last, "container_end_column", last.end_column)
            end = getattr(last, "container_end_pos", last.end_pos)
        if not hasattr(meta, "end_line"):
            meta.end_line, meta.end_column, meta.end_pos = line, column, end
            meta.empty = False
        meta.container_end_line, meta.container_end_column, meta.container_end_pos = line, column, end


def install() -> None:
    """Make the parsers built from now on use PassThroughPositions."""
    parse_tree_builder.PropagatePositions = PassThroughPositions  # type: ignore[misc]
