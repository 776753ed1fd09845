"""The grammar and the parser: positions on nodes, friendly syntax errors, completeness."""

from __future__ import annotations

import pytest
from lark import Tree

from gradcli.lang import is_complete
from gradcli.lang.errors import ScriptSyntaxError
from gradcli.lang.syntax import parse


def first_statement(text: str) -> Tree:
    return parse(text).children[0].children[0]


def test_every_node_has_line_column_and_end():
    tree = parse("x = 1\ny = foo(x, 2) + bar[1:]\n")
    for node in tree.iter_subtrees():
        assert node.meta.line >= 1 and node.meta.column >= 1, node
        assert (node.meta.end_line, node.meta.end_column) >= (node.meta.line, node.meta.column)


def test_call_position_covers_the_call():
    statement = first_statement("y = 1 + foo(a, b)\n")
    call = statement.children[1].children[2]
    assert call.data == "call"
    assert (call.meta.line, call.meta.column, call.meta.end_column) == (1, 9, 18)


@pytest.mark.parametrize("text", [
    "a, b = e", "a = b = e", "i, (a, b) = e", "x.y = 1", "x[0, 1] = 5.0", "a, *b = e",
    "x += 1", "x //= 2", "x @= m", "x **= 2", "x %= 3",
    "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass", "while c: y = y * 2",
    "for i, (a, b) in z:\n    break\nelse:\n    continue", "with torch.no_grad():\n    y = x",
    "with e as n: pass", "def f(a, b=1, *args, c, d=2, **kw):\n    return a",
    "@torch.no_grad()\ndef f(x):\n    return x", "lambda a, b=2: a + b", "assert x, 'msg'",
    "del a, b[0], c.d", "import torch.nn.functional as F", "from torch import X, Y as Z",
    "from torch import (a,\n  b)", "global a", "f'{x:{w}.{p}f} {y!r} {z=}'",
    "[i for i in r if i for j in s]", "{k: v for k, v in d.items()}", "sum(x for x in y)",
    "a if b else c", "1 < x <= 3 != y", "a is not b", "a not in b", "not a and b or c",
    "f(*args, k=1, **kw)", "x[:, 1:]", "x[..., None]", "x[1, ::2]", "-x ** 2", "~a | b & c ^ d << 1",
    "x = (1,\n     2)\n", "x = 1 + \\\n    2", "a = 1; b = 2;", "x = 0x1f + 1_000 + 1e-3 + .5 + 1.",
    "s = 'a' \"b\" '''c'''", "if x:\n\ty = 1\n\tz = 2", "x = {**a, 'b': 1}", "x = {1, 2}",
    "t = 1,", "x = ()", "return_value = f()[0].y",
])
def test_accepts(text):
    parse(text)


@pytest.mark.parametrize("text, kind, message, line, column", [
    ("x = (1, 2\n", "SyntaxError", "'(' was never closed", 1, 5),
    ("x = [1, 2)\n", "SyntaxError", "closing parenthesis ')' does not match opening parenthesis '['", 1, 10),
    ("x = 1)\n", "SyntaxError", "unmatched ')'", 1, 6),
    ("if x\n    y = 1\n", "SyntaxError", "expected ':'", 1, 5),
    ("if x:\ny = 1\n", "IndentationError", "expected an indented block after 'if' statement on line 1", 2, 1),
    ("def f():\nreturn 1\n", "IndentationError", "expected an indented block after function definition on line 1", 2, 1),
    ("x = 1\n    y = 2\n", "IndentationError", "unexpected indent", 2, 4),
    ("if x:\n        y = 1\n    z = 2\n", "IndentationError", "unindent does not match any outer indentation level", 3, 10),
    ("  x = 1\n", "IndentationError", "unexpected indent", 1, 2),
    ("x = 'abc\n", "SyntaxError", "unterminated string literal (detected at line 1)", 1, 5),
    ("def f():\n    yield 1\n", "SyntaxError", "gradcli does not support generators ('yield')", 2, 5),
    ("try:\n    pass\nexcept* ValueError:\n    pass\n", "SyntaxError",
     "gradcli does not support exception groups ('except*')", 3, 1),
    ("try:\n    pass\nx = 1\n", "SyntaxError", "expected 'except' or 'finally' block", 3, 1),
    ("class A:\npass\n", "IndentationError", "expected an indented block after class definition on line 1", 2, 1),
    ("try:\n    pass\nexcept:\npass\n", "IndentationError",
     "expected an indented block after 'except' statement on line 3", 4, 1),
    ("y = 2 + 3.5j\n", "SyntaxError", "gradcli does not support complex numbers", 1, 9),
    ("x = [1J]\n", "SyntaxError", "gradcli does not support complex numbers", 1, 6),
    ("x = b'abc'\n", "SyntaxError", "gradcli does not support bytes literals", 1, 5),
    ("x = rb'abc'\n", "SyntaxError", "gradcli does not support bytes literals", 1, 5),
    ("if (n := 5) > 3:\n    pass\n", "SyntaxError", "gradcli does not support assignment expressions (':=')", 1, 7),
    ("match x:\n    case 1:\n        pass\n", "SyntaxError", "gradcli does not support 'match' statements", 1, 1),
])
def test_friendly_syntax_errors(text, kind, message, line, column):
    with pytest.raises(ScriptSyntaxError) as caught:
        parse(text)
    error = caught.value
    assert (error.kind, error.message, error.line, error.column) == (kind, message, line, column)


def test_generic_error_is_pythons_and_the_hint_says_what_was_expected():
    with pytest.raises(ScriptSyntaxError) as caught:
        parse("x = 1 +\n")
    assert caught.value.message == "invalid syntax"
    assert caught.value.hint == "unexpected end of line; expected an expression"


@pytest.mark.parametrize("text, expected", [
    ("x = 1", "complete"),
    ("x = (1,", "incomplete"),
    ("x = [1,\n 2", "incomplete"),
    ("if x:", "incomplete"),
    ("if x:\n    y = 1", "incomplete"),
    ("if x:\n    y = 1\n", "complete"),
    ("def f():\n    return 1\n", "complete"),
    ("x = 1 + \\", "incomplete"),
    ("s = '''abc", "incomplete"),
    ("x = )", "invalid"),
    ("x = = 2", "invalid"),
    ("for i in range(3): print(i)", "incomplete"),
])
def test_is_complete(text, expected):
    assert is_complete(text) == expected
