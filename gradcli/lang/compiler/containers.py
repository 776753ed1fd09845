"""Tuple, list, set and dict displays, with ``*`` and ``**`` unpacking; all-constant tuples fold."""

from __future__ import annotations

from typing import Any

from gradcli.lang.compiler.base import CompilerBase, Evaluator, described
from gradcli.lang.compiler.literals import constant
from gradcli.lang.errors import ScriptTypeError, mark
from gradcli.lang.functions import Frame
from gradcli.lang.nesting import check_tuple
from gradcli.lang.syntax_tree import Tree



def checked(items: tuple, span: Any) -> tuple:
    """``items``, a tuple display's value, once nesting.check_tuple has let it through."""
    try:
        return check_tuple(items)
    except RecursionError as error:
        mark(error, span)
        raise


def spread(pairs: tuple, frame: Frame, star_message: bool = True) -> list:
    """The values of ``(evaluator, starred)`` pairs in order, a starred one's items spread out
    (``a, *b`` in a display, a subscript or a class's bases).  A starred value that is not
    iterable gets Python's "Value after * must be an iterable" (a set display keeps the plain
    "'int' object is not iterable", as CPython's does)."""
    items: list = []
    for evaluate, starred in pairs:
        if not starred:
            items.append(evaluate(frame))
            continue
        value = evaluate(frame)
        try:
            items.extend(value)
        except TypeError:
            if not star_message or hasattr(type(value), "__iter__"):
                raise
            raise ScriptTypeError(f"Value after * must be an iterable, not {type(value).__name__}") from None
    return items

class ContainerCompiler(CompilerBase):
    def _items(self, children: list) -> tuple[list[Evaluator], list[bool]]:
        evaluators, starred = [], []
        for child in children:
            if child is None:
                continue
            if isinstance(child, Tree) and child.data == "star_expr":
                evaluators.append(self.expr(child.children[0]))
                starred.append(True)
            else:
                evaluators.append(self.expr(child))
                starred.append(False)
        return evaluators, starred

    def _sequence(self, node: Tree, build: type) -> Evaluator:
        evaluators, starred = self._items(node.children)
        span = self.span(node)
        if any(starred):
            pairs = tuple(zip(evaluators, starred))

            def with_star(frame: Frame) -> Any:
                try:
                    items = spread(pairs, frame, build is not set)
                except BaseException as error:
                    mark(error, span)
                    raise
                if build is list:
                    return items
                return checked(tuple(items), span) if build is tuple else build(items)
            return with_star
        if build is tuple and all(hasattr(e, "constant") for e in evaluators):
            return constant(tuple(e.constant for e in evaluators))
        items = tuple(evaluators)
        if build is list:
            def make_list(frame: Frame) -> list:
                return [evaluate(frame) for evaluate in items]
            return described(make_list, "list", items)
        if build is tuple:
            if len(items) == 2:
                first, second = items

                def make_pair(frame: Frame) -> tuple:
                    pair = (first(frame), second(frame))
                    if pair[0].__class__ is tuple or pair[1].__class__ is tuple:
                        checked(pair, span)  # (nesting.py: hashing a deep tuple overflows the C stack)
                    return pair
                return described(make_pair, "tuple", items, span)

            def make_tuple(frame: Frame) -> tuple:
                return checked(tuple([evaluate(frame) for evaluate in items]), span)
            return described(make_tuple, "tuple", items, span)

        def make_set(frame: Frame) -> set:
            try:
                return {evaluate(frame) for evaluate in items}
            except BaseException as error:
                mark(error, span)
                raise
        return make_set

    def e_tuple(self, node: Tree) -> Evaluator:
        return self._sequence(node, tuple)

    def e_empty_tuple(self, node: Tree) -> Evaluator:
        return constant(())

    def e_list(self, node: Tree) -> Evaluator:
        return self._sequence(node, list)

    def e_set(self, node: Tree) -> Evaluator:
        return self._sequence(node, set)

    def e_dict(self, node: Tree) -> Evaluator:
        entries = []
        for child in node.children:
            if child.data == "dict_unpack":
                entries.append((None, self.expr(child.children[0])))
            else:
                entries.append((self.expr(child.children[0]), self.expr(child.children[1])))
        entries_tuple = tuple(entries)
        span = self.span(node)

        def make_dict(frame: Frame) -> dict:
            result: dict = {}
            try:
                for key, value in entries_tuple:
                    if key is None:
                        result.update(value(frame))
                    else:
                        result[key(frame)] = value(frame)
            except BaseException as error:
                mark(error, span)
                raise
            return result
        return make_dict
