"""The REPL when stdin is not a terminal: plain lines, the same semantics, no prompts."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from repl_helpers import ROOT, Captured

from gradcli.repl.lines import read_lines


def _gradcli(*args: str, input: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, capture_output=True,
                          text=True, env=env, timeout=60)


def test_piped_lines_print_results_and_no_prompts():
    result = _gradcli("repl", input="x = ones(2, grad)\nx\n")
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "tensor([1., 1.], requires_grad=True)\n", "")


def test_piped_input_has_the_imports_too():
    result = _gradcli("repl", input="torch.ones(2) * math.pi\nF.relu(-torch.ones(1)), nn, optim\n")
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "tensor([3.1416, 3.1416])\n(tensor([0.]), <module 'torch.nn'>, <module 'torch.optim'>)\n", "")


def test_errors_go_on_and_set_the_exit_status():
    result = _gradcli("repl", input="x = 2\nx.nope\nx + 1\n")
    assert result.stdout == "3\n"
    assert result.stderr.startswith("<stdin>:2:1: AttributeError: 'int' object has no attribute 'nope'\n")
    assert result.returncode == 1


def test_piped_errors_name_the_line_of_the_whole_input():
    lines = ["x = 1", "", "# a comment", "for i in range(2):", "    i + nope", "", "y = (1 +", "", "  ]",
             "if x:", "    x", "else", "print(f'{x.zz}')", ":vars", "x.nope"]
    repl = Captured()
    read_lines(repl.console, io.StringIO("\n".join(lines) + "\n"))
    out, err = repl.take()
    assert [line for line in err.splitlines() if line.startswith("<stdin>")] == [
        "<stdin>:5:9: NameError: name 'nope' is not defined",
        "<stdin>:9:3: SyntaxError: closing parenthesis ']' does not match opening parenthesis '(' on line 7",
        "<stdin>:12:5: SyntaxError: expected ':'",
        "<stdin>:13:10: AttributeError: 'int' object has no attribute 'zz'",
        "<stdin>:15:1: AttributeError: 'int' object has no attribute 'nope'",
    ]
    assert "    i + nope\n        ^^^^\n" in err and "    print(f'{x.zz}')\n             ^^^^\n" in err


def test_an_entry_pushed_without_a_number_counts_from_its_first_line(repl):
    repl.push("x = 1", "x.nope")
    assert repl.take()[1].startswith("<stdin>:1:1: AttributeError")


def test_options_reach_the_session():
    seeded = _gradcli("repl", "--seed", "0", input="randn(2)\n")
    again = _gradcli("repl", "--seed", "0", input="randn(2)\n")
    assert seeded.stdout == again.stdout and seeded.stdout.startswith("tensor([")
    limited = _gradcli("repl", "--max-elements", "3", "--no-hints", input="ones(4)\n")
    assert "see --max-elements" in limited.stderr


def test_read_lines_feeds_the_console_and_stops_at_quit():
    repl = Captured()
    status = read_lines(repl.console, io.StringIO("for i in range(2):\n    i\n\n:quit\n'never'\n"))
    assert status == 0
    assert repl.take() == ("0\n1\n", "")


def test_end_of_input_runs_the_last_block():
    repl = Captured()
    read_lines(repl.console, io.StringIO("y = 1\nwhile y < 10:\n    y = y * 2\ny"))
    assert repl.take() == ("16\n", "")


def test_prompts_go_to_their_own_stream_when_asked():
    repl = Captured()
    prompts = io.StringIO()
    read_lines(repl.console, io.StringIO("if True:\n    1\n\n"), prompts=prompts)
    assert prompts.getvalue() == ">>> ... ... >>> \n"
    assert repl.take()[0] == "1\n"


def test_run_eval_and_piped_repl_never_import_prompt_toolkit(tmp_path):
    script = tmp_path / "a.ag"
    script.write_text("print(1)\n")
    probe = ("import sys\nfrom gradcli.cli import main\nsys.argv = ['gradcli'] + sys.argv[1:]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "assert 'prompt_toolkit' not in sys.modules, 'prompt_toolkit was imported'\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    for args in (["run", str(script)], ["eval", "1"], ["repl"]):
        result = subprocess.run([sys.executable, "-c", probe, *args], input="2\n", capture_output=True,
                                text=True, env=env, timeout=60)
        assert result.returncode == 0, result.stderr
