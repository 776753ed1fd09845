"""Operators: arithmetic and bitwise, unary, ``not``/``and``/``or``, comparisons, ``a if c else b``.

The operators are Python's own (``operator.add`` ...), so Python's error
messages come for free.  Arithmetic on number literals is done once, at compile time, where
CPython's compiler does it (``2 ** 10``, ``1 / 3``, ``-1``): the values are the same either way,
and what would fail or make a huge number is left to run time, as CPython leaves it.
"""

from __future__ import annotations

import operator
from typing import Any

from gradcli.lang import sizes
from gradcli.lang.compiler.base import CompilerBase, Evaluator, described
from gradcli.lang.compiler.literals import constant
from gradcli.lang.errors import mark
from gradcli.lang.functions import Frame
from gradcli.lang.syntax_tree import Token, Tree

# (``*``, ``**`` and ``<<`` check the size of what they make first: gradcli.lang.sizes)
BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": sizes.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "@": operator.matmul, "**": sizes.power,
    "|": operator.or_, "^": operator.xor, "&": operator.and_, "<<": sizes.lshift,
    ">>": operator.rshift,
}
UNARY_OPERATORS = {"-": operator.neg, "+": operator.pos, "~": operator.invert}


def _contains_not(a: Any, b: Any) -> bool:
    return a not in b


def _contains(a: Any, b: Any) -> bool:
    return a in b


COMPARISONS = {
    "<": operator.lt, ">": operator.gt, "==": operator.eq, ">=": operator.ge, "<=": operator.le,
    "!=": operator.ne, "in": _contains, "notin": _contains_not, "is": operator.is_,
    "isnot": operator.is_not,
}

_ARITHMETIC = frozenset(BINARY_OPERATORS.values())

# Grammar rules whose children alternate operand, operator, operand, ...
BINARY_RULES = {"expr", "xor_expr", "and_expr", "shift_expr", "arith_expr", "term"}

_NUMBER_TYPES = frozenset({int, float, complex, bool})
_UNFOLDED = object()
_MAX_FOLDED_INT_BITS = 128   # CPython's MAX_INT_SIZE (Python/ast_opt.c)


def folded(function: Any, left: Any, right: Any) -> Any:
    """``function(left, right)`` for two number literals where CPython's compiler folds them
    (ast_opt.c: not ``@``, no int of more than 128 bits made by ``*``, ``**`` or ``<<``, nothing
    that raises), else _UNFOLDED."""
    if type(left) not in _NUMBER_TYPES or type(right) not in _NUMBER_TYPES or function is operator.matmul:
        return _UNFOLDED
    if type(left) in (int, bool) and type(right) in (int, bool) and left and right:
        bits = left.bit_length()
        if function is sizes.mul and bits + right.bit_length() > _MAX_FOLDED_INT_BITS:
            return _UNFOLDED
        if function is sizes.power and right > 0 and bits > _MAX_FOLDED_INT_BITS // right:
            return _UNFOLDED
        if function is sizes.lshift and (right < 0 or right > _MAX_FOLDED_INT_BITS
                                            or bits > _MAX_FOLDED_INT_BITS - right):
            return _UNFOLDED
    try:
        return function(left, right)
    except Exception:
        return _UNFOLDED


class OperatorCompiler(CompilerBase):
    def _binary(self, node: Tree) -> Evaluator:
        children = node.children
        result = self.expr(children[0])
        start = children[0]
        for index in range(1, len(children), 2):
            operator_token, right_node = children[index], children[index + 1]
            right = self.expr(right_node)
            span = self._span_between(start, right_node)
            result = self._binary_closure(BINARY_OPERATORS[str(operator_token)], result, right, span)
        return result

    def _span_between(self, first: Tree | Token, last: Tree | Token):
        begin, end = self.span(first), self.span(last)
        begin.end_line, begin.end_column = end.end_line, end.end_column
        return begin

    @staticmethod
    def _binary_closure(function, left: Evaluator, right: Evaluator, span) -> Evaluator:
        if hasattr(left, "constant") and hasattr(right, "constant") and function in _ARITHMETIC:
            value = folded(function, left.constant, right.constant)
            if value is not _UNFOLDED:
                return constant(value)

        def binary(frame: Frame) -> Any:
            try:
                return function(left(frame), right(frame))
            except BaseException as error:
                mark(error, span)
                raise
        return described(binary, "binary", function, left, right, span)

    def e_power(self, node: Tree) -> Evaluator:
        base, exponent = node.children
        return self._binary_closure(sizes.power, self.expr(base), self.expr(exponent), self.span(node))

    def e_factor(self, node: Tree) -> Evaluator:
        operator_token, operand_node = node.children
        function = UNARY_OPERATORS[str(operator_token)]
        operand = self.expr(operand_node)
        span = self.span(node)
        if hasattr(operand, "constant") and isinstance(operand.constant, (int, float)) and not (
                function is operator.invert and isinstance(operand.constant, float)):
            return constant(function(operand.constant))   # (CPython folds what cannot raise: not ~0.5)

        def unary(frame: Frame) -> Any:
            try:
                return function(operand(frame))
            except BaseException as error:
                mark(error, span)
                raise
        return described(unary, "unary", function, operand, span)

    def e_not_expr(self, node: Tree) -> Evaluator:
        operand = self.expr(node.children[0])
        span = self.span(node)

        def negation(frame: Frame) -> bool:
            try:
                return not operand(frame)
            except BaseException as error:
                mark(error, span)
                raise
        return described(negation, "not", operand, span)

    def e_and_test(self, node: Tree) -> Evaluator:
        operands = tuple(self.expr(child) for child in node.children)
        *leading, last = operands
        span = self.span(node)

        def conjunction(frame: Frame) -> Any:
            try:
                for evaluate in leading:
                    value = evaluate(frame)
                    if not value:
                        return value
                return last(frame)
            except BaseException as error:
                mark(error, span)
                raise
        return described(conjunction, "and", operands, span)

    def e_or_test(self, node: Tree) -> Evaluator:
        operands = tuple(self.expr(child) for child in node.children)
        *leading, last = operands
        span = self.span(node)

        def disjunction(frame: Frame) -> Any:
            try:
                for evaluate in leading:
                    value = evaluate(frame)
                    if value:
                        return value
                return last(frame)
            except BaseException as error:
                mark(error, span)
                raise
        return described(disjunction, "or", operands, span)

    def e_comparison(self, node: Tree) -> Evaluator:
        children = node.children
        first = self.expr(children[0])
        steps = []
        for index in range(1, len(children), 2):
            op_name = "".join(str(token) for token in children[index].children)
            steps.append((COMPARISONS[op_name], self.expr(children[index + 1])))
        span = self.span(node)
        if len(steps) == 1:
            (function, second), = steps
            return self._binary_closure(function, first, second, span)
        steps_tuple = tuple(steps)

        def chain(frame: Frame) -> Any:
            try:
                left = first(frame)
                result = True
                for function, evaluate in steps_tuple:
                    right = evaluate(frame)
                    result = function(left, right)
                    if not result:
                        return result
                    left = right
                return result
            except BaseException as error:
                mark(error, span)
                raise
        return described(chain, "chain", first, steps_tuple, span)

    def e_conditional(self, node: Tree) -> Evaluator:
        body, test, orelse = (self.expr(child) for child in node.children)
        span = self.span(node.children[1])

        def choose(frame: Frame) -> Any:
            try:
                chosen = body if test(frame) else orelse
            except BaseException as error:
                mark(error, span)
                raise
            return chosen(frame)
        return described(choose, "conditional", body, test, orelse, span)
