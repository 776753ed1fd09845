"""Fusion's expressions: an expression's closures as one Python expression (see fusion.py).

The builder keeps what a fused loop's code needs besides its tree: the records of its
instructions (fused_runtime.Record, numbered by line), the values its namespace holds, and
its temporaries (walrus targets, let go of after each statement).  ``ctx`` is always the pair
(mark, where) of the record the code being built gets; an operation that marks its errors gets
its own span for both.  Every node is made at its record (``Nodes``), so nothing walks the
tree afterwards.
"""

from __future__ import annotations

import _ast as ast
import operator
from typing import Any

from gradcli.lang import sizes
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
# The operators that check sizes first (gradcli.lang.sizes): a call of the helper of that name.
CHECKED = {sizes.mul: "_mul", sizes.power: "_pow", sizes.lshift: "_lshift", sizes.imul: "_imul",
           sizes.ipower: "_ipow", sizes.ilshift: "_ilshift"}
_COMPARE = {operator.lt: ast.Lt, operator.gt: ast.Gt, operator.eq: ast.Eq, operator.ge: ast.GtE,
            operator.le: ast.LtE, operator.ne: ast.NotEq, _contains: ast.In, _contains_not: ast.NotIn,
            operator.is_: ast.Is, operator.is_not: ast.IsNot}
_UNARY = {operator.neg: ast.USub, operator.pos: ast.UAdd, operator.invert: ast.Invert}
_LITERAL_TYPES = (int, float, complex, str, bytes, bool)

_CONVERSIONS = {None: -1, str: ord("s"), repr: ord("r"), ascii: ord("a")}   # (FormattedValue's codes)

_LOAD, _STORE = ast.Load(), ast.Store()

Context = tuple  # (mark, where): the spans of the Record for the code being built


class Nodes:
    """Makes _ast nodes at one record: the line number of every node made here."""

    __slots__ = ("at",)

    def __init__(self, line: int) -> None:
        self.at = {"lineno": line, "end_lineno": line, "col_offset": 0, "end_col_offset": 0}

    def __call__(self, cls: type, **fields: Any) -> Any:
        return cls(**fields, **self.at)

    def name(self, identifier: str, ctx: Any = _LOAD) -> ast.Name:
        return ast.Name(id=identifier, ctx=ctx, **self.at)

    def const(self, value: Any) -> ast.Constant:
        return ast.Constant(value=value, **self.at)

    def call(self, func: ast.expr, *args: ast.expr, keywords: list | None = None) -> ast.Call:
        return ast.Call(func=func, args=list(args), keywords=keywords or [], **self.at)

    def helper(self, name: str, *args: ast.expr) -> ast.Call:
        """A call of one of the namespace's helpers (fusion._HELPERS)."""
        return self.call(self.name(name), *args)

    def attr(self, value: ast.expr, attr: str, ctx: Any = _LOAD) -> ast.Attribute:
        return ast.Attribute(value=value, attr=attr, ctx=ctx, **self.at)

    def item(self, value: ast.expr, key: ast.expr, ctx: Any = _LOAD) -> ast.Subscript:
        return ast.Subscript(value=value, slice=key, ctx=ctx, **self.at)

    def compare(self, left: ast.expr, op: Any, right: ast.expr) -> ast.Compare:
        return ast.Compare(left=left, ops=[op], comparators=[right], **self.at)

    def type_is(self, value: ast.expr, kind: str) -> ast.Compare:
        """``type(value) is kind``."""
        return self.compare(self.helper("_type", value), ast.Is(), self.name(kind))

    def choose(self, test: ast.expr, body: ast.expr, orelse: ast.expr) -> ast.IfExp:
        return ast.IfExp(test=test, body=body, orelse=orelse, **self.at)

    def walrus(self, target: str, value: ast.expr) -> ast.NamedExpr:
        return ast.NamedExpr(target=self.name(target, _STORE), value=value, **self.at)

    def tuple(self, elts: list, ctx: Any = _LOAD) -> ast.Tuple:
        return ast.Tuple(elts=elts, ctx=ctx, **self.at)

    def assign(self, target: ast.expr | str, value: ast.expr) -> ast.Assign:
        if isinstance(target, str):
            target = self.name(target, _STORE)
        return ast.Assign(targets=[target], value=value, **self.at)

    def do(self, value: ast.expr) -> ast.Expr:
        return ast.Expr(value=value, **self.at)

    def when(self, test: ast.expr, body: list, orelse: list | None = None) -> ast.If:
        return ast.If(test=test, body=body, orelse=orelse or [], **self.at)


def is_direct_name(name: str) -> bool:
    """Whether fused code may take the direct path for attribute ``name`` (fused_runtime)."""
    return not (is_dunder(name) or name == "format" or name.startswith("_gradcli_"))


class ExpressionBuilder:
    """Builds Python expressions from evaluator closures' recipes."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}
        self.records: list[Record] = [Record(None, None, None)]
        self.record_nodes: dict[tuple, Nodes] = {(id(None), id(None), None): Nodes(LINE_BASE)}
        self.values: dict[int, str] = {}   # id(value) -> its name in the namespace
        self.temp_count = 0
        self.temps: list[str] = []         # the temporaries of the statement being built
        self.loop_depth = 0                # loops of the built code around the code being built
        self.parents: set[int] = set()     # depths of the enclosing frames whose variables it uses
        self.uses_locals = False
        self.returns_values = False        # building a function's body (RETURN is a Python return)

    # ------------------------------------------------------------ records, values, temporaries
    def nodes(self, ctx: Context, call: tuple | None = None) -> Nodes:
        """The maker of nodes at the record of ``ctx`` (and of a call's temporaries)."""
        mark_span, where = ctx
        key = (id(mark_span), id(where), call)
        found = self.record_nodes.get(key)
        if found is None:
            found = self.record_nodes[key] = Nodes(LINE_BASE + len(self.records))
            self.records.append(Record(mark_span, where, call))
        return found

    def temp(self, prefix: str = "_t") -> str:
        self.temp_count += 1
        name = f"{prefix}{self.temp_count}"
        self.temps.append(name)
        return name

    def value_name(self, value: Any, n: Nodes) -> ast.Name:
        """A name of the namespace holding ``value`` (a closure, a dict, a constant)."""
        name = self.values.get(id(value))
        if name is None:
            name = self.values[id(value)] = f"_v{len(self.values)}"
            self.namespace[name] = value
        return n.name(name)

    # ------------------------------------------------------------ expressions
    def expr(self, evaluator: Any, ctx: Context) -> ast.expr:
        if hasattr(evaluator, "constant"):
            value = evaluator.constant
            n = self.nodes(ctx)
            if value is None or value is Ellipsis or type(value) in _LITERAL_TYPES:
                return n.const(value)
            return self.value_name(value, n)
        recipe = getattr(evaluator, "recipe", None)
        method = getattr(self, "e_" + recipe[0], None) if recipe is not None else None
        if method is None:
            return self.leaf(evaluator, ctx)
        return method(evaluator, recipe, ctx)

    def leaf(self, closure: Any, ctx: Context) -> ast.expr:
        """The closure itself, called (it marks its own errors)."""
        n = self.nodes(ctx)
        return n.call(self.value_name(closure, n), n.name("frame"))

    def _lookup(self, n: Nodes, mapping: str, name: str, otherwise: ast.expr) -> ast.expr:
        """``mapping[name] if name in mapping else otherwise``."""
        return n.choose(n.compare(n.const(name), ast.In(), n.name(mapping)), n.item(n.name(mapping), n.const(name)),
                        otherwise)

    def e_global(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        n, name = self.nodes(ctx), recipe[1]
        return self._lookup(n, "_g", name, self._lookup(n, "_b", name, self.leaf(closure, ctx)))

    def e_local(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        self.uses_locals = True
        return self._lookup(self.nodes(ctx), "_l", recipe[1], self.leaf(closure, ctx))

    e_class = e_local   # (the class namespace first; the closure goes on to the globals)

    def e_free(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, name, depth = recipe
        self.parents.add(depth)
        return self._lookup(self.nodes(ctx), f"_p{depth}", name, self.leaf(closure, ctx))

    def e_binary(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, function, left, right, span = recipe
        inner = (span, span)
        n = self.nodes(inner)
        if function in _BINARY:
            return n(ast.BinOp, left=self.expr(left, inner), op=_BINARY[function](), right=self.expr(right, inner))
        if function in CHECKED:
            return n.helper(CHECKED[function], self.expr(left, inner), self.expr(right, inner))
        if function in _COMPARE:
            return n.compare(self.expr(left, inner), _COMPARE[function](), self.expr(right, inner))
        return self.leaf(closure, ctx)

    def e_unary(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, function, operand, span = recipe
        inner = (span, span)
        return self.nodes(inner)(ast.UnaryOp, op=_UNARY[function](), operand=self.expr(operand, inner))

    def e_not(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, operand, span = recipe
        inner = (span, span)
        return self.nodes(inner)(ast.UnaryOp, op=ast.Not(), operand=self.expr(operand, inner))

    def _boolean(self, operator_node: Any, recipe: tuple) -> ast.expr:
        _, operands, span = recipe
        inner = (span, span)
        return self.nodes(inner)(ast.BoolOp, op=operator_node, values=[self.expr(operand, inner)
                                                                        for operand in operands])

    def e_and(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self._boolean(ast.And(), recipe)

    def e_or(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self._boolean(ast.Or(), recipe)

    def e_chain(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, first, steps, span = recipe
        inner = (span, span)
        return self.nodes(inner)(ast.Compare, left=self.expr(first, inner),
                                 ops=[_COMPARE[function]() for function, _ in steps],
                                 comparators=[self.expr(evaluate, inner) for _, evaluate in steps])

    def e_conditional(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, body, test, orelse, span = recipe
        inner, chosen = (span, span), (ctx[0], span)
        n = self.nodes(inner)
        # (the test is evaluated as a value, then tested: CPython's jumps would test parts of it)
        test_value = n.walrus(self.temp("_c"), self.expr(test, inner))
        return n.choose(test_value, self.expr(body, chosen), self.expr(orelse, chosen))

    def read_attribute(self, obj: ast.expr, name: str, ctx: Context) -> ast.expr:
        """``obj.name`` through the sandbox: directly for a type it let through before."""
        n = self.nodes(ctx)
        if not is_direct_name(name):
            return n.helper("_get_attribute", obj, n.const(name))
        held = self.temp()
        direct = self.value_name(DIRECT_READS.setdefault(name, set()), n)
        test = n.compare(n.helper("_type", n.walrus(held, obj)), ast.In(), direct)
        return n.choose(test, n.attr(n.name(held), name), n.helper("_read", n.name(held), n.const(name), direct))

    def e_attribute(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, value, name, span = recipe
        inner = (span, span)
        return self.read_attribute(self.expr(value, inner), name, inner)

    def e_checked_attribute(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, value, name, span = recipe
        inner = (span, span)
        n = self.nodes(inner)
        return n.helper("_get_attribute", self.expr(value, inner), n.const(name))

    def e_subscript(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        _, value, key, span = recipe
        inner = (span, span)
        return self.nodes(inner).item(self.expr(value, inner), self.expr(key, inner))

    def e_slice(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        parts = [None if getattr(part, "constant", 0) is None else self.expr(part, ctx) for part in recipe[1:]]
        return self.nodes(ctx)(ast.Slice, lower=parts[0], upper=parts[1], step=parts[2])

    def e_tuple(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        n = self.nodes((recipe[2], ctx[1]) if len(recipe) > 2 else ctx)   # (its span: a too deep tuple)
        return n.helper("_check_tuple", n.tuple([self.expr(item, ctx) for item in recipe[1]]))

    def e_list(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self.nodes(ctx)(ast.List, elts=[self.expr(item, ctx) for item in recipe[1]], ctx=_LOAD)

    def e_joined(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        n = self.nodes(ctx)
        values: list = []
        for part in recipe[1]:
            values.extend([n.const(part)] if part.__class__ is str else self.formatted(part, ctx))
        return n(ast.JoinedStr, values=values)

    def e_field(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        return self.nodes(ctx)(ast.JoinedStr, values=self.formatted(closure, ctx))

    def formatted(self, field: Any, ctx: Context) -> list:
        """The pieces of an f-string field: CPython's FORMAT_VALUE is format(conversion(value),
        spec), as the field closure's.  (It evaluates the spec before converting: a field with
        both a conversion and a computed spec is called as its closure.)"""
        recipe = getattr(field, "recipe", None)
        if recipe is None or recipe[0] != "field" or (recipe[2] is not None and recipe[3] is not None
                                                       and not hasattr(recipe[3], "constant")):
            return [self.nodes(ctx)(ast.FormattedValue, value=self.leaf(field, ctx), conversion=-1,
                                    format_spec=None)]
        _, expression, conversion, spec, prefix, span = recipe
        inner = (span, span)
        n = self.nodes(inner)
        if spec is None:
            spec_node = None
        elif hasattr(spec, "constant"):
            spec_node = n(ast.JoinedStr, values=[n.const(spec.constant)])
        else:  # (a computed spec: its width checked first, as the closure checks it)
            checked = n.helper("_spec", self.e_joined(spec, spec.recipe, inner))
            spec_node = n(ast.JoinedStr, values=[n(ast.FormattedValue, value=checked, conversion=-1,
                                                   format_spec=None)])
        value = n(ast.FormattedValue, value=self.expr(expression, inner), conversion=_CONVERSIONS[conversion],
                  format_spec=spec_node)
        return [value] if prefix is None else [self.nodes(ctx).const(prefix), value]

    def e_call(self, closure: Any, recipe: tuple, ctx: Context) -> ast.expr:
        """``f(a, b, k=c)``: a user function by ``invoke`` (as the closures call it), anything
        else directly; callee and arguments are kept for errors.mark_call."""
        _, callee, positional, keywords, span = recipe
        inner = (span, span)
        function, arguments = self.temp("_f"), self.temp("_a")
        n = self.nodes(inner, call=(function, arguments))
        setup = [n.walrus(function, self.expr(callee, inner)),
                 n.walrus(arguments, n.tuple([self.expr(argument, inner) for argument in positional]))]
        if keywords:
            named = self.temp("_k")
            setup.append(n.walrus(named, n(ast.Dict, keys=[n.const(name) for name, _ in keywords],
                                           values=[self.expr(value, inner) for _, value in keywords])))
            given, spread = n.name(named), [n(ast.keyword, arg=None, value=n.name(named))]
        else:
            given, spread = n.name("_EK"), []
        method = n.attr(n.name(function), "__func__")
        invoke = n.call(n.attr(n.name(function), "invoke"), n.name(arguments), given)
        invoke_method = n.call(n.attr(method, "invoke"), n.tuple([
            n.attr(n.name(function), "__self__"), n(ast.Starred, value=n.name(arguments), ctx=_LOAD)]), given)
        direct = n.call(n.name(function), n(ast.Starred, value=n.name(arguments), ctx=_LOAD), keywords=spread)
        is_method = n(ast.BoolOp, op=ast.And(), values=[n.type_is(n.name(function), "_MT"),
                                                        n.type_is(n.attr(n.name(function), "__func__"), "_UF")])
        dispatch = n.choose(n.type_is(n.name(function), "_UF"), invoke, n.choose(is_method, invoke_method, direct))
        # (the tuple of the setup is never empty: it only orders callee, arguments, dispatch)
        return n.choose(n.tuple(setup), dispatch, n.const(None))
