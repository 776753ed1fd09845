"""The pure REPL session: when it asks for more, what it echoes, errors, interrupts, state."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from repl_helpers import ROOT, TUTORIAL, Captured, masked

from gradcli.repl.core import PS1, PS2


@pytest.mark.parametrize("lines", [
    ["x = (1,"],                       # open bracket
    ["print([1,", "2"],                # still open on the second line
    ["for i in range(2):"],            # block header
    ["if True:", "    y = 1"],         # indented block not closed by a blank line
    ['s = """abc'],                    # open triple-quoted string
    ["def f(a):", "    return a"],
    ["@torch.no_grad()"],              # a decorator waits for its def
])
def test_needs_more_input(repl, lines):
    assert repl.push(*lines) == [True] * len(lines)
    assert repl.console.prompt == PS2
    assert repl.take() == ("", "")


def test_prompts_and_a_block_closed_by_a_blank_line(repl):
    console = repl.console
    assert console.prompt == PS1
    assert repl.push("for i in range(3):", "    i * 2") == [True, True]
    assert console.prompt == PS2
    assert repl.push("") == [False]
    assert console.prompt == PS1
    assert repl.take() == ("0\n2\n4\n", "")


def test_echo_is_the_repr_and_nothing_for_none(repl):
    repl.push("x = 1", "x", "None", "'text'", "print('text')", "[1.5, None]", "x = 5")
    assert repl.take() == ("1\n'text'\ntext\n[1.5, None]\n", "")


def test_echo_keeps_the_value_as_underscore(repl):
    repl.push("3 * 4", "_ + 1")
    assert repl.take()[0] == "12\n13\n"


def test_state_persists_and_a_bare_grad_echoes(repl):
    repl.push("x = ones(2, 2, grad)", "y = x + 2", "out = mean(y * y * 3)", "backward(out)", "x.grad")
    assert repl.take() == ("tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])\n", "")
    assert list(repl.console.user_names) == ["x", "y", "out"]


def test_an_error_is_reported_like_run_and_variables_stay(repl):
    repl.push("x = tensor([1., 2., 3.], grad)", "y = x * 2", "y.backward()")
    out, err = repl.take()
    assert out == ""
    assert err.splitlines()[:3] == [
        "<stdin>:1:1: RuntimeError: grad can be implicitly created only for scalar outputs",
        "    y.backward()",
        "    ^^^^^^^^^^^^",
    ]
    assert err.splitlines()[3].startswith("hint: ")
    repl.push("x, y")
    assert repl.take()[0].startswith("(tensor([1., 2., 3.], requires_grad=True)")


def test_error_positions_count_lines_within_the_entry(repl):
    repl.push("for i in range(2):", "    i + nope", "")
    assert repl.take()[1].splitlines()[:3] == [
        "<stdin>:2:9: NameError: name 'nope' is not defined", "    i + nope", "        ^^^^"]


def test_a_syntax_error_is_reported_at_once(repl):
    assert repl.push("x = 1 +") == [False]
    assert repl.take()[1].startswith("<stdin>:1:8: SyntaxError: ")
    assert repl.console.prompt == PS1


def test_what_ran_before_an_error_in_the_same_entry_stays(repl):
    repl.push("a = 1; b = nope; c = 3", "a")
    out, err = repl.take()
    assert out == "1\n" and "NameError" in err
    assert "c" not in repl.console.names


def test_an_unindented_line_after_a_block_runs_the_block_first(repl):
    # as a file would; Python's REPL would refuse `print(y)` without the blank line
    repl.push("y = 1", "while y < 100:", "    y = y * 3", "print(y)")
    assert repl.take() == ("243\n", "")
    assert repl.console.prompt == PS1


def test_nested_blocks(repl):
    lines = ["total = 0", "for i in range(4):", "    if i % 2:", "        total += i", "    else:",
             "        total -= 1", "", "total"]
    assert repl.push(*lines) == [False, True, True, True, True, True, False, False]
    assert repl.take() == ("2\n", "")


def test_an_empty_line_after_a_header_without_body_is_an_indentation_error(repl):
    assert repl.push("for i in range(2):", "") == [True, False]
    assert "IndentationError: expected an indented block after 'for' statement on line 1" in repl.take()[1]
    assert repl.console.prompt == PS1


def test_else_continues_the_block(repl):
    assert repl.push("if 1 > 2:", "    'yes'", "else:", "    'no'", "") == [True, True, True, True, False]
    assert repl.take() == ("'no'\n", "")


def test_end_of_input_runs_the_pending_block(repl):
    repl.push("for i in range(2):", "    i")
    repl.console.flush()
    assert repl.take() == ("0\n1\n", "")


def test_end_of_input_inside_a_bracket_is_a_syntax_error(repl):
    repl.push("x = (1,")
    repl.console.flush()
    assert "SyntaxError" in repl.take()[1]


def test_interrupt_clears_the_buffer(repl):
    repl.push("x = 1", "for i in range(3):")
    repl.console.interrupt()
    assert repl.console.prompt == PS1
    assert repl.take() == ("", "KeyboardInterrupt\n")
    repl.push("x")
    assert repl.take()[0] == "1\n"


def test_ctrl_c_during_a_run_keeps_the_variables(repl):
    console = repl.console

    def stop() -> None:
        raise KeyboardInterrupt
    console.session.builtins["stop"] = stop
    repl.push("n = 0", "while True:", "    n = n + 1", "    if n == 5:", "        stop()", "")
    # where it stopped: the innermost statement running, as the last frame of Python's traceback
    assert repl.take() == ("", "<stdin>:4:9: KeyboardInterrupt\n    stop()\n")
    repl.push("n")
    assert repl.take()[0] == "5\n"


def test_ctrl_c_names_the_statement_inside_a_function_and_the_line_of_piped_input():
    from gradcli.repl.lines import read_lines
    repl = Captured()

    def stop() -> None:
        raise KeyboardInterrupt
    repl.console.session.builtins["stop"] = stop
    lines = ["def work(n):", "    total = n * 2", "    return total + stop()", "",
             "x = 1", "y = work(x) + 1", "y"]
    read_lines(repl.console, io.StringIO("\n".join(lines) + "\n"))
    assert repl.take() == ("", "<stdin>:3:5: KeyboardInterrupt\n    return total + stop()\n"
                               "<stdin>:7:1: NameError: name 'y' is not defined\n    y\n    ^\n")


def test_blank_and_comment_lines_do_nothing(repl):
    assert repl.push("", "   ", "# a comment") == [False, False, False]
    assert repl.take() == ("", "")
    assert repl.console.accepted == ["# a comment"]   # :save keeps the user's comments


def test_partial_output_line_is_tracked(repl):
    repl.push("print(1, end='')")
    assert not repl.console.stdout.at_line_start
    repl.console.stdout.end_line()
    assert repl.take()[0] == "1\n"


def test_torch_nn_f_optim_and_math_are_imported_at_the_start(repl):
    repl.push("x = torch.ones(2, 2, requires_grad=True)", "x.sum()", "F.relu(torch.tensor([-1., 2.]))",
              "nn.functional is F, optim, round(math.pi, 2)", "import torch.nn.functional as G", "G is F")
    assert repl.take() == ("tensor(4., grad_fn=<SumBackward0>)\ntensor([0., 2.])\n"
                           "(True, <module 'torch.optim'>, 3.14)\nTrue\n", "")
    assert repl.console.user_names == {"x": repl.console.names["x"], "G": repl.console.names["F"]}


def test_reset_binds_the_imports_again(repl):
    repl.push("torch = 3", "del F", ":reset", "torch.zeros(1), F.relu")
    out, err = repl.take()
    assert err == ""
    assert out.splitlines()[0].startswith("Session reset: no variables but torch, nn, F, optim and math;")
    assert out.splitlines()[1].startswith("(tensor([0.]), <")
    assert repl.console.user_names == {}


def test_on_one_terminal_an_error_after_a_partial_line_starts_a_line_of_its_own():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()   # stdout and stderr both write to it, as to one terminal
    console = Captured(stdout=screen, stderr=screen).console
    console.push("print('a', end=''); nope")
    console.stdout.end_line()   # what the shell does before each prompt
    console.push("print('b', end='')")
    console.stdout.end_line()
    assert screen.getvalue() == ("a\n<stdin>:1:21: NameError: name 'nope' is not defined\n"
                                 "    print('a', end=''); nope\n                        ^^^^\nb\n")


def test_the_tutorial_line_by_line_prints_what_run_prints():
    """Every line of the seed tutorial pushed as typed: `gradcli run --echo`'s output, and
    `gradcli run`'s output in order within it (the REPL adds only the echoes)."""
    repl = Captured()
    for line in TUTORIAL.read_text().splitlines():
        repl.push(line)
    repl.console.flush()
    out, err = repl.take()
    assert err == ""

    def run(*options: str) -> str:
        result = subprocess.run([sys.executable, "-m", "gradcli", "run", *options, str(TUTORIAL)],
                                capture_output=True, text=True, cwd=ROOT, env={"NO_COLOR": "1"})
        assert result.returncode == 0, result.stderr
        return masked(result.stdout)

    assert masked(out) == run("--echo")
    printed = iter(masked(out).splitlines())
    assert all(line in printed for line in run().splitlines())


def test_the_readme_transcript_is_real():
    """The REPL transcript in the README: the inputs after `>>> `/`... `, the rest is the output."""
    import io
    import re

    import gradcli
    from gradcli.repl.core import Console
    from gradcli.repl.help_text import BANNER, IMPORTED

    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```\n\$ gradcli\n(.*?)```", readme, re.DOTALL).group(1).splitlines()
    assert block[0] == BANNER.format(version=gradcli.__version__, torch=gradcli.TORCH_VERSION.split("+")[0])
    assert block[1] == IMPORTED
    both = io.StringIO()   # stdout and stderr in the order they were written, as on a terminal
    console = Console(stdout=both, stderr=both)
    expected = []
    for line in block[2:]:
        if line.startswith((PS1, PS2.rstrip())):
            console.push(line[4:])
        else:
            expected.append(line)
    assert both.getvalue().splitlines() == expected
