"""Statements -> closures ``frame -> None | BREAK | CONTINUE | RETURN``.

Control flow travels as return values, not exceptions: a block stops at the
first statement that returns a signal and hands it to its loop or function.  A loop counts
its iterations: once hot it hands the rest of them to its Python code (compiler.fusion).
"""

from __future__ import annotations

import operator
from typing import Any

from gradcli.lang import sizes
from gradcli.lang.compiler.base import CompilerBase, Executor, described
from gradcli.lang.classes import is_script_class
from gradcli.lang.deadline import check as check_deadline
from gradcli.lang.error_origin import is_catchable
from gradcli.lang.errors import (ScriptAssertionError, ScriptSyntaxError, ScriptTimeout, ScriptTypeError, mark,
                                 visible_class)
from gradcli.lang.functions import BREAK, CONTINUE, RETURN, Frame
from gradcli.lang.safety import get_attribute, set_attribute, type_name
from gradcli.lang.syntax_tree import Tree

# What CPython 3.11's __future__ module knows.
FUTURE_FEATURES = frozenset({"nested_scopes", "generators", "division", "absolute_import", "with_statement",
                             "print_function", "unicode_literals", "barry_as_FLUFL", "generator_stop",
                             "annotations"})

AUGMENTED = {
    "+=": operator.iadd, "-=": operator.isub, "*=": sizes.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "@=": operator.imatmul, "**=": sizes.ipower,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": sizes.ilshift,
    ">>=": operator.irshift,
}


# A loop is rebuilt as Python code (gradcli.lang.compiler.fusion) once it has run this many
# iterations, all its runs together: about what rebuilding costs in the closures' time, so a
# short loop never pays for it and a long one runs on at the speed of Python code.
HOT_ITERATIONS = 50


def _fuse(loop: Executor) -> Any:
    """The loop as Python code, or False where it cannot be (fusion is imported on first use)."""
    from gradcli.lang.compiler.fusion import fuse_loop
    return fuse_loop(loop) or False


class _Iterated:
    """An iterator of a script class, as ``for`` may iterate it again (the loop below, then a
    fused one): Python's ``for`` asks ``iter()`` once, so the class need not define ``__iter__``
    on what that returned."""

    __slots__ = ("_next",)

    def __init__(self, iterator: Any) -> None:
        self._next = iterator.__next__

    def __iter__(self) -> _Iterated:
        return self

    def __next__(self) -> Any:
        return self._next()


def _as_iterated(iterator: Any) -> Any:
    cls = type(iterator)
    adapt = _ADAPTED.get(cls)
    if adapt is None:
        adapt = _ADAPTED[cls] = is_script_class(cls)
    return _Iterated(iterator) if adapt else iterator


# iterator class -> whether a for loop runs over it through _Iterated (asked once per class)
_ADAPTED: dict[type, bool] = {}


def _nothing(frame: Frame) -> None:
    return None


_nothing.recipe = ("block", ())


def _discarding(evaluate: Any) -> Executor:
    """Evaluate an expression for its effects (and errors) only."""
    def run(frame: Frame) -> None:
        evaluate(frame)
    return run


class StatementCompiler(CompilerBase):
    echo_expressions = False

    def statements(self, node: Tree) -> list[Executor]:
        """The executors of one statement node (a simple_stmt holds several)."""
        if node.data == "simple_stmt":
            result = []
            for child in node.children:
                if child is not None:
                    result.extend(self.statements(child))
            return result
        method = getattr(self, "s_" + node.data)
        try:
            executor = method(node)
        except (RecursionError, MemoryError, KeyboardInterrupt, ScriptTimeout) as error:
            mark(error, self.span(node))   # (an expression inside marked it already, if any)
            raise
        return [] if executor is None else [executor]

    def block(self, node: Tree) -> Executor:
        """A suite: one line after ':' or an indented body."""
        executors: list[Executor] = []
        for child in node.children:
            if isinstance(child, Tree):
                executors.extend(self.statements(child))
        return sequence(executors)

    # ------------------------------------------------------------ simple statements
    def s_expr_stmt(self, node: Tree) -> Executor:
        evaluate = self.expr(node.children[0])
        if self.echo_expressions and not self.in_function:
            echo = self.context.echo

            def show(frame: Frame) -> None:
                value = evaluate(frame)
                if value is not None:
                    echo(value)
            return show

        def expression(frame: Frame) -> None:
            evaluate(frame)
        return described(expression, "expression", evaluate)

    def s_assign_stmt(self, node: Tree) -> Executor:
        *target_nodes, value_node = node.children
        error = self.assignment_error(target_nodes, value_node)
        if error is not None:
            raise error
        value = self.expr(value_node)
        stores = [self.store_target(target) for target in target_nodes]
        if len(stores) == 1:
            (store,) = stores

            def assign(frame: Frame) -> None:
                store(frame, value(frame))
            return described(assign, "assign", value, (store,))
        stores_tuple = tuple(stores)

        def assign_many(frame: Frame) -> None:
            item = value(frame)
            for store in stores_tuple:
                store(frame, item)
        return described(assign_many, "assign", value, stores_tuple)

    def s_ann_assign_stmt(self, node: Tree) -> Executor:
        """``target: annotation [= value]`` as CPython 3.11 compiles it: the value is stored
        first; the annotation is evaluated (and dropped) only in modules and class bodies (and never
        after ``from __future__ import annotations``); without a
        value, an attribute or subscript target still evaluates its object and key."""
        target, annotation_node, value_node = node.children
        if target.data in ("tuple", "list"):
            raise self.syntax_error(target, f"only single target (not {target.data}) can be annotated")
        if target.data not in ("name", "attribute", "subscript"):
            raise self.syntax_error(target, "illegal target for annotation")
        steps: list[Executor] = []
        if value_node is not None:
            value = self.expr(value_node)
            store = self.store_target(target)

            def assign(frame: Frame) -> None:
                store(frame, value(frame))
            steps.append(assign)
        elif target.data != "name":
            parts = [self.expr(target.children[0])]
            if target.data == "subscript":
                parts.append(self.subscript_key(target.children[1]))
            steps.extend(_discarding(part) for part in parts)
        if self.scope.kind in ("module", "class") and not self.lazy_annotations:
            steps.append(_discarding(self.expr(annotation_node)))
        return sequence(steps)

    def s_aug_assign_stmt(self, node: Tree) -> Executor:
        target, operator_token, value_node = node.children
        function = AUGMENTED[str(operator_token)]
        value = self.expr(value_node)
        span = self.span(node)
        if target.data == "name":
            load = self.expr(target)
            store = self.store_name(str(target.children[0]))

            def augment_name(frame: Frame) -> None:
                current = load(frame)
                right = value(frame)
                try:
                    result = function(current, right)
                except BaseException as error:
                    mark(error, span)
                    raise
                store(frame, result)
            return described(augment_name, "augment_name", function, load, value, store, span)
        if target.data == "attribute":
            owner = self.expr(target.children[0])
            name = self.mangle(str(target.children[1]))

            def augment_attribute(frame: Frame) -> None:
                try:
                    obj = owner(frame)
                    result = function(get_attribute(obj, name), value(frame))
                    set_attribute(obj, name, result)
                except BaseException as error:
                    mark(error, span)
                    raise
            return described(augment_attribute, "augment_attribute", function, owner, name, value, span)
        if target.data == "subscript":
            owner = self.expr(target.children[0])
            key = self.subscript_key(target.children[1])

            def augment_item(frame: Frame) -> None:
                try:
                    obj = owner(frame)
                    index = key(frame)
                    obj[index] = function(obj[index], value(frame))
                except BaseException as error:
                    mark(error, span)
                    raise
            return described(augment_item, "augment_item", function, owner, key, value, span)
        if target.data in ("tuple", "list"):
            raise self.syntax_error(target, f"'{target.data}' is an illegal expression for augmented assignment")
        raise self.syntax_error(target, f"'{self.expression_name(target.data, target)}' is an illegal "
                                        "expression for augmented assignment")

    def s_del_stmt(self, node: Tree) -> Executor:
        delete = self.delete_target(node.children[0])

        def delete_statement(frame: Frame) -> None:
            delete(frame)
        return delete_statement

    def s_pass_stmt(self, node: Tree) -> None:
        return None

    def s_break_stmt(self, node: Tree) -> Executor:
        if not self.loop_depth:
            raise self.syntax_error(node, "'break' outside loop")
        return described(lambda frame: BREAK, "break")

    def s_continue_stmt(self, node: Tree) -> Executor:
        if not self.loop_depth:
            raise self.syntax_error(node, "'continue' not properly in loop")
        return described(lambda frame: CONTINUE, "continue")

    def s_return_stmt(self, node: Tree) -> Executor:
        if self.scope.kind != "function":
            raise self.syntax_error(node, "'return' outside function")
        value_node = node.children[0]
        if value_node is None:
            def return_none(frame: Frame) -> Any:
                frame.ret = None
                return RETURN
            return described(return_none, "return", None)
        value = self.expr(value_node)

        def return_value(frame: Frame) -> Any:
            frame.ret = value(frame)
            return RETURN
        return described(return_value, "return", value)

    def s_assert_stmt(self, node: Tree) -> Executor:
        test_node, message_node = node.children
        test = self.expr(test_node)
        message = self.expr(message_node) if message_node is not None else None
        span = self.span(node)

        def assertion(frame: Frame) -> None:
            try:
                if test(frame):
                    return
            except BaseException as error:
                mark(error, span)
                raise
            error = ScriptAssertionError() if message is None else ScriptAssertionError(message(frame))
            mark(error, span)
            raise error
        return assertion

    def s_global_stmt(self, node: Tree) -> None:
        return None  # decided at compile time (scopes.bindings); nothing to run

    def s_nonlocal_stmt(self, node: Tree) -> None:
        if self.scope.kind == "module":
            raise self.syntax_error(node, "nonlocal declaration not allowed at module level")
        for token in node.children:
            if not self.scope.has_enclosing_binding(self.mangle(str(token))):
                raise self.syntax_error(node, f"no binding for nonlocal '{token}' found")
        return None

    # ------------------------------------------------------------ imports
    def s_import_stmt(self, node: Tree) -> Executor:
        steps = []
        for item in node.children:
            dotted, alias = item.children
            parts = [str(token) for token in dotted.children]
            path = ".".join(parts)
            if alias is not None:
                steps.append((path, None, self.store_name(str(alias))))
            else:
                steps.append((path, parts[0], self.store_name(parts[0])))
        import_module = self.context.import_module
        span = self.span(node)

        def import_statement(frame: Frame) -> None:
            try:
                for path, top, store in steps:
                    module = import_module(path)
                    store(frame, module if top is None else import_module(top))
            except BaseException as error:
                mark(error, span)
                raise
        return import_statement

    def s_from_import_stmt(self, node: Tree) -> Executor | None:
        dotted, *names = node.children
        path = ".".join(str(token) for token in dotted.children)
        if path == "__future__":
            return self._future_import(node, [item.children[0] for item in names if item is not None])
        steps = []
        for item in names:
            if item is None:
                continue
            name, alias = item.children
            steps.append((str(name), self.store_name(str(alias if alias is not None else name))))
        import_module = self.context.import_module
        import_name = self.context.import_name
        span = self.span(node)

        def from_import(frame: Frame) -> None:
            try:
                import_module(path)
                for name, store in steps:
                    store(frame, import_name(path, name))
            except BaseException as error:
                mark(error, span)
                raise
        return from_import

    def _future_import(self, node: Tree, features: list) -> None:
        """``from __future__ import ...``: checked as CPython checks it; ``annotations`` stops
        annotations from being evaluated (PEP 563), the others change nothing in Python 3.11."""
        if not self.future_allowed or self.scope.kind != "module":
            raise self.syntax_error(node, "from __future__ imports must occur at the beginning of the file")
        for feature in map(str, features):
            if feature == "braces":
                raise ScriptSyntaxError("not a chance", node.meta.line, node.meta.column)
            if feature not in FUTURE_FEATURES:
                raise ScriptSyntaxError(f"future feature {feature} is not defined", node.meta.line,
                                        node.meta.column)
            if feature == "annotations":
                self.lazy_annotations = True
        return None

    # ------------------------------------------------------------ compound statements
    def s_if_stmt(self, node: Tree) -> Executor:
        test_node, body_node, *rest = node.children
        branches = [(self.expr(test_node), self.block(body_node), self.span(test_node))]
        orelse = _nothing
        for clause in rest:
            if clause is None:
                continue
            if clause.data == "elif_clause":
                branches.append((self.expr(clause.children[0]), self.block(clause.children[1]),
                                 self.span(clause.children[0])))
            else:
                orelse = self.block(clause.children[0])
        if len(branches) == 1:
            ((test, body, span),) = branches

            def if_statement(frame: Frame) -> Any:
                try:
                    chosen = body if test(frame) else orelse
                except BaseException as error:
                    mark(error, span)
                    raise
                return chosen(frame)
            return described(if_statement, "if", ((test, body, span),), orelse)
        branches_tuple = tuple(branches)

        def if_chain(frame: Frame) -> Any:
            for test, body, span in branches_tuple:
                try:
                    taken = test(frame)
                    if taken:
                        break
                except BaseException as error:
                    mark(error, span)
                    raise
            else:
                return orelse(frame)
            return body(frame)
        return described(if_chain, "if_chain", branches_tuple, orelse)

    def s_while_stmt(self, node: Tree) -> Executor:
        test_node, body_node, else_node = node.children
        test = self.expr(test_node)
        span = self.span(test_node)
        body, orelse = self._loop_blocks(body_node, else_node)

        context = self.context
        iterations = 0
        fused = None    # the loop as Python code once it is hot (False: it cannot be fused)

        def while_loop(frame: Frame) -> Any:
            nonlocal iterations, fused
            if fused is None and iterations >= HOT_ITERATIONS:
                fused = _fuse(while_loop)
            if fused:
                return fused(frame)
            ended = False
            try:
                while test(frame):
                    signal = body(frame)
                    check_deadline()
                    if signal is not None:
                        if signal is BREAK:
                            return None
                        if signal is not CONTINUE:
                            return signal
                    if fused is None:
                        iterations += 1
                        if iterations >= HOT_ITERATIONS:
                            fused = _fuse(while_loop)
                            if fused:
                                break
                else:
                    ended = True
            except BaseException as error:
                mark(error, span)
                raise
            if ended:
                return orelse(frame)
            return fused(frame)
        return described(while_loop, "while", test, body, orelse, span, context)

    def s_for_stmt(self, node: Tree) -> Executor:
        target_node, iterable_node, body_node, else_node = node.children
        store = self.store_target(target_node, "for")
        iterable = self.expr(iterable_node)
        span = self.span(iterable_node)
        body, orelse = self._loop_blocks(body_node, else_node)

        context = self.context
        iterations = 0
        fused = None    # the loop as Python code once it is hot (False: it cannot be fused)

        def for_loop(frame: Frame) -> Any:
            nonlocal iterations, fused
            try:
                iterator = iter(iterable(frame))
                if _ADAPTED.get(type(iterator)) is not False:   # (a class not seen yet, or a script's)
                    iterator = _as_iterated(iterator)
                if fused is None and iterations >= HOT_ITERATIONS:
                    fused = _fuse(for_loop)
                if not fused:
                    for item in iterator:
                        store(frame, item)
                        signal = body(frame)
                        check_deadline()
                        if signal is not None:
                            if signal is BREAK:
                                return None
                            if signal is not CONTINUE:
                                return signal
                        if fused is None:
                            iterations += 1
                            if iterations >= HOT_ITERATIONS:
                                fused = _fuse(for_loop)
                                if fused:
                                    break
                    else:
                        iterator = None     # it ran to the end: the else block follows
            except BaseException as error:
                mark(error, span)
                raise
            if iterator is None:
                return orelse(frame)
            return fused(frame, iterator)   # the rest of the iterations
        return described(for_loop, "for", store, iterable, body, orelse, span, context)

    def _loop_blocks(self, body_node: Tree, else_node: Tree | None) -> tuple[Executor, Executor]:
        """A loop's body (where break/continue are allowed) and its else block."""
        self.loop_depth += 1
        body = self.block(body_node)
        self.loop_depth -= 1
        orelse = self.block(else_node.children[0]) if else_node is not None else _nothing
        return body, orelse

    def s_with_stmt(self, node: Tree) -> Executor:
        *items, body_node = node.children
        body = self.block(body_node)
        # `with a, b:` is `with a:` holding `with b:`
        for item in reversed(items):
            manager_node, target_node = item.children
            body = self._with_one(self.expr(manager_node), self.span(manager_node),
                                  self.store_target(target_node) if target_node is not None else None,
                                  body)
        return body

    @staticmethod
    def _with_one(manager: Any, span, store, body: Executor) -> Executor:
        def with_statement(frame: Frame) -> Any:
            try:
                context = manager(frame)
                cls = type(context)
                if not (hasattr(cls, "__enter__") and hasattr(cls, "__exit__")):
                    raise ScriptTypeError(f"'{type_name(cls)}' object does not support the context "
                                          "manager protocol")
                entered = cls.__enter__(context)
            except BaseException as error:
                mark(error, span)
                raise
            try:
                if store is not None:
                    store(frame, entered)
                signal = body(frame)
            except BaseException as error:
                if is_catchable(error):
                    if not cls.__exit__(context, visible_class(type(error)), error, error.__traceback__):
                        raise
                    return None
                # a bug, the time limit or Ctrl-C: nothing may hide it; the engine's managers still
                # restore their state (grad mode), and on Ctrl-C the script's own clean up too --
                # but no script code runs past the time limit
                if isinstance(error, KeyboardInterrupt) or not is_script_class(cls):
                    cls.__exit__(context, type(error), error, error.__traceback__)
                raise
            cls.__exit__(context, None, None, None)
            return signal
        return described(with_statement, "with", manager, span, store, body)


def sequence(executors: list[Executor]) -> Executor:
    """Run statements in order, stopping at the first control-flow signal."""
    if not executors:
        return _nothing
    if len(executors) == 1:
        return executors[0]
    steps = tuple(executors)
    if len(executors) == 2:
        first, second = executors

        def pair(frame: Frame) -> Any:
            signal = first(frame)
            if signal is not None:
                return signal
            return second(frame)
        return described(pair, "block", steps)

    def run_all(frame: Frame) -> Any:
        for step in steps:
            signal = step(frame)
            if signal is not None:
                return signal
        return None
    return described(run_all, "block", steps)
