"""When output is coloured (NO_COLOR, FORCE_COLOR, --no-color, a terminal or a pipe), and how."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys

import pytest

from cli_helpers import ANSI, environment, gradcli_process

class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("no_color, force_color, term, terminal, expected", [
    (None, None, "xterm", True, True),
    (None, None, "xterm", False, False),
    ("", None, "xterm", True, True),        # an empty NO_COLOR is no NO_COLOR (no-color.org)
    ("1", None, "xterm", True, False),
    ("0", None, "xterm", True, False),      # any non-empty value, even 0
    (None, "1", "xterm", False, True),      # FORCE_COLOR colours a pipe too
    (None, "", "xterm", False, False),      # an empty FORCE_COLOR is no FORCE_COLOR
    ("1", "1", "xterm", True, False),       # NO_COLOR wins
    (None, None, "dumb", True, False),
    (None, "1", "dumb", True, True),
])
def test_wants_color(monkeypatch, no_color, force_color, term, terminal, expected):
    from gradcli.lang.output import wants_color
    for name, value in (("NO_COLOR", no_color), ("FORCE_COLOR", force_color), ("TERM", term)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    stream = Terminal() if terminal else io.StringIO()
    assert wants_color(stream) is expected
    assert wants_color(stream, no_color_flag=True) is False


def test_wants_color_on_a_closed_stream(monkeypatch):
    from gradcli.lang.output import wants_color
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)

    class ClosedTerminal(io.StringIO):
        def isatty(self) -> bool:
            raise ValueError("I/O operation on closed file")
    assert wants_color(ClosedTerminal()) is False


def _on_a_terminal(args: list[str], **env: str | None) -> str:
    """What gradcli writes to a real pseudo-terminal."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "gradcli", *args], stdin=subprocess.DEVNULL,
                                   stdout=follower, stderr=follower, env=environment(TERM="xterm", **env))
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:   # the terminal closed: gradcli is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    finally:
        os.close(leader)
    return b"".join(chunks).decode()


@pytest.mark.parametrize("no_color, coloured", [(None, True), ("", True), ("1", False), ("true", False)])
def test_no_color_on_a_real_terminal(no_color, coloured):
    text = _on_a_terminal(["eval", "tensor([1., 2.], requires_grad=True)"], NO_COLOR=no_color)
    assert ("\x1b[" in text) is coloured, repr(text)
    assert ANSI.sub("", text).replace("\r\n", "\n") == "tensor([1., 2.], requires_grad=True)\n"


def test_no_color_flag_on_a_real_terminal():
    text = _on_a_terminal(["eval", "--no-color", "ones(2)"], NO_COLOR=None)
    assert "\x1b[" not in text


def test_force_color_into_a_pipe():
    result = gradcli_process("eval", "ones(2)", NO_COLOR=None, FORCE_COLOR="1")
    assert "\x1b[" in result.stdout
    assert ANSI.sub("", result.stdout) == "tensor([1., 1.])\n"
    assert "\x1b[" not in gradcli_process("eval", "ones(2)", NO_COLOR="1", FORCE_COLOR="1").stdout
    assert "\x1b[" not in gradcli_process("eval", "ones(2)", NO_COLOR=None).stdout


TUPLE = "(tensor(1.), tensor([[1.5000, -2.0000]], requires_grad=True))"
UNCLOSED = "tensor(1.) (unclosed tensor(2."


@pytest.mark.parametrize("plain, closing", [
    ("tensor([1., 2.], grad_fn=<AddBackward0>)", [39]),
    ("tensor([], size=(0, 3))", [22]),                       # not the ")" of size=(0, 3)
    (TUPLE, [TUPLE.index(")"), len(TUPLE) - 2]),              # not the tuple's own ")"
    ("tensor([[1., 2.],\n        [3., 4.]])", [35]),
    (UNCLOSED, [UNCLOSED.index(")")]),                         # the second is never closed
])
def test_the_closing_paren_of_tensor_is_coloured_like_the_opening(plain, closing):
    from rich.text import Text

    from gradcli.lang.output import RichOutput
    assert all(plain[index] == ")" for index in closing)
    text = Text(plain)
    RichOutput(io.StringIO()).highlighter.highlight(text)
    coloured = {(span.start, span.end) for span in text.spans if span.style == "gradcli.tensor"}
    opening = {(match.start(), match.end()) for match in re.finditer(r"tensor\(", plain)}
    assert coloured == opening | {(index, index + 1) for index in closing}


def test_coloured_tensor_output_keeps_its_characters():
    from gradcli.lang.output import RichOutput
    stream = io.StringIO()
    text = "tensor([], size=(0, 3)) (tensor(1.), torch.Size([2]))\n"
    RichOutput(stream).write(text)
    assert ANSI.sub("", stream.getvalue()) == text
    # the opening and the closing of the first tensor carry the same escape code
    coloured = stream.getvalue()
    opening = re.match(r"(\x1b\[[0-9;]*m)tensor\(", coloured).group(1)
    assert re.search(re.escape(opening) + r"\)\x1b\[0m (\(|\x1b)", coloured)
