"""``try``/``except``/``else``/``finally`` and ``raise``, with Python 3.11's semantics.

An ``except`` clause sees only the script's own errors (gradcli.lang.error_origin): a bug inside
gradcli, the ``--timeout`` limit and Ctrl-C pass every handler, so no script hides them (on
Ctrl-C the ``finally`` blocks still run, as in Python; past the time limit no script code runs).  The
errors gradcli raises on purpose subclass the builtins Python and PyTorch raise
(ScriptNameError is a NameError, TorchRuntimeError a RuntimeError), so ``except RuntimeError``
catches what PyTorch's would.  The exceptions whose handlers are running are kept on
``RunContext.handling``: a bare ``raise`` re-raises the innermost, as in Python.
"""

from __future__ import annotations

from typing import Any

from gradcli.lang.compiler.base import CompilerBase, Executor
from gradcli.lang.error_origin import is_catchable
from gradcli.lang.errors import ScriptRuntimeError, ScriptSyntaxError, ScriptTypeError, mark
from gradcli.lang.functions import Frame
from gradcli.lang.syntax_tree import Tree

_NOT_AN_EXCEPTION_CLASS = "catching classes that do not inherit from BaseException is not allowed"


class ExceptionCompiler(CompilerBase):
    def s_try_stmt(self, node: Tree) -> Executor:
        body_node, *clauses = node.children
        handlers = []
        orelse = final = None
        for clause in clauses:
            if clause is None:
                continue
            if clause.data == "except_clause":
                handlers.append(clause)
            elif clause.data == "else_clause":
                orelse = self.block(clause.children[0])
            else:
                final = self.block(clause.children[0])
        for clause in handlers[:-1]:
            if clause.children[0] is None:
                raise ScriptSyntaxError("default 'except:' must be last", clause.meta.line, clause.meta.column,
                                        end_column=clause.meta.column + len("except"))
        body = self.block(body_node)
        compiled = tuple(self._handler(clause) for clause in handlers)
        guarded = _try_except(body, compiled, orelse, self.context.handling)
        return guarded if final is None else _try_finally(guarded, final, self.context.handling)

    def s_try_finally_stmt(self, node: Tree) -> Executor:
        body_node, final_clause = node.children
        return _try_finally(self.block(body_node), self.block(final_clause.children[0]), self.context.handling)

    def _handler(self, clause: Tree) -> tuple:
        """(matches, store, unbind, body) of one ``except`` clause; ``matches`` None for a bare one."""
        type_node, name_token, body_node = clause.children
        matches = None if type_node is None else _matcher(self.expr(type_node), self.span(type_node))
        store = unbind = None
        if name_token is not None:
            # `except E as e:` binds e, and unbinds it when the handler ends (Python's `del e`)
            store = self.store_name(str(name_token))
            unbind = _unbinder(self.delete_target(Tree("name", [name_token], clause.meta)))
        return matches, store, unbind, self.block(body_node)

    def s_raise_stmt(self, node: Tree) -> Executor:
        exception_node, cause_node = node.children
        span = self.span(node)
        handling = self.context.handling
        if exception_node is None:
            def reraise(frame: Frame) -> None:
                if not handling:
                    error = ScriptRuntimeError("No active exception to reraise")
                    mark(error, span)
                    raise error
                raise handling[-1]
            return reraise
        evaluate = self.expr(exception_node)
        cause = self.expr(cause_node) if cause_node is not None else None

        def raise_statement(frame: Frame) -> None:
            try:
                error = _instance(evaluate(frame), "exceptions must derive from BaseException")
                if cause is not None:
                    reason = cause(frame)
                    reason = None if reason is None else _instance(
                        reason, "exception causes must derive from BaseException")
            except BaseException as failure:
                mark(failure, span)
                raise
            mark(error, span)
            if cause is None:
                raise error
            raise error from reason
        return raise_statement


def _matcher(evaluate: Any, span: Any) -> Any:
    def matches(frame: Frame, error: BaseException) -> bool:
        try:
            return _matches(error, evaluate(frame))
        except BaseException as failure:
            mark(failure, span)
            raise
    return matches


def _unbinder(forget: Any) -> Any:
    def unbind(frame: Frame) -> None:
        try:
            forget(frame)
        except NameError:   # the handler deleted it itself
            pass
    return unbind


def _instance(value: Any, message: str) -> BaseException:
    """What ``raise value`` raises: an instance, or a new instance of a class."""
    if isinstance(value, type) and issubclass(value, BaseException):
        value = value()
        if not isinstance(value, BaseException):
            raise ScriptTypeError(f"calling {value!r} should have returned an instance of BaseException, "
                                  f"not {type(value).__name__}")
        return value
    if isinstance(value, BaseException):
        return value
    raise ScriptTypeError(message)


def _matches(error: BaseException, expected: Any) -> bool:
    """``except expected:`` for ``error``, with Python's check of what may be caught."""
    if isinstance(expected, tuple):
        if not all(_is_exception_class(item) for item in _flatten(expected)):
            raise ScriptTypeError(_NOT_AN_EXCEPTION_CLASS)
    elif not _is_exception_class(expected):
        raise ScriptTypeError(_NOT_AN_EXCEPTION_CLASS)
    return isinstance(error, expected)


def _flatten(items: tuple):
    for item in items:
        if isinstance(item, tuple):
            yield from _flatten(item)
        else:
            yield item


def _is_exception_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


def _try_except(body: Executor, handlers: tuple, orelse: Executor | None, handling: list) -> Executor:
    def try_except(frame: Frame) -> Any:
        try:
            signal = body(frame)
        except BaseException as error:
            if not is_catchable(error):
                raise
            for matches, store, unbind, handler in handlers:
                if matches is None or matches(frame, error):
                    break
            else:
                raise
            handling.append(error)
            try:
                if store is None:
                    return handler(frame)
                store(frame, error)
                try:
                    return handler(frame)
                finally:
                    unbind(frame)
            finally:
                handling.pop()
        if signal is not None or orelse is None:
            return signal
        return orelse(frame)
    return try_except


def _try_finally(body: Executor, final: Executor, handling: list) -> Executor:
    def try_finally(frame: Frame) -> Any:
        try:
            signal = body(frame)
        except BaseException as error:
            if not (is_catchable(error) or isinstance(error, KeyboardInterrupt)):
                raise        # a bug or the time limit: the run stops, no script code runs on the way out
            handling.append(error)
            try:
                ending = final(frame)
            finally:
                handling.pop()
            if ending is not None:
                return ending      # `return`/`break` in finally discards the exception, as in Python
            raise
        ending = final(frame)
        return signal if ending is None else ending
    return try_finally
