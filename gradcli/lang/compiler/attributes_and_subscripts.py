"""Attribute access through the whitelist (``obj.name``) and subscripts (``obj[key]``, slices)."""

from __future__ import annotations

from typing import Any

from gradcli.lang.compiler.base import CompilerBase, Evaluator, described
from gradcli.lang.compiler.containers import spread
from gradcli.lang.compiler.literals import constant
from gradcli.lang.errors import mark
from gradcli.lang.functions import Frame
from gradcli.lang.class_access import SCRIPT_MEMBERS
from gradcli.lang.safety import READABLE_CACHE, get_attribute, is_dunder
from gradcli.lang.syntax_tree import Tree


class AccessCompiler(CompilerBase):
    def e_attribute(self, node: Tree) -> Evaluator:
        value_node, name_token = node.children
        value = self.expr(value_node)
        name = self.mangle(str(name_token))
        span = self.span(node)
        if is_dunder(name) or name == "format":
            def checked_attribute(frame: Frame) -> Any:
                try:
                    return get_attribute(value(frame), name)
                except BaseException as error:
                    mark(error, span)
                    raise
            return described(checked_attribute, "checked_attribute", value, name, span)
        readable = READABLE_CACHE
        # (a private name asks the sandbox: it may be what an engine base keeps, or gradcli's own)
        script_classes = SCRIPT_MEMBERS if not name.startswith("_") else {}

        def attribute(frame: Frame) -> Any:
            try:
                obj = value(frame)
                # fast path: a whitelisted attribute of an instance whose type was seen before,
                # or an instance attribute of a script class's instance
                cls = obj.__class__
                allowed = readable.get(cls)
                if allowed is not None:
                    if name in allowed:
                        return getattr(obj, name)
                    if cls in script_classes:
                        values = obj.__dict__
                        if name in values:
                            return values[name]
                return get_attribute(obj, name)
            except BaseException as error:
                mark(error, span)
                raise
        return described(attribute, "attribute", value, name, span)

    def e_subscript(self, node: Tree) -> Evaluator:
        value_node, key_node = node.children
        value = self.expr(value_node)
        key = self.subscript_key(key_node)
        span = self.span(node)

        def subscript(frame: Frame) -> Any:
            try:
                return value(frame)[key(frame)]
            except BaseException as error:
                mark(error, span)
                raise
        return described(subscript, "subscript", value, key, span)

    def subscript_key(self, node: Tree) -> Evaluator:
        if node.data == "slice":
            return self._slice(node)
        if node.data == "subscript_tuple":
            evaluators, starred = [], []
            for child in node.children:
                if child is None:
                    continue
                is_star = child.data == "star_expr"
                if is_star:
                    evaluators.append(self.expr(child.children[0]))
                else:
                    evaluators.append(self._slice(child) if child.data == "slice" else self.expr(child))
                starred.append(is_star)
            if not any(starred) and all(hasattr(e, "constant") for e in evaluators):
                return constant(tuple(e.constant for e in evaluators))
            pairs = tuple(zip(evaluators, starred))

            def key_tuple(frame: Frame) -> tuple:
                return tuple(spread(pairs, frame))
            if any(starred):
                return key_tuple
            return described(key_tuple, "tuple", tuple(evaluators))
        return self.expr(node)

    def _slice(self, node: Tree) -> Evaluator:
        parts = [self.expr(child) if child is not None else constant(None) for child in node.children]
        if all(hasattr(part, "constant") for part in parts):
            return constant(slice(*(part.constant for part in parts)))
        start, stop, step = parts

        def make_slice(frame: Frame) -> slice:
            return slice(start(frame), stop(frame), step(frame))
        return described(make_slice, "slice", start, stop, step)
