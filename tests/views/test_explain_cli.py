"""``gradcli explain`` as a user meets it: the errors, a failing script, the chain rule for what SymPy
does not take, colour, ``:explain`` in the REPL, and a plain run that never loads any of it."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from explain_helpers import ROOT, TUTORIAL, gradcli

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(("args", "message"), [
    (["samples/autograd_tutorial.ag", "outt"],
     "gradcli: explain: outt is not a variable of samples/autograd_tutorial.ag; did you mean out?\n"),
    (["samples/loop_graph.ag", "step"], "gradcli: explain: step is an int, not a tensor\n"),
    (["samples/autograd_tutorial.ag", "out", "--wrt", "y"],
     "gradcli: explain: y is not a leaf of out: it is computed in the graph; --wrt takes out's leaves: x\n"),
    (["samples/autograd_tutorial.ag", "out", "--wrt", "q"],
     "gradcli: explain: q is not a leaf of out (its leaves: x)\n"),
    (["samples/explain_sin.ag", "loss", "--wrt", "x"],
     "gradcli: explain: x is not a leaf of loss: it is a constant (it does not require grad); --wrt takes "
     "loss's leaves: w\n"),
    (["samples/autograd_tutorial.ag", "a"],
     "gradcli: explain: a is a leaf (requires_grad=True, no grad_fn): no op computed it, so there is nothing to "
     "explain; explain a tensor computed from a\n"),
    (["samples/explain_sin.ag", "x"],
     "gradcli: explain: x has no grad_fn: it does not require grad, so no graph was recorded for it (a leaf made "
     "with requires_grad=True starts one)\n"),
    (["samples/nowhere.ag", "y"], "gradcli: cannot read 'samples/nowhere.ag': No such file or directory\n"),
])
def test_what_cannot_be_explained_says_why(args, message):
    result = gradcli("explain", *args)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", message)


FAILS = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\nz = x.foo()\n"


def test_a_failing_script_is_reported_and_what_it_bound_is_still_explained(tmp_path):
    script = tmp_path / "fails.ag"
    script.write_text(FAILS)
    result = gradcli("explain", str(script), "y")
    assert result.returncode == 1
    assert "AttributeError: 'Tensor' object has no attribute 'foo'" in result.stderr
    assert result.stdout.splitlines()[-1] == "  ∂y/∂x = 3  ✓"
    later = gradcli("explain", str(script), "z")
    assert later.returncode == 1 and later.stdout == ""
    assert later.stderr.endswith("gradcli: explain: the script stopped before it bound z\n")


def test_stdin_and_the_outer_options():
    script = "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n"
    result = gradcli("--no-color", "explain", "-", "y", input=script, FORCE_COLOR="1")
    assert result.returncode == 0
    assert "\x1b[" not in result.stdout
    assert result.stdout.splitlines()[-1] == "  ∂y/∂x = 3·x² = 12 at x = 2  ✓"


def test_colour_on_a_terminal_and_the_same_text_without_it():
    plain = gradcli("explain", str(TUTORIAL), "out").stdout
    coloured = gradcli("explain", str(TUTORIAL), "out", NO_COLOR=None, FORCE_COLOR="1").stdout
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == plain


def test_a_graph_too_large_for_sympy_gets_the_chain_rule_folded():
    result = gradcli("explain", "samples/loop_graph.ag", "y")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "No symbolic derivative: the graph has 2001 tensor elements, more than 64 (the limit for SymPy)." in lines
    assert "  … 998 more like these" in lines                       # the loop's equations, folded
    assert "  … these 2 nodes ×998 more from line 9 (a loop)" in lines   # and its nodes
    assert lines[-2:] == ["  x  AccumulateGrad  line 6", "      ∂y/∂x = 2.71705"]
    assert len(lines) < 30


CUSTOM = """\
import torch
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t
    @staticmethod
    def backward(ctx, g):
        t, = ctx.saved_tensors
        return 2 * t * g
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = Square.apply(x).sum()
"""


def test_an_op_without_a_symbolic_form_gets_the_chain_rule_with_a_note():
    result = gradcli("explain", "-", "c", input=CUSTOM)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "How c was computed (the script's names; unnamed steps folded in):\n"
        "  c = sum(Square.apply(x))                        line 12: Square.apply(x).sum()\n"
        "  x: a leaf (shape [3], float32, requires_grad)   line 11\n"
        "No symbolic derivative: SquareBackward (line 12: Square.apply(x)): it was not made by an op of the op "
        "table (a custom autograd.Function, or one of autograd's own nodes).\n"
        "The chain rule, node by node (torch.autograd.grad on the script's graph); the gradient arriving at each "
        "node is ∂c/∂ its output:\n"
        "  c  SumBackward0  line 12: Square.apply(x).sum()\n"
        "      ∂c/∂c = 1\n"
        "      d/dself = grad expanded to self's shape\n"
        "  (unnamed)  SquareBackward  line 12: Square.apply(x)\n"
        "      ∂c/∂(Square.apply(x)) = 1\n"
        "      Square.backward(ctx, grad): the Function's own backward()\n"
        "  x  AccumulateGrad  line 11\n"
        "      ∂c/∂x = [2, 4, 6]\n")


def test_a_disagreement_is_marked_and_explained():
    # a hook that doubles the gradient: autograd's number is not the derivative any more
    script = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 3\n"
              "h = y.register_hook(lambda g: g * 2)\nout = (y * y).sum()\n")
    result = gradcli("explain", "-", "out", input=script)
    assert result.returncode == 0, result.stderr
    assert "  ∂out/∂x = 18·x = [18, 36] at x = [1, 2]  ✗ autograd: [36, 72]" in result.stdout
    assert "SymPy and autograd disagree on ∂out/∂x" in result.stdout
    assert "a hook on the graph" in result.stdout


def test_the_help_says_what_explain_does():
    text = gradcli("explain", "--help").stdout
    assert "Usage: gradcli explain [OPTIONS] FILE NAME" in text
    assert "--wrt" in text and "LEAF" in text


def test_a_plain_run_loads_neither_explain_nor_sympy():
    code = ("import sys\nfrom gradcli.cli import main\nsys.argv = ['gradcli', 'run', %r]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('sympy', 'gradcli.views.explain', 'mpmath'))), "
            "file=sys.stderr)\n") % str(TUTORIAL)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            env={"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}, timeout=120)
    assert result.stderr.splitlines()[-1] == "[]"


# ---------------------------------------------------------------- the REPL

def _repl():
    from gradcli.repl.core import Console
    out, err = io.StringIO(), io.StringIO()
    return Console(stdout=out, stderr=err), out, err


def test_explain_in_the_repl():
    console, out, err = _repl()
    for line in ("x = torch.tensor([1.0, 2.0], requires_grad=True)", "y = (x ** 2).sum()", ":explain y --wrt x"):
        console.push(line)
    assert err.getvalue() == ""
    assert out.getvalue().splitlines() == [
        "How y was computed (the script's names; unnamed steps folded in):",
        "  y = sum(x²)                                     line 1: (x ** 2).sum()",
        "  x: a leaf (shape [2], float32, requires_grad)   line 1",
        "SymPy's derivative, checked against autograd (torch.autograd.grad on the script's graph):",
        "  ∂y/∂x = 2·x = [2, 4] at x = [1, 2]  ✓",
    ]


def test_explain_in_the_repl_says_what_is_wrong():
    console, out, err = _repl()
    for line in ("x = torch.ones(2, requires_grad=True)", "y = x.exp().sum()", ":explain", ":explain nope",
                 ":explain y --wrt", ":explain y --wrt z", ":explain y extra"):
        console.push(line)
    assert err.getvalue().splitlines() == [
        "gradcli: :explain TENSOR needs a tensor name",
        "gradcli: explain: nope is not a variable (its tensors: x, y)",
        "gradcli: :explain: --wrt needs a leaf name",
        "gradcli: explain: z is not a leaf of y (its leaves: x)",
        "gradcli: :explain takes one tensor name (then --wrt LEAF ...), not 'extra' too",
    ]
    assert out.getvalue() == ""
