"""``gradcli plot EXPR``: the drawing (golden, plain), f' against the analytic derivative, the
errors (located as gradcli reports them), non-finite points, files with -o."""

from __future__ import annotations

import io
import math
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pytest

from gradcli.lang.runtime import Session
from gradcli.views.plot.command import plot_expression
from gradcli.views.plot.expression import ExprProblem, evaluate

ROOT = Path(__file__).resolve().parents[2]

GOLDEN_SQUARE = """\
                    f(x) = x**2
     │⢄                                     ••
     │ ⠉⠢⣀                             •••••⠋
 2.5 ┤    ⠑⠤⣀                      ••••⢁⡠⠊⠁
     │       ⠉⠒⠤⣀             •••••⢁⡠⠔⠊⠁
 0.0 ┤           ⠉⠒⠒⠤⠤⣀⣀⣀⣀••••⡡⠤⠔⠒⠊⠁
     │                ••••⠁
     │           •••••
-2.5 ┤       ••••
     │  •••••
     │••
     └┬─────────┬─────────┬────────┬─────────┬
      -2        -1        0        1         2
                         x

      ⠤⠤⠤ f(x)
      ⠤•⠤ f′(x) by autograd
"""


def plot(expr: str, **options) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = plot_expression(expr, stdout=out, stderr=err, **options)
    return code, out.getvalue(), err.getvalue()


def test_golden_square_plain():
    code, out, err = plot("x**2", start=-2, stop=2, points=41, width=40, height=10)
    assert (code, err) == (0, "")
    assert out == GOLDEN_SQUARE


def test_the_plot_has_the_asked_size_and_no_colour_on_a_pipe():
    code, out, _ = plot("sin(x)**2", width=50, height=12)
    assert code == 0
    assert "\x1b[" not in out
    lines = out.splitlines()
    bottom = next(n for n, line in enumerate(lines) if "└" in line)
    assert lines[0].strip() == "f(x) = sin(x)**2"
    assert len(lines[1:bottom]) == 12                  # the plot's rows, between title and axis
    assert all(("│" in line or "┤" in line) for line in lines[1:bottom])
    assert len(lines[bottom].split("└")[1]) == 50


def test_colour_when_forced(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    code, out, _ = plot("x**3 - 2*x", width=40, height=10)
    assert code == 0
    assert "\x1b[38;5;" in out          # the curves, in the 256 colours nearest matplotlib's
    _, plain, _ = plot("x**3 - 2*x", width=40, height=10, no_color=True)
    assert "\x1b[" not in plain


DERIVATIVES = [
    ("sin(x)**2", lambda x: np.sin(2 * x)),
    ("x**3 - 2*x", lambda x: 3 * x ** 2 - 2),
    ("torch.tanh(x)", lambda x: 1 - np.tanh(x) ** 2),
    ("exp(-x**2 / 2)", lambda x: -x * np.exp(-x ** 2 / 2)),
    ("a = x * 2; a * sigmoid(a)", lambda x: 2 * (1 / (1 + np.exp(-2 * x))) * (1 + 2 * x * (1 - 1 / (1 + np.exp(-2 * x))))),
    ("math.pi * relu(x)", lambda x: np.where(x > 0, math.pi, 0.0)),
]


@pytest.mark.parametrize("expr, derivative", DERIVATIVES, ids=[e for e, _ in DERIVATIVES])
def test_autograd_derivative_is_the_analytic_one(expr, derivative):
    curve = evaluate(Session(), expr, "x", -3.0, 3.0, 101)
    assert curve is not None
    assert curve.x[0] == -3.0 and curve.x[-1] == 3.0 and len(curve.x) == 101
    np.testing.assert_allclose(curve.df, derivative(curve.x), rtol=1e-5, atol=1e-5)


def test_the_variable_can_have_another_name():
    curve = evaluate(Session(), "t * t", "t", 0.0, 1.0, 11)
    np.testing.assert_allclose(curve.f, curve.x ** 2, rtol=1e-6)
    np.testing.assert_allclose(curve.df, 2 * curve.x, rtol=1e-6)


@pytest.mark.parametrize("expr, expected", [
    ("sin(y)", "<expr>:1:5: NameError: name 'y' is not defined\n    sin(y)\n        ^\n"),
    ("sin(x", "<expr>:1:4: SyntaxError: '(' was never closed\n    sin(x\n       ^\n"),
])
def test_a_bad_expression_is_reported_located(expr, expected):
    code, out, err = plot(expr, no_hints=True)
    assert (code, out, err) == (1, "", expected)


@pytest.mark.parametrize("expr, words", [
    ("x.sum()", "EXPR gave a tensor of shape [], not one of x's shape [200]"),
    ("3", "EXPR gave an int, not a tensor of x's shape [200]"),
    ("x.detach() ** 2", "EXPR does not depend on x through autograd"),
    ("y = x", "EXPR must end with an expression in x"),
])
def test_expressions_that_give_no_curve(expr, words):
    code, out, err = plot(expr)
    assert code == 1 and out == ""
    assert err.startswith("gradcli plot: " + words), err


def test_evaluate_raises_for_the_wrong_shape():
    with pytest.raises(ExprProblem):
        evaluate(Session(), "x[:3]", "x", -1.0, 1.0, 10)


def test_non_finite_points_are_left_out_and_said():
    code, out, err = plot("log(x)", start=-1, stop=1, points=200, width=40, height=8)
    assert code == 0
    assert err == ("gradcli plot: left out the points where a value is not finite: f at 100, f' at 0 of 200 "
                   "(at x = -1, -0.98995, -0.9799, ...)\n")
    assert "f(x) = log(x)" in out


def test_nothing_finite_is_an_error():
    code, out, err = plot("log(x)", start=-2, stop=-1)
    assert code == 1 and out == ""
    assert "f is not finite anywhere on [-2, -1]" in err


@pytest.mark.parametrize("options, words", [
    (dict(start=3, stop=-3), "--from (3) must be less than --to (-3)"),
    (dict(start=1, stop=1), "--from (1) must be less than --to (1)"),
    (dict(var="for"), "--var 'for' is not a variable name"),
    (dict(output="plot.pdf"), "the file must end in .svg or .png"),
])
def test_bad_options(options, words):
    code, out, err = plot("x", **options)
    assert code == 2 and out == ""
    assert words in err


def test_the_command_line(tmp_path):
    env = {"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "gradcli", "plot", "x**2", "--from", "-2", "--to", "2",
                             "--points", "41", "--width", "40", "--height", "10"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, GOLDEN_SQUARE, "")
    bad = subprocess.run([sys.executable, "-m", "gradcli", "plot", "x", "--from", "2", "--to", "-2"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert (bad.returncode, bad.stdout) == (2, "")
    assert "--from (2) must be less than --to (-2)" in bad.stderr


def test_output_files(tmp_path):
    svg, png = tmp_path / "f.svg", tmp_path / "f.png"
    assert plot("sin(x)**2", output=str(svg))[:2] == (0, "")
    root = ElementTree.fromstring(svg.read_text())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "f(x) = sin(x)**2" in texts and "f′(x) by autograd" in texts
    assert plot("sin(x)**2", output=str(png))[:2] == (0, "")
    from PIL import Image
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size == (640, 480)


def test_the_element_limit_and_the_time_limit_apply():
    from gradcli.engine import api
    try:
        code, out, err = plot("x", max_elements=10)
    finally:
        api.set_max_elements(None)   # (the limit is the engine's, for the whole process)
    assert (code, out) == (1, "")
    assert err == ("<expr>: RuntimeError: gradcli refuses to create a tensor of 200 elements: the limit is 10 "
                   "(see --max-elements)\n")
    code, out, err = plot("sum(range(10**9)) * x", timeout=0.2)
    assert (code, out) == (1, "")
    assert "TimeoutError" in err and "(--timeout)" in err
