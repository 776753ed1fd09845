"""Errors Python finds when compiling are found before anything runs, with Python's words."""

from __future__ import annotations

import pytest

CASES = [
    "return 1",
    "break",
    "continue",
    "def f():\n    break",
    "f() = 1",
    "1 = x",
    "x + 1 = 2",
    "del f()",
    "def f(a, a):\n    pass",
    "def f(a=1, b):\n    pass",
    "f(a=1, a=2)",
    "f(a=1, 2)",
    "f(**k, *a)",
    "f(x + 1=2)",
    "nonlocal x",
    "def f():\n    nonlocal q",
    "a, *b, *c = d",
    "*a = b",
    "def f(*):\n    pass",
    "x = *a",
    "(a, b) += 1",
    "def f(/, a):\n    pass",
    "def f(a, /, /):\n    pass",
    "def f(*, a, /):\n    pass",
    "def f(a=1, /, b):\n    pass",
    "a, b: int = 1, 2",
    "[a]: int",
    "f(): int = 1",
    "lambda x: int: x",
]


def python_message(code: str) -> str:
    try:
        compile(code + "\n", "<case>", "exec")
    except SyntaxError as error:
        return f"{type(error).__name__}: {error.msg}"
    raise AssertionError(f"Python accepts {code!r}")


@pytest.mark.parametrize("code", CASES)
def test_compile_time_errors_match_python(run, code):
    result = run("print('ran')\n" + code + "\n")
    assert result.out == ""          # nothing ran
    assert result.code == 1
    assert result.headline == python_message(code)
