"""Expressions -> closures ``frame -> value``, built once per node.

Every closure that can fail records its node's span on the exception
(``mark``: the innermost node wins), so a report can point at the exact
call, operator, subscript or attribute that failed.  Operators are Python's
own (``operator.add`` ...), so Python's error messages come for free.
"""

from __future__ import annotations

import operator
from typing import Any

from lark import Token, Tree

from gradcli.lang.compiler.base import CompilerBase, Evaluator
from gradcli.lang.compiler.scopes import Scope, target_names
from gradcli.lang.errors import (ScriptNameError, ScriptNotImplementedError, ScriptSyntaxError,
                                 ScriptTypeError, ScriptUnboundLocalError, Span, mark, mark_call)
from gradcli.lang.fstrings import Field, FStringError, parse_fstring, split_literal, unescape
from gradcli.lang.functions import EMPTY_KWARGS, Frame, UserFunction
from gradcli.lang.safety import READABLE_CACHE, get_attribute, is_dunder
from gradcli.lang.syntax import parse

BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "@": operator.matmul, "**": operator.pow,
    "|": operator.or_, "^": operator.xor, "&": operator.and_, "<<": operator.lshift,
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
_BINARY_RULES = {"expr", "xor_expr", "and_expr", "shift_expr", "arith_expr", "term"}


def constant(value: Any) -> Evaluator:
    def evaluate(frame: Frame) -> Any:
        return value
    evaluate.constant = value  # type: ignore[attr-defined]  # lets containers fold constants
    return evaluate


class ExpressionCompiler(CompilerBase):
    def expr(self, node: Tree | Token) -> Evaluator:
        kind = node.data
        if kind in _BINARY_RULES:
            return self._binary(node)
        method = getattr(self, "e_" + kind, None)
        if method is None:
            raise self.syntax_error(node, self._not_an_expression(kind))
        return method(node)

    @staticmethod
    def _not_an_expression(kind: str) -> str:
        if kind == "star_expr":
            return "can't use starred expression here"
        if kind == "slice":
            return "invalid syntax: a slice is only allowed inside [...]"
        return "invalid syntax"

    # ------------------------------------------------------------ atoms
    def e_number(self, node: Tree) -> Evaluator:
        token = node.children[0]
        text = str(token)
        value = float(text) if token.type == "FLOAT_NUMBER" else int(text, 0)
        return constant(value)

    def e_const_none(self, node: Tree) -> Evaluator:
        return constant(None)

    def e_const_true(self, node: Tree) -> Evaluator:
        return constant(True)

    def e_const_false(self, node: Tree) -> Evaluator:
        return constant(False)

    def e_ellipsis(self, node: Tree) -> Evaluator:
        return constant(Ellipsis)

    def e_strings(self, node: Tree) -> Evaluator:
        pieces: list = []     # str constants and evaluators
        for token in node.children:
            body, prefix, raw = split_literal(str(token))
            if "f" in prefix:
                pieces.extend(self._fstring(token))
            else:
                pieces.append(body if raw else unescape(body))
        if all(isinstance(piece, str) for piece in pieces):
            return constant("".join(pieces))
        if len(pieces) == 1:
            return pieces[0]
        parts = tuple(pieces)

        def joined(frame: Frame) -> str:
            return "".join([part if part.__class__ is str else part(frame) for part in parts])
        return joined

    def e_name(self, node: Tree) -> Evaluator:
        name = str(node.children[0])
        return self.load_name(name, self.span(node))

    def load_name(self, name: str, span) -> Evaluator:  # noqa: C901 - one closure per scope kind
        where, depth = self.scope.resolve(name)
        if where == "global":
            variables = self.context.globals
            builtins = self.context.builtins

            def load_global(frame: Frame) -> Any:
                try:
                    return variables[name]
                except KeyError:
                    pass
                try:
                    return builtins[name]
                except KeyError:
                    error = missing_global(name)
                    mark(error, span)
                    raise error from None
            return load_global
        if where == "local":
            def load_local(frame: Frame) -> Any:
                try:
                    return frame.vars[name]
                except KeyError:
                    error = ScriptUnboundLocalError(
                        f"cannot access local variable '{name}' where it is not associated with a value")
                    mark(error, span)
                    raise error from None
            return load_local

        def load_free(frame: Frame) -> Any:
            for _ in range(depth):
                frame = frame.parent
            try:
                return frame.vars[name]
            except KeyError:
                error = ScriptNameError(f"cannot access free variable '{name}' where it is not "
                                        "associated with a value in enclosing scope")
                mark(error, span)
                raise error from None
        return load_free

    # ------------------------------------------------------------ containers
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

    # ------------------------------------------------------------ operators
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
        def binary(frame: Frame) -> Any:
            try:
                return function(left(frame), right(frame))
            except BaseException as error:
                mark(error, span)
                raise
        return binary

    def e_power(self, node: Tree) -> Evaluator:
        base, exponent = node.children
        return self._binary_closure(operator.pow, self.expr(base), self.expr(exponent), self.span(node))

    def e_factor(self, node: Tree) -> Evaluator:
        operator_token, operand_node = node.children
        function = UNARY_OPERATORS[str(operator_token)]
        operand = self.expr(operand_node)
        span = self.span(node)
        if hasattr(operand, "constant") and isinstance(operand.constant, (int, float)):
            return constant(function(operand.constant))

        def unary(frame: Frame) -> Any:
            try:
                return function(operand(frame))
            except BaseException as error:
                mark(error, span)
                raise
        return unary

    def e_not_expr(self, node: Tree) -> Evaluator:
        operand = self.expr(node.children[0])
        span = self.span(node)

        def negation(frame: Frame) -> bool:
            try:
                return not operand(frame)
            except BaseException as error:
                mark(error, span)
                raise
        return negation

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
        return conjunction

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
        return disjunction

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
        return chain

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
        return choose

    # ------------------------------------------------------------ access
    def e_attribute(self, node: Tree) -> Evaluator:
        value_node, name_token = node.children
        value = self.expr(value_node)
        name = str(name_token)
        span = self.span(node)
        if is_dunder(name) or name == "format":
            def checked_attribute(frame: Frame) -> Any:
                try:
                    return get_attribute(value(frame), name)
                except BaseException as error:
                    mark(error, span)
                    raise
            return checked_attribute
        readable = READABLE_CACHE

        def attribute(frame: Frame) -> Any:
            try:
                obj = value(frame)
                # fast path: a whitelisted attribute of an instance whose type was seen before
                allowed = readable.get(obj.__class__)
                if allowed is not None and name in allowed:
                    return getattr(obj, name)
                return get_attribute(obj, name)
            except BaseException as error:
                mark(error, span)
                raise
        return attribute

    def e_subscript(self, node: Tree) -> Evaluator:
        value_node, key_node = node.children
        value = self.expr(value_node)
        key = self.subscript_key(key_node)
        span = self.span(node)

        def subscript(frame: Frame) -> Any:
            try:
                return value(frame)[key(frame)]
            except BaseException as error:
                mark(error, span)
                raise
        return subscript

    def subscript_key(self, node: Tree) -> Evaluator:
        if node.data == "slice":
            return self._slice(node)
        if node.data == "subscript_tuple":
            evaluators, starred = [], []
            for child in node.children:
                if child is None:
                    continue
                is_star = child.data == "star_expr"
                if is_star:
                    evaluators.append(self.expr(child.children[0]))
                else:
                    evaluators.append(self._slice(child) if child.data == "slice" else self.expr(child))
                starred.append(is_star)
            if not any(starred) and all(hasattr(e, "constant") for e in evaluators):
                return constant(tuple(e.constant for e in evaluators))
            pairs = tuple(zip(evaluators, starred))

            def key_tuple(frame: Frame) -> tuple:
                key: list = []
                for evaluate, is_star in pairs:
                    if is_star:
                        key.extend(evaluate(frame))
                    else:
                        key.append(evaluate(frame))
                return tuple(key)
            return key_tuple
        return self.expr(node)

    def _slice(self, node: Tree) -> Evaluator:
        parts = [self.expr(child) if child is not None else constant(None) for child in node.children]
        if all(hasattr(part, "constant") for part in parts):
            return constant(slice(*(part.constant for part in parts)))
        start, stop, step = parts

        def make_slice(frame: Frame) -> slice:
            return slice(start(frame), stop(frame), step(frame))
        return make_slice

    # ------------------------------------------------------------ calls
    def e_call(self, node: Tree) -> Evaluator:
        callee_node, arguments = node.children
        callee = self.expr(callee_node)
        span = self.span(node)
        positional, keywords, has_star = self._arguments(arguments)
        if not has_star and not keywords:
            return _positional_call(callee, tuple(positional), span)
        return _general_call(callee, positional, has_star, keywords, span)

    def _arguments(self, node: Tree | None) -> tuple[list, list, bool]:
        """(positional, keywords, has_star) after Python's syntax checks.

        Positional entries are evaluators, or (evaluator, is_starred) pairs when
        a ``*args`` is present; keyword entries are (name, evaluator), with name
        None for ``**kwargs``.
        """
        if node is None:
            return [], [], False
        if node.data == "generator_argument":
            return [self._comprehension(node, "generator")], [], False
        positional: list = []
        keywords: list = []
        has_star = False
        seen_keywords: set[str] = set()
        seen_double_star = False
        for child in node.children:
            if child is None:
                continue
            kind = child.data if isinstance(child, Tree) else None
            if kind == "keyword_argument":
                target, value = child.children
                if not (isinstance(target, Tree) and target.data == "name"):
                    raise self.syntax_error(target, 'expression cannot contain assignment, perhaps you meant "=="?')
                name = str(target.children[0])
                if name in seen_keywords:
                    raise self.syntax_error(target, f"keyword argument repeated: {name}")
                seen_keywords.add(name)
                keywords.append((name, self.expr(value)))
            elif kind == "double_star_argument":
                seen_double_star = True
                keywords.append((None, self.expr(child.children[0])))
            elif kind == "star_argument":
                if seen_double_star:
                    raise self.syntax_error(child, "iterable argument unpacking follows keyword argument unpacking")
                has_star = True
                positional.append((self.expr(child.children[0]), True))
            else:
                if seen_double_star:
                    raise self.syntax_error(child, "positional argument follows keyword argument unpacking")
                if keywords:
                    raise self.syntax_error(child, "positional argument follows keyword argument")
                positional.append((self.expr(child), False))
        if not has_star:
            positional = [evaluate for evaluate, _ in positional]
        return positional, keywords, has_star

    # ------------------------------------------------------------ functions and comprehensions
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
        first_iterable = self.expr(loops[0].children[1])
        bound: set[str] = set()
        for loop in loops:
            bound |= target_names(loop.children[0])
        outer_scope = self.scope
        self.scope = Scope("comprehension", outer_scope, bound)
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

    # ------------------------------------------------------------ f-strings
    def _fstring(self, token: Token) -> list:
        text = str(token)
        body, prefix, raw = split_literal(text)
        quote_length = (len(text) - len(prefix) - len(body)) // 2
        offset = len(prefix) + quote_length   # where the body starts in the token
        try:
            parts = parse_fstring(body, raw)
        except FStringError as error:
            line, column = self._position_in_token(token, offset + error.offset)
            raise ScriptSyntaxError(str(error), line, column) from None
        return [self._fstring_part(part, token, offset) for part in parts]

    def _fstring_part(self, part: str | Field, token: Token, offset: int):
        if isinstance(part, str):
            return part
        line, column = self._position_in_token(token, offset + part.offset)
        expression = self._field_expression(part.expression, line, column)
        spec = None
        if part.spec is not None:
            spec_parts = [self._fstring_part(piece, token, offset) for piece in part.spec]
            if all(isinstance(piece, str) for piece in spec_parts):
                spec = constant("".join(spec_parts))
            else:
                spec_tuple = tuple(spec_parts)

                def spec(frame: Frame) -> str:
                    return "".join([p if p.__class__ is str else p(frame) for p in spec_tuple])
        conversion = {"r": repr, "s": str, "a": ascii}.get(part.conversion or "")
        prefix = part.self_documenting
        if prefix is not None and conversion is None and spec is None:
            conversion = repr
        span = self._field_span(part.expression, line, column)

        def field(frame: Frame) -> str:
            try:
                value = expression(frame)
                if conversion is not None:
                    value = conversion(value)
                text = format(value, spec(frame) if spec is not None else "")
            except BaseException as error:
                mark(error, span)
                raise
            return text if prefix is None else prefix + text
        return field

    def _position_in_token(self, token: Token, index: int) -> tuple[int, int]:
        text = str(token)[:index]
        newlines = text.count("\n")
        if newlines == 0:
            return token.line, token.column + index
        return token.line + newlines, len(text) - text.rfind("\n")

    def _field_span(self, expression: str, line: int, column: int):
        lines = expression.split("\n")
        if len(lines) == 1:
            return Span(self.source, line, column, line, column + len(expression))
        return Span(self.source, line, column, line + len(lines) - 1, len(lines[-1]) + 1)

    def _field_expression(self, text: str, line: int, column: int) -> Evaluator:
        try:
            tree = parse("(" + text + ")", start="field_input")
        except ScriptSyntaxError as error:
            if error.line == 1:
                error.column += column - 2
            error.line += line - 1
            raise
        _shift_positions(tree, line - 1, column - 2)
        return self.expr(tree.children[0])


def _shift_positions(tree: Tree, lines: int, columns: int) -> None:
    """Move positions parsed from an f-string field to where the field is in the script."""
    for subtree in tree.iter_subtrees():
        meta = subtree.meta
        if getattr(meta, "empty", True):
            continue
        if meta.line == 1:
            meta.column += columns
        if meta.end_line == 1:
            meta.end_column += columns
        meta.line += lines
        meta.end_line += lines
        for child in subtree.children:
            if isinstance(child, Token) and child.line is not None:
                if child.line == 1:
                    child.column += columns
                if child.end_line == 1:
                    child.end_column += columns
                child.line += lines
                child.end_line += lines


def _positional_call(callee: Evaluator, arguments: tuple, span) -> Evaluator:
    """A call with plain positional arguments: the fast, common case."""
    count = len(arguments)
    if count == 0:
        def call0(frame: Frame) -> Any:
            function = args = None
            try:
                function = callee(frame)
                args = ()
                if function.__class__ is UserFunction:
                    return function.invoke(args, EMPTY_KWARGS)
                return function()
            except BaseException as error:
                mark_call(error, span, function, args)
                raise
        return call0
    if count == 1:
        (first,) = arguments

        def call1(frame: Frame) -> Any:
            function = args = None
            try:
                function = callee(frame)
                args = (first(frame),)
                if function.__class__ is UserFunction:
                    return function.invoke(args, EMPTY_KWARGS)
                return function(args[0])
            except BaseException as error:
                mark_call(error, span, function, args)
                raise
        return call1
    if count == 2:
        first, second = arguments

        def call2(frame: Frame) -> Any:
            function = args = None
            try:
                function = callee(frame)
                args = (first(frame), second(frame))
                if function.__class__ is UserFunction:
                    return function.invoke(args, EMPTY_KWARGS)
                return function(args[0], args[1])
            except BaseException as error:
                mark_call(error, span, function, args)
                raise
        return call2

    def call_n(frame: Frame) -> Any:
        function = args = None
        try:
            function = callee(frame)
            args = tuple([evaluate(frame) for evaluate in arguments])
            if function.__class__ is UserFunction:
                return function.invoke(args, EMPTY_KWARGS)
            return function(*args)
        except BaseException as error:
            mark_call(error, span, function, args)
            raise
    return call_n


def _general_call(callee: Evaluator, positional: list, starred: bool, keywords: list,
                  span) -> Evaluator:
    """A call with ``*args``, keywords or ``**kwargs``."""
    positional_items = tuple(positional)
    keyword_items = tuple(keywords)

    def call(frame: Frame) -> Any:
        function = args = None
        try:
            function = callee(frame)
            if starred:
                collected: list = []
                for evaluate, is_star in positional_items:
                    if is_star:
                        value = evaluate(frame)
                        try:
                            collected.extend(value)
                        except TypeError:
                            if hasattr(type(value), "__iter__"):
                                raise
                            raise ScriptTypeError(f"{_callee_name(function)} argument after * must "
                                                  f"be an iterable, not {type(value).__name__}")
                    else:
                        collected.append(evaluate(frame))
                args = tuple(collected)
            else:
                args = tuple([evaluate(frame) for evaluate in positional_items])
            kwargs: dict = {}
            for name, evaluate in keyword_items:
                if name is None:
                    mapping = evaluate(frame)
                    # CPython's DICT_MERGE: a mapping (has keys()) of str keys only
                    if not hasattr(type(mapping), "keys"):
                        raise ScriptTypeError(f"{_callee_name(function)} argument after ** must "
                                              f"be a mapping, not {type(mapping).__name__}")
                    for key in mapping.keys():
                        if not isinstance(key, str):
                            raise ScriptTypeError("keywords must be strings")
                        if key in kwargs:
                            raise ScriptTypeError(f"{_callee_name(function)} got multiple values "
                                                  f"for keyword argument '{key}'")
                        kwargs[key] = mapping[key]
                else:
                    if name in kwargs:
                        raise ScriptTypeError(f"{_callee_name(function)} got multiple values for "
                                              f"keyword argument '{name}'")
                    kwargs[name] = evaluate(frame)
            if function.__class__ is UserFunction:
                return function.invoke(args, kwargs)
            return function(*args, **kwargs)
        except BaseException as error:
            mark_call(error, span, function, args)
            raise
    return call


def _callee_name(function: Any) -> str:
    """How CPython's _PyObject_FunctionStr names a callee in call errors."""
    name = getattr(function, "__qualname__", None) or getattr(type(function), "__name__", "object")
    if function.__class__ is UserFunction:
        return f"__main__.{name}()"  # a script's functions live in module __main__
    return f"{name}()"


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



def missing_global(name: str) -> Exception:
    """NameError, or "not supported yet" for a bare name that is a real torch function.

    Bare torch names are available without import (the calculator shorthand), so
    `lgamma(x)` means torch.lgamma, which gradcli may lack.
    """
    from gradcli.engine.pytorch_names import FUNCTIONS
    if name in FUNCTIONS:
        return ScriptNotImplementedError(f"gradcli does not support torch.{name} yet")
    return ScriptNameError(f"name '{name}' is not defined")
