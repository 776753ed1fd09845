"""Expressions -> closures ``frame -> value``, built once per node: the dispatch by node kind.

Every closure that can fail records its node's span on the exception
(``mark``: the innermost node wins), so a report can point at the exact
call, operator, subscript or attribute that failed.  Each kind of expression
is compiled by one of the classes combined here.
"""

from __future__ import annotations

from gradcli.lang.compiler.attributes_and_subscripts import AccessCompiler
from gradcli.lang.compiler.base import Evaluator
from gradcli.lang.compiler.calls import CallCompiler
from gradcli.lang.compiler.comprehensions import ComprehensionCompiler
from gradcli.lang.compiler.containers import ContainerCompiler
from gradcli.lang.compiler.literals import LiteralCompiler
from gradcli.lang.compiler.names import NameCompiler
from gradcli.lang.compiler.operators import BINARY_RULES, OperatorCompiler
from gradcli.lang.errors import ScriptTimeout, mark
from gradcli.lang.syntax_tree import Token, Tree


class ExpressionCompiler(LiteralCompiler, NameCompiler, ContainerCompiler, OperatorCompiler,
                         AccessCompiler, CallCompiler, ComprehensionCompiler):
    """All expressions: ``expr(node)`` hands a node to the ``e_<rule>`` method for its grammar rule."""

    def expr(self, node: Tree | Token) -> Evaluator:
        kind = node.data
        try:
            if kind in BINARY_RULES:
                return self._binary(node)
            method = getattr(self, "e_" + kind, None)
            if method is None:
                raise self.syntax_error(node, self._not_an_expression(kind))
            return method(node)
        except (RecursionError, MemoryError, KeyboardInterrupt, ScriptTimeout) as error:
            mark(error, self.span(node))   # the innermost expression it was compiling (first mark wins)
            raise

    @staticmethod
    def _not_an_expression(kind: str) -> str:
        if kind == "star_expr":
            return "can't use starred expression here"
        if kind == "slice":
            return "invalid syntax: a slice is only allowed inside [...]"
        return "invalid syntax"

