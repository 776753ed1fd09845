"""Hot code as Python code: a loop's (or a function body's) closures rebuilt as one Python function.

Each node of a script is compiled to a closure (gradcli.lang.compiler), which is the
language's meaning; running a loop of them costs a Python call or more per node.  Once a loop
is hot (statements.HOT_ITERATIONS iterations; a def's body: as many calls) it is rebuilt from
the recipes its closures carry
(base.described) as the Python code that does the same, compiled once, and runs on as that: the
operators are CPython's own, names are read from the same dicts, and a node without a recipe
(or one whose rare path needs the closure) is called as its closure.  Rebuilding never changes
what the loop does:

* values and errors: ``a + b`` is what ``operator.add`` does; a name missing from the globals
  and the builtins (or a local not yet bound) is read by its closure, with its error;
* the sandbox: an attribute is read directly only for a (name, type) the sandbox has let
  through before, and otherwise through it (fused_runtime); user functions are entered by
  ``invoke``, as the closures enter them, and everything else is called directly;
* where: every instruction carries a Record of what the closures would have done there
  (fused_runtime), so an error is marked with the same span, a call remembers its callee and
  arguments, and innermost_span finds the same span; with statements run their ``__exit__``
  as the closures do;
* a loop that cannot be rebuilt (CPython refuses to compile it, say) stays as it was.

The code is built as a ``_ast`` tree (the C half of the ast module: no start-up cost) whose
line numbers are the record numbers, by fusion_expressions and fusion_statements.  It may use
the names of its own namespace only (an empty ``__builtins__``): the helpers, the loop's
closures and constants, and the two dicts (``_g``, the script's globals, and ``_b``, its
builtins).
"""

from __future__ import annotations

import _ast as ast
import os
import warnings
from types import MethodType
from typing import Any, Callable

from gradcli.lang import sizes
from gradcli.lang.compiler import FUSED_FUNCTION_NAME, fused_runtime
from gradcli.lang.compiler.fused_runtime import Table
from gradcli.lang.compiler.fusion_expressions import Nodes
from gradcli.lang.compiler.fusion_statements import StatementBuilder
from gradcli.lang.deadline import check as check_deadline
from gradcli.lang.nesting import check_tuple
from gradcli.lang.functions import BREAK, CONTINUE, EMPTY_KWARGS, RETURN, UserFunction
from gradcli.lang.safety import get_attribute

FILENAME = os.path.abspath(__file__)   # (what the fused code is named after: compiler.FUSED_FILES)
FUNCTION_NAME = FUSED_FUNCTION_NAME

# The helpers every fused loop may call (and nothing else of Python's).
_HELPERS = {
    "__builtins__": {}, "_type": type, "_UF": UserFunction, "_MT": MethodType, "_EK": EMPTY_KWARGS,
    "_BREAK": BREAK, "_CONTINUE": CONTINUE, "_RETURN": RETURN, "_BaseException": BaseException,
    "_read": fused_runtime.read_attribute, "_write": fused_runtime.write_attribute,
    "_get_attribute": get_attribute, "_with_enter": fused_runtime.with_enter,
    "_with_failed": fused_runtime.with_failed, "_tick": check_deadline,
    "_failed": fused_runtime.failed, "_check_tuple": check_tuple,
    "_mul": sizes.mul, "_pow": sizes.power, "_lshift": sizes.lshift, "_imul": sizes.imul,
    "_ipow": sizes.ipower, "_ilshift": sizes.ilshift, "_spec": sizes.checked_spec,
}

# Tests set this to see why a loop was not rebuilt, instead of the loop staying closures.
STRICT = False


def fuse_loop(loop: Callable) -> Callable | None:
    """The Python function running the rest of ``loop`` (a for or while closure): ``(frame,
    iterator)`` for a for loop, ``(frame)`` for a while loop; None if it cannot be rebuilt."""
    try:
        return _Builder(loop.recipe[-1]).loop_function(loop)
    except Exception:       # (a recursion or compile error included: the closures stay)
        if STRICT:
            raise
        return None


def fuse_body(body: Callable) -> Callable | None:
    """The Python function ``frame -> return value`` doing what a def's ``body`` closure does
    (definitions._function_body); None if it cannot be rebuilt."""
    try:
        _, block, context = body.recipe
        return _Builder(context, returns_values=True).body_function(block)
    except Exception:
        if STRICT:
            raise
        return None


class _Builder(StatementBuilder):
    """Builds the Python function of one loop."""

    def __init__(self, context: Any, returns_values: bool = False) -> None:
        super().__init__()
        self.namespace.update(_HELPERS, _g=context.globals, _b=context.builtins)
        self.returns_values = returns_values

    def body_function(self, block: Any) -> Callable:
        outer = (None, None)    # (what the body does not mark, the call of the function marks)
        n = self.nodes(outer)
        return self.function(self.block(block, outer) + [n(ast.Return, value=n.const(None))], [])

    # ------------------------------------------------------------ the function
    def loop_function(self, loop: Callable) -> Callable:
        kind = loop.recipe[0]
        outer = (None, None)    # the closures around the loop mark what leaves it themselves
        statements = self.s_for(loop, loop.recipe, outer, iterator="_it") if kind == "for" \
            else self.s_while(loop, loop.recipe, outer)
        return self.function(statements, ["_it"] if kind == "for" else [])

    def function(self, statements: list, parameters: list[str]) -> Callable:
        """The function ``(frame, *parameters)`` running ``statements``, compiled."""
        n = self.nodes((None, None))   # (record 0: nothing the closures would mark)
        prologue = [n.assign("_l", self.frame_vars(0, n))] if self.uses_locals else []
        prologue += [n.assign(f"_p{depth}", self.frame_vars(depth, n)) for depth in sorted(self.parents)]
        handler = n(ast.ExceptHandler, type=n.name("_BaseException"), name="_e", body=[
            n.do(n.helper("_failed", n.name("_e"), n.name("_TABLE"))), n(ast.Raise, exc=None, cause=None)])
        body = [*prologue, n(ast.Try, body=statements, handlers=[handler], orelse=[], finalbody=[])]
        arguments = [n(ast.arg, arg=name) for name in ["frame", *parameters]]
        function = n(ast.FunctionDef, name=FUNCTION_NAME, args=ast.arguments(
            posonlyargs=[], args=arguments, vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None)
        module = ast.Module(body=[function], type_ignores=[])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # (CPython's SyntaxWarnings are not gradcli's to give)
            code = compile(module, FILENAME, "exec", dont_inherit=True)
        table = Table(self.records)
        self.namespace["_TABLE"] = table
        exec(code, self.namespace)
        made = self.namespace[FUNCTION_NAME]
        table.code = made.__code__
        return made

    @staticmethod
    def frame_vars(depth: int, n: Nodes) -> ast.expr:
        """``frame.parent.parent.vars``, ``depth`` parents up."""
        node: ast.expr = n.name("frame")
        for _ in range(depth):
            node = n.attr(node, "parent")
        return n.attr(node, "vars")
