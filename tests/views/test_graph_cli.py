"""``gradcli graph`` as a user runs it, and the REPL's ``:graph``."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

from graph_helpers import ROOT

from test_graph_tree import TUTORIAL_OUT

TUTORIAL = "samples/autograd_tutorial.ag"


def gradcli(*args: str, input: str | None = None, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "GRADCLI_NO_DOT")}
    environment.update(PYTHONPATH=str(ROOT), COLUMNS="100", **env)
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, capture_output=True, text=True,
                          env=environment, timeout=120, cwd=ROOT)


def in_order(expected: str, text: str) -> bool:
    """Every line of ``expected`` in ``text``, in that order (other lines, such as the engine's rule
    lines, may come between)."""
    lines = iter(text.splitlines())
    return all(any(line == got for got in lines) for line in expected.splitlines())


def script(tmp_path, text: str) -> str:
    path = tmp_path / "script.ag"
    path.write_text(text)
    return str(path)


def test_the_tutorials_out():
    done = gradcli("graph", TUTORIAL, "out")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert in_order(TUTORIAL_OUT, done.stdout)
    assert "\x1b[" not in done.stdout


def test_by_default_the_last_backward_call():
    done = gradcli("graph", TUTORIAL)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first == ("y (line 35, iteration 9)  (3,) float32  ·  11 backward nodes, 1 leaf  "
                     "(the last backward() at line 39)")
    assert "[1] MulBackward0 ×9  y = y * 2  line 35, iterations 9…1  (3,) float32" in done.stdout
    assert "x  leaf, line 32  (3,) float32  grad [102.4, 1024., 0.1024]" in done.stdout


def test_else_the_last_tensor_bound(tmp_path):
    done = gradcli("graph", script(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\n"
                                             "y = x * 2\nz = y.sum()\nn = 3\n"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("z  () float32  ·  3 backward nodes, 1 leaf  "
                                  "(the last tensor the script bound; it called no backward())\n")


def test_an_unknown_name_is_a_clear_error():
    done = gradcli("graph", TUTORIAL, "outt")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "gradcli: graph: the script has no variable 'outt'; did you mean 'out'?\n"


def test_a_name_that_is_not_a_tensor(tmp_path):
    path = script(tmp_path, "import torch\nsteps = [1, 2]\nlayer = torch.nn.Linear(2, 1)\n")
    done = gradcli("graph", path, "steps")
    assert (done.returncode, done.stderr) == (2, "gradcli: graph: 'steps' is not a tensor (it is a list)\n")
    done = gradcli("graph", path, "layer.weights")
    assert (done.returncode, done.stderr) == (2, "gradcli: graph: 'layer' has no attribute 'weights'\n")
    done = gradcli("graph", path, "y[0]")
    assert done.returncode == 2 and "is not a variable name" in done.stderr
    done = gradcli("graph", path, "layer.weight")
    assert done.returncode == 0
    assert "[1] AccumulateGrad  layer.weight  leaf  (1, 2) float32  grad None" in done.stdout


def test_nothing_to_draw(tmp_path):
    done = gradcli("graph", script(tmp_path, "import torch\nx = torch.ones(2)\n"))
    assert done.returncode == 1
    assert done.stderr.startswith("gradcli: graph: nothing to draw: the script made no tensor that requires grad")


def test_a_script_error_is_reported_and_the_graph_drawn_as_far_as_it_got(tmp_path):
    path = script(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\ny = x.exp()\n"
                            "z = y @ torch.ones(3)\n")
    done = gradcli("graph", path, "y")
    assert done.returncode == 1
    assert "script.ag:4:5: RuntimeError: inconsistent tensor size" in done.stderr
    assert done.stderr.endswith("gradcli: graph: the graph as far as the script got:\n")
    assert "[1] ExpBackward0  y = x.exp()  line 3  (2,) float32" in done.stdout
    done = gradcli("graph", path, "z")
    assert done.returncode == 1
    assert done.stderr.endswith("gradcli: graph: the script has no variable 'z' (the script stopped at its "
                                "error before)\n")


def test_the_scripts_output_only_when_asked(tmp_path):
    path = script(tmp_path, "import torch\nx = torch.ones(1, requires_grad=True)\nprint('hello')\ny = x * 2\n")
    assert "hello" not in gradcli("graph", path, "y").stdout
    shown = gradcli("graph", "--show-output", path, "y").stdout
    assert shown.startswith("hello\ny  (1,) float32")


def test_colour_on_request(tmp_path):
    assert "\x1b[" in gradcli("graph", TUTORIAL, "out", FORCE_COLOR="1").stdout
    assert "\x1b[" not in gradcli("graph", "--no-color", TUTORIAL, "out", FORCE_COLOR="1").stdout


def test_dot_and_svg_to_files(tmp_path):
    dot = gradcli("graph", TUTORIAL, "out", "--format", "dot")
    assert dot.returncode == 0 and dot.stdout.startswith("digraph gradcli {")
    target = tmp_path / "graph.svg"
    done = gradcli("graph", TUTORIAL, "out", "-o", str(target), GRADCLI_NO_DOT="1")   # svg from the extension
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    svg = ET.parse(target).getroot()
    backward = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if "backward" in g.get("class", "")]
    assert len(backward) == 5
    done = gradcli("graph", TUTORIAL, "out", "--format", "svg", "--layout", "dot", GRADCLI_NO_DOT="1")
    assert done.returncode == 1
    assert done.stderr == "gradcli: graph: the dot program (Graphviz) is not installed or GRADCLI_NO_DOT is set\n"
    bad = gradcli("graph", TUTORIAL, "--format", "png")
    assert bad.returncode == 2 and "'png' is not one of tree, dot, svg." in bad.stderr


def test_a_plain_run_never_loads_the_graph_view():
    code = ("import sys; from gradcli import cli; status = cli.run_file('samples/autograd_tutorial.ag'); "
            "print(sorted(m for m in sys.modules if m.startswith(('gradcli.views', 'grandalf'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_tree_view_never_loads_grandalf():
    code = ("import sys; from gradcli.views.graph.command import run_graph; "
            "run_graph(open('samples/autograd_tutorial.ag').read(), 'tutorial', names=['out']); "
            "print([m for m in sys.modules if m.startswith('grandalf')])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_repl_command():
    from gradcli.repl.core import Console

    out, err = io.StringIO(), io.StringIO()
    console = Console(stdout=out, stderr=err)
    for line in ("x = torch.tensor([1.0, 2.0], requires_grad=True)", "y = (x * x).sum()", "y.backward()",
                 ":graph y", ":graph nope", ":graph y --depth 1 --full", ":graph"):
        console.push(line)   # (each entry's lines count from 1, as in the REPL's error reports)
    assert out.getvalue() == """\
y  () float32  ·  3 backward nodes, 1 leaf
└── [1] SumBackward0  y = (x * x).sum()  line 1  () float32
    │   d/dself = grad expanded to self's shape
    └── [2] MulBackward0  x * x  line 1  (2,) float32
        │   d/dself = grad * other
        │   d/dother = grad * self
        │   saved _saved_self = x  (2,) float32, freed by backward
        │   saved _saved_other = x  (2,) float32, freed by backward
        ├── [3] AccumulateGrad  x  leaf, line 1  (2,) float32  grad [2., 4.]
        └── ↑ see [3] AccumulateGrad (x)
y  () float32  ·  3 backward nodes, 1 leaf
└── [1] SumBackward0  y = (x * x).sum()  line 1  () float32
    │   d/dself = grad expanded to self's shape
    └── … more below (--depth 1)
"""
    assert err.getvalue() == ("gradcli: the session has no variable 'nope'\n"
                              "gradcli: :graph TENSOR needs a tensor name\n")
