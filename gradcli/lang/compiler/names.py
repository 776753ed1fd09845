"""Reading a bare name from the scope it resolves to: local, enclosing function or global/builtin."""

from __future__ import annotations

from typing import Any

from gradcli.lang.compiler.base import CompilerBase, Evaluator, described
from gradcli.lang.errors import ScriptNotImplementedError, ScriptUnboundLocalError, mark, name_error
from gradcli.lang.functions import Frame
from gradcli.lang.syntax_tree import Tree


_UNSUPPORTED_KEYWORDS = {"yield": "generators ('yield')", "async": "'async' code", "await": "'async' code"}


class NameCompiler(CompilerBase):
    def e_name(self, node: Tree) -> Evaluator:
        name = str(node.children[0])
        if name in _UNSUPPORTED_KEYWORDS:   # a Python keyword gradcli's grammar leaves out
            raise self.syntax_error(node, f"gradcli does not support {_UNSUPPORTED_KEYWORDS[name]}")
        return self.load_name(name, self.span(node))

    def load_name(self, name: str, span) -> Evaluator:  # noqa: C901 - one closure per scope kind
        name = self.mangle(name)
        where, depth = self.scope.resolve(name)
        scope = self.scope
        if where in ("global", "class"):
            variables = self.context.globals
            builtins = self.context.builtins

            def load_global(frame: Frame) -> Any:
                try:
                    return variables[name]
                except KeyError:
                    pass
                try:
                    return builtins[name]
                except KeyError:
                    error = missing_global(name, scope.local_names(), variables, builtins)
                    mark(error, span)
                    raise error from None
            if where == "global":
                return described(load_global, "global", name)

            def load_class_name(frame: Frame) -> Any:
                # a name the class body binds: its namespace, then as a global
                try:
                    return frame.vars[name]
                except KeyError:
                    pass
                return load_global(frame)
            return described(load_class_name, "class", name)
        if where == "local":
            def load_local(frame: Frame) -> Any:
                try:
                    return frame.vars[name]
                except KeyError:
                    error = ScriptUnboundLocalError(
                        f"cannot access local variable '{name}' where it is not associated with a value")
                    mark(error, span)
                    raise error from None
            return described(load_local, "local", name)

        def load_free(frame: Frame) -> Any:
            for _ in range(depth):
                frame = frame.parent
            try:
                return frame.vars[name]
            except KeyError:
                error = name_error(f"cannot access free variable '{name}' where it is not "
                                   "associated with a value in enclosing scope", name,
                                   scope.local_names(), self.context.globals, self.context.builtins)
                mark(error, span)
                raise error from None
        return described(load_free, "free", name, depth)


def missing_global(name: str, local_names: tuple = (), variables: dict | None = None,
                   builtins: dict | None = None) -> Exception:
    """NameError, or "not supported yet" for a bare name that is a real torch function.

    Bare torch names are available without import (the calculator shorthand), so
    `lgamma(x)` means torch.lgamma, which gradcli may lack.
    """
    from gradcli.lang.pytorch_names import FUNCTIONS
    if name in FUNCTIONS:
        return ScriptNotImplementedError(f"gradcli does not support torch.{name} yet")
    return name_error(f"name '{name}' is not defined", name, local_names, variables or {}, builtins or {})
