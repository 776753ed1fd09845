"""``torch.nn.functional`` without PyTorch: formulas at the awkward points, node names,
warnings and errors.  Every expected number here is worked out by hand from PyTorch's
documented behaviour."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine import warnings as engine_warnings

T = api.TORCH
F = api.SUBMODULES["nn.functional"]
grad = api.SUBMODULES["autograd"]["grad"]
NAN = float("nan")


def leaf(values: Any, dtype: Any = None) -> Any:
    return T["tensor"](values, dtype=dtype, requires_grad=True)


def gradient(fn: Callable, values: Any) -> list:
    x = leaf(values)
    fn(x).sum().backward()
    return x.grad.tolist()


def node(t: Any) -> str:
    return type(t.grad_fn).__name__


def nexts(t: Any) -> list:
    return [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]


def raises(kind: type, message: str, fn: Callable) -> None:
    with pytest.raises(kind) as caught:
        fn()
    assert str(caught.value) == message


class Warnings(list):
    """Collects the engine's warnings while active."""

    def __enter__(self) -> "Warnings":
        engine_warnings.set_warning_handler(lambda category, message: self.append(message))
        return self

    def __exit__(self, *exc: Any) -> None:
        engine_warnings.set_warning_handler(None)


# -- activations at their awkward points ---------------------------------------------------------

@pytest.mark.parametrize("name, fn, values, expected", [
    ("relu", F["relu"], [-1.0, 0.0, 2.0, NAN], [0.0, 0.0, 1.0, 1.0]),  # NaN passes (threshold_backward)
    ("relu6", F["relu6"], [0.0, 3.0, 6.0, 7.0], [0.0, 1.0, 0.0, 0.0]),  # both bounds blocked
    ("hardtanh", F["hardtanh"], [-1.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
    ("leaky_relu", lambda x: F["leaky_relu"](x, 0.2), [-1.0, 0.0, 1.0], [0.2, 0.2, 1.0]),
    ("elu", lambda x: F["elu"](x, 0.5), [0.0, 1.0], [0.5, 1.0]),  # alpha at 0
    ("hardsigmoid", F["hardsigmoid"], [-3.0, 0.0, 3.0], [0.0, float(np.float32(1 / 6)), 0.0]),
    ("hardswish", F["hardswish"], [-3.0, 0.0, 3.0], [0.0, 0.5, 1.0]),
    ("softplus", F["softplus"], [25.0], [1.0]),  # linear above the threshold
    ("gelu", F["gelu"], [0.0], [0.5]),
    ("gelu tanh", lambda x: F["gelu"](x, approximate="tanh"), [0.0], [0.5]),
    ("threshold", lambda x: F["threshold"](x, 0.5, 9.0), [0.5, 0.6], [0.0, 1.0]),
    ("silu", F["silu"], [0.0], [0.5]),
    ("softsign", F["softsign"], [0.0, 1.0], [1.0, 0.25]),
    ("logsigmoid", F["logsigmoid"], [0.0], [0.5]),
])
def test_gradient_at_awkward_points(name: str, fn: Callable, values: list, expected: list) -> None:
    np.testing.assert_allclose(gradient(fn, values), expected, rtol=1e-6)


def test_activation_values() -> None:
    x = T["tensor"]([-1.0, 0.0, 2.0])
    assert F["leaky_relu"](x, 0.5).tolist() == [-0.5, 0.0, 2.0]
    assert F["relu6"](T["tensor"]([-1.0, 3.0, 9.0])).tolist() == [0.0, 3.0, 6.0]
    np.testing.assert_allclose(F["elu"](x).tolist(), [math.expm1(-1), 0.0, 2.0], rtol=1e-6)
    np.testing.assert_allclose(F["selu"](x).tolist()[0], 1.0507009873554805 * 1.6732632423543772 * math.expm1(-1),
                               rtol=1e-6)
    np.testing.assert_allclose(F["celu"](x, 2.0).tolist()[0], 2 * math.expm1(-0.5), rtol=1e-6)
    np.testing.assert_allclose(F["logsigmoid"](x).tolist(), [-math.log1p(math.e), -math.log(2), -math.log1p(math.exp(-2))],
                               rtol=1e-6)
    np.testing.assert_allclose(F["mish"](x).tolist()[2], 2 * math.tanh(math.log1p(math.exp(2))), rtol=1e-6)
    assert F["threshold"](T["tensor"]([1, 5]), 2, 0).tolist() == [0, 5]  # integers stay integers
    assert F["relu"](T["tensor"]([-0.0])).tolist()[0] == 0 and math.copysign(1, F["relu"](
        T["tensor"]([-0.0])).tolist()[0]) == -1  # relu(-0.0) is -0.0


@pytest.mark.parametrize("name, node_name", [
    ("relu", "ReluBackward0"), ("relu6", "HardtanhBackward0"), ("leaky_relu", "LeakyReluBackward0"),
    ("elu", "EluBackward0"), ("selu", "EluBackward0"), ("celu", "CeluBackward0"), ("gelu", "GeluBackward0"),
    ("silu", "SiluBackward0"), ("mish", "MishBackward0"), ("softplus", "SoftplusBackward0"),
    ("softsign", "DivBackward0"), ("hardtanh", "HardtanhBackward0"), ("hardsigmoid", "HardsigmoidBackward0"),
    ("hardswish", "HardswishBackward0"), ("logsigmoid", "LogSigmoidBackward0"), ("sigmoid", "SigmoidBackward0"),
    ("tanh", "TanhBackward0"),
])
def test_activation_nodes(name: str, node_name: str) -> None:
    assert node(F[name](leaf([1.0, -1.0]))) == node_name


@pytest.mark.parametrize("name, node_name", [
    ("relu", "ReluBackward0"), ("relu6", "HardtanhBackward0"), ("leaky_relu", "LeakyReluBackward1"),
    ("elu", "EluBackward1"), ("selu", "EluBackward1"), ("celu", "CeluBackward1"), ("silu", "SiluBackward0"),
    ("mish", "MishBackward0"), ("hardtanh", "HardtanhBackward0"), ("hardsigmoid", "HardsigmoidBackward0"),
    ("hardswish", "HardswishBackward0"),
])
def test_inplace_forms(name: str, node_name: str) -> None:
    x = leaf([1.0, -1.0])
    y = x * 1
    out = F[name](y, inplace=True)
    assert out is y and node(y) == node_name
    # the in-place nodes compute the same gradient as the out-of-place ones
    out.sum().backward()
    expected = gradient(F[name], [1.0, -1.0])
    np.testing.assert_allclose(x.grad.tolist(), expected, rtol=1e-6)


def test_threshold_inplace_node_and_torch_functions() -> None:
    y = leaf([0.0, 1.0]) * 1
    assert node(F["threshold"](y, 0.5, 2.0, inplace=True)) == "ThresholdBackward1"
    assert y.tolist() == [2.0, 1.0]
    assert node(T["selu"](leaf([1.0]))) == "EluBackward0"
    z = leaf([-1.0]) * 1
    assert T["relu_"](z) is z and z.tolist() == [0.0]


def test_inplace_errors() -> None:
    raises(RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.",
           lambda: F["relu"](leaf([1.0]), inplace=True))
    y = F["leaky_relu"](leaf([1.0, -1.0]) * 1, -0.5, True)
    assert y.tolist() == [1.0, 0.5]
    with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation is triggered with a negative slope"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered with a negative slope"):
        F["elu"](leaf([1.0]) * 1, -1.0, True).sum().backward()


def test_activation_errors() -> None:
    ints = T["tensor"]([1, 2])
    raises(NotImplementedError, "\"leaky_relu_cpu\" not implemented for 'Long'", lambda: F["leaky_relu"](ints))
    raises(NotImplementedError, "\"elu_cpu\" not implemented for 'Long'", lambda: F["selu"](ints))
    raises(RuntimeError, "Boolean inputs not supported for relu", lambda: F["relu"](T["tensor"]([True])))
    raises(ValueError, "min_val cannot be greater than max_val", lambda: F["hardtanh"](ints, 2.0, 1.0))
    raises(RuntimeError, "ZeroDivisionError: alpha cannot be 0 for CELU", lambda: F["celu"](leaf([1.0]), 0.0))
    raises(RuntimeError, "approximate argument must be either none or tanh.",
           lambda: F["gelu"](leaf([1.0]), approximate="exact"))
    raises(TypeError, "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str",
           lambda: F["leaky_relu"](leaf([1.0]), "a"))
    raises(TypeError, "softplus() takes from 1 to 3 positional arguments but 4 were given",
           lambda: F["softplus"](leaf([1.0]), 1, 20, 3))
    raises(TypeError, "_threshold() missing 1 required positional argument: 'value'",
           lambda: F["threshold"](leaf([1.0]), 0.5))
    raises(AttributeError, "'list' object has no attribute 'tanh'", lambda: F["tanh"]([1.0]))


def test_second_derivatives_at_kinks() -> None:
    # PyTorch masks elu's second derivative with x < 0: 0 at x = 0 (first derivative alpha there)
    x = leaf([0.0, -1.0])
    (g,) = grad(F["elu"](x).sum(), [x], create_graph=True)
    (h,) = grad(g.sum(), [x])
    np.testing.assert_allclose(h.tolist(), [0.0, math.exp(-1)], rtol=1e-6)
    # logsigmoid'' = -sigmoid (1 - sigmoid), also at 0 where PyTorch's kernel uses |x|
    x = leaf([0.0])
    (g,) = grad(F["logsigmoid"](x).sum(), [x], create_graph=True)
    assert grad(g.sum(), [x])[0].tolist() == [-0.25]


# -- softmax family, normalize ----------------------------------------------------------------------

def test_softmax_implicit_dim_warns_and_picks_pytorchs_dim() -> None:
    x = leaf([[0.0, 1.0], [2.0, 4.0]])
    with Warnings() as seen:
        y = F["softmax"](x)
    assert seen == ["Implicit dimension choice for softmax has been deprecated. Change the call to include "
                    "dim=X as an argument."]
    np.testing.assert_allclose(y.sum(1).tolist(), [1.0, 1.0], rtol=1e-6)  # dim 1 for a 2-d input


def test_softmin_and_dtype() -> None:
    x = leaf([0.0, math.log(3.0)])
    y = F["softmin"](x, 0)
    np.testing.assert_allclose(y.tolist(), [0.75, 0.25], rtol=1e-6)
    assert node(y) == "SoftmaxBackward0" and nexts(y) == ["NegBackward0"]
    z = F["log_softmax"](x, 0, dtype=T["float64"])
    assert z.dtype is T["float64"] and nexts(z) == ["ToCopyBackward0"]
    raises(NotImplementedError, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
           lambda: F["softmax"](T["tensor"]([1, 2]), 0))


def test_normalize() -> None:
    x = leaf([[3.0, 4.0], [0.0, 0.0]])
    y = F["normalize"](x)
    np.testing.assert_allclose(y.tolist(), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    assert node(y) == "DivBackward0" and nexts(y) == ["AccumulateGrad", "ExpandBackward0"]
    y.sum().backward()
    # the zero row is divided by eps, with no NaN anywhere
    assert not np.isnan(np.array(x.grad.tolist())).any()
    np.testing.assert_allclose(x.grad.tolist()[1], [1e12, 1e12], rtol=1e-6)


# -- dropout -------------------------------------------------------------------------------------

def test_dropout_identity_cases_return_the_input() -> None:
    x = leaf([1.0, 2.0])
    assert F["dropout"](x, 0.0) is x
    assert F["dropout"](x, 0.5, training=False) is x
    empty = leaf([])
    assert F["dropout"](empty) is empty


def test_dropout_scales_kept_elements_and_gradient() -> None:
    T["manual_seed"](0)
    x = leaf([1.0] * 64)
    y = F["dropout"](x, 0.25)
    values = set(y.tolist())
    assert values <= {0.0, float(np.float32(1) / np.float32(0.75))} and len(values) == 2
    assert node(y) == "MulBackward0" and nexts(y) == ["AccumulateGrad", None]
    y.sum().backward()
    assert x.grad.tolist() == y.tolist()  # the gradient is the noise itself
    T["manual_seed"](0)
    assert F["dropout"](x, 0.25).tolist() == y.tolist()  # the same seed, the same mask
    assert F["dropout"](x, 1.0).tolist() == [0.0] * 64


def test_dropout_errors() -> None:
    x = leaf([1.0])
    raises(ValueError, "dropout probability has to be between 0 and 1, but got 1.5", lambda: F["dropout"](x, 1.5))
    raises(TypeError, "'<' not supported between instances of 'str' and 'float'", lambda: F["dropout"](x, "a"))
    raises(RuntimeError, "dropout probability has to be between 0 and 1, but got 1.5",
           lambda: T["dropout"](x, 1.5, True))
    raises(RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.",
           lambda: F["dropout"](x, 0.5, inplace=True))


# -- linear ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, bias, top, below", [
    ((4, 3), (2,), "AddmmBackward0", ["AccumulateGrad", "AccumulateGrad", "TBackward0"]),
    ((4, 3), None, "MmBackward0", ["AccumulateGrad", "TBackward0"]),
    ((3,), (2,), "ViewBackward0", ["AddmmBackward0"]),
    ((3,), None, "SqueezeBackward4", ["MmBackward0"]),
    ((5, 4, 3), (2,), "ViewBackward0", ["AddmmBackward0"]),
    ((5, 4, 3), None, "UnsafeViewBackward0", ["MmBackward0"]),
    ((5, 4, 3), (4, 2), "AddBackward0", ["UnsafeViewBackward0", "AccumulateGrad"]),
])
def test_linear_decomposition(shape: tuple, bias: Any, top: str, below: list) -> None:
    x = leaf(np.ones(shape).tolist())
    w = leaf([[0.5, 0.0, 1.0], [1.0, 1.0, -1.0]])
    args = (x, w) if bias is None else (x, w, leaf(np.full(bias, 0.5).tolist()))
    y = F["linear"](*args)
    assert node(y) == top and nexts(y) == below
    assert y.tolist() == (np.ones(shape) @ np.array(w.tolist()).T + (0 if bias is None else 0.5)).tolist()


def test_linear_gradients_and_errors() -> None:
    x, w, b = leaf([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]]), leaf([[0.5, 0.0, 1.0], [1.0, 1.0, -1.0]]), leaf([0.1, -0.2])
    F["linear"](x, w, b).sum().backward()
    assert x.grad.tolist() == [[1.5, 1.0, 0.0]] * 2
    assert w.grad.tolist() == [[1.0, 1.0, 4.0]] * 2 and b.grad.tolist() == [2.0, 2.0]
    raises(RuntimeError, "both arguments to linear need to be at least 1D, but they are 0D and 2D",
           lambda: F["linear"](T["tensor"](1.0), w))
    raises(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x2 and 3x2)",
           lambda: F["linear"](T["ones"](2, 2), w, b))
    raises(TypeError, "linear(): argument 'weight' (position 2) must be Tensor, not list",
           lambda: F["linear"](x, [1.0]))


def test_bilinear() -> None:
    x1, x2 = leaf([[1.0, 2.0]]), leaf([[3.0]])
    w, b = leaf([[[1.0], [1.0]], [[2.0], [0.0]]]), leaf([0.5, 0.0])
    y = F["bilinear"](x1, x2, w, b)
    assert y.tolist() == [[9.5, 6.0]] and node(y) == "AddBackward0"
    y.sum().backward()
    assert x1.grad.tolist() == [[9.0, 3.0]] and x2.grad.tolist() == [[5.0]]


# -- regression losses ------------------------------------------------------------------------------

def test_mse_loss() -> None:
    x, t = leaf([1.0, 2.0, 3.0, 4.0]), T["tensor"]([1.5, 2.0, 2.0, 6.0])
    y = F["mse_loss"](x, t)
    assert y.tolist() == 1.3125 and node(y) == "MseLossBackward0" and nexts(y) == ["AccumulateGrad", None]
    y.backward()
    assert x.grad.tolist() == [-0.25, 0.0, 0.5, -1.0]  # 2 (x - t) / n
    assert F["mse_loss"](x, t, reduction="none").tolist() == [0.25, 0.0, 1.0, 4.0]
    with Warnings() as seen:
        F["mse_loss"](x, T["ones"](2, 4))
        F["mse_loss"](x, t, size_average=False)
    assert seen == ["Using a target size (torch.Size([2, 4])) that is different to the input size "
                    "(torch.Size([4])). This will likely lead to incorrect results due to broadcasting. Please "
                    "ensure they have the same size.",
                    "size_average and reduce args will be deprecated, please use reduction='sum' instead."]
    raises(ValueError, "avg is not a valid value for reduction", lambda: F["mse_loss"](x, t, reduction="avg"))
    raises(AttributeError, "'float' object has no attribute 'size'", lambda: F["mse_loss"](x, 1.0))


def test_weighted_mse_divides_by_the_weight_sum() -> None:
    x, t, w = leaf([1.0, 3.0]), T["tensor"]([0.0, 0.0]), T["tensor"]([1.0, 3.0])
    y = F["mse_loss"](x, t, weight=w)
    assert y.tolist() == (1 + 27) / 4 and node(y) == "DivBackward0"


def test_l1_loss_is_composed() -> None:
    x, t = leaf([1.0, 2.0, 3.0]), T["tensor"]([1.0, 0.0, 5.0])
    assert node(F["l1_loss"](x, t)) == "MeanBackward0"
    assert node(F["l1_loss"](x, t, reduction="sum")) == "SumBackward0"
    assert node(F["l1_loss"](x, t, reduction="none")) == "AbsBackward0"
    F["l1_loss"](x, t).backward()
    np.testing.assert_allclose(x.grad.tolist(), [0.0, 1 / 3, -1 / 3], rtol=1e-6)  # 0 where input == target


def test_smooth_l1_and_huber_at_their_boundaries() -> None:
    x, t = leaf([0.0, 0.0, 0.0]), T["tensor"]([0.5, 1.0, 3.0])
    assert F["smooth_l1_loss"](x, t, reduction="none").tolist() == [0.125, 0.5, 2.5]
    assert F["huber_loss"](x, t, reduction="none", delta=1.0).tolist() == [0.125, 0.5, 2.5]
    F["huber_loss"](x, t, reduction="sum", delta=2.0).backward()
    assert x.grad.tolist() == [-0.5, -1.0, -2.0]
    assert node(F["smooth_l1_loss"](x, t, beta=0.0)) == "MeanBackward0"  # beta 0 is l1_loss
    raises(RuntimeError, "smooth_l1_loss does not support negative values for beta.",
           lambda: F["smooth_l1_loss"](x, t, beta=-1.0))
    raises(RuntimeError, "huber_loss does not support non-positive values for delta.",
           lambda: F["huber_loss"](x, t, delta=0.0))


# -- binary cross entropy ------------------------------------------------------------------------

def test_binary_cross_entropy_clamps_logs_at_minus_100() -> None:
    assert F["binary_cross_entropy"](T["tensor"]([0.0, 1.0]), T["tensor"]([1.0, 0.0])).tolist() == 100.0
    loss = F["binary_cross_entropy"](T["tensor"]([1.0]), T["tensor"]([1.0]), reduction="none").tolist()[0]
    assert loss == 0 and math.copysign(1, loss) == -1  # printed as -0.0000, as PyTorch prints it
    p = leaf([0.0, 0.5])
    y = F["binary_cross_entropy"](p, T["tensor"]([1.0, 1.0]))
    assert node(y) == "BinaryCrossEntropyBackward0"
    y.backward()
    # -1 / max(p (1 - p), 1e-12) / n: the denominator is clamped at 1e-12
    np.testing.assert_allclose(p.grad.tolist(), [-0.5e12, -1.0], rtol=1e-6)


def test_binary_cross_entropy_errors() -> None:
    p, t = leaf([0.5]), T["tensor"]([1.0])
    raises(RuntimeError, "all elements of input should be between 0 and 1",
           lambda: F["binary_cross_entropy"](T["tensor"]([1.5]), t))
    raises(ValueError, "Using a target size (torch.Size([1, 1])) that is different to the input size "
           "(torch.Size([1])) is deprecated. Please ensure they have the same size.",
           lambda: F["binary_cross_entropy"](p, T["ones"](1, 1)))
    raises(RuntimeError, "The function 'binary_cross_entropy' is not differentiable with respect to argument "
           "'weight'. This input cannot have requires_grad True.",
           lambda: F["binary_cross_entropy"](p, t, weight=leaf([1.0])))
    raises(RuntimeError, "Found dtype Double but expected Float",
           lambda: F["binary_cross_entropy"](p, T["tensor"]([1.0], dtype=T["float64"])))


def test_binary_cross_entropy_with_logits() -> None:
    x, t = leaf([0.0, 2.0]), T["tensor"]([1.0, 0.0])
    y = F["binary_cross_entropy_with_logits"](x, t, pos_weight=T["tensor"]([3.0, 3.0]), reduction="sum")
    np.testing.assert_allclose(y.tolist(), 3 * math.log(2) + 2 + math.log1p(math.exp(-2)), rtol=1e-6)
    y.backward()
    # (pos_weight * t + 1 - t) sigmoid(x) - pos_weight * t
    np.testing.assert_allclose(x.grad.tolist(), [3 * 0.5 - 3, 1 / (1 + math.exp(-2))], rtol=1e-6)
    assert T["binary_cross_entropy_with_logits"](x, t).dtype is T["float32"]
    raises(ValueError, "Target size (torch.Size([1, 2])) must be the same as input size (torch.Size([2]))",
           lambda: F["binary_cross_entropy_with_logits"](x, T["ones"](1, 2)))


# -- cross entropy and nll ----------------------------------------------------------------------------

def test_cross_entropy_gradient_is_softmax_minus_one_hot() -> None:
    logits = leaf([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    y = F["cross_entropy"](logits, T["tensor"]([0, 2]))
    assert node(y) == "NllLossBackward0" and nexts(y) == ["LogSoftmaxBackward0"]
    y.backward()
    soft = np.exp(logits.tolist()) / np.exp(logits.tolist()).sum(1, keepdims=True)
    np.testing.assert_allclose(logits.grad.tolist(), (soft - np.eye(3)[[0, 2]]) / 2, rtol=1e-5)


def test_ignore_index_and_weights() -> None:
    logp = T["tensor"]([[-1.0, -2.0], [-3.0, -4.0], [-5.0, -6.0]])
    assert F["nll_loss"](logp, T["tensor"]([0, -100, 1])).tolist() == 3.5  # the ignored row does not count
    assert F["nll_loss"](logp, T["tensor"]([0, -100, 1]), reduction="none").tolist() == [1.0, 0.0, 6.0]
    assert math.isnan(F["nll_loss"](logp, T["tensor"]([-100, -100, -100])).tolist())  # 0 / 0
    weighted = F["nll_loss"](logp, T["tensor"]([0, 1, 1]), weight=T["tensor"]([1.0, 3.0]))
    np.testing.assert_allclose(weighted.tolist(), (1 + 12 + 18) / 7, rtol=1e-6)  # by the sum of picked weights


def test_label_smoothing_and_probabilities() -> None:
    logits = leaf([[1.0, 2.0, 3.0]])
    logp = np.array(logits.tolist()[0]) - np.log(np.exp(logits.tolist()[0]).sum())
    smooth = F["cross_entropy"](logits, T["tensor"]([2]), label_smoothing=0.3)
    np.testing.assert_allclose(smooth.tolist(), -0.7 * logp[2] - 0.3 * logp.mean(), rtol=1e-6)
    assert node(smooth) == "AddBackward0" and nexts(smooth) == ["MulBackward1", "MulBackward1"]
    probs = F["cross_entropy"](logits, T["tensor"]([[0.2, 0.3, 0.5]]))
    np.testing.assert_allclose(probs.tolist(), -(logp * [0.2, 0.3, 0.5]).sum(), rtol=1e-6)
    assert node(probs) == "DivBackward1"


@pytest.mark.parametrize("shape, target_shape, top, below", [
    ((3,), (), "NllLossBackward0", ["AccumulateGrad"]),
    ((2, 3), (2,), "NllLossBackward0", ["AccumulateGrad"]),
    ((2, 3, 4), (2, 4), "NllLoss2DBackward0", ["ViewBackward0"]),
    ((2, 3, 4, 5), (2, 4, 5), "NllLoss2DBackward0", ["AccumulateGrad"]),
])
def test_nll_loss_kernels_by_rank(shape: tuple, target_shape: tuple, top: str, below: list) -> None:
    y = F["nll_loss"](leaf(np.zeros(shape).tolist()), T["zeros"](target_shape, dtype=T["int64"]))
    assert node(y) == top and nexts(y) == below


def test_cross_entropy_errors() -> None:
    x = leaf([[1.0, 2.0]])
    raises(IndexError, "Target 2 is out of bounds.", lambda: F["cross_entropy"](x, T["tensor"]([2])))
    raises(RuntimeError, "expected target dtype to be Long or Byte, but got Float",
           lambda: F["nll_loss"](x, T["tensor"]([1.0])))
    raises(ValueError, "Expected input batch_size (1) to match target batch_size (2).",
           lambda: F["cross_entropy"](x, T["tensor"]([0, 1])))
    raises(RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5",
           lambda: F["cross_entropy"](x, T["tensor"]([1]), label_smoothing=1.5))
    raises(RuntimeError, "ignore_index is not supported for floating point target",
           lambda: F["cross_entropy"](x, T["tensor"]([[1.0, 0.0]]), ignore_index=0))
    raises(RuntimeError, "weight tensor should be defined either for all 2 classes or no classes but got weight "
           "tensor of shape: [3]", lambda: F["nll_loss"](x, T["tensor"]([1]), T["ones"](3)))


def test_kl_div() -> None:
    x, t = leaf([[math.log(0.5), math.log(0.5)]]), T["tensor"]([[0.25, 0.75]])
    with Warnings() as seen:
        mean = F["kl_div"](x, t)
    assert seen and seen[0].startswith("reduction: 'mean' divides the total loss by both the batch size")
    expected = 0.25 * math.log(0.25 / 0.5) + 0.75 * math.log(0.75 / 0.5)
    np.testing.assert_allclose(mean.tolist(), expected / 2, rtol=1e-6)
    batch = F["kl_div"](x, t, reduction="batchmean")
    np.testing.assert_allclose(batch.tolist(), expected, rtol=1e-6)
    assert node(batch) == "DivBackward0"
    log_t = F["kl_div"](x, t.log(), reduction="sum", log_target=True)
    np.testing.assert_allclose(log_t.tolist(), expected, rtol=1e-6)
    raises(RuntimeError, "kl_div: Integral inputs not supported.",
           lambda: F["kl_div"](T["tensor"]([1]), T["tensor"]([1]), reduction="sum"))


def test_saved_attributes_name_pytorchs_options() -> None:
    x = leaf([1.0, -2.0])
    selu = F["selu"](x).grad_fn
    assert (selu._saved_alpha, selu._saved_scale, selu._saved_input_scale) == (
        1.6732632423543772, 1.0507009873554805, 1)
    relu6 = F["relu6"](x).grad_fn
    assert (relu6._saved_min_val, relu6._saved_max_val) == (0, 6) and relu6._saved_self is x
    assert F["leaky_relu"](x * 1, 0.2, True).grad_fn._saved_negative_slope == 0.2
    loss = F["mse_loss"](x, T["zeros"](2)).grad_fn
    assert loss._saved_reduction == 1 and loss._saved_target.tolist() == [0.0, 0.0]
    assert F["binary_cross_entropy"](x.sigmoid(), T["ones"](2)).grad_fn._saved_weight is None


@pytest.mark.parametrize("fn, node_name", [
    (F["relu"], "ThresholdBackwardBackward0"), (F["elu"], "EluBackwardBackward0"),
    (F["gelu"], "GeluBackwardBackward0"), (F["softplus"], "SoftplusBackwardBackward0"),
    (F["leaky_relu"], "LeakyReluBackwardBackward0"), (F["hardtanh"], "HardtanhBackwardBackward0"),
    (lambda x: F["softmax"](x, 0), "SoftmaxBackwardDataBackward0"),
    (lambda x: F["mse_loss"](x, T["zeros"](2)), "MseLossBackwardBackward0"),
    (lambda x: F["cross_entropy"](x, T["tensor"](0)), "LogSoftmaxBackwardDataBackward0"),
    (F["hardsigmoid"], "NotImplemented"),
])
def test_create_graph_gradients_are_pytorchs_backward_ops(fn: Callable, node_name: str) -> None:
    x = leaf([0.5, -1.0])
    (g,) = grad(fn(x).sum(), [x], create_graph=True)
    assert node(g) == node_name


def test_hardsigmoid_has_no_second_derivative() -> None:
    x = leaf([0.5])
    (g,) = grad(F["hardsigmoid"](x).sum(), [x], create_graph=True)
    raises(RuntimeError, "derivative for aten::hardsigmoid_backward is not implemented", lambda: g.sum().backward())
