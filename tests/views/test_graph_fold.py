"""Folding a loop's copies: a chain of one op, a loop body of several nodes with a fan-out, shared
weights left visible, and --full drawing every node."""

from __future__ import annotations

from graph_helpers import draw, model_of, node_names, run


def test_a_chain_of_one_op_folds_into_one_line():
    view_run = run("""
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1.0
        for i in range(50):
            y = y * 2
        out = y.sum()
    """)
    tree = draw(view_run, "out")
    assert tree == """\
out  () float32  ·  53 backward nodes, 1 leaf
└── [1] SumBackward0  out = y.sum()  line 6  () float32
    └── [2] MulBackward0 ×50  y = y * 2  line 5, iterations 50…1  (2,) float32
        │   saved _saved_other = 2, version 0, unchanged
        └── [3] MulBackward0  y = x * 1.0  line 3  (2,) float32
            │   saved _saved_other = 1., version 0, unchanged
            └── [4] AccumulateGrad  x  leaf, line 2  (2,) float32  grad None
"""


def test_full_draws_every_copy():
    view_run = run("""
        x = torch.tensor(1.0, requires_grad=True)
        y = x
        for i in range(20):
            y = y * 2
    """)
    full = draw(view_run, "y", fold=False)
    assert node_names(full) == ["MulBackward0"] * 20 + ["AccumulateGrad"]
    assert "MulBackward0  y = y * 2  line 5, iteration 20  () float32" in full
    assert "MulBackward0  y = y * 2  line 5, iteration 1  () float32" in full


def test_a_loop_body_with_a_fan_out_folds_as_one_block():
    view_run = run("""
        x = torch.tensor(0.5, requires_grad=True)
        y = x * 1.0
        for i in range(200):
            y = (y * 1.0001 + 0.0001).sin() + y * 0.5
    """)
    tree = draw(view_run, "y")
    lines = tree.splitlines()
    assert lines[1] == ("└── ×200  a loop at line 5: 5 nodes per iteration, iterations 200…1 (1000 nodes)")
    # one iteration shown, its two reads of the iteration before marked, then what the first one reads
    assert node_names(tree) == ["AddBackward0", "SinBackward0", "AddBackward0", "MulBackward0", "MulBackward0",
                                "MulBackward0", "AccumulateGrad"]
    assert tree.count("↻ the iteration before (the loop at line 5 again, iterations 199…1)") == 2
    assert "    └── before the loop: [6] MulBackward0  y = x * 1.0  line 3" in tree
    assert len(lines) < 25


def test_a_weight_every_iteration_reads_stays_visible_once():
    view_run = run("""
        w = torch.tensor(0.9, requires_grad=True)
        h = torch.tensor(1.0, requires_grad=True)
        for i in range(30):
            h = torch.tanh(h * w)
    """)
    tree = draw(view_run, "h")
    assert "×30" in tree
    assert node_names(tree).count("AccumulateGrad") == 2
    assert tree.count("w  leaf") == 1


def test_two_iterations_are_drawn_as_they_are():
    tree = draw(run("""
        y = torch.tensor(1.0, requires_grad=True)
        for i in range(2):
            y = y * 3
    """), "y")
    assert "×" not in tree
    assert node_names(tree) == ["MulBackward0", "MulBackward0", "AccumulateGrad"]


def test_folding_a_long_loop_stays_small():
    view_run = run("""
        x = torch.tensor([0.5, 1.0], requires_grad=True)
        y = x
        for i in range(3000):
            y = y * 1.0001
    """)
    assert len(model_of(view_run, "y").nodes) == 3001
    tree = draw(view_run, "y")
    assert "MulBackward0 ×3000  y = y * 1.0001  line 5, iterations 3000…1" in tree
    assert len(tree.splitlines()) == 4


def test_a_loop_in_a_loop_folds_twice():
    view_run = run("""
        x = torch.tensor(1.0, requires_grad=True)
        y = x
        for i in range(10):
            for j in range(50):
                y = y * 1.01
            y = y + 1
    """)
    assert draw(view_run, "y") == """\
y  () float32  ·  511 backward nodes, 1 leaf
└── ×10  a loop at line 7: 51 nodes per iteration, iterations 10…1 (510 nodes)
    ├── [1] AddBackward0  y = y + 1  line 7, iteration 10  () float32
    │   └── [2] MulBackward0 ×50  y = y * 1.01  line 6, iterations 500…451  () float32
    │       │   saved _saved_other = 1.01, version 0, unchanged
    │       └── ↻ the iteration before (the loop at line 7 again, iterations 9…1)
    └── before the loop: [3] AccumulateGrad  x, y  leaf, line 2  () float32  grad None
"""
