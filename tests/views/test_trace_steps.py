"""What the trace tells at each step: fan-out sums, broadcasting undone, hooks, leaves' .grad,
autograd.grad, an error in the middle of a pass, and when the one-element chain is not shown."""

from __future__ import annotations

import pytest

from trace_helpers import no_rules, run  # noqa: F401 (no_rules: the fixture)

# (the rules' words are the op records' business: tests/views/test_trace_rules.py reads them)
pytestmark = pytest.mark.usefixtures("no_rules")


def trace(text: str, **options) -> str:
    out, err, code = run(text, **options)
    assert code == 0, err
    return err


def test_fan_out_shows_the_two_contributions_being_summed() -> None:
    err = trace("import torch\n"
                "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "a = x * 2\n"
                "b = a * a\n"
                "b.sum().backward()\n")
    assert err == """\
── backward pass 1 · b.sum().backward() · line 5 ────────
  starts at b.sum(), SumBackward0, with gradient 1
[1] SumBackward0 · b.sum() · line 5
    grad in   1
    → self    b: [1, 1]
[2] MulBackward0 · b = a * a · line 4
    grad in   [1, 1]
    → self    a: [2, 4]
    → other   a: [2, 4]
              Σ fan-out into a: [2, 4] (from [2] self) + [2, 4] (from [2] other) = [4, 8]
[3] MulBackward0 · a = x * 2 · line 3
    grad in   [4, 8]  (the sum of 2 gradients, from [2] self, [2] other)
    → self    x: [8, 16]
    → other   2 (needs no gradient)
[4] AccumulateGrad · x (leaf) · line 2
    grad in   [8, 16]
    x.grad    None → [8, 16]
  4 nodes ran in pass 1
  chain rule for x.grad[0]: the local derivative of this one element at each node, multiplied along the path
      b.sum() (line 5)    ∂(b.sum())/∂b = 1
      b = a * a (line 4)  ∂b/∂a         = 2·2 = 4  (the same tensor is self and other: 2 + 2)
      a = x * 2 (line 3)  ∂a/∂x         = 2
    x.grad[0] = 1 · 2·2 · 2 = 1 · 4 · 2 = 8

"""


def test_fan_out_through_different_ops_sums_over_paths() -> None:
    err = trace("import torch\n"
                "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "a = x * 2\n"
                "c = a * 3 + a.exp()\n"
                "c.sum().backward()\n")
    # the second gradient to reach a says where the first came from
    # (the engine runs the node made last first: a.exp(), then a * 3)
    assert "Σ fan-out into a: [7.389, 54.6] (from [3] self) + [3, 3] (from [4] self) = [10.39, 57.6]" in err
    assert "    grad in   [10.39, 57.6]  (the sum of 2 gradients, from [3] self, [4] self)" in err
    assert "multiplied along the paths and summed" in err
    assert """\
    path 1
      c.sum() (line 5)              ∂(c.sum())/∂c = 1
      c = a * 3 + a.exp() (line 4)  ∂c/∂(a.exp()) = 1
      a.exp() (line 4)              ∂(a.exp())/∂a = 7.38906
      a = x * 2 (line 3)            ∂a/∂x         = 2
      product 1 · 1 · 7.38906 · 2 = 14.7781
    path 2
      c.sum() (line 5)              ∂(c.sum())/∂c = 1
      c = a * 3 + a.exp() (line 4)  ∂c/∂(a * 3)   = 1
      a * 3 (line 4)                ∂(a * 3)/∂a   = 3
      a = x * 2 (line 3)            ∂a/∂x         = 2
      product 1 · 1 · 3 · 2 = 6
    x.grad[0] = 14.7781 + 6 = 20.7781
""" in err


def test_broadcasting_undone_is_shown_and_stops_the_one_element_chain() -> None:
    err = trace("import torch\n"
                "x = torch.ones(2, 3, requires_grad=True)\n"
                "w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                "y = (x * w).sum()\n"
                "y.backward()\n")
    assert """\
[2] MulBackward0 · x * w · line 4
    grad in   [[1, 1, 1], [1, 1, 1]]
    → self    x: [[1, 2, 3], [1, 2, 3]]
    → other   w: [[1, 1, 1], [1, 1, 1]]
              ↳ other: broadcasting undone, the gradient of shape [2, 3] summed to [3]: [2, 2, 2]
[3] AccumulateGrad · x (leaf) · line 2
""" in err
    assert "    w.grad    None → [2, 2, 2]" in err
    assert "    x.grad[0, 0] = 1 · 1 = 1" in err
    assert ("  chain rule for w.grad: not shown, broadcasting is undone at MulBackward0 (x * w, line 4): "
            "one element there meets several elements below, summed (see the steps above)") in err


def test_the_broadcast_line_follows_its_own_input() -> None:
    # the engine undoes broadcasting input by input: each note sits under the line it is about
    err = trace("import torch\n"
                "a = torch.tensor(2.0, requires_grad=True)\n"
                "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                "(a + b).sum().backward()\n")
    assert """\
    → self    a: [1, 1, 1]
              ↳ self: broadcasting undone, the gradient of shape [3] summed to []: 3
    → other   b: [1, 1, 1]
""" in err


def test_hooks_what_they_returned_in_order_with_what_they_print() -> None:
    out, _, code = run("import torch\n"
                       "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                       "def double(g):\n"
                       "    return g * 2\n"
                       "y = x * 3\n"
                       "y.register_hook(double)\n"
                       "y.register_hook(lambda g: print('hook sees', g))\n"
                       "y.retain_grad()\n"
                       "z = y.sum()\n"
                       "z.grad_fn.register_hook(lambda gi, go: None)\n"
                       "z.backward()\n"
                       "print(x.grad)\n", together=True)
    assert code == 0
    assert out == """\
── backward pass 1 · z.backward() · line 11 ────────
  starts at z, SumBackward0, with gradient 1
[1] SumBackward0 · z = y.sum() · line 9
    grad in   1
    → self    y: [1, 1]
    hook      hook on SumBackward0: <lambda> returned None (the gradient is unchanged)
[2] MulBackward0 · y = x * 3 · line 5
    hook      hook on y: double returned [2, 2] (it replaces the gradient)
hook sees tensor([2., 2.])
    hook      hook on y: <lambda> returned None (the gradient is unchanged)
    retain    y.retain_grad(): y.grad = [2, 2]
    grad in   [2, 2]
    → self    x: [6, 6]
    → other   3 (needs no gradient)
[3] AccumulateGrad · x (leaf) · line 2
    grad in   [6, 6]
    x.grad    None → [6, 6]
  3 nodes ran in pass 1
  chain rule for x.grad: not shown, a hook changed the gradient reaching MulBackward0 (x * 3, line 5)

tensor([6., 6.])
"""


def test_a_leafs_grad_before_and_after_each_accumulation() -> None:
    err = trace("import torch\n"
                "w = torch.tensor([2.0, -1.0], requires_grad=True)\n"
                "loss = (w * w).sum()\n"
                "loss.backward(retain_graph=True)\n"
                "loss.backward()\n")
    assert "    w.grad    None → [4, -2]\n" in err
    assert "    w.grad    [4, -2] → [8, -4]\n" in err
    assert "  chain rule for w.grad[0]:" in err
    assert "  chain rule for the gradient this pass adds to w.grad[0]:" in err
    assert "    the gradient this pass adds to w.grad[0] = 1 · 2·2 = 1 · 4 = 4\n" in err


def test_autograd_grad_is_traced_and_leaves_grad_alone() -> None:
    err = trace("import torch\n"
                "x = torch.tensor(3.0, requires_grad=True)\n"
                "y = x ** 3\n"
                "(g,) = torch.autograd.grad(y, x, create_graph=True)\n"
                "(h,) = torch.autograd.grad(g, x)\n")
    assert err.startswith("""\
── autograd.grad pass 1 · torch.autograd.grad(y, x, create_graph=True) · line 4 ────────
  starts at y, PowBackward0, with gradient 1
  results for x; no .grad changes
[1] PowBackward0 · y = x ** 3 · line 3
    grad in   1
""")
    assert """\
[2] AccumulateGrad · x (leaf) · line 2
    grad in   27
""" in err
    assert "    result    autograd.grad's result 0 (for x): 27\n              x.grad is left as it is\n" in err
    assert "    autograd.grad's result for x = 27\n" in err
    # the second derivative runs through the graph the first grad built
    assert "── autograd.grad pass 2 · torch.autograd.grad(g, x) · line 5" in err
    assert "    result    autograd.grad's result 0 (for x): 18\n" in err
    assert "    autograd.grad's result for x = 1 · 3 · 6 = 18\n" in err


def test_backward_with_inputs_says_where_the_gradients_go() -> None:
    err = trace("import torch\n"
                "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "w = torch.tensor([3.0, 4.0], requires_grad=True)\n"
                "(x * w).sum().backward(inputs=[w])\n")
    assert "  only into w (inputs=)\n" in err
    assert "    w.grad    None → [1, 2]\n" in err
    assert "x.grad" not in err


def test_an_error_in_the_middle_of_a_pass() -> None:
    out, err, code = run("import torch\n"
                         "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                         "y = x.exp()\n"
                         "z = y * 2\n"
                         "y.add_(1)\n"
                         "z.sum().backward()\n")
    assert code == 1
    assert """\
[3] ExpBackward0 · y = x.exp() · line 3
    grad in   [2, 2]
  the pass stopped here with an error (reported below)
  3 nodes ran in pass 1

<test>:6:1: RuntimeError: one of the variables needed for gradient computation has been modified""" in err
    assert "chain rule" not in err


def test_the_chain_uses_an_element_whose_gradients_are_not_zero() -> None:
    # relu(-1) = 0 blocks element 0 on the exp path: its local derivative there is hidden
    err = trace("import torch\n"
                "x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)\n"
                "y = torch.relu(x) * x.exp()\n"
                "y.mean().backward()\n")
    assert "  chain rule for x.grad[1]:" in err
    assert "      y.mean() (line 4)                     ∂(y.mean())/∂y = 1/3 = 0.333333\n" in err
    assert "    x.grad[1] = 0.274787 + 0.549574 = 0.824361\n" in err


def test_ops_that_mix_elements_get_no_one_element_chain() -> None:
    err = trace("import torch\n"
                "w = torch.ones(2, 2, requires_grad=True)\n"
                "v = torch.tensor([1.0, 2.0])\n"
                "(w @ v).sum().backward()\n")
    assert ("  chain rule for w.grad: not shown, the path goes through MvBackward0 (w @ v, line 4), which mixes "
            "elements (the summary follows element-by-element ops)") in err


def test_big_gradients_are_summarised() -> None:
    err = trace("import torch\n"
                "x = torch.arange(12.0, requires_grad=True)\n"
                "y = (x * x).sum()\n"
                "y.backward()\n")
    assert "    → self    x: shape [12] float32, min 0, mean 5.5, max 11 (first 0, 1, 2, 3, ...)\n" in err
    assert "    x.grad    None → shape [12] float32, min 0, mean 11, max 22 (first 0, 2, 4, 6, ...)\n" in err
    # a local derivative of 0 (2·x at x = 0) is a factor like any other
    assert "    x.grad[0] = 1 · 2·0 = 1 · 0 = 0\n" in err


def test_no_backward_at_all_is_said_once() -> None:
    err = trace("import torch\nx = torch.ones(2)\nprint(x)\n")
    assert err == ("--trace-backward: the script called no backward() and no torch.autograd.grad(), "
                   "so there was nothing to trace\n")


def test_a_failure_of_the_trace_itself_stops_it_and_the_script_runs_on(monkeypatch) -> None:
    from gradcli.views.trace import blocks

    def broken(*args):
        raise ValueError("a bug in the trace")
    monkeypatch.setattr(blocks, "incoming", broken)
    out, err, code = run("import torch\n"
                         "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                         "(x * x).sum().backward()\n"
                         "(x * 3).sum().backward()\n"
                         "print(x.grad)\n")
    assert code == 0 and out == "tensor([5., 7.])\n"
    assert err.endswith("--trace-backward stopped: the trace failed (ValueError: a bug in the trace); the script "
                        "runs on without it\n")
    assert err.count("── backward pass") == 1
