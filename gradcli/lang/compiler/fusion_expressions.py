"""Fusion's expressions: an expression's closures as one Python expression (see fusion.py).

The builder keeps what a fused loop's code needs besides its tree: the records of its
instructions (fused_runtime.Record, numbered by line), the values its namespace holds, and
its temporaries (walrus targets, let go of after each statement).  ``ctx`` is always the pair
(mark, where) of the record the code being built gets; an operation that marks its errors gets
its own span for both.
"""

from __future__ import annotations

import _ast as ast
import operator
from typing import Any

from gradcli.lang.compiler.fused_runtime import DIRECT_READS, LINE_BASE, Record
from gradcli.lang.compiler.operators import _contains, _contains_not
from gradcli.lang.safety import is_dunder

_BINARY = {operator.add: ast.Add, operator.sub: ast.Sub, operator.mul: ast.Mult, operator.truediv: ast.Div,
           operator.floordiv: ast.FloorDiv, operator.mod: ast.Mod, operator.matmul: ast.MatMult,
           operator.pow: ast.Pow, operator.or_: ast.BitOr, operator.xor: ast.BitXor, operator.and_: ast.BitAnd,
           operator.lshift: ast.LShift, operator.rshift: ast.RShift}
_AUGMENTED = {operator.iadd: ast.Add, operator.isub: ast.Sub, operator.imul: ast.Mult,
              operator.itruediv: ast.Div, operator.ifloordiv: ast.FloorDiv, operator.imod: ast.Mod,
              operator.imatmul: ast.MatMult, operator.ipow: ast.Pow, operator.iand: ast.BitAnd,
              operator.ior: ast.BitOr, operator.ixor: ast.BitXor, operator.ilshift: ast.LShift,
              operator.irshift: ast.RShift}
_COMPARE = {operator.lt: ast.Lt, operator.gt: ast.Gt, operator.eq: ast.Eq, operator.ge: ast.GtE,
            operator.le: ast.LtE, operator.ne: ast.NotEq, _contains: ast.In, _contains_not: ast.NotIn,
            operator.is_: ast.Is, operator.is_not: ast.IsNot}
_UNARY = {operator.neg: ast.USub, operator.pos: ast.UAdd, operator.invert: ast.Invert}
_LITERAL_TYPES = (int, float, complex, str, bytes, bool)

_CONVERSIONS = {None: -1, str: ord("s"), repr: ord("r"), ascii: ord("a")}   # (FormattedValue's codes)

_LOAD, _STORE = ast.Load(), ast.Store()

Context = tuple  # (mark, where): the spans of the Record for the code being built


def _name(identifier: str, ctx: Any = _LOAD) -> ast.Name:
    return ast.Name(id=identifier, ctx=ctx)


def _constant(value: Any) -> ast.Constant:
    return ast.Constant(value=value)


def _is(left: ast.expr, right: ast.expr) -> ast.Compare:
    return ast.Compare(left=left, ops=[ast.Is()], comparators=[right])


def is_direct_name(name: str) -> bool:
    """Whether fused code may take the direct path for attribute ``name`` (fused_runtime)."""
    return not (is_dunder(name) or name == "format" or name.startswith("_gradcli_"))


class ExpressionBuilder:
    """Builds Python expressions from evaluator closures' recipes."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}
        self.records: list[Record] = [Record(None, None, None)]
        self.record_ids: dict[tuple, int] = {(id(None), id(None), None): 0}
        self.values: dict[int, str] = {}   # id(value) -> its name in the namespace
        self.temp_count = 0
        self.temps: list[str] = []         # the temporaries of the statement being built
        self.loop_depth = 0                # loops of the built code around the code being built
        self.parents: set[int] = set()     # depths of the enclosing frames whose variables it uses
        self.uses_locals = False
        self.returns_values = False        # building a function's body (RETURN is a Python return)

    # ------------------------------------------------------------ positions
    def at(self, node: Any, ctx: Context, call: tuple | None = None) -> Any:
        """``node`` placed at the record of ``ctx`` (its children not yet placed get it too)."""
        mark_span, where = ctx
        key = (id(mark_span), id(where), call)
        ident = self.record_ids.get(key)
        if ident is None:
            ident = self.record_ids[key] = len(self.records)
            self.records.append(Record(mark_span, where, call))
        line = LINE_BASE + ident
        node.lineno = node.end_lineno = line
        node.col_offset = node.end_col_offset = 0
        return node

    def place_all(self, tree: Any) -> None:
        """Give every node without a position its parent's (a node built bare inherits)."""
        stack = [(tree, LINE_BASE)]
        while stack:
            node, line = stack.pop()
            if isinstance(node, (ast.expr, ast.stmt, ast.excepthandler, ast.arg, ast.keyword)):
                if getattr(node, "lineno", None) is None:
                    node.lineno = node.end_lineno = line
                    node.col_offset = node.end_col_offset = 0
                line = node.lineno
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    stack.extend((item, line) for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    stack.append((value, line))

    def temp(self, prefix: str = "_t") -> str:
        self.temp_count += 1
        name = f"{prefix}{self.temp_count}"
        self.temps.append(name)
        return name

    def value_name(self, value: Any) -> ast.Name:
        """A name of the namespace holding ``value`` (a closure, a dict, a constant)."""
        name = self.values.get(id(value))
        if name is None:
            name = self.values[id(value)] = f"_v{len(self.values)}"
            self.namespace[name] = value
        return _name(name)

    # ------------------------------------------------------------ expressions
    def expr(self, evaluator: Any, ctx: Context) -> ast.expr:
        if hasattr(evaluator, "constant"):
            value = evaluator.constant
            if value is None or value is Ellipsis or type(value) in _LITERAL_TYPES:
                return self.at(_constant(value), ctx)
            return self.at(self.value_name(value), ctx)
        recipe = getattr(evaluator, "recipe", None)
        method = getattr(self, "e_" + recipe[0], None) if recipe is not None else None
        if method is None:
            return self.leaf(evaluator, ctx)
        return method(evaluator, recipe, ctx)

    def leaf(self, closure: Any, ctx: Context) -> ast.expr:
        """The closure itself, called (it marks its own errors)."""
        return self.at(ast.Call(func=self.value_name(closure), args=[_name("frame")], keywords=[]), ctx)

    def _lookup(self, mapping: ast.expr, name: str, otherwise: ast.expr) -> ast.expr:
        key = _constant(name)
        return ast.IfExp(test=ast.Compare(left=key, ops=[ast.In()], comparators=[mapping]),
                         body=ast.Subscript(value=mapping, slice=_constant(name), ctx=_LOAD), orelse=otherwise)

    def e_global(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        name = recipe[1]
        return self.at(self._lookup(_name("_g"), name, self._lookup(_name("_b"), name, self.leaf(closure, ctx))),
                       ctx)

    def e_local(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        self.uses_locals = True
        return self.at(self._lookup(_name("_l"), recipe[1], self.leaf(closure, ctx)), ctx)

    e_class = e_local   # (the class namespace first; the closure goes on to the globals)

    def e_free(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, name, depth = recipe
        self.parents.add(depth)
        return self.at(self._lookup(_name(f"_p{depth}"), name, self.leaf(closure, ctx)), ctx)

    def e_binary(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, function, left, right, span = recipe
        inner = (span, span)
        if function in _BINARY:
            node = ast.BinOp(left=self.expr(left, inner), op=_BINARY[function](), right=self.expr(right, inner))
        elif function in _COMPARE:
            node = ast.Compare(left=self.expr(left, inner), ops=[_COMPARE[function]()],
                               comparators=[self.expr(right, inner)])
        else:
            return self.leaf(closure, ctx)
        return self.at(node, inner)

    def e_unary(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, function, operand, span = recipe
        inner = (span, span)
        return self.at(ast.UnaryOp(op=_UNARY[function](), operand=self.expr(operand, inner)), inner)

    def e_not(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, operand, span = recipe
        inner = (span, span)
        return self.at(ast.UnaryOp(op=ast.Not(), operand=self.expr(operand, inner)), inner)

    def _boolean(self, operator_node: Any, recipe: tuple) -> ast.expr:
        _, operands, span = recipe
        inner = (span, span)
        return self.at(ast.BoolOp(op=operator_node, values=[self.expr(operand, inner) for operand in operands]),
                       inner)

    def e_and(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self._boolean(ast.And(), recipe)

    def e_or(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self._boolean(ast.Or(), recipe)

    def e_chain(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, first, steps, span = recipe
        inner = (span, span)
        return self.at(ast.Compare(left=self.expr(first, inner), ops=[_COMPARE[function]() for function, _ in steps],
                                   comparators=[self.expr(evaluate, inner) for _, evaluate in steps]), inner)

    def e_conditional(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, body, test, orelse, span = recipe
        inner, chosen = (span, span), (ctx[0], span)
        # (the test is evaluated as a value, then tested: CPython's jumps would test parts of it)
        test_value = self.at(ast.NamedExpr(target=_name(self.temp("_c"), _STORE), value=self.expr(test, inner)), inner)
        return self.at(ast.IfExp(test=test_value, body=self.expr(body, chosen), orelse=self.expr(orelse, chosen)),
                       inner)

    def read_attribute(self, obj: ast.expr, name: str, ctx: Context) -> ast.expr:
        """``obj.name`` through the sandbox: directly for a type it let through before."""
        if not is_direct_name(name):
            return self.at(ast.Call(func=_name("_get_attribute"), args=[obj, _constant(name)], keywords=[]), ctx)
        held = self.temp()
        direct = self.value_name(DIRECT_READS.setdefault(name, set()))
        test = ast.Compare(left=ast.Call(func=_name("_type"), args=[
            ast.NamedExpr(target=_name(held, _STORE), value=obj)], keywords=[]), ops=[ast.In()], comparators=[direct])
        return self.at(ast.IfExp(test=test, body=ast.Attribute(value=_name(held), attr=name, ctx=_LOAD),
                                 orelse=ast.Call(func=_name("_read"), args=[_name(held), _constant(name), direct],
                                                 keywords=[])), ctx)

    def e_attribute(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, value, name, span = recipe
        inner = (span, span)
        return self.read_attribute(self.expr(value, inner), name, inner)

    def e_checked_attribute(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, value, name, span = recipe
        inner = (span, span)
        return self.at(ast.Call(func=_name("_get_attribute"), args=[self.expr(value, inner), _constant(name)],
                                keywords=[]), inner)

    def e_subscript(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, value, key, span = recipe
        inner = (span, span)
        return self.at(ast.Subscript(value=self.expr(value, inner), slice=self.expr(key, inner), ctx=_LOAD), inner)

    def e_slice(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        parts = [None if getattr(part, "constant", 0) is None else self.expr(part, ctx) for part in recipe[1:]]
        return self.at(ast.Slice(lower=parts[0], upper=parts[1], step=parts[2]), ctx)

    def e_tuple(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self.at(ast.Tuple(elts=[self.expr(item, ctx) for item in recipe[1]], ctx=_LOAD), ctx)

    def e_list(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self.at(ast.List(elts=[self.expr(item, ctx) for item in recipe[1]], ctx=_LOAD), ctx)

    def e_joined(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        values: list = []
        for part in recipe[1]:
            values.extend([self.at(_constant(part), ctx)] if part.__class__ is str else self.formatted(part, ctx))
        return self.at(ast.JoinedStr(values=values), ctx)

    def e_field(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self.at(ast.JoinedStr(values=self.formatted(closure, ctx)), ctx)

    def formatted(self, field: Any, ctx: Context) -> list:
        """The pieces of an f-string field: CPython's FORMAT_VALUE is format(conversion(value),
        spec), as the field closure's.  (It evaluates the spec before converting: a field with
        both a conversion and a computed spec is called as its closure.)"""
        recipe = getattr(field, "recipe", None)
        if recipe is None or recipe[0] != "field" or (recipe[2] is not None and recipe[3] is not None
                                                       and not hasattr(recipe[3], "constant")):
            return [self.at(ast.FormattedValue(value=self.leaf(field, ctx), conversion=-1, format_spec=None), ctx)]
        _, expression, conversion, spec, prefix, span = recipe
        inner = (span, span)
        if spec is None:
            spec_node = None
        elif hasattr(spec, "constant"):
            spec_node = self.at(ast.JoinedStr(values=[self.at(_constant(spec.constant), inner)]), inner)
        else:
            spec_node = self.e_joined(spec, spec.recipe, inner)
        value = ast.FormattedValue(value=self.expr(expression, inner), conversion=_CONVERSIONS[conversion],
                                   format_spec=spec_node)
        pieces = [self.at(value, inner)]
        return pieces if prefix is None else [self.at(_constant(prefix), ctx), *pieces]

    def e_call(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        """``f(a, b, k=c)``: a user function by ``invoke`` (as the closures call it), anything
        else directly; callee and arguments are kept for errors.mark_call."""
        _, callee, positional, keywords, span = recipe
        inner = (span, span)
        function, arguments = self.temp("_f"), self.temp("_a")
        where = (function, arguments)
        setup = [ast.NamedExpr(target=_name(function, _STORE), value=self.expr(callee, inner)),
                 ast.NamedExpr(target=_name(arguments, _STORE), value=ast.Tuple(
                     elts=[self.expr(argument, inner) for argument in positional], ctx=_LOAD))]
        if keywords:
            named = self.temp("_k")
            setup.append(ast.NamedExpr(target=_name(named, _STORE), value=ast.Dict(
                keys=[_constant(name) for name, _ in keywords],
                values=[self.expr(value, inner) for _, value in keywords])))
            given = _name(named)
            spread = [ast.keyword(arg=None, value=_name(named))]
        else:
            given, spread = _name("_EK"), []
        kind = ast.Call(func=_name("_type"), args=[_name(function)], keywords=[])
        method_kind = ast.Call(func=_name("_type"), args=[
            ast.Attribute(value=_name(function), attr="__func__", ctx=_LOAD)], keywords=[])
        invoke = ast.Call(func=ast.Attribute(value=_name(function), attr="invoke", ctx=_LOAD),
                          args=[_name(arguments), given], keywords=[])
        invoke_method = ast.Call(
            func=ast.Attribute(value=ast.Attribute(value=_name(function), attr="__func__", ctx=_LOAD),
                               attr="invoke", ctx=_LOAD),
            args=[ast.Tuple(elts=[ast.Attribute(value=_name(function), attr="__self__", ctx=_LOAD),
                                  ast.Starred(value=_name(arguments), ctx=_LOAD)], ctx=_LOAD), given],
            keywords=[])
        direct = ast.Call(func=_name(function), args=[ast.Starred(value=_name(arguments), ctx=_LOAD)],
                          keywords=spread)
        dispatch = ast.IfExp(test=_is(kind, _name("_UF")), body=invoke, orelse=ast.IfExp(
            test=ast.BoolOp(op=ast.And(), values=[_is(ast.Call(func=_name("_type"), args=[_name(function)],
                                                               keywords=[]), _name("_MT")),
                                                  _is(method_kind, _name("_UF"))]),
            body=invoke_method, orelse=direct))
        # (the tuple of the setup is never empty: it only orders callee, arguments, dispatch)
        node = ast.IfExp(test=ast.Tuple(elts=setup, ctx=_LOAD), body=dispatch, orelse=_constant(None))
        self.at_all(node, inner, call=where)
        return node

    def at_all(self, node: Any, ctx: Context, call: tuple | None = None) -> None:
        """Place ``node`` and its children not placed yet at the record of ``ctx``."""
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, (ast.expr, ast.keyword)):
                if getattr(item, "lineno", None) is not None:
                    continue   # (a child expression placed where it was built)
                self.at(item, ctx, call)
            for field in item._fields:
                value = getattr(item, field, None)
                if isinstance(value, list):
                    stack.extend(child for child in value if isinstance(child, ast.AST))
                elif isinstance(value, ast.AST):
                    stack.append(value)

