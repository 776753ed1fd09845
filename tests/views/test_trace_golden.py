"""The whole trace of the seed tutorial, as a person reads it on a pipe (no colour).

The expected text is in trace_golden/; tests/tools/make_trace_golden.py writes it anew after a
deliberate change (read the diff) - the trace's wording, or the rules in words of the op records,
which the golden trace shows as they are.  The acceptance points are also checked one by one, in
words that hold with or without those rules, so that a regenerated file cannot quietly lose them.
"""

from __future__ import annotations

from pathlib import Path

from trace_helpers import GOLDEN, ROOT, run_file

CASES = {"autograd_tutorial": ROOT / "samples" / "autograd_tutorial.ag"}


def trace_of(path: Path) -> str:
    out, err, code = run_file(path)
    assert code == 0, err
    return err


def test_the_tutorial_trace_is_the_golden_one() -> None:
    assert trace_of(CASES["autograd_tutorial"]) == (GOLDEN / "autograd_tutorial.txt").read_text(encoding="utf-8")


def test_the_tutorial_trace_shows_the_4_5_arising() -> None:
    trace = trace_of(CASES["autograd_tutorial"])
    first = trace.split("── backward pass 2")[0]
    # every node the engine ran, in its order, with the script's words
    order = ["[1] MeanBackward0 · out = z.mean() · line 16", "[2] MulBackward0 · z = y * y * 3 · line 15",
             "[3] MulBackward0 · y * y · line 15", "[4] AddBackward0 · y = x + 2 · line 10",
             "[5] AccumulateGrad · x (leaf) · line 8"]
    positions = [first.index(line) for line in order]
    assert positions == sorted(positions)
    # y feeds both inputs of y * y: the two gradients are summed
    assert "Σ fan-out into y: [[2.25, 2.25], [2.25, 2.25]] (from [3] self) + [[2.25, 2.25], [2.25, 2.25]] " \
           "(from [3] other) = [[4.5, 4.5], [4.5, 4.5]]" in first
    assert "    x.grad    None → [[4.5, 4.5], [4.5, 4.5]]" in first
    # one element's chain: 1/4 from the mean, 3, 2·y from y * y (y = 3), 1 from x + 2
    assert "      out = z.mean() (line 16)  ∂out/∂z     = 1/4 = 0.25\n" in first
    assert "∂(y * y)/∂y = " in first and "= 6  (the same tensor is self and other: 3 + 3)" in first
    assert "    x.grad[0, 0] = (1/4) · 3 · 2·" in first and " = 0.25 · 3 · 6 · 1 = 4.5" in first
    # the second pass: a loop's nodes folded, the chain of 2s written as a power
    second = trace.split("── backward pass 2")[1]
    assert "    ⋮ 6 more MulBackward0 like it (y * 2, line 35, iterations 6 to 1)" in second
    assert "    x.grad[0] = 0.1 · 2^9 · 2 = 102.4" in second
