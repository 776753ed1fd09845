"""The one error boundary: whatever stops a script while it is read, parsed or compiled is a
located report; the lexical errors CPython 3.11 gives; nesting the parser refuses as CPython does."""

from __future__ import annotations

import pytest

from gradcli.lang.compiler.literals import LiteralCompiler
from gradcli.lang.errors import ScriptTimeout


def _stop_at_the_number(monkeypatch, kind):
    def stopped(self, node):
        raise kind()
    monkeypatch.setattr(LiteralCompiler, "e_number", stopped)


def test_the_time_limit_while_compiling_is_located(run, monkeypatch):
    _stop_at_the_number(monkeypatch, ScriptTimeout)
    result = run("x = 'a'\ny = f(2)\n", timeout=5)
    assert result.code == 1
    assert result.err.splitlines() == [
        "test.ag:2:7: TimeoutError: the script ran longer than the time limit of 5 s (--timeout)",
        "    y = f(2)", "          ^"]


def test_ctrl_c_while_compiling_is_located(run, monkeypatch):
    _stop_at_the_number(monkeypatch, KeyboardInterrupt)
    result = run("y = [\n  1]\n")
    assert result.outcome.status == "interrupted"
    assert result.err.splitlines()[0] == "test.ag:2:3: KeyboardInterrupt"


def test_the_time_limit_while_parsing_names_the_line_the_parser_reached(run, monkeypatch):
    from gradcli.lang import indenter

    original = indenter.Indenter._indentation

    def slow(newline, levels):
        if newline.end_line >= 3:
            raise ScriptTimeout()
        return original(newline, levels)
    monkeypatch.setattr(indenter.Indenter, "_indentation", staticmethod(slow))
    result = run("a = 1\nb = 2\nc = 3  # parse-timeout test\nd = 4\n", timeout=1)
    # the parser had read up to the end of line 2
    assert result.err.splitlines()[0] == ("test.ag:2:6: TimeoutError: the script ran longer than the "
                                          "time limit of 1 s (--timeout)")


def test_too_deep_an_expression_is_located(run):
    result = run("x = " + "-" * 40000 + "1\n")
    first = result.err.splitlines()[0]
    assert first.startswith("test.ag:1:") and first.endswith(
        ": RecursionError: maximum recursion depth exceeded during compilation")


def test_deeply_nested_lambdas_compile(run):
    result = run("f = " + "lambda: " * 1000 + "7\nfor i in range(999):\n    f = f()\nprint(f())\n")
    assert (result.err, result.out) == ("", "7\n")


@pytest.mark.parametrize("opener", ["(", "[", "{"])
def test_brackets_nested_past_200_are_cpythons_error(run, opener):
    closer = {"(": ")", "[": "]", "{": "}"}[opener]
    if opener != "{":   # ({{}} is a set of a dict)
        assert run("x = " + opener * 199 + closer * 199 + "\n").err == ""
    result = run("x = " + opener * 201 + closer * 201 + "\n")
    assert result.err.splitlines()[0] == "test.ag:1:205: SyntaxError: too many nested parentheses"


def test_indentation_past_100_levels_is_cpythons_error(run):
    text = "".join(" " * i + "if 1:\n" for i in range(101)) + " " * 101 + "pass\n"
    result = run(text)
    assert result.err.splitlines()[0] == "test.ag:101:106: IndentationError: too many levels of indentation"


@pytest.mark.parametrize("literal, message, column", [
    (r"'\x4'", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape", 12),
    (r"'\N{NOPE}'", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-7: unknown Unicode "
                    "character name", 17),
    (r"'\U99999999'", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode "
                      "character", 19),
    (r"'a' 'b\x4'", "(unicode error) 'unicodeescape' codec can't decode bytes in position 1-3: truncated "
                    "\\xXX escape", 17),
    (r"f'{1}\x4'", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated "
                   "\\xXX escape", 16),
])
def test_bad_escapes_are_cpythons_syntax_error(run, literal, message, column):
    result = run(f"print({literal})\n")
    assert result.code == 1
    assert result.err.splitlines()[0] == f"test.ag:1:{column}: SyntaxError: {message}"


def test_a_huge_integer_literal_is_cpythons_syntax_error(run):
    result = run("x = 1\ny = " + "7" * 100000 + "\n")
    assert result.err.splitlines()[0] == (
        "test.ag:2:5: SyntaxError: Exceeds the limit (4300 digits) for integer string conversion: value has "
        "100000 digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge "
        "integer literals to avoid decimal conversion limits.")
    assert run("print(" + "7" * 4300 + " % 10, 0x" + "f" * 5000 + " % 16)\n").out == "7 15\n"


def test_a_null_byte_is_cpythons_error_without_the_byte(run):
    result = run("x = 1\ny = 2\x00\n")
    assert result.err == ("test.ag:2:6: SyntaxError: source code cannot contain null bytes\n"
                          "    y = 2\n"
                          "         ^\n")


def test_python_311_lexical_rules(run):
    assert run("x = 1\n\x0cy = 2\nprint(x + y)\n").out == "3\n"   # a form feed starts a line
    result = run("print(f\"{'\\n'}\")\n")
    assert "SyntaxError: f-string expression part cannot include a backslash" in result.err


def test_a_byte_order_mark_on_stdin_is_skipped(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "NO_COLOR": "1"}
    for command in (["run", "-"], []):
        result = subprocess.run([sys.executable, "-m", "gradcli", *command], input=b"\xef\xbb\xbfprint(6 * 7)\n",
                                capture_output=True, env=env, timeout=60)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"42\n", b""), command


def test_functions_nested_past_the_limit_are_refused_where_the_limit_is_reached(run):
    from gradcli.lang.compiler.definitions import MAX_FUNCTION_NESTING
    result = run("f = " + "lambda: " * (MAX_FUNCTION_NESTING + 5) + "1\n")
    column = 5 + len("lambda: ") * MAX_FUNCTION_NESTING
    assert result.err.splitlines()[0] == (f"test.ag:1:{column}: RecursionError: maximum recursion depth "
                                          "exceeded during compilation")
