"""The fast parse (lalr_driver, positions) builds exactly Lark's tree, positions included."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcli.lang import grammar_loader, lalr_driver, positions
from gradcli.lang.syntax_tree import from_lark

ROOT = Path(__file__).resolve().parents[2]

SNIPPETS = [
    "x = 1\n",
    "x = (a + b) * c[1:2, ::3] ** -d\n",
    "def f(a, /, b=2, *args, c, **kw) -> int:\n    '''doc'''\n    return [i for i in a if i]\n",
    "class A(B, metaclass=M):\n    @property\n    def p(self):\n        return self._p\n",
    "try:\n    pass\nexcept (E, F) as e:\n    raise\nelse:\n    x = {1: 2, **d}\nfinally:\n    del x\n",
    "with open(a) as f, g:\n    y = lambda *a, k=1: a\n",
    "print(f'{x!r:>{w}} {y=}', 'a' 'b', not a, a if b else c)\n",
    "for i, (j, k) in enumerate(zip(a, b)):\n    if i:\n        continue\n    elif j:\n        break\n",
    "while n > 0:\n    x[n] += 1 if n % 2 else -1\n",
    "x = ((((1))))\ny = [[[]]], {(), ()}, {'a': [1, (2,)]}\n",
]


@pytest.fixture(scope="module")
def plain():
    """Lark's parser with Lark's own position bookkeeping and its own loop."""
    from lark import Lark, parse_tree_builder

    from gradcli.lang.indenter import Indenter
    grammar_loader.get_parser()   # (installs PassThroughPositions for the parsers built later)
    saved = parse_tree_builder.PropagatePositions
    parse_tree_builder.PropagatePositions = positions.PassThroughPositions.__bases__[0]
    try:
        with open(grammar_loader.grammar_path(), encoding="utf-8") as grammar:
            return Lark(grammar.read(), parser="lalr", lexer="basic", postlex=Indenter(),
                        start=["file_input", "field_input"], propagate_positions=True, maybe_placeholders=True)
    finally:
        parse_tree_builder.PropagatePositions = saved


def _positions(tree):
    return [(node.data, None if node.meta.empty else (node.meta.line, node.meta.column, node.meta.end_line,
                                                       node.meta.end_column)) for node in from_lark(tree).iter_subtrees()]


def _samples() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted((ROOT / "samples").glob("*.ag"))[:12]]


def test_the_same_tree_as_lark(plain):
    fast = grammar_loader.get_parser()
    for text in SNIPPETS + _samples():
        expected = plain.parse(text, start="file_input")
        found = lalr_driver.parse(fast, text, "file_input")
        assert found == expected, text
        assert _positions(found) == _positions(expected), text


def test_an_error_is_left_to_lark(run):
    assert lalr_driver.parse(grammar_loader.get_parser(), "x = (1,\ny = 2\n", "file_input") is None
    assert lalr_driver.parse(grammar_loader.get_parser(), "x = = 1\n", "file_input") is None
    assert run("x = = 1\n").err.splitlines()[0] == "test.ag:1:5: SyntaxError: invalid syntax"


def test_field_input_too():
    fast = grammar_loader.get_parser()
    assert lalr_driver.parse(fast, "(a + 1)\n", "field_input") == fast.parse("(a + 1)\n", start="field_input")
