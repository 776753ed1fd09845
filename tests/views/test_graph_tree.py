"""The graph view's terminal tree: the script's names and lines on each node, shared nodes drawn
once, saved tensors and their version counters, hooks, leaves' gradients."""

from __future__ import annotations

import pytest

from gradcli.views.script_run import run_for_view

from graph_helpers import TUTORIAL, draw, node_names, run

TUTORIAL_OUT = """\
out  () float32  ·  5 backward nodes, 1 leaf
└── [1] MeanBackward0  out = z.mean()  line 16  () float32
    └── [2] MulBackward0  z = y * y * 3  line 15  (2, 2) float32
        │   saved _saved_other = 3, freed by backward
        └── [3] MulBackward0  y * y  line 15  (2, 2) float32
            │   saved _saved_self = y  (2, 2) float32, freed by backward
            │   saved _saved_other = y  (2, 2) float32, freed by backward
            ├── [4] AddBackward0  y = x + 2  line 10  (2, 2) float32
            │   └── [5] AccumulateGrad  x  leaf, line 8  (2, 2) float32  grad 4.5 (all 4 elements)
            └── ↑ see [4] AddBackward0 (y)
"""


def test_the_tutorial_tree_with_the_scripts_names():
    view_run = run_for_view(TUTORIAL.read_text(), str(TUTORIAL))
    assert draw(view_run, "out") == TUTORIAL_OUT


def test_the_tree_follows_pytorchs_graph():
    """The nodes, in the order drawn, are the nodes of PyTorch's own graph walked the same way."""
    torch = pytest.importorskip("torch")
    source = """
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        c = (a * b).exp() + a.sin() * b
        d = (c / a).sum() - (b ** 2).mean()
    """
    view_run = run(source)
    namespace = {"torch": torch}
    exec(compile("import torch\n" + __import__("textwrap").dedent(source), "oracle", "exec"), namespace)
    expected, seen = [], set()

    def walk(fn):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        expected.append(type(fn).__name__)
        for child, _ in fn.next_functions:
            walk(child)
    walk(namespace["d"].grad_fn)
    assert node_names(draw(view_run, "d")) == expected


def test_a_subgraph_reached_twice_is_drawn_once():
    tree = draw(run("""
        x = torch.tensor(3.0, requires_grad=True)
        a = x * 2
        b = a * a
    """), "b")
    assert node_names(tree) == ["MulBackward0", "MulBackward0", "AccumulateGrad"]
    assert tree.count("a = x * 2") == 1
    assert "└── ↑ see [2] MulBackward0 (a)" in tree


def test_leaf_gradients_small_uniform_and_large():
    view_run = run("""
        w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        u = torch.ones(2, 2, requires_grad=True)
        big = torch.linspace(0, 1, 100, requires_grad=True)
        unused = torch.zeros(3, requires_grad=True)
        loss = (w * w).sum() + u.sum() * 3 + (big * big).sum()
        loss.backward()
    """)
    tree = draw(view_run, "loss", "unused")
    assert "w  leaf, line 2  (3,) float32  grad [2., -4., 1.]" in tree
    assert "u  leaf, line 3  (2, 2) float32  grad 3. (all 4 elements)" in tree
    assert "big  leaf, line 4  (100,) float32  grad (100,), mean 1., min 0., max 2." in tree
    # a leaf no op used: its own single node
    assert "unused  (3,) float32  ·  1 backward node, 1 leaf\n└── [12] AccumulateGrad  unused  leaf, line 5" in tree


def test_saved_tensor_versions_before_and_after_an_in_place_change():
    view_run = run("""
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        c = b.exp()
        d = (c * b).sum()
        kept = c.clone()
        b.add_(1)
    """)
    tree = draw(view_run, "d")
    assert ("saved _saved_other = b  (2,) float32, modified in place since it was saved: version 1 ≠ 0, "
            "backward through here fails") in tree
    assert "saved _saved_self = c  (2,) float32, version 0, unchanged" in tree
    assert "saved _saved_result = c  (2,) float32, version 0, unchanged" in tree


def test_saved_tensors_freed_by_backward_and_kept_by_retain_graph():
    freed = draw(run("""
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        s = (a * a).sum()
        s.backward()
    """), "s")
    assert "saved _saved_self = a  (2,) float32, freed by backward" in freed
    kept = draw(run("""
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        s = (a * a).sum()
        s.backward(retain_graph=True)
    """), "s")
    assert "saved _saved_self = a  (2,) float32, version 0, unchanged" in kept
    assert "grad [2., 4.]" in kept


def test_hooks_and_retain_grad():
    tree = draw(run("""
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        b.retain_grad()
        def double(g):
            return g * 2
        b.register_hook(double)
        a.register_hook(lambda g: g)
        c = b.sum()
        c.grad_fn.register_prehook(lambda g: None)
        c.grad_fn.register_hook(lambda gi, go: None)
    """), "c")
    assert "│   hook: pre-hook a lambda (grad_fn.register_prehook)\n" in tree
    assert "│   hook: hook a lambda (grad_fn.register_hook)\n" in tree
    assert "hook: tensor hook double (register_hook)\n" in tree
    assert "hook: retain_grad(): .grad kept for this non-leaf\n" in tree
    assert tree.endswith("a  leaf, line 2  (2,) float32  grad None\n"
                         "                hook: tensor hook a lambda (register_hook)\n")


def test_names_of_a_loops_iterations_and_a_models_parameters():
    view_run = run("""
        import torch.nn as nn
        torch.manual_seed(0)
        model = nn.Linear(2, 1)
        h = torch.ones(1, 2)
        for step in range(2):
            h = torch.tanh(model(h)).expand(1, 2)
        out = h.sum()
    """)
    from gradcli.views.graph.roots import param_names
    tree = draw(view_run, "out", param_names=param_names(view_run.session.globals))
    assert "ExpandBackward0  h = torch.tanh(model(h)).expand(1, 2)  line 7, iteration 2" in tree
    assert "ExpandBackward0  h = torch.tanh(model(h)).expand(1, 2)  line 7, iteration 1" in tree
    assert "AccumulateGrad  model.weight  leaf  (1, 2) float32  grad None" in tree
    assert "↑ see [" in tree and "(model.bias)" in tree   # each parameter drawn once, then referred to


def test_depth_limits_the_tree():
    tree = draw(run("""
        x = torch.tensor(1.0, requires_grad=True)
        y = ((x * 2).exp() + 1).sin()
    """), "y", depth=2)
    assert node_names(tree) == ["SinBackward0", "AddBackward0"]
    assert tree.endswith("        └── … more below (--depth 2)\n")


def test_rule_lines_of_the_engine_are_shown_under_each_node():
    view_run = run("""
        x = torch.tensor(1.0, requires_grad=True)
        y = x.exp()
    """)
    # the rule in words is the op record's (exp's formula reads its result)
    assert draw(view_run, "y", show_rules=True).splitlines()[2] == "    │   d/dself = grad * result"


def test_colour_on_request_only():
    view_run = run("""
        x = torch.tensor(1.0, requires_grad=True)
        y = x.exp()
    """)
    plain = draw(view_run, "y")
    coloured = draw(view_run, "y", color=True)
    assert "\x1b[" not in plain and "\x1b[" in coloured
    import re
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
