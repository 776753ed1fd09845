"""Compile a parse tree once into closures; nothing walks Lark trees while a script runs."""

from __future__ import annotations

import os


from gradcli.lang.compiler import (attributes_and_subscripts, calls, classes, comprehensions, containers,
                                   definitions, exceptions, expressions, literals, names, operators, statements,
                                   targets)
from gradcli.lang.compiler.base import EchoMode, Executor, RunContext
from gradcli.lang.compiler.classes import ClassCompiler
from gradcli.lang.compiler.definitions import DefinitionCompiler
from gradcli.lang.compiler.exceptions import ExceptionCompiler
from gradcli.lang.compiler.expressions import ExpressionCompiler
from gradcli.lang.compiler.statements import StatementCompiler
from gradcli.lang.compiler.targets import TargetCompiler
from gradcli.lang.errors import Source, Span
from gradcli.lang.syntax_tree import Tree

__all__ = ["CLOSURE_MODULES", "FUSED_FILES", "FUSED_FUNCTION_NAME", "CompiledStatement", "RunContext", "compile_module"]

# The modules that compile a script and hold the closures it runs as: an exception
# Python raises in one of them is the script's own operation failing.
CLOSURE_MODULES = (expressions, literals, names, containers, operators, attributes_and_subscripts,
                   calls, comprehensions, statements, definitions, classes, exceptions, targets)
# The same for hot loops rebuilt as Python code (fusion.py names its code after itself) and
# what that code calls: imported only when a loop gets hot.
FUSED_FILES = tuple(os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
                    for name in ("fusion.py", "fused_runtime.py"))
FUSED_FUNCTION_NAME = "fused_code"   # (the name of every fused function, in fusion.py's name)


class Compiler(StatementCompiler, ExceptionCompiler, DefinitionCompiler, ClassCompiler, TargetCompiler,
               ExpressionCompiler):
    """The whole compiler: statements, definitions, classes, assignment targets and expressions."""


class CompiledStatement:
    """One top-level statement, ready to run with ``run(frame)``; ``span`` says where it is."""

    __slots__ = ("run", "span")

    def __init__(self, run: Executor, span: Span) -> None:
        self.run = run
        self.span = span


def compile_module(tree: Tree, source: Source, context: RunContext,
                   echo: EchoMode = "none") -> list[CompiledStatement]:
    """Compile a parsed ``file_input``; raises ScriptSyntaxError for errors Python finds at compile time."""
    compiler = Compiler(source, context)
    compiled: list[CompiledStatement] = []
    top_level = _top_level_statements(tree)
    for index, node in enumerate(top_level):
        last = index == len(top_level) - 1
        compiler.echo_expressions = echo == "all" or (echo == "last" and last)
        for executor in compiler.statements(node):
            compiled.append(CompiledStatement(executor, compiler.span(node)))
        if not (_is_future_import(node) or (index == 0 and _is_docstring(node))):
            compiler.future_allowed = False
    return compiled


def _is_future_import(node: Tree) -> bool:
    return node.data == "from_import_stmt" and [str(t) for t in node.children[0].children] == ["__future__"]


def _is_docstring(node: Tree) -> bool:
    return node.data == "expr_stmt" and node.children[0].data == "strings"


def _top_level_statements(tree: Tree) -> list[Tree]:
    """Statements in order, with `a; b` on one line split into two."""
    result: list[Tree] = []
    for child in tree.children:
        if not isinstance(child, Tree):
            continue
        if child.data == "simple_stmt":
            result.extend(grandchild for grandchild in child.children if grandchild is not None)
        else:
            result.append(child)
    return result
