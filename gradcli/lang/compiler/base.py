"""State shared by the parts of the compiler: source positions, scopes, the run context."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from gradcli.lang.compiler.scopes import Scope
from gradcli.lang.errors import ScriptSyntaxError, Source, Span
from gradcli.lang.functions import CallDepth
from gradcli.lang.syntax_tree import Token, Tree

Evaluator = Callable[[Any], Any]     # frame -> value
Executor = Callable[[Any], Any]      # frame -> None or a BREAK/CONTINUE/RETURN signal
EchoMode = Literal["none", "all", "last"]


def described(closure: Any, kind: str, *parts: Any) -> Any:
    """``closure``, telling what it computes: ``closure.recipe = (kind, *parts)``, the parts being
    the closures it calls and the values it holds.  The closures are the language's meaning;
    a recipe lets gradcli.lang.compiler.fusion rebuild a hot loop from them as Python code,
    and a closure without one is called there as it is."""
    closure.recipe = (kind, *parts)
    return closure


@dataclass
class RunContext:
    """What compiled code reaches at run time: the module's variables, the builtins, imports."""

    globals: dict
    builtins: dict
    import_module: Callable[[str], Any]          # dotted name -> namespace (binds on import)
    import_name: Callable[[str, str], Any]       # (module, name) -> value (from ... import)
    echo: Callable[[Any], None]                  # shows a value (REPL-style echo)
    call_depth: CallDepth = field(default_factory=CallDepth)
    # the exceptions whose `except` blocks are running, innermost last (what a bare `raise` re-raises)
    handling: list = field(default_factory=list)
    # Told of every value a name is bound to, with the target's span (the views' provenance);
    # read at compile time, so a run without it compiles no extra call.
    on_bind: Callable[[str, Any, Any], None] | None = None


class CompilerBase:
    def __init__(self, source: Source, context: RunContext) -> None:
        self.source = source
        self.context = context
        self.scope = Scope("module", None)
        self.loop_depth = 0
        self.qualname_prefix = ""       # "f.<locals>." inside def f, "A." inside class A
        self.function_nesting = 0       # defs and lambdas around the code being compiled
        self.mangling_class: str | None = None   # the class whose private names (__x) are mangled
        self.lazy_annotations = False   # `from __future__ import annotations`: never evaluated
        self.future_allowed = True      # no statement but a docstring or __future__ imports yet

    # ------------------------------------------------------------ positions
    def span(self, node: Tree | Token) -> Span:
        if isinstance(node, Token):
            return Span(self.source, node.line, node.column, node.end_line, node.end_column)
        meta = node.meta
        return Span(self.source, meta.line, meta.column, meta.end_line, meta.end_column)

    def syntax_error(self, node: Tree | Token, message: str) -> ScriptSyntaxError:
        if isinstance(node, Token):
            return ScriptSyntaxError(message, node.line, node.column, end_column=node.end_column)
        meta = node.meta
        end = meta.end_column if meta.end_line == meta.line else None
        return ScriptSyntaxError(message, meta.line, meta.column, end_column=end)

    @property
    def in_function(self) -> bool:
        return self.scope.kind != "module"

    def qualname(self, name: str) -> str:
        return self.qualname_prefix + name

    def mangle(self, name: str) -> str:
        """Python's private-name mangling: ``__x`` inside class ``A`` is ``_A__x``."""
        owner = self.mangling_class
        if owner is None or not name.startswith("__") or name.endswith("__") or "." in name:
            return name
        stripped = owner.lstrip("_")
        return f"_{stripped}{name}" if stripped else name

    def mangle_all(self, names: set[str]) -> set[str]:
        return {self.mangle(name) for name in names} if self.mangling_class else names
