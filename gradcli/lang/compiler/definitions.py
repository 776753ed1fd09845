"""Function definitions: ``def`` (with decorators) and ``lambda`` -> closures that make UserFunctions.

Defaults and annotations are evaluated when the definition runs, as in Python 3.11; the
parameter list is checked with CPython's messages.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from gradcli.lang.compiler.base import CompilerBase, Executor, described
from gradcli.lang.compiler.scopes import Scope, bindings
from gradcli.lang.compiler import statements
from gradcli.lang.errors import mark
from gradcli.lang.functions import RETURN, Frame, Signature, UserFunction
from gradcli.lang.syntax_tree import Token, Tree

# Functions nested deeper are refused, located, as too deep to compile: each one's qualified name
# holds all the enclosing ones' (``f.<locals>.g.<locals>...``), memory quadratic in the depth.
MAX_FUNCTION_NESTING = 1000

# A lambda's parameters (no annotations) are compiled like a def's.
_PARAMETER_KINDS = {"lambda_param": "param", "lambda_star_param": "star_param",
                    "lambda_double_star_param": "double_star_param"}
_ANNOTATED = frozenset({"param", "star_param", "double_star_param"})   # a def's: NAME, annotation, ...


class DefinitionCompiler(CompilerBase):
    def s_decorated(self, node: Tree) -> Executor:
        *decorator_nodes, definition = node.children
        decorators = tuple(self.expr(decorator.children[0]) for decorator in decorator_nodes)
        spans = tuple(self.span(decorator.children[0]) for decorator in decorator_nodes)
        if definition.data == "classdef":
            return self.s_classdef(definition, decorators, spans)
        return self.s_funcdef(definition, decorators, spans)

    def s_funcdef(self, node: Tree, decorators: tuple = (), decorator_spans: tuple = ()) -> Executor:
        name_token, parameters, returns, body_node = node.children
        name = str(name_token)
        make = self.function_maker(name, parameters, body_node, self.span(node), returns=returns)
        store = self.store_name(name)

        def define(frame: Frame) -> None:
            applied = [decorator(frame) for decorator in decorators]
            function = make(frame)
            for decorator, span in zip(reversed(applied), reversed(decorator_spans)):
                try:
                    function = decorator(function)
                except BaseException as error:
                    mark(error, span)
                    raise
            store(frame, function)
        return define

    def function_maker(self, name: str, parameters: Tree | None, body_node: Any, span,
                       is_lambda: bool = False, returns: Tree | None = None):
        """Compile a def or lambda; return ``frame -> UserFunction``.

        Defaults, then annotations (parameters in order, then ``-> returns``) are
        evaluated when the def runs, as in Python 3.11; annotations are then dropped.
        """
        signature, default_nodes, kwdefault_nodes, annotation_nodes = self._signature(parameters)
        defaults = tuple(self.expr(default) for default in default_nodes)
        kwdefaults = tuple((key, self.expr(default)) for key, default in kwdefault_nodes)
        if returns is not None:
            annotation_nodes.append(returns)
        annotations = () if self.lazy_annotations else tuple(self.expr(node) for node in annotation_nodes)
        qualname = self.qualname(name)
        parameter_names = set(signature.names) | set(signature.kwonly)
        parameter_names |= {n for n in (signature.star, signature.double_star) if n}
        if is_lambda:
            bound, declared_global, declared_nonlocal = set(), set(), set()
            doc = None
        else:
            bound, declared_global, declared_nonlocal = map(self.mangle_all, bindings(body_node.children))
            doc = self.docstring(body_node)
        for parameter in parameter_names & (declared_global | declared_nonlocal):
            kind = "global" if parameter in declared_global else "nonlocal"
            raise self.syntax_error(_declaration(body_node, parameter) or body_node,
                                    f"name '{parameter}' is parameter and {kind}")
        outer = (self.scope, self.loop_depth)
        self.scope = Scope("function", self.scope, bound | parameter_names, declared_global,
                           declared_nonlocal)
        self.scope.order_of = partial(_local_order, signature, body_node)
        self.scope.signature = signature
        self.loop_depth = 0
        outer_prefix, self.qualname_prefix = self.qualname_prefix, qualname + ".<locals>."
        if self.function_nesting >= MAX_FUNCTION_NESTING:
            self.scope, self.loop_depth = outer
            self.qualname_prefix = outer_prefix
            raise RecursionError("maximum recursion depth exceeded during compilation")
        self.function_nesting += 1
        try:
            if is_lambda:
                body = self.expr(body_node)
            else:
                body = _function_body(self.block(body_node), self.context)
        finally:
            self.scope, self.loop_depth = outer
            self.qualname_prefix = outer_prefix
            self.function_nesting -= 1
        call_depth = self.context.call_depth

        def make_function(frame: Frame) -> UserFunction:
            try:
                default_values = tuple(default(frame) for default in defaults)
                kwdefault_values = {key: default(frame) for key, default in kwdefaults}
                for annotation in annotations:
                    annotation(frame)
            except BaseException as error:
                mark(error, span)
                raise
            return UserFunction(name, qualname, signature, default_values, kwdefault_values, body,
                                frame, call_depth, doc)
        return make_function

    def docstring(self, body: Tree) -> str | None:
        """The docstring of a def or class body: a first statement that is a plain string literal."""
        first = next((child for child in body.children if isinstance(child, Tree)), None)
        if first is not None and first.data == "simple_stmt":
            first = first.children[0]
        if first is None or first.data != "expr_stmt" or first.children[0].data != "strings":
            return None
        if any(str(token).lstrip("rRuU")[:1] in "fF" for token in first.children[0].children):
            return None
        value = getattr(self.expr(first.children[0]), "constant", None)
        return value if isinstance(value, str) else None

    def _signature(self, node: Tree | None) -> tuple[Signature, list, list, list]:
        """The signature, default nodes, keyword-only default nodes and annotation nodes."""
        names: list[str] = []
        kwonly: list[str] = []
        defaults: list = []
        kwdefaults: list = []
        annotations: list = []
        star = double_star = None
        seen_star = False
        posonly: int | None = None     # names before a `/` are positional-only
        seen: set[str] = set()
        children = [] if node is None else [child for child in node.children if child is not None]
        for index, child in enumerate(children):
            if double_star is not None:
                raise self.syntax_error(child, "arguments cannot follow var-keyword argument")
            kind = _PARAMETER_KINDS.get(child.data, child.data)
            if child.data in _ANNOTATED and child.children[1] is not None:
                annotations.append(child.children[1])   # a def's `name: annotation`
            if kind == "slash_param":
                if posonly is not None:
                    raise self.syntax_error(child, "/ may appear only once")
                if seen_star:
                    raise self.syntax_error(child, "/ must be ahead of *")
                if not names:
                    raise self.syntax_error(child, "at least one argument must precede /")
                posonly = len(names)
                continue
            if kind == "star_param":
                if seen_star:
                    raise self.syntax_error(child, "* argument may appear only once")
                seen_star = True
                if child.children[0] is not None:
                    star = self.mangle(str(child.children[0]))
                    self._unique(star, seen, child)
                elif index + 1 >= len(children) or children[index + 1].data not in ("param", "lambda_param"):
                    raise self.syntax_error(child, "named arguments must follow bare *")
                continue
            if kind == "double_star_param":
                double_star = self.mangle(str(child.children[0]))
                self._unique(double_star, seen, child)
                continue
            name_token, default = child.children[0], child.children[-1]
            name = self.mangle(str(name_token))
            self._unique(name, seen, child)
            if seen_star:
                kwonly.append(name)
                if default is not None:
                    kwdefaults.append((name, default))
                continue
            names.append(name)
            if default is not None:
                defaults.append(default)
            elif defaults:
                raise self.syntax_error(child, "non-default argument follows default argument")
        return Signature(names, star, kwonly, double_star, posonly or 0), defaults, kwdefaults, annotations

    def _unique(self, name: str, seen: set[str], node: Tree) -> None:
        if name in seen:
            raise self.syntax_error(node, f"duplicate argument '{name}' in function definition")
        seen.add(name)


def _function_body(block: Executor, context: Any) -> Callable[[Frame], Any]:
    """``frame -> return value`` of a def: its block, rebuilt as Python code (compiler.fusion)
    once the function has been called statements.HOT_ITERATIONS times (a call is a run of its body, as an
    iteration is one of a loop's)."""
    calls = 0
    fused = None    # the body as Python code once it is hot (False: it cannot be fused)

    def body(frame: Frame) -> Any:
        nonlocal calls, fused
        if fused:
            return fused(frame)
        if fused is None:
            calls += 1
            if calls >= statements.HOT_ITERATIONS:
                from gradcli.lang.compiler.fusion import fuse_body
                fused = fuse_body(body) or False
                if fused:
                    return fused(frame)
        if block(frame) is RETURN:
            return frame.ret
        return None
    return described(body, "body", block, context)


def _declaration(body: Tree, name: str) -> Tree | None:
    """The ``global``/``nonlocal`` statement of ``body`` that declares ``name``."""
    for node in body.iter_subtrees_topdown():
        if node.data in ("global_stmt", "nonlocal_stmt") and name in map(str, node.children):
            return node
    return None


def _local_order(signature, body: Any) -> tuple[str, ...]:
    """Parameters in order, then the names of the body in the order they first appear."""
    names = list(signature.names)
    names += [n for n in (signature.star,) if n] + list(signature.kwonly)
    names += [n for n in (signature.double_star,) if n]
    if isinstance(body, Tree):
        names += [str(token) for token in body.scan_values(lambda v: isinstance(v, Token) and v.type == "NAME")]
    return tuple(dict.fromkeys(names))
