"""Fusion's statements: a loop's statement closures as Python statements (see fusion.py).

Control flow is Python's own inside the built loop: ``break``/``continue`` where the loop is
built, and the closures' signals (BREAK, CONTINUE, RETURN) where it ends -- a closure called
from the built code may return one, which the code passes on as the closures would.  A test is
computed into a temporary and then tested, so that CPython tests it whole (its jumps would
test the parts of an ``and`` on their own, at other places).
"""

from __future__ import annotations

import _ast as ast
from typing import Any

from gradcli.lang.compiler.fused_runtime import DIRECT_WRITES
from gradcli.lang.compiler.fusion_expressions import (_AUGMENTED, _LOAD, _STORE, Context, ExpressionBuilder,
                                                      _constant, _is, _name, is_direct_name)


class StatementBuilder(ExpressionBuilder):
    """Builds Python statements from executor (and store) closures' recipes."""

    def block(self, executor: Any, ctx: Context) -> list:
        recipe = getattr(executor, "recipe", None)
        if recipe is not None and recipe[0] == "block":
            statements = []
            for step in recipe[1]:
                statements.extend(self.statement(step, ctx))
        else:
            statements = self.statement(executor, ctx)
        return statements or [self.at(ast.Pass(), ctx)]

    def statement(self, executor: Any, ctx: Context) -> list:
        recipe = getattr(executor, "recipe", None)
        method = getattr(self, "s_" + recipe[0], None) if recipe is not None else None
        outer_temps, self.temps = self.temps, []
        try:
            statements = method(executor, recipe, ctx) if method is not None else self.run_leaf(executor, ctx)
            if self.temps:   # what the statement held is let go of, as the closures let go of it
                statements.append(self.at(ast.Assign(targets=[_name(name, _STORE) for name in self.temps],
                                                     value=_constant(None)), ctx))
        finally:
            self.temps = outer_temps
        return statements

    def s_block(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        statements = []
        for step in recipe[1]:
            statements.extend(self.statement(step, ctx))
        return statements

    def run_leaf(self, executor: Any, ctx: Context) -> list:
        signal = self.temp("_s")
        run = self.at(ast.Assign(targets=[_name(signal, _STORE)], value=self.leaf(executor, ctx)), ctx)
        passed = self.at(ast.If(test=ast.Compare(left=_name(signal), ops=[ast.IsNot()], comparators=[_constant(None)]),
                                body=self.pass_signal(signal, ctx), orelse=[]), ctx)
        return [run, passed]

    def pass_signal(self, signal: str, ctx: Context) -> list:
        """A closure's BREAK/CONTINUE/RETURN, where the built code now is (in a function's body,
        RETURN is the value the closure left in ``frame.ret``)."""
        if self.returns_values:
            give = self.at(ast.Return(value=ast.Attribute(value=_name("frame"), attr="ret", ctx=_LOAD)), ctx)
        else:
            give = self.at(ast.Return(value=_name(signal)), ctx)
        if not self.loop_depth:
            return [give]
        return [self.at(ast.If(test=_is(_name(signal), _name("_BREAK")), body=[self.at(ast.Break(), ctx)], orelse=[
            self.at(ast.If(test=_is(_name(signal), _name("_CONTINUE")), body=[self.at(ast.Continue(), ctx)],
                           orelse=[give]), ctx)]), ctx)]

    def s_expression(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        return [self.at(ast.Expr(value=self.expr(recipe[1], ctx)), ctx)]

    def s_assign(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, value, stores = recipe
        item = self.expr(value, ctx)
        if len(stores) == 1:
            return self.store(stores[0], item, ctx)
        held = self.temp()
        statements = [self.at(ast.Assign(targets=[_name(held, _STORE)], value=item), ctx)]
        for store in stores:
            statements.extend(self.store(store, _name(held), ctx))
        return statements

    def variable(self, store: Any, ctx: Context) -> ast.expr | None:
        """The Python target of a store into variables (a variable's dict, or an unpacking into
        variables only), else None."""
        kind = getattr(store, "recipe", ("",))[0]
        if kind == "unpack":
            _, stores, span = store.recipe
            # (Python's unpacking says what _exact_unpack says, in its words)
            targets = [self.variable(inner, (ctx[0], span)) for inner in stores]
            if any(target is None for target in targets):
                return None
            return self.at(ast.Tuple(elts=targets, ctx=_STORE), (span, span))
        if kind == "store_global":
            mapping = _name("_g")
        elif kind == "store_local":
            self.uses_locals = True
            mapping = _name("_l")
        elif kind == "store_free":
            self.parents.add(store.recipe[2])
            mapping = _name(f"_p{store.recipe[2]}")
        else:
            return None
        return self.at(ast.Subscript(value=mapping, slice=_constant(store.recipe[1]), ctx=_STORE), ctx)

    def store(self, store: Any, item: ast.expr, ctx: Context) -> list:
        """Store the value of ``item`` (an expression built already) as the store closure would."""
        target = self.variable(store, ctx)
        if target is not None:
            return [self.at(ast.Assign(targets=[target], value=item), ctx)]
        recipe = getattr(store, "recipe", None)
        kind = recipe[0] if recipe is not None else None
        if kind not in ("bind", "store_attribute", "store_item"):
            return [self.at(ast.Expr(value=ast.Call(func=self.value_name(store), args=[_name("frame"), item],
                                                    keywords=[])), ctx)]
        if not isinstance(item, (ast.Name, ast.Constant)):
            held = self.temp()
            statements = [self.at(ast.Assign(targets=[_name(held, _STORE)], value=item), ctx)]
            item = self.at(_name(held), ctx)
        else:
            statements = []
        if kind == "bind":
            _, inner_store, name, span, on_bind = recipe
            statements.extend(self.store(inner_store, item, ctx))
            tell = ast.Call(func=self.value_name(on_bind), args=[_constant(name), item, self.value_name(span)],
                            keywords=[])
            statements.append(self.at(ast.Expr(value=tell), (ctx[0], span)))
            return statements
        span = recipe[-1]
        inner = (span, span)
        if kind == "store_item":
            _, value, key, _ = recipe
            target = ast.Subscript(value=self.expr(value, inner), slice=self.expr(key, inner), ctx=_STORE)
            statements.append(self.at(ast.Assign(targets=[self.at(target, inner)], value=item), ctx))
            return statements
        _, value, name, _ = recipe
        owner = self.temp()
        statements.append(self.at(ast.Assign(targets=[_name(owner, _STORE)], value=self.expr(value, inner)), inner))
        statements.append(self.write_attribute(owner, name, item, inner))
        return statements

    def write_attribute(self, owner: str, name: str, item: ast.expr, ctx: Context) -> ast.stmt:
        """``owner.name = item`` through the sandbox: directly for a type it let through before."""
        if not is_direct_name(name):
            return self.at(ast.Expr(value=ast.Call(func=_name("_write"), args=[
                _name(owner), _constant(name), item, _constant(None)], keywords=[])), ctx)
        direct = self.value_name(DIRECT_WRITES.setdefault(name, set()))
        test = ast.Compare(left=ast.Call(func=_name("_type"), args=[_name(owner)], keywords=[]), ops=[ast.In()],
                           comparators=[direct])
        assign = ast.Assign(targets=[ast.Attribute(value=_name(owner), attr=name, ctx=_STORE)], value=item)
        write = ast.Expr(value=ast.Call(func=_name("_write"), args=[_name(owner), _constant(name), item, direct],
                                        keywords=[]))
        return self.at(ast.If(test=test, body=[self.at(assign, ctx)], orelse=[self.at(write, ctx)]), ctx)

    def s_augment_name(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, function, load, value, store, span = recipe
        around, inner = (ctx[0], span), (span, span)
        current, right = self.temp(), self.temp()
        statements = [self.at(ast.Assign(targets=[_name(current, _STORE)], value=self.expr(load, around)), around),
                      self.at(ast.Assign(targets=[_name(right, _STORE)], value=self.expr(value, around)), around),
                      self.at(ast.AugAssign(target=self.at(_name(current, _STORE), inner), op=_AUGMENTED[function](),
                                            value=self.at(_name(right), inner)), inner)]
        return statements + self.store(store, self.at(_name(current), around), around)

    def s_augment_attribute(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, function, owner_value, name, value, span = recipe
        inner = (span, span)
        owner, current = self.temp(), self.temp()
        read = self.read_attribute(_name(owner), name, inner)
        return [self.at(ast.Assign(targets=[_name(owner, _STORE)], value=self.expr(owner_value, inner)), inner),
                self.at(ast.Assign(targets=[_name(current, _STORE)], value=read), inner),
                self.at(ast.AugAssign(target=_name(current, _STORE), op=_AUGMENTED[function](),
                                      value=self.expr(value, inner)), inner),
                self.write_attribute(owner, name, _name(current), inner)]

    def s_augment_item(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, function, owner_value, key, value, span = recipe
        inner = (span, span)
        owner, index, current = self.temp(), self.temp(), self.temp()

        def item(ctx_: Any) -> ast.Subscript:
            return ast.Subscript(value=_name(owner), slice=_name(index), ctx=ctx_)
        return [self.at(ast.Assign(targets=[_name(owner, _STORE)], value=self.expr(owner_value, inner)), inner),
                self.at(ast.Assign(targets=[_name(index, _STORE)], value=self.expr(key, inner)), inner),
                self.at(ast.Assign(targets=[_name(current, _STORE)], value=item(_LOAD)), inner),
                self.at(ast.AugAssign(target=_name(current, _STORE), op=_AUGMENTED[function](),
                                      value=self.expr(value, inner)), inner),
                self.at(ast.Assign(targets=[item(_STORE)], value=_name(current)), inner)]

    def _jump(self, signal: str, statement: type, ctx: Context) -> list:
        if self.loop_depth:
            return [self.at(statement(), ctx)]
        return [self.at(ast.Return(value=_name(signal)), ctx)]   # (in a loop around the built one)

    def s_break(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        return self._jump("_BREAK", ast.Break, ctx)

    def s_continue(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        return self._jump("_CONTINUE", ast.Continue, ctx)

    def s_return(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        value = recipe[1]
        result = self.at(_constant(None), ctx) if value is None else self.expr(value, ctx)
        if self.returns_values:
            return [self.at(ast.Return(value=result), ctx)]
        store = ast.Assign(targets=[ast.Attribute(value=_name("frame"), attr="ret", ctx=_STORE)], value=result)
        return [self.at(store, ctx), self.at(ast.Return(value=_name("_RETURN")), ctx)]

    def _test(self, test: Any, ctx: Context) -> list:
        """Assign a test's value to a temporary (then test that: see e_conditional)."""
        return [self.at(ast.Assign(targets=[_name(self.temp("_c"), _STORE)], value=self.expr(test, ctx)), ctx)]

    def s_if(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        ((test, body, span),), orelse = recipe[1], recipe[2]
        tested, chosen = (span, span), (ctx[0], span)
        statements = self._test(test, tested)
        condition = _name(statements[0].targets[0].id)
        statements.append(self.at(ast.If(test=self.at(condition, tested), body=self.block(body, chosen),
                                         orelse=self.optional_block(orelse, chosen)), tested))
        return statements

    def s_if_chain(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        branches, orelse = recipe[1], recipe[2]
        statements = self.optional_block(orelse, ctx)
        for test, body, span in reversed(branches):
            tested = (span, ctx[1])
            chain = self._test(test, tested)
            condition = _name(chain[0].targets[0].id)
            chain.append(self.at(ast.If(test=self.at(condition, tested), body=self.block(body, ctx),
                                        orelse=statements), tested))
            statements = chain
        return statements

    def optional_block(self, executor: Any, ctx: Context) -> list:
        """A block that is empty for _nothing (an absent else)."""
        recipe = getattr(executor, "recipe", None)
        if recipe is not None and recipe[0] == "block" and not recipe[1]:
            return []
        return self.block(executor, ctx)

    def loop_body(self, body: Any, ctx: Context) -> list:
        self.loop_depth += 1
        try:
            return self.block(body, ctx)
        finally:
            self.loop_depth -= 1

    def s_while(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, test, body, orelse, span, _ = recipe
        inner = (span, span)
        condition = self.at(ast.NamedExpr(target=_name(self.temp("_c"), _STORE), value=self.expr(test, inner)), inner)
        loop = ast.While(test=condition, body=self.loop_body(body, inner),
                         orelse=self.optional_block(orelse, (ctx[0], span)))
        return [self.at(loop, inner)]

    def s_for(self, executor: Any, recipe: tuple, ctx: Context, iterator: ast.expr | None = None) -> list:
        _, store, iterable, body, orelse, span, _ = recipe
        inner = (span, span)
        source = self.at(iterator, inner) if iterator is not None else self.expr(iterable, inner)
        target = self.variable(store, inner)
        if target is not None:
            stores = []
        else:
            item = self.temp("_i")
            target, stores = self.at(_name(item, _STORE), inner), self.store(store, self.at(_name(item), inner), inner)
        loop = ast.For(target=target, iter=source, body=stores + self.loop_body(body, inner),
                       orelse=self.optional_block(orelse, (ctx[0], span)), type_comment=None)
        return [self.at(loop, inner)]

    @staticmethod
    def exit_normally(entered: str) -> ast.expr:
        """``cls.__exit__(manager, None, None, None)`` of what fused_runtime.with_enter gave."""
        def part(index: int) -> ast.expr:
            return ast.Subscript(value=_name(entered), slice=_constant(index), ctx=_LOAD)
        return ast.Call(func=ast.Attribute(value=part(0), attr="__exit__", ctx=_LOAD),
                        args=[part(1), _constant(None), _constant(None), _constant(None)], keywords=[])

    def s_with(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        """``with m as x: body``: entered and left by fused_runtime as the closures' with does."""
        _, manager, span, store, body = recipe
        entering, inside = (span, span), (ctx[0], span)
        entered, left, error = self.temp("_w"), self.temp("_x"), self.temp("_e")
        self.temps.remove(error)    # (Python unbinds the name of an except clause itself)
        enter = ast.Assign(targets=[_name(entered, _STORE)], value=self.at(ast.Call(
            func=_name("_with_enter"), args=[self.expr(manager, entering)], keywords=[]), entering))
        statements = []
        if store is not None:
            statements = self.store(store, ast.Subscript(value=_name(entered), slice=_constant(2), ctx=_LOAD), inside)
        statements += self.block(body, inside)
        leave_failed = [
            self.at(ast.Assign(targets=[ast.Tuple(elts=[_name(left, _STORE), _name(entered, _STORE)], ctx=_STORE)],
                               value=ast.Tuple(elts=[_name(entered), _constant(None)], ctx=_LOAD)), inside),
            self.at(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=ast.Call(
                func=_name("_with_failed"), args=[_name(left), _name(error), _name("_TABLE")], keywords=[])),
                body=[self.at(ast.Raise(exc=None, cause=None), inside)], orelse=[]), inside)]
        handler = self.at(ast.ExceptHandler(type=_name("_BaseException"), name=error, body=leave_failed), inside)
        leave = self.at(ast.If(test=ast.Compare(left=_name(entered), ops=[ast.IsNot()], comparators=[_constant(None)]),
                               body=[self.at(ast.Expr(value=self.exit_normally(entered)), inside)], orelse=[]),
                       inside)
        guarded = ast.Try(body=statements, handlers=[handler], orelse=[], finalbody=[leave])
        return [self.at(enter, entering), self.at(guarded, inside)]
