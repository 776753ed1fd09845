"""Tuple, list, set and dict displays, with ``*`` and ``**`` unpacking; all-constant tuples fold."""

from __future__ import annotations

from typing import Any

from lark import Tree

from gradcli.lang.compiler.base import CompilerBase, Evaluator
from gradcli.lang.compiler.literals import constant
from gradcli.lang.errors import mark
from gradcli.lang.functions import Frame


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
                items: list = []
                try:
                    for evaluate, is_star in pairs:
                        if is_star:
                            items.extend(evaluate(frame))
                        else:
                            items.append(evaluate(frame))
                except BaseException as error:
                    mark(error, span)
                    raise
                return items if build is list else build(items)
            return with_star
        if build is tuple and all(hasattr(e, "constant") for e in evaluators):
            return constant(tuple(e.constant for e in evaluators))
        items = tuple(evaluators)
        if build is list:
            def make_list(frame: Frame) -> list:
                return [evaluate(frame) for evaluate in items]
            return make_list
        if build is tuple:
            if len(items) == 2:
                first, second = items

                def make_pair(frame: Frame) -> tuple:
                    return (first(frame), second(frame))
                return make_pair

            def make_tuple(frame: Frame) -> tuple:
                return tuple([evaluate(frame) for evaluate in items])
            return make_tuple

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
