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
from gradcli.lang.compiler.fusion_expressions import (_AUGMENTED, CHECKED, _STORE, Context, ExpressionBuilder, Nodes,
                                                      is_direct_name)


class StatementBuilder(ExpressionBuilder):
    """Builds Python statements from executor (and store) closures' recipes."""

    def block(self, executor: Any, ctx: Context) -> list:
        recipe = getattr(executor, "recipe", None)
        if recipe is not None and recipe[0] == "block":
            statements = self.s_block(executor, recipe, ctx)
        else:
            statements = self.statement(executor, ctx)
        return statements or [self.nodes(ctx)(ast.Pass)]

    def statement(self, executor: Any, ctx: Context) -> list:
        recipe = getattr(executor, "recipe", None)
        method = getattr(self, "s_" + recipe[0], None) if recipe is not None else None
        outer_temps, self.temps = self.temps, []
        try:
            statements = method(executor, recipe, ctx) if method is not None else self.run_leaf(executor, ctx)
            if self.temps:   # what the statement held is let go of, as the closures let go of it
                n = self.nodes(ctx)
                statements.append(n(ast.Assign, targets=[n.name(name, _STORE) for name in self.temps],
                                    value=n.const(None)))
        finally:
            self.temps = outer_temps
        return statements

    def s_block(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        statements = []
        for step in recipe[1]:
            statements.extend(self.statement(step, ctx))
        return statements

    def run_leaf(self, executor: Any, ctx: Context) -> list:
        n, signal = self.nodes(ctx), self.temp("_s")
        return [n.assign(signal, self.leaf(executor, ctx)),
                n.when(n.compare(n.name(signal), ast.IsNot(), n.const(None)), self.pass_signal(signal, n))]

    def pass_signal(self, signal: str, n: Nodes) -> list:
        """A closure's BREAK/CONTINUE/RETURN, where the built code now is (in a function's body,
        RETURN is the value the closure left in ``frame.ret``)."""
        give = n(ast.Return, value=n.attr(n.name("frame"), "ret") if self.returns_values else n.name(signal))
        if not self.loop_depth:
            return [give]
        return [n.when(n.compare(n.name(signal), ast.Is(), n.name("_BREAK")), [n(ast.Break)], [
            n.when(n.compare(n.name(signal), ast.Is(), n.name("_CONTINUE")), [n(ast.Continue)], [give])])]

    def s_expression(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        return [self.nodes(ctx).do(self.expr(recipe[1], ctx))]

    def s_assign(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, value, stores = recipe
        item = self.expr(value, ctx)
        if len(stores) == 1:
            return self.store(stores[0], item, ctx)
        n, held = self.nodes(ctx), self.temp()
        statements = [n.assign(held, item)]
        for store in stores:
            statements.extend(self.store(store, n.name(held), ctx))
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
            return self.nodes((span, span)).tuple(targets, _STORE)
        if kind == "store_global":
            mapping = "_g"
        elif kind == "store_local":
            self.uses_locals = True
            mapping = "_l"
        elif kind == "store_free":
            self.parents.add(store.recipe[2])
            mapping = f"_p{store.recipe[2]}"
        else:
            return None
        n = self.nodes(ctx)
        return n.item(n.name(mapping), n.const(store.recipe[1]), _STORE)

    def store(self, store: Any, item: ast.expr, ctx: Context) -> list:
        """Store the value of ``item`` (an expression built already) as the store closure would."""
        n = self.nodes(ctx)
        target = self.variable(store, ctx)
        if target is not None:
            return [n.assign(target, item)]
        recipe = getattr(store, "recipe", None)
        kind = recipe[0] if recipe is not None else None
        if kind not in ("bind", "store_attribute", "store_item"):
            return [n.do(n.call(self.value_name(store, n), n.name("frame"), item))]
        statements = []
        if not isinstance(item, (ast.Name, ast.Constant)):
            held = self.temp()
            statements.append(n.assign(held, item))
            item = n.name(held)
        if kind == "bind":
            _, inner_store, name, span, on_bind = recipe
            statements.extend(self.store(inner_store, item, ctx))
            told = self.nodes((ctx[0], span))
            statements.append(told.do(told.call(self.value_name(on_bind, told), told.const(name), item,
                                                self.value_name(span, told))))
            return statements
        span = recipe[-1]
        inner = (span, span)
        m = self.nodes(inner)
        if kind == "store_item":
            _, value, key, _ = recipe
            statements.append(n.assign(m.item(self.expr(value, inner), self.expr(key, inner), _STORE), item))
            return statements
        _, value, name, _ = recipe
        owner = self.temp()
        statements.append(m.assign(owner, self.expr(value, inner)))
        statements.append(self.write_attribute(owner, name, item, inner))
        return statements

    def write_attribute(self, owner: str, name: str, item: ast.expr, ctx: Context) -> ast.stmt:
        """``owner.name = item`` through the sandbox: directly for a type it let through before."""
        n = self.nodes(ctx)
        if not is_direct_name(name):
            return n.do(n.helper("_write", n.name(owner), n.const(name), item, n.const(None)))
        direct = self.value_name(DIRECT_WRITES.setdefault(name, set()), n)
        return n.when(n.compare(n.helper("_type", n.name(owner)), ast.In(), direct),
                      [n.assign(n.attr(n.name(owner), name, _STORE), item)],
                      [n.do(n.helper("_write", n.name(owner), n.const(name), item, direct))])

    @staticmethod
    def _augment(n: Any, current: str, function: Any, value: Any) -> Any:
        """``current op= value``; the operators that check sizes first call their helper."""
        if function in CHECKED:
            return n.assign(current, n.helper(CHECKED[function], n.name(current), value))
        return n(ast.AugAssign, target=n.name(current, _STORE), op=_AUGMENTED[function](), value=value)

    def s_augment_name(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, function, load, value, store, span = recipe
        around, inner = (ctx[0], span), (span, span)
        n, m = self.nodes(around), self.nodes(inner)
        current, right = self.temp(), self.temp()
        statements = [n.assign(current, self.expr(load, around)), n.assign(right, self.expr(value, around)),
                      self._augment(m, current, function, m.name(right))]
        return statements + self.store(store, n.name(current), around)

    def s_augment_attribute(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, function, owner_value, name, value, span = recipe
        inner = (span, span)
        n = self.nodes(inner)
        owner, current = self.temp(), self.temp()
        return [n.assign(owner, self.expr(owner_value, inner)),
                n.assign(current, self.read_attribute(n.name(owner), name, inner)),
                self._augment(n, current, function, self.expr(value, inner)),
                self.write_attribute(owner, name, n.name(current), inner)]

    def s_augment_item(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, function, owner_value, key, value, span = recipe
        inner = (span, span)
        n = self.nodes(inner)
        owner, index, current = self.temp(), self.temp(), self.temp()
        return [n.assign(owner, self.expr(owner_value, inner)), n.assign(index, self.expr(key, inner)),
                n.assign(current, n.item(n.name(owner), n.name(index))),
                self._augment(n, current, function, self.expr(value, inner)),
                n.assign(n.item(n.name(owner), n.name(index), _STORE), n.name(current))]

    def _jump(self, signal: str, statement: type, ctx: Context) -> list:
        n = self.nodes(ctx)
        if self.loop_depth:
            return [n(statement)]
        return [n(ast.Return, value=n.name(signal))]   # (to a loop around the built one)

    def s_break(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        return self._jump("_BREAK", ast.Break, ctx)

    def s_continue(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        return self._jump("_CONTINUE", ast.Continue, ctx)

    def s_return(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        n, value = self.nodes(ctx), recipe[1]
        result = n.const(None) if value is None else self.expr(value, ctx)
        if self.returns_values:
            return [n(ast.Return, value=result)]
        return [n.assign(n.attr(n.name("frame"), "ret", _STORE), result), n(ast.Return, value=n.name("_RETURN"))]

    def _test(self, test: Any, ctx: Context) -> tuple[list, ast.Name]:
        """A test's value assigned to a temporary, and the temporary (see the module docstring)."""
        n, held = self.nodes(ctx), self.temp("_c")
        return [n.assign(held, self.expr(test, ctx))], n.name(held)

    def s_if(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        ((test, body, span),), orelse = recipe[1], recipe[2]
        tested, chosen = (span, span), (ctx[0], span)
        statements, condition = self._test(test, tested)
        statements.append(self.nodes(tested).when(condition, self.block(body, chosen),
                                                  self.optional_block(orelse, chosen)))
        return statements

    def s_if_chain(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        branches, orelse = recipe[1], recipe[2]
        statements = self.optional_block(orelse, ctx)
        for test, body, span in reversed(branches):
            tested = (span, ctx[1])
            chain, condition = self._test(test, tested)
            chain.append(self.nodes(tested).when(condition, self.block(body, ctx), statements))
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

    @staticmethod
    def tick(n: Nodes) -> ast.stmt:
        """The time limit's check at each iteration (gradcli.lang.deadline): first, so that continue
        cannot skip it."""
        return n.do(n.helper("_tick"))

    def s_while(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        _, test, body, orelse, span, _ = recipe
        inner = (span, span)
        n = self.nodes(inner)
        condition = n.walrus(self.temp("_c"), self.expr(test, inner))
        return [n(ast.While, test=condition, body=[self.tick(n), *self.loop_body(body, inner)],
                  orelse=self.optional_block(orelse, (ctx[0], span)))]

    def s_for(self, executor: Any, recipe: tuple, ctx: Context, iterator: str | None = None) -> list:
        _, store, iterable, body, orelse, span, _ = recipe
        inner = (span, span)
        n = self.nodes(inner)
        source = n.name(iterator) if iterator is not None else self.expr(iterable, inner)
        target = self.variable(store, inner)
        if target is not None:
            stores = []
        else:
            item = self.temp("_i")
            target, stores = n.name(item, _STORE), self.store(store, n.name(item), inner)
        return [n(ast.For, target=target, iter=source, body=[self.tick(n), *stores, *self.loop_body(body, inner)],
                  orelse=self.optional_block(orelse, (ctx[0], span)), type_comment=None)]

    @staticmethod
    def exit_normally(entered: str, n: Nodes) -> ast.expr:
        """``cls.__exit__(manager, None, None, None)`` of what fused_runtime.with_enter gave."""
        return n.call(n.attr(n.item(n.name(entered), n.const(0)), "__exit__"), n.item(n.name(entered), n.const(1)),
                      n.const(None), n.const(None), n.const(None))

    def s_with(self, executor: Any, recipe: tuple, ctx: Context) -> list:
        """``with m as x: body``: entered and left by fused_runtime as the closures' with does."""
        _, manager, span, store, body = recipe
        entering, inside = (span, span), (ctx[0], span)
        n, m = self.nodes(entering), self.nodes(inside)
        entered, left, error = self.temp("_w"), self.temp("_x"), self.temp("_e")
        self.temps.remove(error)    # (Python unbinds the name of an except clause itself)
        enter = n.assign(entered, n.helper("_with_enter", self.expr(manager, entering)))
        statements = []
        if store is not None:
            statements = self.store(store, m.item(m.name(entered), m.const(2)), inside)
        statements += self.block(body, inside)
        leave_failed = [
            m(ast.Assign, targets=[m.tuple([m.name(left, _STORE), m.name(entered, _STORE)], _STORE)],
              value=m.tuple([m.name(entered), m.const(None)])),
            m.when(m(ast.UnaryOp, op=ast.Not(), operand=m.helper("_with_failed", m.name(left), m.name(error),
                                                                 m.name("_TABLE"))),
                   [m(ast.Raise, exc=None, cause=None)])]
        handler = m(ast.ExceptHandler, type=m.name("_BaseException"), name=error, body=leave_failed)
        leave = m.when(m.compare(m.name(entered), ast.IsNot(), m.const(None)),
                       [m.do(self.exit_normally(entered, m))])
        return [enter, m(ast.Try, body=statements, handlers=[handler], orelse=[], finalbody=[leave])]
