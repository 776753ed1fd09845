"""End to end in a real pseudo-terminal: a block, an error, Ctrl-C in a long loop, history
across a restart -- and the variables survive all of it; the tutorial typed as a user would;
editing a recalled line; Ctrl-C in the REPL and in gradcli run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from repl_helpers import ROOT, TUTORIAL, masked

pexpect = pytest.importorskip("pexpect")

UP, LEFT, ALT_ENTER = "\x1b[A", "\x1b[D", "\x1b\r"
# A fresh prompt (prompt_toolkit turns bracketed paste on as each prompt starts; it redraws the
# old `>>> ` too when an entry is accepted, so the prompt text alone is not enough).
PROMPT = r"\x1b\[\?2004h[^\n]*?>>> "


# prompt_toolkit turns bracketed paste off as it hands an accepted entry over: what follows is
# the entry's own output
_ACCEPTED = "\x1b[?2004l"
ENV = {"NO_COLOR": "1", "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}


def spawn(state_home) -> "pexpect.spawn":
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_STATE_HOME": str(state_home), **ENV}
    child = pexpect.spawn(sys.executable, ["-m", "gradcli"], env=env, encoding="utf-8",
                          dimensions=(24, 100), timeout=20)
    child.expect_exact("Ctrl-D to leave.")
    child.expect(PROMPT)
    return child


def enter(child, *lines: str) -> str:
    """Type one entry line by line; what it printed, once the next prompt is up (keys sent
    while an entry runs would meet the terminal in cooked mode, where ^C and ^D mean other things)."""
    for line in lines:
        child.send(line + "\r")
    child.expect(PROMPT)
    return child.before


def output_of(shown: str) -> str:
    """What the entry printed, without the editor's drawing of it (and with plain newlines)."""
    assert _ACCEPTED in shown, shown
    return shown.rsplit(_ACCEPTED, 1)[1].replace("\r\n", "\n")


def gradcli_run(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradcli", "run", *arguments], capture_output=True,
                          text=True, cwd=ROOT, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT), **ENV})


def test_the_banner_says_what_is_imported(tmp_path):
    child = spawn(tmp_path)
    try:
        # the line after "... Ctrl-D to leave." (spawn waited for that)
        assert re.sub(r"\x1b\[[0-9;]*m|\r", "", child.before) == (
            "\nImported: torch, torch.nn as nn, torch.nn.functional as F, torch.optim as optim, math.\n")
        shown = enter(child, "F.relu(torch.tensor([-1., 1.])) * math.e")
        assert output_of(shown) == "tensor([0.0000, 2.7183])\n"
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_the_tutorial_typed_into_the_repl_prints_what_run_prints(tmp_path):
    """samples/autograd_tutorial.ag typed line by line without its `import torch`, indentation
    and blocks as a person types them (an empty line closes a block): the REPL prints what
    `gradcli run --echo` prints, which is `gradcli run`'s output (PyTorch's) plus the echoes of
    bare expressions, as Python's REPL adds them."""
    lines = [line for line in TUTORIAL.read_text().splitlines() if line != "import torch"]
    entries: list[list[str]] = []
    for line in lines:
        if line.startswith(" "):
            entries[-1].append(line)
        else:
            if entries and len(entries[-1]) > 1:
                entries[-1].append("")   # the block before ends with an empty line
            entries.append([line])
    if len(entries[-1]) > 1:
        entries[-1].append("")
    child = spawn(tmp_path)
    printed = []
    try:
        for entry in entries:
            printed.append(output_of(enter(child, *entry)))
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    shown = masked("".join(printed))

    echoed, plain = gradcli_run("--echo", str(TUTORIAL)), gradcli_run(str(TUTORIAL))
    assert (echoed.returncode, echoed.stderr, plain.returncode, plain.stderr) == (0, "", 0, "")
    assert shown == masked(echoed.stdout)
    remaining = iter(shown.splitlines())
    assert all(line in remaining for line in masked(plain.stdout).splitlines())
    try:   # and `gradcli run` prints what PyTorch prints
        import torch  # noqa: F401
    except ImportError:
        return
    python = subprocess.run([sys.executable, str(TUTORIAL)], capture_output=True, text=True, timeout=120)
    assert masked(python.stdout) == masked(plain.stdout)


def test_enter_in_the_middle_of_a_recalled_line_runs_it_all_and_alt_enter_breaks_a_line(tmp_path):
    child = spawn(tmp_path)
    try:
        enter(child, "x = torch.ones(2, 2, requires_grad=True)")
        assert output_of(enter(child, "x.sum()")) == "tensor(4., grad_fn=<SumBackward0>)\n"
        # Up recalls x.sum(); the cursor goes back three places and `mean` replaces `sum`
        child.send(UP)
        child.expect_exact("x.sum")
        child.send(LEFT * 2 + "\x7f\x7f\x7fmean")
        assert output_of(enter(child, "")) == "tensor(1., grad_fn=<MeanBackward0>)\n"
        # Alt-Enter at the end of a complete line opens a second line instead of running it
        child.send("a = 2" + ALT_ENTER)
        child.expect_exact("... ")
        assert output_of(enter(child, "a * 21")) == "42\n"
        # ... and in the middle of a line it breaks the line there
        child.send("b = 3; b * 7" + LEFT * 5 + ALT_ENTER)
        assert output_of(enter(child, "")) == "21\n"
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_ctrl_c_says_where_the_repl_was_on_a_line_of_its_own(tmp_path):
    child = spawn(tmp_path)
    try:
        enter(child, "def spin():", "print('spinning', end='', flush=True)", "while True:", "pass", "", "")
        child.send("spin()\r")
        child.expect_exact("spinning")
        time.sleep(0.5)   # past the print, into the loop
        child.sendintr()
        # the terminal echoes ^C after the output; the report starts on the next line and names the
        # statement that was running, in the entry that defined spin
        child.expect(PROMPT)
        assert child.before == "^C\r\n<stdin>:3:5: KeyboardInterrupt\r\n    while True:\r\n"
        assert output_of(enter(child, "1 + 1")) == "2\n"
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_ctrl_c_in_gradcli_run_says_where_the_script_was(tmp_path):
    script = tmp_path / "spin.ag"
    script.write_text("import torch\nx = torch.ones(2)\nprint('spinning', end='', flush=True)\n"
                      "while True:\n    pass\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), **ENV}
    child = pexpect.spawn(sys.executable, ["-m", "gradcli", "run", str(script)], env=env, encoding="utf-8",
                          timeout=20)
    try:
        child.expect_exact("spinning")
        time.sleep(0.5)
        child.sendintr()
        child.expect(pexpect.EOF)
        assert child.before == f"^C\r\n{script}:4:1: KeyboardInterrupt\r\n    while True:\r\n"
    finally:
        child.close(force=True)
    assert child.exitstatus == 130

    # not on a terminal: no ^C was echoed, so no line to end
    process = subprocess.Popen([sys.executable, "-m", "gradcli", "run", str(script)], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.read(len("spinning")) == "spinning"
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert (process.returncode, err) == (130, f"{script}:4:1: KeyboardInterrupt\n    while True:\n")


def test_block_error_ctrl_c_and_history_in_a_terminal(tmp_path):
    child = spawn(tmp_path)
    try:
        enter(child, "x = tensor([1., 2.], grad)")
        enter(child, "total = 0")
        # a block: the shell indents the body, an empty line runs it
        enter(child, "for i in range(4):", "total = total + i", "")
        assert "6\r\n" in enter(child, "total")

        # an error is reported like gradcli run, and the session goes on
        shown = enter(child, "x.backward()")
        assert ("<stdin>:1:1: RuntimeError: grad can be implicitly created only for scalar outputs\r\n"
                "    x.backward()\r\n    ^^^^^^^^^^^^\r\n") in shown

        # Ctrl-C stops a running loop and returns to the prompt
        enter(child, "n = 0")
        for line in ("while True:", "n += 1", "if n == 1000: print('running', flush=True)", ""):
            child.send(line + "\r")
        child.expect_exact("running\r\n")   # the output, not the echo of the typed line
        child.sendintr()
        child.expect_exact("KeyboardInterrupt")
        child.expect(PROMPT)

        # everything defined before the error and the interrupt is still there
        assert "(True, 6, tensor([1., 2.], requires_grad=True))" in enter(child, "n >= 1000, total, x")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0

    # a new REPL: Up after a prefix recalls the line from the last session's history
    child = spawn(tmp_path)
    try:
        enter(child, "x = " + UP)
        assert "tensor([2., 4.], grad_fn=<MulBackward0>)" in enter(child, "x * 2")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
