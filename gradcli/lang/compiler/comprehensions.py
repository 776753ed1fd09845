"""Expressions with a scope of their own: comprehensions, generator expressions and ``lambda``."""

from __future__ import annotations

from typing import Any

from gradcli.lang.compiler.base import CompilerBase, Evaluator
from gradcli.lang.compiler.scopes import Scope, target_names
from gradcli.lang.errors import mark
from gradcli.lang.functions import Frame
from gradcli.lang.syntax_tree import Tree


class ComprehensionCompiler(CompilerBase):
    def e_lambdef(self, node: Tree) -> Evaluator:
        parameters, body = node.children
        return self.function_maker("<lambda>", parameters, body, self.span(node), is_lambda=True)

    def e_list_comp(self, node: Tree) -> Evaluator:
        return self._comprehension(node.children[0], "list")

    def e_set_comp(self, node: Tree) -> Evaluator:
        return self._comprehension(node.children[0], "set")

    def e_generator(self, node: Tree) -> Evaluator:
        return self._comprehension(node.children[0], "generator")

    def e_dict_comp(self, node: Tree) -> Evaluator:
        return self._comprehension(node, "dict")

    def _comprehension(self, node: Tree, kind: str) -> Evaluator:
        """Comprehensions run in a scope of their own; the first iterable in the enclosing one."""
        element_node, *loops = node.children
        if isinstance(element_node, Tree) and element_node.data == "star_expr":
            raise self.syntax_error(element_node, "iterable unpacking cannot be used in comprehension")
        first_iterable = self.expr(loops[0].children[1])
        bound: set[str] = set()
        for loop in loops:
            bound |= target_names(loop.children[0])
        outer_scope = self.scope
        bound = self.mangle_all(bound)
        self.scope = Scope("comprehension", outer_scope, bound)
        self.scope.order = (".0",) + tuple(sorted(bound))
        try:
            levels = []
            for index, loop in enumerate(loops):
                target = self.store_target(loop.children[0])
                iterable = None if index == 0 else self.expr(loop.children[1])
                conditions = tuple(self.expr(condition.children[0]) for condition in loop.children[2:])
                levels.append((target, iterable, conditions))
            if kind == "dict":
                key = self.expr(element_node.children[0])
                value = self.expr(element_node.children[1])

                def element(frame: Frame) -> Any:
                    return (key(frame), value(frame))
            else:
                element = self.expr(element_node)
        finally:
            self.scope = outer_scope
        produce = _comprehension_generator(levels, element)
        span = self.span(node)
        first_span = self.span(loops[0].children[1])
        builder = {"list": list, "set": set, "dict": dict}.get(kind)

        def comprehension(frame: Frame) -> Any:
            try:
                iterator = iter(first_iterable(frame))
            except BaseException as error:
                mark(error, first_span)
                raise
            results = produce(Frame({}, frame), iterator)
            if builder is None:
                return results
            try:
                return builder(results)
            except BaseException as error:
                mark(error, span)
                raise
        return comprehension


def _comprehension_generator(levels: list, element: Evaluator):
    """Nested loops of a comprehension as one generator: ``produce(frame, first_iterator)``."""
    def loop(level: int, frame: Frame, iterator):
        target, _, conditions = levels[level]
        last = level == len(levels) - 1
        for item in iterator:
            target(frame, item)
            if conditions and not all(condition(frame) for condition in conditions):
                continue
            if last:
                yield element(frame)
            else:
                yield from loop(level + 1, frame, iter(levels[level + 1][1](frame)))

    # what a script sees when it prints a generator expression
    loop.__name__ = loop.__qualname__ = "<genexpr>"

    def produce(frame: Frame, iterator):
        return loop(0, frame, iterator)
    return produce
