"""Error reports: FILE:LINE:COL: ErrorType: message, the line, a caret under the failing node."""

from __future__ import annotations


def test_runtime_error_points_at_innermost_failing_expression(run):
    result = run("x = 1\ny = [1, 2]\nz = x + y[5] * 2\n")
    assert result.err.splitlines() == [
        "test.ag:3:9: IndexError: list index out of range",
        "    z = x + y[5] * 2",
        "            ^^^^",
    ]


def test_caret_under_call_and_source_indentation_is_stripped(run):
    result = run("def f(a):\n    return a\nif True:\n    f(1, 2)\n")
    assert result.err.splitlines() == [
        "test.ag:4:5: TypeError: f() takes 1 positional argument but 2 were given",
        "    f(1, 2)",
        "    ^^^^^^^",
    ]


def test_error_inside_function_points_inside_it(run):
    result = run("def f(d):\n    return d['b']\nf({'a': 1})\n")
    assert result.err.splitlines()[:3] == [
        "test.ag:2:12: KeyError: 'b'",
        "    return d['b']",
        "           ^^^^^^",
    ]


def test_multiline_node_gets_caret_to_end_of_line(run):
    result = run("x = [1,\n     2][7]\n")
    assert result.err.splitlines()[0] == "test.ag:1:5: IndexError: list index out of range"
    assert result.err.splitlines()[2] == "        ^^^"


def test_error_in_fstring_field_points_into_the_string(run):
    result = run("v = 'x'\nprint(f'value {v:d}')\n")
    lines = result.err.splitlines()
    assert lines[0] == "test.ag:2:16: ValueError: Unknown format code 'd' for object of type 'str'"
    assert lines[2] == "                   ^"


def test_syntax_error_format(run):
    result = run("x = 1\nif x\n    y = 2\n")
    assert result.code == 1
    assert result.err.splitlines() == ["test.ag:2:5: SyntaxError: expected ':'", "    if x", "        ^"]


def test_syntax_errors_found_before_anything_runs(run):
    result = run("print('before')\nreturn 5\n")
    assert result.out == ""
    assert result.err.splitlines()[0] == "test.ag:2:1: SyntaxError: 'return' outside function"


def test_nothing_runs_after_an_error(run):
    result = run("print(1)\nprint(missing)\nprint(2)\n")
    assert result.out == "1\n"
    assert result.err.startswith("test.ag:2:7: NameError: name 'missing' is not defined\n")


def test_assertion_without_message_has_no_colon(run):
    result = run("assert 1 > 2\n")
    assert result.err.splitlines()[0] == "test.ag:1:1: AssertionError"


def test_hint_line_and_no_hints(run):
    code = "x = tensor([1., 2.], grad)\ny = x + 1\ny.backward()\n"
    with_hint = run(code)
    lines = with_hint.err.splitlines()
    assert lines[0] == "test.ag:3:1: RuntimeError: grad can be implicitly created only for scalar outputs"
    assert lines[3].startswith("hint: backward() needs a single number, but this output has shape [2]")
    without = run(code, hints=False)
    assert len(without.err.splitlines()) == 3


def test_hint_for_function_form(run):
    result = run("x = tensor([1., 2., 3.])\nbackward(x)\n")
    assert "shape [3]" in result.err.splitlines()[3]


def test_internal_error_is_short_and_debug_shows_traceback(run, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    result = run("broken()\n")
    assert result.code == 70
    saved = next((tmp_path / "gradcli" / "internal-errors").iterdir())
    assert result.err == ("gradcli: internal error: IndexError: list index out of range "
                          f"(this is a bug in gradcli; the traceback is in {saved})\n")
    assert "IndexError" in saved.read_text()
    debug = run("broken()\n", debug=True)
    assert "Traceback (most recent call last)" in debug.err
    assert debug.err.rstrip().endswith("(this is a bug in gradcli)")


def test_warnings_from_the_engine_name_the_failing_node(run):
    from gradcli.engine import warnings as engine_warnings

    def noisy(*args):
        engine_warnings.warn("the .grad attribute of a Tensor that is not a leaf is being accessed")
        return 1

    import fake_engine
    engine = fake_engine.make_engine()
    engine.TORCH["noisy"] = noisy
    from gradcli.lang import Session
    import io
    out, err = io.StringIO(), io.StringIO()
    session = Session(engine=engine, stdout=out, stderr=err)
    session.run_source("x = 1\nfor i in range(3):\n    y = x + noisy(i)\nprint(y)\n", "w.ag")
    assert out.getvalue() == "2\n"
    assert err.getvalue() == ("w.ag:3:13: UserWarning: the .grad attribute of a Tensor that is not a "
                              "leaf is being accessed\n")


def test_python_error_in_a_script_callback_called_by_the_engine_is_a_script_error(run):
    result = run("hook = lambda g: g + 'x'\ncall_back(hook, 1)\n")
    assert result.code == 1
    assert result.err.splitlines() == [
        "test.ag:1:18: TypeError: unsupported operand type(s) for +: 'int' and 'str'",
        "    hook = lambda g: g + 'x'",
        "                     ^^^^^^^",
    ]


def test_fixed_hint_for_ambiguous_tensor_truth(run):
    result = run("if tensor([1., 2.]):\n    pass\n")
    assert result.err.splitlines() == [
        "test.ag:1:4: RuntimeError: Boolean value of Tensor with more than one value is ambiguous",
        "    if tensor([1., 2.]):",
        "       ^^^^^^^^^^^^^^^^",
        "hint: reduce the comparison to one value first: (x > 0).all() or (x > 0).any()",
    ]


def test_absurdly_nested_expression_is_a_recursion_error_not_a_crash(run):
    deep = run("x = " + "-" * 3000 + "1\nprint(x)\n")
    assert deep.out == "1\n"
    absurd = run("x = " + "-" * 20000 + "1\n")
    assert absurd.code == 1
    lines = absurd.err.splitlines()
    # located at the innermost expression the compiler had reached
    assert lines[0].startswith("test.ag:1:")
    assert lines[0].endswith(": RecursionError: maximum recursion depth exceeded during compilation")
    assert set(lines[2].strip()) == {"^"}
