"""Anomaly mode's warning against live PyTorch 2.13 (skipped without torch).

PyTorch's "Error detected in X. Traceback of forward call that caused the error:" warning
carries the Python traceback of the forward call; gradcli's carries the script's chain of
calls instead.  For a script run as a Python file the two name the same file, lines, function
names and source lines, which is what is compared (PyTorch's frames inside torch aside).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gradcli.lang import Session  # noqa: E402

SCRIPTS = {
    "sqrt_at_zero": """\
import torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = x.sqrt()
    z = (y * 0).sum()
    try:
        z.backward()
    except RuntimeError as e:
        print(e)
""",
    "through_functions_and_a_hot_loop": """\
import torch

def inner(a):
    return a.sqrt()

def outer(a):
    b = a * 2
    return inner(b) * 0

x = torch.zeros(3, requires_grad=True)
torch.autograd.set_detect_anomaly(True)
for i in range(60):
    out = outer(x).sum()
try:
    out.backward()
except RuntimeError as e:
    print(e)
""",
    "made_before_the_mode": """\
import torch
a = torch.tensor([0.0], requires_grad=True)
c = a.sqrt() * 0
torch.autograd.set_detect_anomaly(True)
try:
    c.backward()
except RuntimeError as e:
    print(e)
""",
    "a_custom_function_fails": """\
import torch

class Fails(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        return i.clone()

    @staticmethod
    def backward(ctx, g):
        raise ValueError("refused")

with torch.autograd.detect_anomaly(check_nan=False):
    out = Fails.apply(torch.ones(2, requires_grad=True))
    try:
        out.sum().backward()
    except ValueError as e:
        print(e)
""",
}

_WARNING = re.compile(r"UserWarning: (Error detected in .*?)\(Triggered internally", re.S)


def _blocks(stderr: str, script: str) -> list[str]:
    """Each "Error detected" warning, keeping only its lines about ``script`` (File lines of
    that file and the source line after each)."""
    blocks = []
    for text in _WARNING.findall(stderr):
        kept, keep_next = [], False
        for line in text.splitlines():
            if line.startswith("Error detected"):
                kept.append(line)
            elif line.startswith("  File "):
                keep_next = f'"{script}"' in line
                if keep_next:
                    kept.append(line)
            elif keep_next:
                kept.append(line)
                keep_next = False
        blocks.append("\n".join(kept))
    return blocks


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_forward_trace_names_what_pytorch_names(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.py"
    path.write_text(SCRIPTS[name])
    torch_run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    out, err = io.StringIO(), io.StringIO()
    Session(stdout=out, stderr=err).run_source(SCRIPTS[name], str(path))
    assert out.getvalue() == torch_run.stdout
    expected = _blocks(torch_run.stderr, str(path))
    assert expected, torch_run.stderr
    assert _blocks(err.getvalue(), str(path)) == expected
