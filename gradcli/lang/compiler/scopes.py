"""Python's scoping rules, decided once at compile time.

A name used in a function is local if the function binds it anywhere (an
assignment, a ``for`` target, a parameter, a ``def``, an import), global if
declared ``global`` or bound nowhere up the chain of enclosing functions,
and otherwise a free variable of the nearest enclosing function that binds
it.  Comprehensions and lambdas are scopes of their own, as in Python 3.

A class body is a scope too, but its names are seen only by the body itself:
a name it binds is read from the class namespace, then the globals and the
builtins (Python's LOAD_NAME); functions defined inside it skip it when they
look for free variables, as in Python.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal

from gradcli.lang.syntax_tree import Token, Tree

ScopeKind = Literal["module", "function", "comprehension", "class"]

# Nodes that open a scope of their own: nothing inside them binds in ours.
_NESTED_SCOPES = {"lambdef", "list_comp", "set_comp", "dict_comp", "generator", "generator_argument"}


class Scope:
    def __init__(self, kind: ScopeKind, parent: Scope | None, bound: Iterable[str] = (),
                 declared_global: Iterable[str] = (), declared_nonlocal: Iterable[str] = ()) -> None:
        self.kind = kind
        self.parent = parent
        self.declared_global = set(declared_global)
        self.declared_nonlocal = set(declared_nonlocal)
        self.bound = set(bound) - self.declared_global - self.declared_nonlocal
        self.order: tuple[str, ...] = ()    # parameters first, then locals as they first appear
        # or a function giving that order, asked only for a suggestion (a scan of the body for
        # every function would be quadratic in how deeply functions nest)
        self.order_of: Any = None
        self.signature = None   # a function's parameters (a zero-argument super() reads the first)

    def local_names(self) -> tuple[str, ...]:
        """The frame's local variable names in CPython's order (co_varnames), for suggestions."""
        if self.kind == "module":
            return ()
        if self.order_of is not None:
            self.order, self.order_of = self.order_of(), None
        listed = [name for name in self.order if name in self.bound]
        seen = set(listed)
        return tuple(listed + sorted(self.bound - seen))

    def resolve(self, name: str) -> tuple[str, int]:
        """("global", 0), ("local", 0), ("class", 0) (a name of the class body being run) or
        ("free", frames up)."""
        if self.kind == "module" or name in self.declared_global:
            return ("global", 0)
        if name in self.bound:
            return ("class", 0) if self.kind == "class" else ("local", 0)
        depth, scope = 1, self.parent
        while scope is not None and scope.kind != "module":
            if scope.kind != "class":
                if name in scope.declared_global:
                    return ("global", 0)
                if name in scope.bound:
                    return ("free", depth)
            depth, scope = depth + 1, scope.parent
        return ("global", 0)

    def has_enclosing_binding(self, name: str) -> bool:
        scope = self.parent
        while scope is not None and scope.kind != "module":
            if scope.kind != "class" and name in scope.bound:
                return True
            scope = scope.parent
        return False

    def enclosing_class(self) -> tuple[Scope | None, int]:
        """The class body this function is (directly or through other functions) defined in,
        and how many frames up its frame is: what a zero-argument ``super()`` needs."""
        depth, scope = 1, self.parent
        while scope is not None and scope.kind != "module":
            if scope.kind == "class":
                return scope, depth
            depth, scope = depth + 1, scope.parent
        return None, 0


def bindings(statements: Iterable[Tree]) -> tuple[set[str], set[str], set[str]]:
    """(bound names, ``global`` names, ``nonlocal`` names) of a function body."""
    bound: set[str] = set()
    globals_: set[str] = set()
    nonlocals: set[str] = set()
    stack = [node for node in statements if isinstance(node, Tree)]
    while stack:
        node = stack.pop()
        kind = node.data
        if kind in _NESTED_SCOPES:
            continue
        if kind == "assign_stmt":
            for target in node.children[:-1]:
                bound.update(target_names(target))
            continue
        if kind in ("aug_assign_stmt",):
            bound.update(target_names(node.children[0]))
            continue
        if kind == "ann_assign_stmt":   # `x: int` makes x local even without a value
            if node.children[0].data == "name":
                bound.add(str(node.children[0].children[0]))
            continue
        if kind == "for_stmt":
            bound.update(target_names(node.children[0]))
            stack.extend(child for child in node.children[2:] if isinstance(child, Tree))
            continue
        if kind == "with_item":
            if node.children[1] is not None:
                bound.update(target_names(node.children[1]))
            continue
        if kind == "del_stmt":
            bound.update(target_names(node.children[0]))
            continue
        if kind in ("funcdef", "classdef"):   # a class body binds in a scope of its own
            bound.add(str(node.children[0]))
            continue
        if kind == "except_clause":
            if node.children[1] is not None:
                bound.add(str(node.children[1]))
            stack.extend(child for child in node.children if isinstance(child, Tree))
            continue
        if kind == "dotted_as_name":
            dotted, alias = node.children
            bound.add(str(alias) if alias is not None else str(dotted.children[0]))
            continue
        if kind == "import_as_name":
            name, alias = node.children
            bound.add(str(alias if alias is not None else name))
            continue
        if kind == "global_stmt":
            globals_.update(str(token) for token in node.children)
            continue
        if kind == "nonlocal_stmt":
            nonlocals.update(str(token) for token in node.children)
            continue
        stack.extend(child for child in node.children if isinstance(child, Tree))
    return bound, globals_, nonlocals


def target_names(target: Tree | Token | None) -> set[str]:
    """Names a target binds: ``a``, ``a, (b, c)``, ``*rest``; none for ``x.attr`` or ``x[i]``."""
    names: set[str] = set()
    stack = [target]
    while stack:
        node = stack.pop()
        if not isinstance(node, Tree):
            continue
        if node.data == "name":
            names.add(str(node.children[0]))
        elif node.data in ("tuple", "list", "star_expr"):
            stack.extend(node.children)
    return names
