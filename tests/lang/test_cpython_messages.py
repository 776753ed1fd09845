"""gradcli's error messages against CPython 3.11 itself, on the same snippets.

SyntaxErrors: each broken snippet is compiled by the running interpreter
(``compile(src, '<string>', 'exec')``; CI runs Python 3.11) and parsed and
compiled by gradcli; the error type, message, line and column (CPython's
``offset``, the column gradcli reports) must be the same.

NameError/AttributeError: snippets Python can run on plain Python values are
run by Python, whose uncaught-error printer (``sys.__excepthook__``, the code
that adds "Did you mean: 'x'?") gives the last line, and by gradcli.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings

import pytest

from gradcli.lang.compiler import RunContext, compile_module
from gradcli.lang.errors import ScriptSyntaxError, Source
from gradcli.lang.syntax import parse

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the reference is CPython 3.11")

BROKEN = [
    "print 'hello'\n",
    'print x\n',
    'if x > 1\n    y = 2\n',
    'for i in range(3)\n    print(i)\n',
    'def f(x)\n    return x\n',
    'while True\n    pass\n',
    'else:\n    pass\n',
    'x = [1, 2 3]\n',
    'f(a b)\n',
    'x = (1, 2\ny = 3\n',
    'x = [1, 2\n',
    "x = {'a': 1\n",
    "x = 'abc\n",
    'x = "abc\n',
    "x = '''abc\n",
    'if x = 1:\n    pass\n',
    'while x = 1:\n    pass\n',
    'x = 1)\n',
    'x = [1, 2)\n',
    'x = (1,\n     2]\n',
    'if x:\ny = 1\n',
    'def f():\nreturn 1\n',
    'for i in x:\npass\n',
    'while x:\npass\n',
    'with a:\npass\n',
    'if x:\n    pass\nelse:\ny = 1\n',
    'if x:\n    pass\nelif y:\nz = 1\n',
    'if x:\n        y = 1\n    z = 2\n',
    'x = 1\n    y = 2\n',
    'f() = 1\n',
    'x + 1 = 2\n',
    '1 = x\n',
    'x = 1abc\n',
    'x = 0123\n',
    'x = 1_\n',
    'x = 5 +\n',
    'return 1\n',
    'break\n',
    'continue\n',
    'def f(a=1, b):\n    pass\n',
    'def f(a, a):\n    pass\n',
    'f(a=1, 2)\n',
    'f(x for x in y, 1)\n',
    "x = f'{'\n",
    "x = f'{}'\n",
    "x = f'{1!z}'\n",
    "x = f'}'\n",
    "x = f'{a b}'\n",
    'a, b += 1\n',
    'del f()\n',
    '(a, b) = 1, 2, = 3\n',
    'x = $\n',
    'x = 1 +* 2\n',
    'import\n',
    'from x import\n',
    'x = [i for i in]\n',
    'def f(*):\n    pass\n',
    'def f(**a, b):\n    pass\n',
    'True = 1\n',
    'None = 1\n',
    'x.1 = 2\n',
    '[a, b] += 1\n',
    'nonlocal x\n',
    "x = 'a' 1\n",
    'print(1 2)\n',
    'x = {1: 2, 3}\n',
    'x = {1, 2: 3}\n',
    'f(**x, *y)\n',
    'f(x=1, x=2)\n',
    'x = 1 if y\n',
    'x = [1, 2,, 3]\n',
    'if x:\n    pass\n  else:\n    pass\n',
    'def f():\n    return\n  x = 1\n',
    'x = 1\nif x:\n',
    'x = 0b12\n',
    'x = 0x\n',
    'x = 1e\n',
    'x = 1.2.3\n',
    'x = ..\n',
    'f(=1)\n',
    'x =\n',
    'for x in range(3): print(x\n',
    'x = (\n',
    'x = ]\n',
    "print(f'{x!}')\n",
    'x = 1 = 2\n',
    'a b = 1\n',
    'if x:\n\tpass\n        pass\n',
    'def f(x):\n    return x\n  print(1)\n',
    'import a.b as\n',
    'x = not\n',
    'assert\n',
    'del\n',
    'x = 1; ; y = 2\n',
    'f(x)(y) = 2\n',
    'x = -\n',
    "print('a' 'b' c)\n",
    'x = [1 for]\n',
    'def 1f():\n    pass\n',
    'x = 3 if else 4\n',
    'x = a.\n',
    'x = (1 2)\n',
    'for in range(3):\n    pass\n',
    "x = {'a' 1}\n",
    'if x == 1\n',
    'elif x:\n    pass\n',
    'x = 09\n',
    'x = 1__0\n',
    'lambda: x = 1\n',
    'x = f(a, b,\n',
    'def f(x):\n',
    'with open(f) as g\n    pass\n',
    'x = [1, 2]]\n',
    "x = 'a\\\n",
    "'''x\n",
    'x ++= 1\n',
    'x: int: str = 1\n',
    'def f(x, /, y, /):\n    pass\n',
    'x = *a\n',
    'print(*a for a in b)\n',
    'f(**)\n',
    'x = 1 +\n2\n',
    'x = {**}\n',
    'x = [*]\n',
    'def f(x=):\n    pass\n',
    'print("hi"\n',
    'x = 10 print(x)\n',
    'if True:\n    x = 1\n   y = 2\n',
    'for x in 1, 2:\n    pass\n  else:\n    pass\n',
    'x = [1,\n     2\ny = 3\n',
    "x = 'abc",
    "x = '''abc\n\n",
    "x = '''abc",
    "x = f'abc\n",
    "x = rb'ab\n",
    "s = 'a\\\nb\n",
    'x = 1\ny = "abc\nz = 2\n',
    "x = f'{a b}'\ny = 1\n",
    "y = 1\nx = f'{a b}'\n",
    "x = f'{1 +}'\n",
    "x = (f'{}'\n)\n",
    "x = f'{x!}'\n",
    "x = f'{x:{y:{z}}}'\n",
    "x = f'{=}'\n",
    "x = f'{!r}'\n",
    "x = f'{x!r'\n",
    "x = f'{x'\n",
    "x = f'{(}'\n",
    "x = f'{)}'\n",
    "x = f'{lambda x: 1}'\n",
    "x = f'{#}'\n",
    "x = f'{\\n}'\n",
    'x = 1 +\\\n',
    'x = 1 + \\ 2\n',
    'x = 1\n\ty = 2\n',
    'if x:\n    y\n  z\n',
    'if x:\n    y\n  z  # c\n',
    'if x:\n        pass\n\tpass\n',
    'x = 1 × 2\n',
    'x = 1\xa0+ 2\n',
    'x = a ? b\n',
    'x = `a`\n',
    'x = a ! b\n',
    'f(a b\n',
    'x = [1, 2 3\n',
    'x = (1,\n2 3\n',
    'x = (1 2\n',
    'x = [1,\n',
    'x = {\n',
    'def f(\n',
    'x = (1, 2]\n',
    'x = (1,\n 2]\n',
    'x = (1,\n\n 2]\n',
    'x = )\n',
    'foo(]\n',
    'x = ((1)\n',
    'if x:\n    pass\nx = (1\n',
    "x = (\n'abc\n",
    'x = [1 if y]\n',
    'x = 1 if y else\n',
    'x = a if b if c\n',
    'if x.y = 1:\n    pass\n',
    'if (a, b) = 1:\n    pass\n',
    'if f() = 1:\n    pass\n',
    'if 1 = x:\n    pass\n',
    'if True = x:\n    pass\n',
    '[x = 1]\n',
    'f(x.y = 1)\n',
    'f(True=1)\n',
    'if x = 1 = 2:\n    pass\n',
    'if x = y == 2:\n    pass\n',
    'f() = 1, 2\n',
    'f() = lambda: 1\n',
    'f() = not x\n',
    'x = f() = 1\n',
    'f() = x = 1\n',
    'a + b = c\n',
    '-a = 1\n',
    'a.b() = 1\n',
    '[a, 1] = x\n',
    '(a, f()) = x\n',
    'a, f() = x\n',
    'x, True = 1, 2\n',
    '... = 1\n',
    "'s' = 1\n",
    "f'{x}' = 1\n",
    'a < b = 1\n',
    'a and b = 1\n',
    '[i for i in x] = 1\n',
    '{} = 1\n',
    '{1} = 1\n',
    'a if b else c = 1\n',
    'lambda: 1 = 1\n',
    '*a = 1\n',
    '*a, *b = 1\n',
    'f() += 1\n',
    '(a, b) += 1\n',
    'del (a, 1)\n',
    'del 1\n',
    'for f() in x:\n    pass\n',
    'for 1 in x:\n    pass\n',
    'with a as f():\n    pass\n',
    'with a as 1:\n    pass\n',
    'print x, y\n',
    '[print x]\n',
    'x = print y\n',
    "exec 'x'\n",
    "print f'x'\n",
    'f(1, x for x in y)\n',
    'f(a, b for b in c, d)\n',
    '{1: 2, 3}\n',
    '{1: 2, abc}\n',
    '{1:}\n',
    '{1: 2, 3: }\n',
    '{1: *a}\n',
    '{a: 1 b: 2}\n',
    'def f(x, y=):\n    pass\n',
    'lambda x=: 1\n',
    'def f(*, **k):\n    pass\n',
    'def f(**k, a):\n    pass\n',
    'def f(a, *, b, *c):\n    pass\n',
    'def f(a=1, /, b):\n    pass\n',
    '[*a for a in b]\n',
    '{**a for a in b}\n',
    'def f()\n    pass\n',
    'for x in y\n    pass\n',
    'if x\n',
    'while x:\n    pass\nelse\n    pass\n',
    'with a as b\n    pass\n',
    'if x:\n    pass\nelif y\n    pass\n',
    'def f(): return 1\nif x\n',
    'x = 1 2\n',
    'x = a b c\n',
    'import a b\n',
    'a = 1 +\n',
    'x = [\n1,\n2\n',
    'x = 0_\n',
    'x = 0o8\n',
    'x = 0o\n',
    'x = 0o1_\n',
    'x = 0b\n',
    'x = 0b2\n',
    'x = 0xg\n',
    'x = 0x_\n',
    'x = 1e+\n',
    'x = 1.e5x\n',
    'x = 1_000_\n',
    'x = .5e\n',
    'x = 0x1for\n',
    'x = 1.5j2\n',
    'if x:\npass\n',
    'if x:\n\npass\n',
    'if x:\n# c\npass\n',
    'if x:\n',
    'for x in y:\n',
    'def f():\n    if x:\n    pass\n',
    'with a:\n',
    'x = 1\nif x:\n    pass\n  y = 2\n',
    'if x:\n    pass\n else:\n    pass\n',
    'while True:\n    break\nbreak\n',
    'def f():\n    nonlocal x\n',
    'f(a=1, a=2)\n',
    'f(**a, *b)\n',
    'f(**a, b)\n',
    'f(a=1, b)\n',
    'def f(x):\n    global x\n',
    'return\n',
    'a, b: int\n',
    '(a, b): int\n',
    'f(): int\n',
    '[a]: int\n',
    'x = 1; ; y\n',
    'import a as\n',
    'x.1\n',
    'for in x:\n    pass\n',
    'x = 1\nprint(x\n\ny = 2\n',
    'pass pass\n',
    'x = = 1\n',
    'if :\n    pass\n',
    'if x:\n    pass\n\n\n  y = 1\n',
    'x = (1 +* 2\n',
    'x = (= 1\n',
    'f(a=1, 2\n',
    'x = [1,, 2\n',
    'x = (1 2\n3)\n',
    'f(), a = x\n',
    'f(), g() = x\n',
    '  x = 1\n',
    'x = 1\n  \ty = 2\n',
    'x = 1 + \\ 2\ny = 3 + \\ 4\n',
    'x = 1\ny = 3 + \\ 4\n',
    'x = (1,\n  2 3)\n',
    'f(a b)\ny = (\n',
    'x = [1 2\ny = 3]\n',
    "print(f'{a b}')\n",
    'x = (a b\n',
    'x = [a\n',
    'x = (1 +\n',
    "x = 'abc' 'def\n",
    'if x = 1:\n  pass\nz = (\n',
    'x = 5\nprint x\n',
    'def f(x):\n    return x +\n',
    "x = {'a': 1 'b': 2}\n",
    'print(1 2 3)\n',
    'f(x y=1)\n',
    "f('a' b)\n",
    '[match x]\n',
    '[_ x]\n',
    '[a.b c]\n',
    '[a() b]\n',
    '[a[1] b]\n',
    '[-a b]\n',
    '[a + b c]\n',
    '[a if b else c d]\n',
    '[not a b]\n',
    '[a < b c]\n',
    '[lambda: 1 b]\n',
    '[a and b c]\n',
    "[1 'a']\n",
]


def cpython_syntax_error(source: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "invalid decimal literal" warnings of valid code
        try:
            compile(source, "<string>", "exec")
        except SyntaxError as error:
            return (type(error).__name__, error.msg, error.lineno, error.offset)
    return None


def gradcli_syntax_error(source: str):
    context = RunContext(globals={}, builtins={}, import_module=None, import_name=None, echo=None)
    try:
        compile_module(parse(source), Source(source, "t.ag"), context)
    except ScriptSyntaxError as error:
        return (error.kind, error.message, error.line, error.column)
    return None


def test_the_list_is_long_enough():
    assert len(BROKEN) >= 40 and len(set(BROKEN)) == len(BROKEN)


@pytest.mark.parametrize("source", BROKEN)
def test_syntax_error_is_cpythons(source):
    expected = cpython_syntax_error(source)
    assert expected is not None, "not a syntax error for CPython: drop it from the list"
    assert gradcli_syntax_error(source) == expected


# ---------------------------------------------------------------- "Did you mean"
RUNTIME = [
    "weight = 1\nprint(wieght)\n",
    "Y = 1\nprint(y)\n",
    "lenn([1, 2])\n",
    "prnit('x')\n",
    "ab = 1\nabcd = 2\nprint(abc)\n",
    "def f(alpha):\n    return alpah\nf(1)\n",
    "def f(abc):\n    return [abd for i in range(2)]\nf(1)\n",
    "def f():\n    ab = 1\n    return ac\nac2 = 1\nf()\n",
    "x = []\nx.apend(1)\n",
    "x = 'a'\nx.uppr()\n",
    "d = {}\nd.iterms()\n",
    "s = {1}\ns.ad(2)\n",
    "x = (1).real2\n",
    "import math\nmath.sqrtt(2)\n",
    "import math\nmath.PI\n",
    "x = 'a'\nprint('{0.uppr}'.format(x))\n",
    "str.uppr\n",
    "x = [1]\nx.szie\n",
    "x = None\nx.zero_()\n",
    "weight = 1\nlearning_rate = 0.1\nprint(learning_rat * weight)\n",
    "total = 0\nfor i in range(3):\n    totl += i\n",
    "x = [1]\nx.apend = 2\n",
    "print(undefined_name_with_no_neighbour)\n",
    "values = [1, 2]\nprint(sum(valeus))\n",
    "def train(epochs):\n    for e in range(epoch):\n        pass\ntrain(2)\n",
]


def python_last_line(source: str) -> str:
    namespace: dict = {"__name__": "__main__"}
    try:
        exec(compile(source, "<string>", "exec"), namespace)
    except Exception as error:
        stream = io.StringIO()
        with contextlib.redirect_stderr(stream):
            sys.__excepthook__(type(error), error, error.__traceback__)
        return stream.getvalue().rstrip("\n").splitlines()[-1]
    raise AssertionError("the snippet ran without an error")


@pytest.mark.parametrize("source", RUNTIME)
def test_suggestion_is_pythons(run, source):
    result = run(source)
    assert result.code == 1
    assert result.headline == python_last_line(source)


STARRED = [
    "x = [*5]\n",
    "x = (1, *None)\n",
    "d = {}\nd[(*5,)] = 1\n",
    "class C(*5):\n    pass\n",
    "x = {*5}\n",
    "class It:\n    def __iter__(self):\n        raise TypeError('its own')\nx = [*It()]\n",
]


@pytest.mark.parametrize("source", STARRED)
def test_a_starred_value_that_is_no_iterable_fails_as_in_python(run, source):
    result = run(source)
    assert result.code == 1
    assert result.headline == python_last_line(source)


def test_a_name_the_sandbox_hides_is_never_suggested(run):
    # Python says "Did you mean: '__name__'?"; a script cannot read dunders, so gradcli does not
    result = run("def f():\n    pass\nf.__nam__\n")
    assert result.headline == "AttributeError: 'function' object has no attribute '__nam__'"
