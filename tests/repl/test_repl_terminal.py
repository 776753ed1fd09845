"""End to end in a real pseudo-terminal: a block, an error, Ctrl-C in a long loop, history
across a restart -- and the variables survive all of it."""

from __future__ import annotations

import os
import sys

import pytest

from repl_helpers import ROOT

pexpect = pytest.importorskip("pexpect")

UP = "\x1b[A"
# A fresh prompt (prompt_toolkit turns bracketed paste on as each prompt starts; it redraws the
# old `>>> ` too when an entry is accepted, so the prompt text alone is not enough).
PROMPT = r"\x1b\[\?2004h[^\n]*?>>> "


def spawn(state_home) -> "pexpect.spawn":
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_STATE_HOME": str(state_home),
           "NO_COLOR": "1", "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
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
