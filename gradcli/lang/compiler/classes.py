"""``class`` statements and the zero-argument ``super()`` of their methods.

The class body runs once, in a frame of its own whose variables are the class namespace (a
class scope: see scopes.py); then gradcli.lang.classes.make_class makes the real class and the
decorators are applied.  A method's ``super()`` finds the class through the frame of the class
body that defined it (the ``owner`` of that frame: Python's ``__class__`` cell) and the method's
first argument, as CPython's super() does.
"""

from __future__ import annotations

from typing import Any

from gradcli.lang.classes import SPECIAL_METHODS, make_class
from gradcli.lang.compiler.base import CompilerBase, Evaluator, Executor
from gradcli.lang.compiler.containers import spread
from gradcli.lang.compiler.scopes import Scope, bindings
from gradcli.lang.errors import ScriptRuntimeError, ScriptSyntaxError, ScriptTypeError, Span, mark
from gradcli.lang.functions import Frame
from gradcli.lang.safety import is_dunder
from gradcli.lang.syntax_tree import Token, Tree

_SPECIAL_HINT = "a class may define these special methods: " + " ".join(sorted(SPECIAL_METHODS))


class ClassCompiler(CompilerBase):
    def s_classdef(self, node: Tree, decorators: tuple = (), decorator_spans: tuple = ()) -> Executor:
        name_token, arguments, body_node = node.children
        name = str(name_token)
        header = self._header_span(node, name_token, arguments)
        self._check_arguments(arguments)
        bases, keywords, has_star = self._arguments(arguments)
        evaluate_bases = self._base_evaluator(bases, has_star)
        keyword_items = tuple(keywords)
        store = self.store_name(name)     # (a class's own name is mangled by the enclosing class)
        qualname = self.qualname(name)
        saved = (self.scope, self.loop_depth, self.qualname_prefix, self.mangling_class)
        self.mangling_class = name
        bound, declared_global, declared_nonlocal = map(self.mangle_all, bindings(body_node.children))
        self._check_special_names(body_node, bound)
        self.scope = Scope("class", self.scope, bound, declared_global, declared_nonlocal)
        self.loop_depth = 0
        self.qualname_prefix = qualname + "."
        try:
            doc = self.docstring(body_node)
            body = self.block(body_node)
        finally:
            self.scope, self.loop_depth, self.qualname_prefix, self.mangling_class = saved

        def define_class(frame: Frame) -> None:
            applied = [decorator(frame) for decorator in decorators]
            try:
                base_values = evaluate_bases(frame)
                keyword_values: dict = {}
                for key, evaluate in keyword_items:
                    if key is None:
                        keyword_values.update(evaluate(frame))
                    else:
                        keyword_values[key] = evaluate(frame)
            except BaseException as error:
                mark(error, header)
                raise
            namespace: dict[str, Any] = {} if doc is None else {"__doc__": doc}
            class_frame = Frame(namespace, frame)
            body(class_frame)
            try:
                cls = make_class(name, qualname, base_values, namespace, keyword_values)
            except BaseException as error:
                mark(error, header)
                raise
            class_frame.owner = cls
            for decorator, span in zip(reversed(applied), reversed(decorator_spans)):
                try:
                    cls = decorator(cls)
                except BaseException as error:
                    mark(error, span)
                    raise
            store(frame, cls)
        return define_class

    def _header_span(self, node: Tree, name_token: Token, arguments: Tree | None) -> Span:
        """``class Name(...)``: where an error making the class points."""
        end_line, end_column = name_token.end_line, name_token.end_column
        line_text = self.source.line(end_line)
        close = line_text.find(")", end_column - 1) if arguments is None else -1
        if arguments is not None:
            end_line, end_column = arguments.meta.end_line, arguments.meta.end_column + 1
        elif close >= 0 and line_text[end_column - 1:close].strip(" (") == "":
            end_column = close + 2     # `class A():`
        return Span(self.source, node.meta.line, node.meta.column, end_line, end_column)

    def _check_arguments(self, arguments: Tree | None) -> None:
        if arguments is None:
            return
        if arguments.data == "generator_argument":
            raise self.syntax_error(arguments, "invalid syntax")
        for child in arguments.children:
            if isinstance(child, Tree) and child.data == "keyword_argument":
                target = child.children[0]
                if isinstance(target, Tree) and target.data == "name" and str(target.children[0]) == "metaclass":
                    raise ScriptSyntaxError("gradcli does not support metaclasses (metaclass=)",
                                            target.meta.line, target.meta.column,
                                            end_column=target.meta.end_column)

    def _check_special_names(self, body: Tree, bound: set[str]) -> None:
        """A class may define only the special methods the language uses (SPECIAL_METHODS)."""
        for name in sorted(bound):
            if is_dunder(name) and name not in SPECIAL_METHODS:
                token = _first_token(body, name)
                line, column = (token.line, token.column) if token is not None else (body.meta.line, 1)
                end = token.end_column if token is not None else None
                raise ScriptSyntaxError(f"gradcli does not support defining '{name}' in a class", line,
                                        column, end_column=end, hint=_SPECIAL_HINT)

    def _base_evaluator(self, bases: list, has_star: bool) -> Evaluator:
        if not has_star:
            evaluators = tuple(bases)

            def plain_bases(frame: Frame) -> tuple:
                return tuple([evaluate(frame) for evaluate in evaluators])
            return plain_bases
        pairs = tuple(bases)

        def starred_bases(frame: Frame) -> tuple:
            return tuple(spread(pairs, frame))
        return starred_bases

    # ------------------------------------------------------------ super()
    def zero_argument_super(self, callee: Evaluator, span: Span) -> Evaluator:
        """``super()`` with no arguments: ``super(<the defining class>, <first argument>)``
        when ``super`` is the builtin; CPython's RuntimeErrors where it has no class or argument."""
        scope = self.scope
        problem: tuple | None = None     # (error class, message) when it cannot work
        first = depth = None
        if scope.kind == "comprehension":
            problem = (ScriptTypeError, "super(type, obj): obj must be an instance or subtype of type")
        elif scope.kind != "function" or not scope.signature.names:
            problem = (ScriptRuntimeError, "super(): no arguments")
        else:
            first = scope.signature.names[0]
            found, depth = scope.enclosing_class()
            if found is None:
                problem = (ScriptRuntimeError, "super(): __class__ cell not found")

        def zero_argument_super(frame: Frame) -> Any:
            try:
                function = callee(frame)
                if function is not super:
                    return function()
                if problem is not None:
                    raise problem[0](problem[1])
                try:
                    instance = frame.vars[first]
                except KeyError:
                    raise ScriptRuntimeError("super(): arg[0] deleted") from None
                owner = frame
                for _ in range(depth):
                    owner = owner.parent
                try:
                    cls = owner.owner
                except AttributeError:    # called while the class body still runs
                    raise ScriptRuntimeError("super(): empty __class__ cell") from None
                return super(cls, instance)
            except BaseException as error:
                mark(error, span)
                raise
        return zero_argument_super


def _first_token(body: Tree, name: str) -> Token | None:
    for token in body.scan_values(lambda value: isinstance(value, Token) and value.type == "NAME"):
        if str(token) == name:
            return token
    return None
