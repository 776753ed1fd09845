"""The REPL's :commands."""

from __future__ import annotations

import os
import subprocess
import sys

from repl_helpers import ROOT, masked

from gradcli.repl.commands import script_text


def test_help_shows_the_language_and_every_command(repl):
    repl.push(":help")
    out, err = repl.take()
    assert err == ""
    assert "ones(2, 2, grad)" in out and "an empty line runs it" in out
    for name in ("help", "vars", "reset", "load FILE", "save FILE", "quit"):
        assert f"  :{name} " in out


def test_python_help_exit_and_quit_work_unless_the_user_bound_them(repl):
    repl.push("help")
    assert ":vars" in repl.take()[0]
    repl.push("quit = 3", "quit")
    assert repl.take()[0] == "3\n" and not repl.console.finished
    repl.push("exit()")
    assert repl.console.finished


def test_vars_table(repl):
    repl.push("x = ones(2, 3, grad)", "y = (x * 2).sum()", "y.backward()", "n = 3", "name = 'w'",
              "pair = (1, 'a')", "items = [x, x]", "nothing = None", "f = lambda a: a", ":vars")
    out, err = repl.take()
    assert err == ""
    # values in their own column; plain text (not a terminal) has no trailing spaces
    assert out == (
        "name      type       value      shape    dtype     requires_grad   grad_fn        grad\n"
        + "\u2500" * 86 + "\n"
        "x         Tensor                [2, 3]   float32   True                           yes\n"
        "y         Tensor                []       float32   True            SumBackward0   no\n"
        "n         int        3\n"
        "name      str        'w'\n"
        "pair      tuple      (1, 'a')\n"
        "items     list       2 items\n"
        "nothing   NoneType   None\n"
        "f         function\n")


def test_vars_cuts_long_values_and_leaves_out_the_prelude(repl):
    repl.push("text = 'a' * 100", ":vars")
    assert repl.take()[0].splitlines()[2:] == ["text   str    'aaaaaaaaaaaaaaaaaaaaaaaaaaaa..."]
    repl.push("torch = 3", ":vars")   # the user's own torch is theirs to see
    assert repl.take()[0].splitlines()[2:] == ["torch   int    3",
                                               "text    str    'aaaaaaaaaaaaaaaaaaaaaaaaaaaa..."]


def test_vars_on_a_narrow_terminal_cuts_the_value_column_first():
    import io

    from gradcli.repl.variables import render_table

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    render_table({"x": 1, "s": "b" * 30, "longer_name": 2.5}, stream, color=False)
    lines = stream.getvalue().splitlines()
    assert lines[0].split() == ["name", "type", "value", "shape", "dtype", "requires_grad", "grad_fn", "grad"]
    assert all(line == line.rstrip() for line in lines)


def test_vars_reads_no_non_leaf_grad(repl):
    repl.push("x = ones(2, grad)", "y = x * 2", ":vars")
    out, err = repl.take()
    assert "MulBackward0" in out and err == ""   # no "non-leaf .grad" warning


def test_vars_with_nothing_defined(repl):
    repl.push(":vars")
    assert repl.take() == ("No variables yet.\n", "")


def test_reset_forgets_variables_and_restores_torch_defaults(repl):
    repl.push("x = 1", "set_default_dtype(float64)", "set_printoptions(precision=2)", "tensor(1/3)",
              "tensor(1/3).dtype")
    assert repl.take()[0] == "tensor(0.33)\ntorch.float64\n"
    repl.push(":reset", "tensor(1/3)", "tensor(1/3).dtype", "x")
    out, err = repl.take()
    assert out.splitlines()[1:] == ["tensor(0.3333)", "torch.float32"]
    assert "NameError: name 'x' is not defined" in err
    assert repl.console.accepted == ["tensor(1/3)", "tensor(1/3).dtype"]


def test_load_runs_a_script_into_the_session(repl, tmp_path):
    script = tmp_path / "setup.ag"
    script.write_text("w = tensor([1., 2.], grad)\nw * 2\nprint('loaded')\n")
    repl.push(f":load {script}", "w")
    assert repl.take() == ("loaded\ntensor([1., 2.], requires_grad=True)\n", "")


def test_load_reports_errors_at_the_file(repl, tmp_path):
    script = tmp_path / "bad.ag"
    script.write_text("a = 1\nb = a + nope\n")
    repl.push(f":load {script}", "a")
    out, err = repl.take()
    assert err.startswith(f"{script}:2:9: NameError: name 'nope' is not defined")
    assert out == "1\n"


def test_load_a_missing_file(repl, tmp_path):
    repl.push(f":load {tmp_path}/missing.ag")
    assert repl.take() == ("", f"gradcli: cannot read '{tmp_path}/missing.ag': No such file or directory\n")
    assert repl.console.failures == 1


def test_save_writes_the_inputs_that_ran(repl, tmp_path):
    target = tmp_path / "session.ag"
    repl.push("x = tensor([1., 2.], grad)", "nope", "for i in range(2):", "    x * i", "",
              "# the loss", "loss = (x ** 2).sum()", "loss.backward()", "x.grad", f":save {target}")
    shown, _ = repl.take()
    assert target.read_text() == ("x = tensor([1., 2.], grad)\n\nfor i in range(2):\n    x * i\n\n"
                                  "# the loss\nloss = (x ** 2).sum()\nloss.backward()\nx.grad\n")
    assert shown.splitlines()[-1].startswith(f"Saved 6 inputs to {target}")
    replay = subprocess.run([sys.executable, "-m", "gradcli", "run", "--echo", str(target)],
                            capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    assert masked(replay.stdout) == masked("\n".join(shown.splitlines()[:-1]) + "\n")


def test_save_writes_the_imports_the_inputs_use(repl, tmp_path):
    target = tmp_path / "session.ag"
    repl.push("x = torch.tensor([-1., 2.], requires_grad=True)", "y = F.relu(x * math.pi).sum()",
              "y.backward()", "x.grad", f":save {target}")
    shown, _ = repl.take()
    assert target.read_text() == (
        "import math\n\nimport torch\nimport torch.nn.functional as F\n\n"
        "x = torch.tensor([-1., 2.], requires_grad=True)\ny = F.relu(x * math.pi).sum()\n"
        "y.backward()\nx.grad\n")
    assert shown.splitlines()[-1].startswith(
        f"Saved 4 inputs below the imports they use (torch, F, math) to {target} ")
    replay = subprocess.run([sys.executable, "-m", "gradcli", "run", "--echo", str(target)],
                            capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    assert (replay.returncode, replay.stderr) == (0, "")
    assert replay.stdout == "\n".join(shown.splitlines()[:-1]) + "\n"


def test_save_imports_only_what_the_script_does_not_import_or_bind_first():
    from gradcli.repl.commands import prelude_used, with_imports
    assert prelude_used("import torch\nx = torch.ones(2)") == []
    assert prelude_used("F = 3\nF + 1") == []                       # the user's own F
    assert prelude_used("def f():\n    torch = 1\n    return torch\ntorch.ones(1)") == ["torch"]
    assert prelude_used("x.nn = 1\nf(F=2)\ny = optim") == ["optim"]  # attributes and keywords are not names
    assert prelude_used("x = ones(2, grad)") == []
    assert with_imports("x = 1\n", ["torch", "nn", "optim"]) == (
        "import torch\nimport torch.nn as nn\nimport torch.optim as optim\n\nx = 1\n")


def test_save_to_an_impossible_place(repl, tmp_path):
    repl.push(f":save {tmp_path}/no/such/dir/s.ag")
    assert repl.take()[1].startswith("gradcli: cannot write ")


def test_script_text_layout():
    assert script_text([]) == ""
    assert script_text(["a = 1", "if a:\n    a", "b = 2"]) == "a = 1\n\nif a:\n    a\n\nb = 2\n"


def test_quit_and_prefixes(repl):
    repl.push(":q")
    assert repl.console.finished


def test_misused_commands_say_what_to_do(repl):
    repl.push(":var", ":vaers", ":load", ":help me", ":")
    out, err = repl.take()
    assert err.splitlines() == [
        "gradcli: unknown command :vaers; did you mean :vars?",
        "gradcli: :load FILE needs a file name",
        "gradcli: :help takes no argument",
        "gradcli: a command name must follow ':' (:help lists them)",
    ]
    assert out == "No variables yet.\n"   # :var is a prefix of :vars
