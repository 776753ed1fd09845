"""Calls: argument lists checked as Python checks them; plain positional calls take a fast path."""

from __future__ import annotations

from types import MethodType
from typing import Any

from gradcli.lang.compiler.base import CompilerBase, Evaluator, described
from gradcli.lang.errors import ScriptSyntaxError, ScriptTypeError, mark_call
from gradcli.lang.functions import EMPTY_KWARGS, Frame, UserFunction
from gradcli.lang.syntax_tree import Tree


class CallCompiler(CompilerBase):
    def e_call(self, node: Tree) -> Evaluator:
        callee_node, arguments = node.children
        callee = self.expr(callee_node)
        span = self.span(node)
        if arguments is None and callee_node.data == "name" and str(callee_node.children[0]) == "super":
            return self.zero_argument_super(callee, span)
        positional, keywords, has_star = self._arguments(arguments)
        if not has_star and not keywords:
            call = _positional_call(callee, tuple(positional), span)
        else:
            call = _general_call(callee, positional, has_star, keywords, span)
        if has_star or any(name is None for name, _ in keywords):
            return call
        return described(call, "call", callee, tuple(positional), tuple(keywords), span)

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
                if isinstance(target, Tree) and target.data in ("const_true", "const_false", "const_none"):
                    raise self.syntax_error(target, f"cannot assign to {target.data[6:].capitalize()}")
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
                if seen_double_star or keywords:
                    # CPython finds this once it has read past the arguments: it points there
                    message = ("positional argument follows keyword argument unpacking" if seen_double_star
                               else "positional argument follows keyword argument")
                    raise self._after_arguments(node, message)
                positional.append((self.expr(child), False))
        if not has_star:
            positional = [evaluate for evaluate, _ in positional]
        return positional, keywords, has_star


    def _after_arguments(self, node: Tree, message: str) -> ScriptSyntaxError:
        """A syntax error at the first token after the argument list ``node``."""
        line, column = node.meta.end_line, node.meta.end_column
        while True:
            text = self.source.line(line)
            rest = text[column - 1:]
            stripped = rest.lstrip(" \t,")
            if stripped and not stripped.startswith("#") or line > self.source.text.count("\n"):
                column += len(rest) - len(stripped)
                return ScriptSyntaxError(message, line, column, end_column=column + 1)
            line, column = line + 1, 1


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
                if function.__class__ is MethodType and function.__func__.__class__ is UserFunction:
                    return function.__func__.invoke((function.__self__, *args), EMPTY_KWARGS)
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
                if function.__class__ is MethodType and function.__func__.__class__ is UserFunction:
                    return function.__func__.invoke((function.__self__, *args), EMPTY_KWARGS)
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
                if function.__class__ is MethodType and function.__func__.__class__ is UserFunction:
                    return function.__func__.invoke((function.__self__, *args), EMPTY_KWARGS)
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
            if function.__class__ is MethodType and function.__func__.__class__ is UserFunction:
                return function.__func__.invoke((function.__self__, *args), EMPTY_KWARGS)
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
            if function.__class__ is MethodType and function.__func__.__class__ is UserFunction:
                return function.__func__.invoke((function.__self__, *args), kwargs)
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

