"""Big runs stay readable and quick: a loop's chain of nodes folds, a pass shows at most LIMIT nodes,
a call site that runs again and again (a training loop) is traced for its first passes only."""

from __future__ import annotations

import time

import pytest

from trace_helpers import no_rules, run  # noqa: F401 (no_rules: the fixture)

from gradcli.views.trace import recorder

# (the rules' words are the op records' business: tests/views/test_trace_rules.py reads them)
pytestmark = pytest.mark.usefixtures("no_rules")


def test_a_20000_node_loop_is_folded_and_its_chain_is_a_power() -> None:
    text = ("import torch\n"
            "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
            "y = x\n"
            "for i in range(20000):\n"
            "    y = y * 1.0001\n"
            "y.sum().backward()\n")
    start = time.perf_counter()
    out, err, code = run(text)
    took = time.perf_counter() - start
    assert code == 0
    lines = err.splitlines()
    assert len(lines) < 40, err
    assert "    ⋮ 19,997 more MulBackward0 like it (y * 1.0001, line 5, iterations 19,997 to 1)" in lines
    assert "[20002] AccumulateGrad · x, y (leaf) · line 2" in lines
    assert "  20,002 nodes ran in pass 1" in lines
    # float32 rounding makes the factors differ in their last bits: "≈", and the product of them all
    assert "      y * 1.0001 (line 5) ×19999                     ∂y/∂y         ≈ 1.0001 each" in lines
    assert "    x.grad[0] = 1 · 1.0001^19999 · 1.0001 = 7.39076" in lines
    assert took < 30, f"{took:.1f} s"   # (about 3 s: the run itself is most of it)


def test_a_pass_shows_at_most_limit_nodes_and_counts_the_rest(monkeypatch) -> None:
    monkeypatch.setattr(recorder, "LIMIT", 20)
    text = ("import torch\n"
            "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
            "y = x\n"
            "for i in range(15):\n"
            "    y = y * 1.5\n"
            "    y = y + 0.5\n"
            "y.sum().backward()\n")
    err = run(text)[1]
    assert "[20] " in err and "[21] " not in err
    assert ("  … 12 more nodes, not shown (the trace shows 20 per pass): MulBackward0 ×6 (line 5), "
            "AddBackward0 ×5 (line 6), AccumulateGrad ×1\n") in err
    # the chain still runs over every node, the loop body's two factors folded as one block
    assert """\
      y.sum() (line 7)                            ∂(y.sum())/∂y = 1
      the next 2 rows repeat 14 times:
      y + 0.5 (line 6) ×14                        ∂y/∂y         = 1 each
      y * 1.5 (line 5) ×14                        ∂y/∂y         = 1.5 each
      y (line 6, iteration 1) = y + 0.5 (line 6)  ∂y/∂y         = 1
      y (line 5, iteration 1) = y * 1.5 (line 5)  ∂y/∂x         = 1.5
    x.grad[0] = 1 · (1 · 1.5)^14 · 1 · 1.5 = 437.894
""" in err


def test_a_call_site_is_traced_for_its_first_passes() -> None:
    text = ("import torch\n"
            "w = torch.tensor([1.0], requires_grad=True)\n"
            "for step in range(5):\n"
            "    loss = (w * w).sum()\n"
            "    loss.backward()\n"
            "    with torch.no_grad():\n"
            "        w -= 0.1 * w.grad\n"
            "        w.grad = None\n"
            "(w * 3).sum().backward()\n"
            "print(w.grad)\n")
    out, err, code = run(text)
    assert code == 0 and out == "tensor([3.])\n"
    assert err.count("── backward pass") == 4
    assert "── backward pass 3 · loss.backward() · line 5" in err
    assert ("── later passes from loss.backward() (line 5) are not traced (the trace shows the first 3 of each "
            "call) ──\n") in err
    assert "── backward pass 6 · (w * 3).sum().backward() · line 9" in err
    assert err.endswith("--trace-backward left out 2 later passes from loss.backward() (line 5)\n")
