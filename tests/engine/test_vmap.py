"""vmap: every op of the table has a batch rule or is listed without one, every rule is exercised,
and each case of ``vmap_cases.ag`` gives what running its function on each sample gives.

The values are compared with PyTorch's own vmap in test_vmap_oracle.py and in the golden cases
``tests/golden/cases/autograd/vmap_*``; here, what does not need PyTorch.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gradcli.engine import api
from gradcli.engine.batching import rules, state
from gradcli.engine.dispatch.publish import OPS
from gradcli.lang import Session

CASES = Path(__file__).with_name("vmap_cases.ag")
torch = api.TORCH

# Ops without a batch rule, and why: vmap over them fails naming the op.
WITHOUT_RULE = {
    # batch statistics mix the samples of the op's own batch
    "native_batch_norm": "batch statistics",
    # gradients of losses, convolution, pooling, embedding: reached only by a backward pass through a
    # graph recorded outside vmap with a batch of cotangents (vmap(vjp_fn)) over these ops
    "mse_loss_backward": "loss gradient", "smooth_l1_loss_backward": "loss gradient",
    "huber_loss_backward": "loss gradient", "binary_cross_entropy_backward": "loss gradient",
    "nll_loss_backward": "loss gradient", "nll_loss2d_backward": "loss gradient",
    "embedding_dense_backward": "embedding gradient", "_convolution_input_grad": "convolution gradient",
    "_convolution_weight_grad": "convolution gradient", "max_pool2d_with_indices_backward": "pooling gradient",
    "avg_pool2d_backward": "pooling gradient",
    "nll_loss2d": "images of class scores", "_trilinear": "bilinear",
}
# Ops with a rule that vmap_cases.ag reaches only through others, or not at all, and why.
NOT_REACHED = {
    "_embed": "the gradient of a view: reached by a batched backward (golden vmap_jacobians)",
    "hardtanh_backward": "an activation's gradient (reached by a batched backward)",
    "leaky_relu_backward": "an activation's gradient", "hardshrink_backward": "an activation's gradient",
    "softshrink_backward": "an activation's gradient", "elu_backward": "an activation's gradient",
    "gelu_backward": "an activation's gradient", "softplus_backward": "an activation's gradient",
    "hardswish_backward": "an activation's gradient", "log_sigmoid_backward": "an activation's gradient",
    "hardsigmoid_backward": "an activation's gradient", "threshold_backward": "relu's gradient",
    "sigmoid_backward": "sigmoid's gradient", "tanh_backward": "tanh's gradient",
    "_softmax_backward_data": "softmax's gradient", "_log_softmax_backward_data": "log_softmax's gradient",
    "reflection_pad1d_backward": "a padding's gradient", "reflection_pad2d_backward": "a padding's gradient",
    "reflection_pad3d_backward": "a padding's gradient", "replication_pad1d_backward": "a padding's gradient",
    "replication_pad2d_backward": "a padding's gradient", "replication_pad3d_backward": "a padding's gradient",
    "reflection_pad1d": "as reflection_pad2d", "reflection_pad3d": "as reflection_pad2d",
    "replication_pad2d": "as replication_pad1d", "replication_pad3d": "as replication_pad1d",
    "_diagonal_copy": "torch.diag's copy of a diagonal",
    "_reshape_alias": "reshape of a batched tensor reshapes its physical value (shape.reshape_batched)",
    "_mul_scalar": "gradient formulas' scalar arithmetic", "_div_scalar": "gradient formulas' scalar arithmetic",
    "_add_scalar": "gradient formulas' scalar arithmetic", "_sub_scalar": "gradient formulas' scalar arithmetic",
}


@pytest.fixture(scope="module")
def run() -> tuple[dict, set]:
    """The cases' output lines by (name, kind), and the ops whose batch rule they reached."""
    reached: set = set()
    original = rules.rule_for

    def recording(op):  # type: ignore[no-untyped-def]
        reached.add(op.name)
        return original(op)
    rules.rule_for = recording
    try:
        out = io.StringIO()
        outcome = Session(stdout=out).run_source(CASES.read_text(), str(CASES))
    finally:
        rules.rule_for = original
    assert outcome.exit_code == 0, out.getvalue()
    lines = {}
    for line in out.getvalue().splitlines():
        name, kind, value = line.split(" ", 2)
        lines[(name, kind)] = value
    return lines, reached


def test_every_op_has_a_batch_rule_or_is_listed_without_one() -> None:
    missing = [name for name, op in OPS.items() if rules.rule_for(op) is None and name not in WITHOUT_RULE]
    assert not missing, f"ops with neither a batch rule nor a place on WITHOUT_RULE: {missing}"
    listed = [name for name in WITHOUT_RULE if name in OPS and rules.rule_for(OPS[name]) is not None]
    assert not listed, f"listed without a rule but they have one: {listed}"


def test_every_rule_is_exercised(run: tuple[dict, set]) -> None:
    _, reached = run
    unreached = [name for name, op in OPS.items()
                 if rules.rule_for(op) is not None and name not in reached and name not in NOT_REACHED]
    assert not unreached, f"ops with a batch rule that vmap_cases.ag never reaches: {unreached}"
    assert len(reached) > 150


def test_vmap_gives_what_each_sample_gives(run: tuple[dict, set]) -> None:
    lines, _ = run
    agreements = {name: value for (name, kind), value in lines.items() if kind == "loop"}
    assert len(agreements) > 280
    assert not [n for n, v in agreements.items() if v == "DIFFERENT"]
    # most ops batch without changing a bit; the rest run a different kernel on the whole batch
    assert sum(v == "exact" for v in agreements.values()) > 270


def test_errors_are_the_expected_ones(run: tuple[dict, set]) -> None:
    lines, _ = run
    errors = {name for (name, kind) in lines if kind == "error"}
    assert errors == {"item", "bool", "random", "permute_bad", "view_bad", "mm_bad", "sum_bad_dim", "cat_bad",
                      "masked_select_batched_mask", "add_into_plain", "view_infer", "normal_of_batch",
                      "bernoulli_of_batch", "poisson_of_batch"}


def test_an_error_inside_vmap_leaves_no_vmap_running() -> None:
    from gradcli.engine.transforms.vmap import vmap
    with pytest.raises(RuntimeError):
        vmap(lambda x: x.item())(torch["ones"](2, 3))
    assert state.depth == 0 and not state.sizes and not state.randomness and not state.grad_depth_at


def test_nested_levels_and_out_dims() -> None:
    from gradcli.engine.transforms.vmap import vmap
    grid = torch["arange"](24.0).reshape(2, 3, 4)
    both = vmap(vmap(lambda r: r.sum()), in_dims=2, out_dims=1)(grid)
    # the outer vmap maps dim 2, the inner one dim 0 of each (2, 3) sample: sums over dim 1
    assert tuple(both.shape) == (2, 4)
    assert both.tolist() == grid.sum(1).tolist()
