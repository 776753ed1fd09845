"""The parse tree the compiler reads: Lark's ``Tree``/``Token`` shapes in classes of gradcli's own.

Why not Lark's classes: importing Lark costs about 20 ms, an eighth of a run, and a script
whose tree is on disk (``tree_cache``) needs no parser.  If the tree were made of Lark's
objects, reading it back would import Lark all the same; made of these, a cached run never
loads Lark.  A fresh parse is converted once (``from_lark``: a few hundred nodes for a
typical script, well under a millisecond).

The classes keep the part of Lark's interface gradcli uses, with Lark's meaning: ``data``,
``children`` (``None`` for an absent optional part), ``meta`` with the positions of the
first and last token (``empty`` when the node holds none), ``iter_subtrees`` (bottom-up),
``iter_subtrees_topdown``, ``scan_values``; a ``Token`` is the ``str`` of its text with its
``type`` and positions, equal to a token of another type only if the types agree.  All three
pickle by their slots, so that loading a stored tree runs no Python code per node.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

__all__ = ["Meta", "Token", "Tree", "from_lark"]

_POSITIONS = ("line", "column", "start_pos", "end_line", "end_column", "end_pos")


class Meta:
    """Where a node is in the text; without positions (``empty``) when it holds no token."""

    __slots__ = ("empty", *_POSITIONS)

    def __init__(self) -> None:
        self.empty = True

    def __repr__(self) -> str:
        if self.empty:
            return "Meta(empty)"
        return f"Meta({self.line}:{self.column}-{self.end_line}:{self.end_column})"


class Token(str):
    """A terminal of the grammar: its text, its terminal name and where it is."""

    __slots__ = ("type", "value", *_POSITIONS)

    def __new__(cls, type: str, value: str, start_pos: int | None = None, line: int | None = None,
                column: int | None = None, end_line: int | None = None, end_column: int | None = None,
                end_pos: int | None = None) -> Token:
        token = super().__new__(cls, value)
        token.type = type
        token.value = value
        token.start_pos = start_pos
        token.line = line
        token.column = column
        token.end_line = end_line
        token.end_column = end_column
        token.end_pos = end_pos
        return token

    def __reduce__(self) -> tuple:
        return (Token, (self.type, self.value, self.start_pos, self.line, self.column, self.end_line,
                        self.end_column, self.end_pos))

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = str.__hash__


class Tree:
    """A rule's node: ``data`` is the rule's name, ``children`` its trees, tokens and ``None`` s."""

    __slots__ = ("data", "children", "_meta")

    def __init__(self, data: str, children: list, meta: Meta | None = None) -> None:
        self.data = data
        self.children = children
        self._meta = meta

    @property
    def meta(self) -> Meta:
        if self._meta is None:
            self._meta = Meta()
        return self._meta

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return self.data == other.data and self.children == other.children

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((self.data, tuple(self.children)))

    def iter_subtrees(self) -> Iterator[Tree]:
        """Every subtree once, children before their parent, earlier siblings first."""
        # Visiting parents before children, later siblings first, then reversing the whole list,
        # yields each child before its parent and the first child's subtrees first.
        order = [self]
        for node in order:
            order.extend(child for child in reversed(node.children) if isinstance(child, Tree))
        return reversed(order)

    def iter_subtrees_topdown(self) -> Iterator[Tree]:
        """Every subtree, each parent before its children, in the order of the text."""
        stack: list[Any] = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, Tree):
                yield node
                stack.extend(reversed(node.children))

    def scan_values(self, pred: Callable[[Any], bool]) -> Iterator[Any]:
        """The leaves (tokens and ``None`` s) for which ``pred`` holds, in the order of the text."""
        stack = list(reversed(self.children))
        while stack:
            item = stack.pop()
            if isinstance(item, Tree):
                stack.extend(reversed(item.children))
            elif pred(item):
                yield item

    def pretty(self, indent: str = "  ") -> str:
        """The tree as indented text, one node or token a line (for debugging)."""
        lines: list[str] = []
        stack: list[tuple[Any, int]] = [(self, 0)]
        while stack:
            node, depth = stack.pop()
            if isinstance(node, Tree):
                lines.append(f"{indent * depth}{node.data}")
                stack.extend((child, depth + 1) for child in reversed(node.children))
            else:
                lines.append(f"{indent * depth}{node!r}")
        return "\n".join(lines) + "\n"


def from_lark(root: Any) -> Tree:
    """The same tree as Lark's ``root``, made of this module's classes (iteratively: a deeply
    nested expression must not hit the recursion limit here)."""
    from lark import Token as LarkToken
    from lark import Tree as LarkTree

    top = Tree(str(root.data), [], _meta(root.meta))
    pending = [(root, top)]
    while pending:
        source, copy = pending.pop()
        children = copy.children
        for child in source.children:
            if isinstance(child, LarkTree):
                subtree = Tree(str(child.data), [], _meta(child.meta))
                pending.append((child, subtree))
                children.append(subtree)
            elif isinstance(child, LarkToken):
                children.append(Token(child.type, child.value, child.start_pos, child.line, child.column,
                                      child.end_line, child.end_column, child.end_pos))
            else:
                children.append(child)
    return top


def _meta(source: Any) -> Meta:
    meta = Meta()
    if not source.empty:
        meta.empty = False
        for name in _POSITIONS:
            value = getattr(source, name, meta)
            if value is not meta:
                setattr(meta, name, value)
    return meta
