"""Assignment and ``del`` targets: names, attributes, subscripts and (nested) unpacking."""

from __future__ import annotations

from itertools import islice
from typing import Any, Callable

from gradcli.lang.compiler.base import CompilerBase, described
from gradcli.lang.errors import (ScriptNameError, ScriptSyntaxError, ScriptTypeError, ScriptValueError, mark,
                                 name_error)
from gradcli.lang.functions import Frame
from gradcli.lang.safety import delete_attribute, set_attribute, type_name
from gradcli.lang.syntax_tree import Tree

Store = Callable[[Frame, Any], None]
Delete = Callable[[Frame], None]

_LITERALS = {"number", "strings"}
_DESCRIPTIONS = {
    "const_none": "None", "const_true": "True", "const_false": "False", "ellipsis": "ellipsis",
    "call": "function call", "comparison": "comparison", "lambdef": "lambda",
    "conditional": "conditional expression", "and_test": "expression", "or_test": "expression",
    "not_expr": "expression", "list_comp": "list comprehension", "dict_comp": "dict comprehension",
    "set_comp": "set comprehension", "generator": "generator expression", "dict": "dict literal",
    "set": "set display",
}


class TargetCompiler(CompilerBase):
    def store_target(self, node: Tree, context: str = "assign") -> Store:
        kind = node.data
        if kind == "name":
            store = self.store_name(str(node.children[0]))
            on_bind = self.context.on_bind
            if on_bind is None:
                return store
            name, span = str(node.children[0]), self.span(node)

            def store_and_tell(frame: Frame, item: Any) -> None:
                store(frame, item)
                on_bind(name, item, span)
            return described(store_and_tell, "bind", store, name, span, on_bind)
        if kind in ("tuple", "list"):
            return self._store_unpack(node, context)
        if kind == "attribute":
            value_node, name_token = node.children
            value = self.expr(value_node)
            name = self.mangle(str(name_token))
            span = self.span(node)

            def store_attribute(frame: Frame, item: Any) -> None:
                try:
                    set_attribute(value(frame), name, item)
                except BaseException as error:
                    mark(error, span)
                    raise
            return described(store_attribute, "store_attribute", value, name, span)
        if kind == "subscript":
            value_node, key_node = node.children
            value = self.expr(value_node)
            key = self.subscript_key(key_node)
            span = self.span(node)

            def store_item(frame: Frame, item: Any) -> None:
                try:
                    value(frame)[key(frame)] = item
                except BaseException as error:
                    mark(error, span)
                    raise
            return described(store_item, "store_item", value, key, span)
        if kind == "star_expr":
            raise self.syntax_error(node, "starred assignment target must be in a list or tuple")
        raise self.syntax_error(node, self._cannot(kind, "assign to" if context != "delete" else "delete", node))

    def _cannot(self, kind: str, verb: str, node: Tree | None = None) -> str:
        return f"cannot {verb} {self.expression_name(kind, node)}"

    @staticmethod
    def expression_name(kind: str, node: Tree | None = None) -> str:
        """CPython's name for an expression in its messages (``_PyPegen_get_expr_name``)."""
        if kind == "strings" and node is not None and any(
                str(token).lstrip("rRuU")[:1] in "fF" for token in node.children):
            return "f-string expression"
        return "literal" if kind in _LITERALS else _DESCRIPTIONS.get(kind, "expression")

    def assignment_error(self, targets: list[Tree], value: Tree) -> ScriptSyntaxError | None:
        """The error CPython 3.11 reports for ``targets = ... = value`` if a target is invalid.

        Its grammar tries, before the plain "cannot assign to X", the rule meant for
        ``if x = 1:`` on the expression just before a lone ``=``: so ``f() = 1`` says
        "cannot assign to function call here. Maybe you meant '==' instead of '='?" and
        ``f(), a = x`` says "invalid syntax. Maybe you meant '==' or ':=' instead of '='?".
        """
        invalid = next((found for found in map(_invalid_target, targets) if found is not None), None)
        if invalid is not None and invalid.data == "star_expr":
            return None     # store_target words it ("starred assignment target must be in a list or tuple")
        if invalid is None:
            return None
        if len(targets) == 1 and _starts_bitwise_or(value):
            last = targets[0]
            if last.data == "tuple" and not self._parenthesized(last):
                last = [child for child in last.children if child is not None][-1]
            if last.data == "name":
                error = self.syntax_error(last, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?")
                if value.meta.end_line == last.meta.line:
                    error.end_column = value.meta.end_column
                return error
            if last.data not in _NOT_BITWISE_OR and not (last.data in ("tuple", "list") or last.data in (
                    "const_true", "const_false", "const_none", "generator")):
                return self.syntax_error(last, f"cannot assign to {self.expression_name(last.data, last)} here. "
                                               "Maybe you meant '==' instead of '='?")
        return self.syntax_error(invalid, self._cannot(invalid.data, "assign to", invalid))

    def _parenthesized(self, node: Tree) -> bool:
        first = next(child for child in node.children if child is not None)
        return (node.meta.line, node.meta.column) != (first.meta.line, first.meta.column)

    def store_name(self, name: str) -> Store:
        name = self.mangle(name)
        where, depth = self.scope.resolve(name)
        if where == "global":
            variables = self.context.globals

            def store_global(frame: Frame, item: Any) -> None:
                variables[name] = item
            return described(store_global, "store_global", name)
        if where in ("local", "class"):
            def store_local(frame: Frame, item: Any) -> None:
                frame.vars[name] = item
            return described(store_local, "store_local", name)

        def store_free(frame: Frame, item: Any) -> None:
            for _ in range(depth):
                frame = frame.parent
            frame.vars[name] = item
        return described(store_free, "store_free", name, depth)

    def _store_unpack(self, node: Tree, context: str) -> Store:
        children = [child for child in node.children if child is not None]
        stars = [index for index, child in enumerate(children) if child.data == "star_expr"]
        if len(stars) > 1:
            raise self.syntax_error(node, "multiple starred expressions in assignment")
        stores = []
        for child in children:
            target = child.children[0] if child.data == "star_expr" else child
            stores.append(self.store_target(target, context))
        span = self.span(node)
        if stars:
            return _starred_unpack(tuple(stores), stars[0], span)
        return described(_exact_unpack(tuple(stores), span), "unpack", tuple(stores), span)

    def delete_target(self, node: Tree) -> Delete:
        kind = node.data
        span = self.span(node)
        if kind == "name":
            return self._delete_name(str(node.children[0]), span)
        if kind in ("tuple", "list"):
            deleters = tuple(self.delete_target(child) for child in node.children if child is not None)

            def delete_all(frame: Frame) -> None:
                for delete in deleters:
                    delete(frame)
            return delete_all
        if kind == "attribute":
            value = self.expr(node.children[0])
            name = self.mangle(str(node.children[1]))

            def delete_attr(frame: Frame) -> None:
                try:
                    delete_attribute(value(frame), name)
                except BaseException as error:
                    mark(error, span)
                    raise
            return delete_attr
        if kind == "subscript":
            value = self.expr(node.children[0])
            key = self.subscript_key(node.children[1])

            def delete_item(frame: Frame) -> None:
                try:
                    del value(frame)[key(frame)]
                except BaseException as error:
                    mark(error, span)
                    raise
            return delete_item
        raise self.syntax_error(node, self._cannot(kind, "delete", node))

    def _delete_name(self, name: str, span) -> Delete:
        name = self.mangle(name)
        where, depth = self.scope.resolve(name)
        variables = self.context.globals if where == "global" else None
        scope, builtins = self.scope, self.context.builtins

        def delete_name(frame: Frame) -> None:
            if variables is not None:
                scope_vars = variables
            else:
                for _ in range(depth):
                    frame = frame.parent
                scope_vars = frame.vars
            try:
                del scope_vars[name]
            except KeyError:
                if variables is not None:   # del of a global: Python suggests a close name
                    error = name_error(f"name '{name}' is not defined", name, scope.local_names(),
                                       variables, builtins)
                else:
                    error = ScriptNameError(f"name '{name}' is not defined")
                mark(error, span)
                raise error from None
        return delete_name


def _iterate(value: Any):
    cls = type(value)
    if not (hasattr(cls, "__iter__") or hasattr(cls, "__getitem__")):
        raise ScriptTypeError(f"cannot unpack non-iterable {type_name(cls)} object")
    return iter(value)


def _exact_unpack(stores: tuple, span) -> Store:
    count = len(stores)

    def unpack(frame: Frame, value: Any) -> None:
        try:
            if value.__class__ is tuple or value.__class__ is list:
                items = value
            else:
                items = list(islice(_iterate(value), count + 1))
            if len(items) != count:
                if len(items) > count:
                    raise ScriptValueError(f"too many values to unpack (expected {count})")
                raise ScriptValueError(f"not enough values to unpack (expected {count}, got {len(items)})")
        except BaseException as error:
            mark(error, span)
            raise
        for store, item in zip(stores, items):
            store(frame, item)
    return unpack


def _starred_unpack(stores: tuple, star: int, span) -> Store:
    before = star
    after = len(stores) - star - 1

    def unpack(frame: Frame, value: Any) -> None:
        try:
            items = list(_iterate(value))
            if len(items) < before + after:
                raise ScriptValueError(f"not enough values to unpack (expected at least "
                                       f"{before + after}, got {len(items)})")
        except BaseException as error:
            mark(error, span)
            raise
        split_end = len(items) - after
        for index in range(before):
            stores[index](frame, items[index])
        stores[star](frame, items[before:split_end])
        for offset in range(after):
            stores[star + 1 + offset](frame, items[split_end + offset])
    return unpack


# Expressions that are not a bitwise_or in CPython's grammar (the rule behind "... here. Maybe
# you meant '=='" needs one before the '=').
_NOT_BITWISE_OR = frozenset({"comparison", "not_expr", "and_test", "or_test", "conditional", "lambdef",
                             "star_expr"})
_VALID_TARGETS = frozenset({"name", "attribute", "subscript"})


def _invalid_target(node: Tree) -> Tree | None:
    """The first part of an assignment target that cannot be assigned to (CPython's
    _PyPegen_get_invalid_target), or None."""
    if node.data in _VALID_TARGETS:
        return None
    if node.data in ("tuple", "list"):
        for child in node.children:
            if child is None:
                continue
            found = _invalid_target(child.children[0] if child.data == "star_expr" else child)
            if found is not None:
                return found
        return None
    return node


def _starts_bitwise_or(value: Tree) -> bool:
    """Whether the value begins with a bitwise_or (not ``lambda``, ``not`` or ``*``)."""
    node = value
    while node.data == "tuple" or node.data in ("comparison", "and_test", "or_test", "conditional"):
        node = next(child for child in node.children if isinstance(child, Tree))
    return node.data not in ("lambdef", "not_expr", "star_expr")
