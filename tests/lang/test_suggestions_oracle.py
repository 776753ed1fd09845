"""Tensor and torch attribute suggestions against live PyTorch 2.13 (skipped without torch).

Each snippet runs under real PyTorch, whose uncaught-error printer gives the
last line, and under gradcli with its engine.
"""

from __future__ import annotations

import contextlib
import io
import sys

import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402
from gradcli.lang import Session  # noqa: E402

SNIPPETS = [
    "x = torch.ones(2)\nx.sizze()\n",
    "x = torch.ones(2, requires_grad=True)\nx.requires_gard\n",
    "x = torch.ones(2)\nx.backwrd()\n",
    "x = torch.ones(2)\nx.shape.numell()\n",
    "x = torch.ones(2)\nx.szie()\n",
    "torch.nn.functional.rellu(torch.ones(1))\n",
    "torch.nn.functinal\n",
    "torch.onees(2)\n",
    "x = torch.ones(2)\nx.gard\n",
    "x = torch.ones(2)\nx.detatch()\n",
]


def pytorch_last_line(source: str) -> str:
    namespace = {"torch": torch, "__name__": "__main__"}
    try:
        exec(compile(source, "<string>", "exec"), namespace)
    except Exception as error:
        stream = io.StringIO()
        with contextlib.redirect_stderr(stream):
            sys.__excepthook__(type(error), error, error.__traceback__)
        return stream.getvalue().rstrip("\n").splitlines()[-1]
    raise AssertionError("ran without an error")


@pytest.mark.parametrize("source", SNIPPETS)
def test_suggestion_is_pytorchs(source):
    api.reset_global_state(seed=0)
    out, err = io.StringIO(), io.StringIO()
    Session(stdout=out, stderr=err).run_source("import torch\n" + source, "t.ag")
    headline = err.getvalue().splitlines()[0].split(": ", 1)[1]
    assert headline == pytorch_last_line(source)


def test_torch_has_too_many_names_to_suggest_so_the_hint_does():
    out, err = io.StringIO(), io.StringIO()
    Session(stdout=out, stderr=err).run_source("import torch\ntorch.onees(2)\n", "t.ag")
    lines = err.getvalue().splitlines()
    assert lines[0].endswith("AttributeError: module 'torch' has no attribute 'onees'")
    assert lines[-1] == "hint: did you mean torch.ones?"
