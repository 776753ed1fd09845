"""Convolution and pooling without PyTorch: values against a plain loop written here, gradients
against finite differences, PyTorch's node names, reprs and errors as its sources word them."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine import warnings as engine_warnings
from gradcli.engine.errors import TorchNotImplementedError, TorchRuntimeError
from gradcli.engine.nn.modules import members
from gradcli.engine.tensor import Tensor

T = api.TORCH
F = api.SUBMODULES["nn.functional"]
autograd = api.SUBMODULES["autograd"]
nn = members()
NAN, INF = math.nan, math.inf


def tensor(a: Any, grad: bool = False) -> Tensor:
    t = Tensor._make(np.array(a))
    return t.requires_grad_() if grad else t


def node(t: Any) -> str:
    return type(t.grad_fn).__name__


def nexts(t: Any) -> list:
    return [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]


def reference_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple, pad: tuple,
                     dil: tuple, groups: int) -> np.ndarray:
    """The definition, one output element at a time."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    per = o // groups
    for s, f, i, j in itertools.product(range(n), range(o), range(oh), range(ow)):
        g = f // per
        total = 0.0 if b is None else b[f]
        for ch, p, q in itertools.product(range(cg), range(kh), range(kw)):
            total += w[f, ch, p, q] * xp[s, g * cg + ch, i * stride[0] + p * dil[0], j * stride[1] + q * dil[1]]
        out[s, f, i, j] = total
    return out


@pytest.mark.parametrize("stride, pad, dil, groups", [
    ((1, 1), (0, 0), (1, 1), 1), ((2, 1), (1, 2), (1, 1), 1), ((1, 2), (0, 1), (2, 1), 2), ((3, 3), (2, 2), (2, 2), 2)])
def test_conv2d_is_the_definition(stride: tuple, pad: tuple, dil: tuple, groups: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 7, 6))
    w = rng.standard_normal((6, 4 // groups, 3, 2))
    b = rng.standard_normal(6)
    got = F["conv2d"](tensor(x), tensor(w), tensor(b), stride, pad, dil, groups)
    np.testing.assert_allclose(got.numpy(), reference_conv2d(x, w, b, stride, pad, dil, groups), rtol=1e-12,
                               atol=1e-12)


def test_conv1d_is_conv2d_of_height_one() -> None:
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 4, 9)), rng.standard_normal((2, 2, 3))
    got = F["conv1d"](tensor(x), tensor(w), None, 2, 1, 2, 2)
    want = reference_conv2d(x[:, :, None], w[:, :, None], None, (1, 2), (0, 1), (1, 2), 2)[:, :, 0]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    assert T["conv1d"] is F["conv1d"] and T["conv2d"] is F["conv2d"]


def test_a_small_convolution_by_hand() -> None:
    x = T["arange"](16.0).view(1, 1, 4, 4)
    out = F["conv2d"](x, T["ones"](1, 1, 2, 2), T["tensor"]([0.5]), stride=2)
    assert out.tolist() == [[[[10.5, 18.5], [42.5, 50.5]]]]


@pytest.mark.parametrize("call", [
    lambda x, w, b: F["conv2d"](x, w, b, 1, 1),
    lambda x, w, b: F["conv2d"](x, w, b, (2, 1), (1, 0), (2, 1)),
    lambda x, w, b: F["conv2d"](x[0], w, b, padding="same"),
    lambda x, w, b: F["conv2d"](x, w[..., :2, :2], b, padding="same"),
])
def test_gradients_and_second_derivatives_pass_gradcheck(call: Any) -> None:
    rng = np.random.default_rng(2)
    x = tensor(rng.standard_normal((2, 2, 5, 4)), True)
    w = tensor(rng.standard_normal((3, 2, 3, 3)), True)
    b = tensor(rng.standard_normal(3), True)
    assert autograd["gradcheck"](call, (x, w, b))
    assert autograd["gradgradcheck"](call, (x, w, b))


@pytest.mark.parametrize("call", [
    lambda x: F["max_pool2d"](x, 2),
    lambda x: F["max_pool2d"](x, (3, 2), (2, 1), 1, ceil_mode=True),
    lambda x: F["avg_pool2d"](x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda x: F["avg_pool2d"](x, 2, 1, divisor_override=3),
])
def test_pooling_passes_gradcheck(call: Any) -> None:
    x = tensor(np.random.default_rng(3).permutation(40).reshape(2, 4, 5) * 0.1, True)  # (no ties)
    assert autograd["gradcheck"](call, (x,))
    assert autograd["gradgradcheck"](call, (x,))


def test_node_names_and_saved_values() -> None:
    x, w, b = tensor(np.ones((1, 2, 5, 5)), True), tensor(np.ones((3, 2, 3, 3)), True), tensor(np.ones(3), True)
    y = F["conv2d"](x, w, b, stride=2, padding=1)
    assert node(y) == "ConvolutionBackward0" and nexts(y) == ["AccumulateGrad"] * 3
    fn = y.grad_fn
    assert (fn._saved_stride, fn._saved_padding, fn._saved_dilation, fn._saved_groups) == ((2, 2), (1, 1), (1, 1), 1)
    assert fn._saved_transposed is False and fn._saved_output_padding == (0, 0)
    assert fn._saved_input.shape == (1, 2, 5, 5) and fn._saved_weight.shape == (3, 2, 3, 3)
    assert F["conv2d"](x, w, padding="valid").grad_fn._saved_padding == (0,)
    unbatched = F["conv2d"](x[0], w)
    assert node(unbatched) == "SqueezeBackward1"
    assert [type(f).__name__ for f, _ in unbatched.grad_fn.next_functions[0][0].next_functions] == [
        "UnsqueezeBackward0", "AccumulateGrad", "NoneType"]
    m = F["max_pool2d"](x, 2)
    assert node(m) == "MaxPool2DWithIndicesBackward0"
    assert (m.grad_fn._saved_kernel_size, m.grad_fn._saved_stride, m.grad_fn._saved_padding) == ((2, 2), (), (0, 0))
    assert str(m.grad_fn._saved_result1.dtype) == "torch.int64"
    a = F["avg_pool2d"](x, 3, 1, 1, divisor_override=2)
    assert node(a) == "AvgPool2DBackward0" and a.grad_fn._saved_divisor_override == 2
    gx, = autograd["grad"](a.sum(), x, create_graph=True)
    assert node(gx) == "AvgPool2DBackwardBackward0"
    gx, = autograd["grad"](m.sum(), x, create_graph=True)
    assert node(gx) == "MaxPool2DWithIndicesBackwardBackward0"
    gx, = autograd["grad"](y.sum(), x, create_graph=True)
    assert node(gx) == "ConvolutionBackwardBackward0"


def test_same_padding_of_an_even_kernel_pads_first_and_warns_once() -> None:
    seen: list[str] = []
    engine_warnings.reset_warned_once()
    engine_warnings.set_warning_handler(lambda category, message: seen.append(message))
    try:
        x = tensor(np.ones((1, 1, 4, 4), dtype=np.float32), True)
        y = F["conv2d"](x, T["ones"](1, 1, 2, 2), padding="same")
        F["conv2d"](x, T["ones"](1, 1, 2, 2), padding="same")
    finally:
        engine_warnings.set_warning_handler(None)
    assert y.shape == (1, 1, 4, 4) and nexts(y) == ["ConstantPadNdBackward0", None, None]
    assert y.tolist() == [[[[4.0, 4.0, 4.0, 2.0], [4.0, 4.0, 4.0, 2.0], [4.0, 4.0, 4.0, 2.0], [2.0, 2.0, 2.0, 1.0]]]]
    assert len(seen) == 1 and seen[0].startswith("Using padding='same' with even kernel lengths")


def test_max_pool_keeps_the_first_largest_and_the_last_nan() -> None:
    x = tensor([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, NAN, NAN]]]])
    values, indices = F["max_pool2d"](x, 2, return_indices=True)
    assert indices.tolist() == [[[[1, 7]]]] and values[0, 0, 0, 0].item() == 3.0
    assert math.isnan(values[0, 0, 0, 1].item())
    low = tensor([[[[-INF, -INF], [-INF, -INF]]]])
    values, indices = F["max_pool2d"](low, 2, 2, 1, return_indices=True)
    assert indices.tolist() == [[[[0, 1], [2, 3]]]]  # a window of -inf keeps its first real position


def test_max_pool_gradient_goes_to_each_largest() -> None:
    x = tensor([[[1.0, 5.0, 2.0], [4.0, 0.0, 6.0], [7.0, 3.0, 8.0]]], True)
    F["max_pool2d"](x, 2, 1).sum().backward()
    assert x.grad.tolist() == [[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]]
    y = tensor([[[1.0, 5.0, 2.0], [4.0, 0.0, 6.0], [7.0, 3.0, 8.0]]], True)
    F["max_pool2d"](y, 3, 1, 1).sum().backward()  # 8 the largest of four windows, 7 and 6 of two
    assert y.grad.tolist() == [[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 4.0]]]


def test_avg_pool_divisors() -> None:
    x = T["ones"](1, 1, 3, 3)
    assert F["avg_pool2d"](x, 2, 2, 1).tolist() == [[[[0.25, 0.5], [0.5, 1.0]]]]
    assert F["avg_pool2d"](x, 2, 2, 1, count_include_pad=False).tolist() == [[[[1.0, 1.0], [1.0, 1.0]]]]
    assert F["avg_pool2d"](x, 2, 2, 1, divisor_override=2).tolist() == [[[[0.5, 1.0], [1.0, 2.0]]]]
    # ceil mode: the last window hangs over the edge, counted only up to the padding's end
    assert F["avg_pool2d"](x, 2, 2, 0, ceil_mode=True).tolist() == [[[[1.0, 1.0], [1.0, 1.0]]]]
    ones = T["ones"](1, 4, 4, dtype=T["float64"])
    assert F["avg_pool2d"](ones, 3, 2, 1, ceil_mode=True).tolist() == [
        [[4 / 9, 6 / 9, 2 / 6], [6 / 9, 1.0, 3 / 6], [2 / 6, 3 / 6, 1 / 4]]]
    assert F["avg_pool2d"](T["arange"](9).view(1, 3, 3), 2, 1).tolist() == [[[2, 3], [5, 6]]]  # C's division


def test_lenet_trains() -> None:
    T["manual_seed"](0)
    layers = [nn["Conv2d"](1, 6, 5), nn["Conv2d"](6, 16, 5), nn["Linear"](400, 120), nn["Linear"](120, 84),
              nn["Linear"](84, 10)]
    params = [p for m in layers for p in m.parameters()]
    from gradcli.engine.optim import members as optimizers
    optimizer = optimizers()["SGD"](params, lr=0.01)
    x, target = T["randn"](2, 1, 32, 32), T["randn"](2, 10)

    def loss() -> Any:
        h = F["max_pool2d"](F["relu"](layers[0](x)), 2)
        h = F["max_pool2d"](F["relu"](layers[1](h)), 2).flatten(1)
        h = F["relu"](layers[3](F["relu"](layers[2](h))))
        return F["mse_loss"](layers[4](h), target)

    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        value = loss()
        value.backward()
        optimizer.step()
        losses.append(value.item())
    assert losses == sorted(losses, reverse=True) and all(p.grad is not None for p in params)


def test_module_reprs() -> None:
    assert repr(nn["Conv2d"](1, 6, 5)) == "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))"
    assert repr(nn["Conv1d"](2, 4, 3, 2, 1, 2, 2, False)) == (
        "Conv1d(2, 4, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), groups=2, bias=False)")
    assert repr(nn["Conv2d"](2, 2, 3, padding="same")) == (
        "Conv2d(2, 2, kernel_size=(3, 3), stride=(1, 1), padding=same)")
    assert repr(nn["MaxPool2d"](2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn["AvgPool2d"]((2, 3), 1)) == "AvgPool2d(kernel_size=(2, 3), stride=1, padding=0)"
    conv = nn["Conv2d"](3, 4, 2)
    assert conv.weight.shape == (4, 3, 2, 2) and conv.bias.shape == (4,)
    bound = 1 / math.sqrt(12)
    assert float(conv.weight.abs().max().item()) <= bound and float(conv.bias.abs().max().item()) <= bound


@pytest.mark.parametrize("make, kind, message", [
    (lambda: nn["Conv2d"](3, 4, 3, groups=2), "ValueError", "in_channels must be divisible by groups"),
    (lambda: nn["Conv2d"](4, 3, 3, groups=2), "ValueError", "out_channels must be divisible by groups"),
    (lambda: nn["Conv2d"](4, 4, 3, groups=0), "ValueError", "groups must be a positive integer"),
    (lambda: nn["Conv2d"](4, 4, 3, stride=2, padding="same"), "ValueError",
     "padding='same' is not supported for strided convolutions"),
])
def test_module_errors(make: Any, kind: str, message: str) -> None:
    with pytest.raises(Exception) as caught:
        make()
    assert type(caught.value).__name__ == kind and str(caught.value) == message


@pytest.mark.parametrize("call, message", [
    (lambda x, w: F["conv2d"](x[0, 0], w),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]"),
    (lambda x, w: F["conv2d"](x, w[:, :1]),
     "Given groups=1, weight of size [3, 1, 3, 3], expected input[1, 2, 5, 5] to have 1 channels, but got 2 "
     "channels instead"),
    (lambda x, w: F["conv2d"](x, T["ones"](3, 2, 6, 6)),
     "Calculated padded input size per channel: (5 x 5). Kernel size: (6 x 6). Kernel size can't be greater than "
     "actual input size"),
    (lambda x, w: F["conv2d"](x, w, groups=2),
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 2, 3, 3]] "
     "instead"),
    (lambda x, w: F["max_pool2d"](x, 6),
     "Given input size: (2x5x5). Calculated output size: (2x0x0). Output size is too small"),
    (lambda x, w: F["avg_pool2d"](x, 3, 2, 2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
])
def test_errors(call: Any, message: str) -> None:
    with pytest.raises(TorchRuntimeError) as caught:
        call(T["ones"](1, 2, 5, 5), T["ones"](3, 2, 3, 3))
    assert str(caught.value) == message


def test_transposed_convolution_is_not_supported_yet() -> None:
    with pytest.raises(TorchNotImplementedError):
        T["convolution"](T["ones"](1, 3, 5, 5), T["ones"](3, 2, 3, 3), None, [1], [0], [1], True, [0], 1)


def test_channels_last_inputs_give_channels_last_outputs() -> None:
    x = tensor(np.random.default_rng(4).standard_normal((2, 5, 6, 3))).permute(0, 3, 1, 2)
    w = tensor(np.ones((4, 3, 2, 2)))
    assert F["conv2d"](x, w).stride() == (80, 1, 20, 4)
    assert F["max_pool2d"](x, 2).stride() == F["avg_pool2d"](x, 2).stride() == (18, 1, 9, 3)
    assert F["max_pool2d"](x, 2).tolist() == F["max_pool2d"](x.contiguous(), 2).tolist()


def test_empty_batches_and_channels() -> None:
    x = tensor(np.zeros((0, 2, 4, 4)), True)
    total = F["max_pool2d"](x, 2).sum() + F["avg_pool2d"](x, 2).sum() + F["conv2d"](x, T["ones"](3, 2, 2, 2,
                                                                                       dtype=T["float64"])).sum()
    total.backward()
    assert x.grad.shape == (0, 2, 4, 4)
    # no input channels: PyTorch's output has the input's 0 channels, whatever the weight's
    assert F["conv2d"](T["ones"](2, 0, 5, 5), T["ones"](4, 0, 2, 2)).shape == (2, 0, 4, 4)


@pytest.mark.parametrize("call, kind, message", [
    (lambda x: F["conv2d"](x, T["ones"](3, 2, 3, 3), stride=2**63), "ValueError", "Overflow when unpacking long long"),
    (lambda x: F["max_pool2d"](x, 2**31), "RuntimeError", "value cannot be converted to type int without overflow"),
    (lambda x: F["avg_pool2d"](x, 2, divisor_override=2**63), "ValueError", "Overflow when unpacking long long"),
])
def test_out_of_range_integers(call: Any, kind: str, message: str) -> None:
    with pytest.raises(Exception) as caught:
        call(T["ones"](1, 2, 6, 6))
    assert (type(caught.value).__name__, str(caught.value)) == (kind, message)


def test_a_huge_stride_takes_one_window() -> None:
    x = T["ones"](1, 2, 6, 6)
    assert F["conv2d"](x, T["ones"](3, 2, 3, 3), stride=2**62).tolist() == [[[[18.0]], [[18.0]], [[18.0]]]]
    assert F["max_pool2d"](x, 2, 2**30).shape == (1, 2, 1, 1)


@pytest.mark.parametrize("mode, pad, shape", [
    ("reflect", (2, 1), (2, 4)), ("replicate", (3, 0, 1, 2), (1, 2, 3, 3)),
    ("reflect", (1, 1, 2, 0, 1, 2), (2, 3, 3, 4)), ("replicate", (-1, 2), (1, 2, 4)),
])
def test_reflect_and_replicate_padding(mode: str, pad: tuple, shape: tuple) -> None:
    x = tensor(np.random.default_rng(5).standard_normal(shape), True)
    assert autograd["gradcheck"](lambda t: F["pad"](t, pad, mode=mode), (x,))
    assert autograd["gradgradcheck"](lambda t: F["pad"](t, pad, mode=mode), (x,))
    y = F["pad"](x, pad, mode=mode)
    dims = len(pad) // 2
    assert node(y) == f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{dims}DBackward0"
    assert y.grad_fn._saved_padding == tuple(p % 2**64 for p in pad)  # (PyTorch's getter reads int64 as unsigned)


def test_reflect_and_replicate_values() -> None:
    row = T["arange"](5.0).view(1, 5)
    assert F["pad"](row, (2, 3), mode="reflect").tolist() == [[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0]]
    assert F["pad"](row, (2, 3), mode="replicate").tolist() == [[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 4.0, 4.0]]
    x = row.requires_grad_()
    wrapped = F["pad"](x, (2, 3), mode="circular")
    assert wrapped.tolist() == [[3.0, 4.0, 0.0, 1.0, 2.0, 3.0, 4.0, 0.0, 1.0, 2.0]]
    assert node(wrapped) == "CopySlices" and nexts(wrapped) == ["CopySlices", "SliceBackward0"]
    wrapped.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0, 2.0, 2.0, 2.0]]
    with pytest.raises(TorchNotImplementedError) as caught:
        F["pad"](row, (1, 1), mode="wrap")
    assert str(caught.value) == "Unrecognised padding mode wrap"

