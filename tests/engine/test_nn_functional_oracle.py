"""``torch.nn.functional`` against live PyTorch on generated calls.

Skipped unless torch is importable (the project never depends on it).  Each
example builds the same inputs for torch and gradcli, calls the same
function with the same options, and compares: the error (type and message)
when torch raises; otherwise the warnings, the output's dtype, shape and
values, the whole ``grad_fn`` graph (node names down to the leaves) and the
gradients of every input that requires grad.
"""

from __future__ import annotations

import math
import os
import warnings
from typing import Any, Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gradcli.engine import api  # noqa: E402
from gradcli.engine import warnings as engine_warnings  # noqa: E402
from gradcli.engine.tensor import Tensor  # noqa: E402

GF = api.SUBMODULES["nn.functional"]
GT = api.TORCH
# GRADCLI_ORACLE_EXAMPLES=500 explores further; the default keeps the module fast and repeatable.
EXAMPLES = int(os.environ.get("GRADCLI_ORACLE_EXAMPLES", "60"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=EXAMPLES <= 60)
TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}
GRAD_TOL = {"float32": (2e-4, 2e-5), "float64": (1e-8, 1e-10)}

# Values that sit on the awkward points of some function: 0, the ReLU6/hardtanh bounds, +-3 of
# hardsigmoid/hardswish, the softplus threshold, and ordinary values in between.
SPECIAL = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, 0.5, -0.5, 21.0, -20.0, 0.1]
values = st.one_of(st.sampled_from(SPECIAL), st.floats(-8, 8, width=32, allow_subnormal=False))
dtypes = st.sampled_from(["float32", "float64"])
small_shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def arrays(shape: tuple, dtype: str, elements: Any = values) -> Any:
    n = math.prod(shape)
    return st.lists(elements, min_size=n, max_size=n).map(lambda v: np.array(v, dtype=dtype).reshape(shape))


# -- running both ----------------------------------------------------------------------------------

class Arg:
    """An input array and whether it requires grad (as a leaf)."""

    def __init__(self, array: np.ndarray, grad: bool = False) -> None:
        self.array, self.grad = array, grad

    def torch(self) -> Any:
        t = torch.from_numpy(self.array.copy())
        return t.requires_grad_() if self.grad else t

    def gradcli(self) -> Tensor:
        t = Tensor._make(self.array.copy())
        return t.requires_grad_() if self.grad else t


def graph(fn: Any, depth: int = 0) -> Any:
    """The names of a backward graph, down to the leaves (AccumulateGrad) and None edges."""
    if fn is None:
        return None
    name = type(fn).__name__
    if depth > 12 or name == "AccumulateGrad":
        return name
    return (name, tuple(graph(f, depth + 1) for f, _ in fn.next_functions))


def run(fn: Callable, namespace: Any, tensors: list) -> tuple[Any, list[str]]:
    """Call ``fn``; return (result or exception, warnings)."""
    seen: list[str] = []
    if namespace is TF:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = fn(namespace, *tensors)
            except Exception as error:  # noqa: BLE001 - the error is what is compared
                result = error
        seen = [str(w.message) for w in caught]
    else:
        engine_warnings.set_warning_handler(lambda category, message: seen.append(message))
        try:
            result = fn(namespace, *tensors)
        except Exception as error:  # noqa: BLE001
            result = error
        finally:
            engine_warnings.set_warning_handler(None)
    return result, seen


def close(expected: np.ndarray, actual: np.ndarray, tol: tuple[float, float]) -> bool:
    """Equal up to rounding: the absolute tolerance grows with the largest finite value, since a
    small element can be the difference of large terms."""
    finite = np.abs(expected[np.isfinite(expected)])
    atol = tol[1] * max(1.0, float(finite.max()) if finite.size else 1.0)
    return expected.shape == actual.shape and bool(
        np.allclose(actual, expected, rtol=tol[0], atol=atol, equal_nan=True))


def same_zeros(expected: np.ndarray, actual: np.ndarray) -> bool:
    zeros = (expected == 0) & (actual == 0)
    return bool(np.all(np.signbit(expected[zeros]) == np.signbit(actual[zeros])))


def compare(fn: Callable, args: list[Arg], grad_seed: int = 0, scale: float = 1.0, zeros: bool = True,
            second: bool = True) -> None:
    """Run ``fn(F, *tensors)`` with torch and with gradcli and compare everything observable.

    ``scale`` widens the absolute tolerance for sums whose terms are that large (a float32 sum of
    cancelling terms depends on the order of summation); ``zeros=False`` skips the sign of zero
    results, which for matrix products depends on how BLAS accumulates; ``second=False`` skips the
    second derivatives (where PyTorch's double-backward formula is not the derivative of its
    backward formula)."""
    t_in = [a.torch() for a in args]
    g_in = [a.gradcli() for a in args]
    expected, t_warn = run(fn, TF, t_in)
    actual, g_warn = run(fn, GF, g_in)
    if isinstance(expected, Exception):
        assert isinstance(actual, Exception), f"torch raised {expected!r}, gradcli returned {actual!r}"
        assert type(actual).__name__ == type(expected).__name__, (expected, actual)
        assert str(actual) == str(expected)
        return
    if isinstance(actual, Exception):
        raise actual
    assert g_warn == t_warn
    assert isinstance(actual, Tensor)
    if args and (actual is g_in[0] or expected is t_in[0]):
        assert (actual is g_in[0]) == (expected is t_in[0]), "returns its input itself"
    dtype = str(expected.dtype).replace("torch.", "")
    assert actual.dtype.name == dtype
    assert tuple(actual.shape) == tuple(expected.shape)
    tol = TOL.get(dtype, (0, 0))
    tol = (tol[0], tol[1] * scale)
    assert close(expected.detach().numpy(), actual._data, tol), (expected, actual)
    assert not zeros or same_zeros(expected.detach().numpy(), actual._data), "signs of zeros (printed as -0.)"
    assert graph(actual.grad_fn) == graph(expected.grad_fn)
    t_leaves = [t for t, a in zip(t_in, args) if a.grad]
    g_leaves = [t for t, a in zip(g_in, args) if a.grad]
    if not expected.requires_grad or not t_leaves:
        return
    rng = np.random.default_rng(grad_seed)
    out = rng.uniform(0.5, 1.5, size=tuple(expected.shape)).astype(dtype)
    t_grads = torch.autograd.grad(expected, t_leaves, torch.from_numpy(out), allow_unused=True, create_graph=True)
    g_grads = GRAD(actual, g_leaves, Tensor._make(out.copy()), allow_unused=True, create_graph=True)
    _same_grads(t_leaves, t_grads, g_grads, scale)
    for want, have in zip(t_grads, g_grads):  # a gradient taken with create_graph has PyTorch's graph
        if want is not None and have is not None:
            assert graph(have.grad_fn) == graph(want.grad_fn), "graph of the gradient"
    # Second order: the gradient of a weighted sum of the first gradients.
    pairs = [(t, g) for t, g in zip(t_grads, g_grads) if t is not None and t.requires_grad]
    if not pairs or not second:
        return
    weights = [rng.uniform(0.5, 1.5, size=tuple(t.shape)).astype(dtype) for t, _ in pairs]
    t_total = sum((t * torch.from_numpy(w)).sum() for (t, _), w in zip(pairs, weights))
    g_total = sum((g * Tensor._make(w.copy())).sum() for (_, g), w in zip(pairs, weights) if g is not None)
    try:
        t_second = torch.autograd.grad(t_total, t_leaves, allow_unused=True)
    except RuntimeError:  # PyTorch lacks some double-backward formulas
        return
    if isinstance(g_total, Tensor) and g_total.requires_grad:
        g_second = GRAD(g_total, g_leaves, allow_unused=True)
    else:  # no first gradient depends on an input: every second derivative is zero
        g_second = [None] * len(g_leaves)
    _same_grads(t_leaves, t_second, g_second, scale, zero_is_none=True)


GRAD = api.SUBMODULES["autograd"]["grad"]


def _same_grads(leaves: list, wanted: Any, got: Any, scale: float, zero_is_none: bool = False) -> None:
    for leaf, want, have in zip(leaves, wanted, got):
        gtol = GRAD_TOL[str(leaf.dtype).replace("torch.", "")]
        if zero_is_none:  # an unused input and an all-zero gradient are the same answer
            zeros = np.zeros(tuple(leaf.shape), dtype=leaf.detach().numpy().dtype)
            want_a = zeros if want is None or want._is_zerotensor() else want.detach().numpy()
            have_a = zeros if have is None else have._data
            assert close(want_a, have_a, (gtol[0], gtol[1] * scale)), (want, have)
            continue
        assert (want is None) == (have is None), (want, have)
        if want is not None:
            assert close(want.detach().numpy(), have._data, (gtol[0], gtol[1] * scale)), (want, have)


# -- activations ---------------------------------------------------------------------------------

def fn_of(F: Any, name: str) -> Callable:
    return F[name] if isinstance(F, dict) else getattr(F, name)


activation = st.one_of(
    st.tuples(st.sampled_from(["relu", "relu6", "selu", "silu", "mish", "hardsigmoid", "hardswish"]),
              st.fixed_dictionaries({}, optional={"inplace": st.booleans()})),
    st.tuples(st.sampled_from(["sigmoid", "tanh", "softsign", "logsigmoid", "tanhshrink"]), st.just({})),
    st.tuples(st.sampled_from(["hardshrink", "softshrink"]),
              st.fixed_dictionaries({}, optional={"lambd": st.sampled_from([0.5, 1.0, 0.0, 3.0])})),
    st.tuples(st.just("leaky_relu"), st.fixed_dictionaries(
        {}, optional={"negative_slope": st.sampled_from([0.01, 0.2, 0.0, 1.5]), "inplace": st.booleans()})),
    st.tuples(st.sampled_from(["elu", "celu"]), st.fixed_dictionaries(
        {}, optional={"alpha": st.sampled_from([1.0, 0.5, 2.0]), "inplace": st.booleans()})),
    st.tuples(st.just("gelu"), st.fixed_dictionaries({}, optional={"approximate": st.sampled_from(["none", "tanh"])})),
    st.tuples(st.just("softplus"), st.fixed_dictionaries(
        {}, optional={"beta": st.sampled_from([1, 2, 0.5]), "threshold": st.sampled_from([20, 1, 5])})),
    st.tuples(st.just("hardtanh"), st.fixed_dictionaries(
        {}, optional={"min_val": st.sampled_from([-1.0, -2.0, 0.0]), "max_val": st.sampled_from([1.0, 3.0]),
                      "inplace": st.booleans()})),
    st.tuples(st.just("threshold"), st.fixed_dictionaries(
        {"threshold": st.sampled_from([0.1, 0.0, 1.0]), "value": st.sampled_from([20.0, -1.0])},
        optional={"inplace": st.booleans()})),
)


@SETTINGS
@given(case=activation, dtype=dtypes, data=st.data())
def test_activations(case: tuple, dtype: str, data: Any) -> None:
    name, options = case
    x = data.draw(small_shapes.flatmap(lambda s: arrays(s, dtype)))
    inplace = options.pop("inplace", False)

    def call(F: Any, t: Any) -> Any:
        f = fn_of(F, name)
        if inplace:
            return f(t * 1, inplace=True, **options)
        return f(t, **options)
    compare(call, [Arg(x, grad=True)])


@SETTINGS
@given(name=st.sampled_from(["softmax", "log_softmax", "softmin"]), dtype=dtypes, data=st.data(),
       dim=st.sampled_from([None, 0, 1, -1, 2]), as_double=st.booleans())
def test_softmax_family(name: str, dtype: str, data: Any, dim: Any, as_double: bool) -> None:
    x = data.draw(small_shapes.flatmap(lambda s: arrays(s, dtype)))

    def call(F: Any, t: Any) -> Any:
        kwargs = {"dtype": torch.float64 if F is TF else GT["float64"]} if as_double else {}
        return fn_of(F, name)(t, dim, **kwargs)
    compare(call, [Arg(x, grad=True)])


@SETTINGS
@given(dtype=dtypes, data=st.data(), p=st.sampled_from([2.0, 1.0, 3.0, math.inf]), dim=st.sampled_from([0, 1, -1]),
       zero_row=st.booleans())
def test_normalize(dtype: str, data: Any, p: float, dim: int, zero_row: bool) -> None:
    x = data.draw(st.sampled_from([(3,), (2, 3), (2, 2, 2)]).flatmap(lambda s: arrays(s, dtype)))
    if zero_row:
        x[0] = 0
    # Where a norm is 0, PyTorch's second derivative of the norm is 0 or NaN by the order of its
    # masked formulas; only the first derivative is compared there.
    zero_norm = dim < x.ndim and bool((torch.from_numpy(x).norm(p, dim) == 0).any())  # |x|^p may underflow
    compare(lambda F, t: fn_of(F, "normalize")(t, p=p, dim=dim), [Arg(x, grad=True)], second=not zero_norm)


@SETTINGS
@given(dtype=dtypes, data=st.data(), p=st.sampled_from([0.0, 0.3, 0.5, 1.0]), training=st.booleans(),
       inplace=st.booleans(), seed=st.integers(0, 2**31))
def test_dropout(dtype: str, data: Any, p: float, training: bool, inplace: bool, seed: int) -> None:
    x = data.draw(small_shapes.flatmap(lambda s: arrays(s, dtype)))

    def call(F: Any, t: Any) -> Any:
        (torch.manual_seed if F is TF else GT["manual_seed"])(seed)
        return fn_of(F, "dropout")(t * 1 if inplace else t, p, training, inplace)
    compare(call, [Arg(x, grad=True)])


# -- linear --------------------------------------------------------------------------------------

@SETTINGS
@given(dtype=dtypes, data=st.data(), batch=st.lists(st.integers(1, 3), max_size=3).map(tuple),
       bias=st.sampled_from(["none", "1d", "0d", "row", "grid"]), weight_1d=st.booleans(),
       transposed=st.booleans(), grads=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_linear(dtype: str, data: Any, batch: tuple, bias: str, weight_1d: bool, transposed: bool,
                grads: tuple) -> None:
    in_f, out_f = 3, 2
    x = data.draw(arrays(batch + (in_f,), dtype))
    if transposed and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2).copy()  # built transposed, swapped back below: non-contiguous
    w = data.draw(arrays((in_f,) if weight_1d else (out_f, in_f), dtype))
    bias_shape = {"1d": (out_f,), "0d": (), "row": (1, out_f), "grid": (batch[-1] if batch else 1, out_f)}
    args = [Arg(x, grads[0]), Arg(w, grads[1])]
    if bias != "none":
        args.append(Arg(data.draw(arrays(bias_shape[bias], dtype)), grads[2]))

    def call(F: Any, *ts: Any) -> Any:
        t = ts[0].transpose(-1, -2) if transposed and ts[0].ndim >= 2 else ts[0]
        return fn_of(F, "linear")(t, *ts[1:])
    compare(call, args, scale=_magnitude(args) ** 2 * in_f, zeros=False)


def _magnitude(args: list[Arg]) -> float:
    return max([1.0] + [float(np.abs(a.array).max()) for a in args if a.array.size])


@SETTINGS
@given(dtype=dtypes, data=st.data(), batch=st.lists(st.integers(1, 3), max_size=2).map(tuple), bias=st.booleans())
def test_bilinear(dtype: str, data: Any, batch: tuple, bias: bool) -> None:
    args = [Arg(data.draw(arrays(batch + (3,), dtype)), True), Arg(data.draw(arrays(batch + (2,), dtype)), True),
            Arg(data.draw(arrays((4, 3, 2), dtype)), True)]
    if bias:
        args.append(Arg(data.draw(arrays((4,), dtype)), True))
    compare(lambda F, *ts: fn_of(F, "bilinear")(*ts), args, scale=_magnitude(args) ** 3 * 6, zeros=False)


# -- losses ----------------------------------------------------------------------------------------

reductions = st.sampled_from(["mean", "sum", "none", "batchmean", "elementwise_mean"])
target_shapes = st.sampled_from(["same", "bcast", "bad"])


def _target_shape(shape: tuple, kind: str) -> tuple:
    if kind == "bcast":
        return (2,) + shape
    if kind == "bad" and shape:
        return shape[:-1] + (shape[-1] + 1,)
    return shape


@SETTINGS
@given(name=st.sampled_from(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]), dtype=dtypes, data=st.data(),
       reduction=reductions, kind=target_shapes, target_grad=st.booleans(),
       option=st.sampled_from([None, 0.0, 0.5, 2.0]), weighted=st.booleans(), legacy=st.sampled_from([None, 0, 1]))
def test_regression_losses(name: str, dtype: str, data: Any, reduction: str, kind: str, target_grad: bool,
                           option: Any, weighted: bool, legacy: Any) -> None:
    shape = data.draw(small_shapes)
    x = data.draw(arrays(shape, dtype))
    t = data.draw(arrays(_target_shape(shape, kind), dtype))
    args = [Arg(x, True), Arg(t, target_grad)]
    kwargs: dict = {"reduction": reduction}
    if option is not None and name in ("smooth_l1_loss", "huber_loss"):
        kwargs["beta" if name == "smooth_l1_loss" else "delta"] = option
    if weighted and name != "smooth_l1_loss":
        args.append(Arg(data.draw(arrays(shape, dtype, st.floats(0.5, 2)))))
    if legacy is not None and name != "huber_loss":
        kwargs["size_average"] = bool(legacy)

    def call(F: Any, x: Any, t: Any, *w: Any) -> Any:
        return fn_of(F, name)(x, t, **kwargs, **({"weight": w[0]} if w else {}))
    compare(call, args)


probabilities = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1e-7]), st.floats(0, 1, width=32))


@SETTINGS
@given(dtype=dtypes, data=st.data(), reduction=reductions, weight=st.sampled_from([None, "same", "row"]),
       target_grad=st.booleans(), out_of_range=st.booleans())
def test_binary_cross_entropy(dtype: str, data: Any, reduction: str, weight: Any, target_grad: bool,
                              out_of_range: bool) -> None:
    shape = data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple))
    p = data.draw(arrays(shape, dtype, probabilities))
    if out_of_range and shape:
        p.reshape(-1)[0] = 1.5
    args = [Arg(p, True), Arg(data.draw(arrays(shape, dtype, probabilities)), target_grad)]
    if weight is not None:
        wshape = shape if weight == "same" else shape[-1:]
        args.append(Arg(data.draw(arrays(wshape, dtype, st.floats(0, 2)))))

    def call(F: Any, p: Any, t: Any, *w: Any) -> Any:
        return fn_of(F, "binary_cross_entropy")(p, t, *w, reduction=reduction)
    # At p = 0 or 1 PyTorch's second derivative uses (p + eps)^2 (1 - p + eps)^2, not the clamp
    compare(call, args, second=not np.any((p == 0) | (p == 1)))


@SETTINGS
@given(dtype=dtypes, data=st.data(), reduction=reductions, weight=st.booleans(), pos_weight=st.booleans(),
       target_grad=st.booleans())
def test_binary_cross_entropy_with_logits(dtype: str, data: Any, reduction: str, weight: bool, pos_weight: bool,
                                          target_grad: bool) -> None:
    shape = data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple))
    args = [Arg(data.draw(arrays(shape, dtype)), True),
            Arg(data.draw(arrays(shape, dtype, probabilities)), target_grad)]
    names = []
    for name, on in (("weight", weight), ("pos_weight", pos_weight)):
        if on:
            args.append(Arg(data.draw(arrays(shape[-1:], dtype, st.floats(0.25, 3)))))
            names.append(name)

    def call(F: Any, x: Any, t: Any, *extra: Any) -> Any:
        return fn_of(F, "binary_cross_entropy_with_logits")(x, t, reduction=reduction, **dict(zip(names, extra)))
    compare(call, args)


@SETTINGS
@given(dtype=dtypes, data=st.data(), reduction=reductions, log_target=st.booleans(), target_grad=st.booleans())
def test_kl_div(dtype: str, data: Any, reduction: str, log_target: bool, target_grad: bool) -> None:
    shape = data.draw(small_shapes)
    target = arrays(shape, dtype) if log_target else arrays(shape, dtype, probabilities)
    args = [Arg(data.draw(arrays(shape, dtype)), True), Arg(data.draw(target), target_grad)]
    compare(lambda F, x, t: fn_of(F, "kl_div")(x, t, reduction=reduction, log_target=log_target), args)


@SETTINGS
@given(dtype=dtypes, data=st.data(), ndim=st.sampled_from([1, 2, 3, 4, 5]), classes=st.integers(1, 4),
       reduction=st.sampled_from(["mean", "sum", "none"]), weighted=st.booleans(),
       ignore=st.sampled_from([-100, 0, 1]), smoothing=st.sampled_from([0.0, 0.0, 0.1, 1.0]),
       loss=st.sampled_from(["cross_entropy", "nll_loss"]), probs=st.booleans(), bad_target=st.booleans())
def test_nll_and_cross_entropy(dtype: str, data: Any, ndim: int, classes: int, reduction: str, weighted: bool,
                               ignore: int, smoothing: float, loss: str, probs: bool, bad_target: bool) -> None:
    batch = data.draw(st.lists(st.integers(0 if ndim == 2 else 1, 3), min_size=ndim - 1, max_size=ndim - 1))
    shape = (classes,) if ndim == 1 else (batch[0], classes, *batch[1:])
    x = data.draw(arrays(shape, dtype))
    target_shape = () if ndim == 1 else (batch[0], *batch[1:])
    if probs and loss == "cross_entropy":
        target = data.draw(arrays(shape, dtype, probabilities))
        ignore = -100
    else:
        labels = st.one_of(st.integers(0, classes - 1), st.just(ignore), st.just(classes if bad_target else 0))
        target = np.array(data.draw(st.lists(labels, min_size=math.prod(target_shape),
                                             max_size=math.prod(target_shape))), dtype=np.int64).reshape(target_shape)
    args = [Arg(x, True), Arg(target)]
    if weighted:
        args.append(Arg(data.draw(arrays((classes,), dtype, st.floats(0.25, 3)))))
    kwargs: dict = {"reduction": reduction, "ignore_index": ignore}
    if loss == "cross_entropy":
        kwargs["label_smoothing"] = smoothing

    def call(F: Any, x: Any, t: Any, *w: Any) -> Any:
        if loss == "nll_loss":
            x = x.log_softmax(0 if x.ndim == 1 else 1)
        return fn_of(F, loss)(x, t, *w, **kwargs)
    compare(call, args)


# -- errors and argument checks ------------------------------------------------------------------------

def _t(F: Any, values: Any, **kw: Any) -> Any:
    if F is TF:
        return torch.tensor(values, **kw)
    if "dtype" in kw:
        kw["dtype"] = api.dtypes.BY_NAME[str(kw["dtype"]).replace("torch.", "")]
    return GT["tensor"](values, **kw)


ERRORS: dict[str, Callable] = {
    "leaky_relu slope type": lambda F: fn_of(F, "leaky_relu")(_t(F, [1.0]), "a"),
    "relu keyword": lambda F: fn_of(F, "relu")(_t(F, [1.0]), foo=1),
    "relu of a list": lambda F: fn_of(F, "relu")([1.0]),
    "gelu approximate": lambda F: fn_of(F, "gelu")(_t(F, [1.0]), approximate="foo"),
    "gelu positional": lambda F: fn_of(F, "gelu")(_t(F, [1.0]), "tanh"),
    "softplus too many": lambda F: fn_of(F, "softplus")(_t(F, [1.0]), 1, 20, 3),
    "hardtanh bounds": lambda F: fn_of(F, "hardtanh")(_t(F, [1.0]), 2.0, 1.0),
    "celu alpha 0": lambda F: fn_of(F, "celu")(_t(F, [1.0]), 0.0),
    "threshold missing": lambda F: fn_of(F, "threshold")(_t(F, [1.0]), 0.5),
    "elu of int": lambda F: fn_of(F, "elu")(_t(F, [1, 2])),
    "relu of bool": lambda F: fn_of(F, "relu")(_t(F, [True])),
    "hardtanh of bool": lambda F: fn_of(F, "hardtanh")(_t(F, [True])),
    "tanh of a list": lambda F: fn_of(F, "tanh")([1.0]),
    "leaky_relu_ negative slope backward":
        lambda F: fn_of(F, "leaky_relu")(_t(F, [1.0, -1.0], requires_grad=True) * 1, -0.5, True).sum().backward(),
    "elu_ negative alpha backward":
        lambda F: fn_of(F, "elu")(_t(F, [1.0, -1.0], requires_grad=True) * 1, -0.5, True).sum().backward(),
    "relu_ of a leaf": lambda F: fn_of(F, "relu")(_t(F, [1.0], requires_grad=True), inplace=True),
    "softmax of int": lambda F: fn_of(F, "softmax")(_t(F, [[1, 2]]), 0),
    "dropout p": lambda F: fn_of(F, "dropout")(_t(F, [1.0]), 1.5),
    "dropout p type": lambda F: fn_of(F, "dropout")(_t(F, [1.0]), "a"),
    "dropout train type": lambda F: fn_of(F, "dropout")(_t(F, [1.0]), 0.5, 1),
    "dropout of int": lambda F: fn_of(F, "dropout")(_t(F, [1, 2]), 0.5),
    "linear 0-d": lambda F: fn_of(F, "linear")(_t(F, 1.0), _t(F, [[1.0]])),
    "linear shapes": lambda F: fn_of(F, "linear")(_t(F, [[1.0, 2.0]]), _t(F, [[1.0, 2.0, 3.0]])),
    "linear dtypes": lambda F: fn_of(F, "linear")(_t(F, [[1.0]], dtype=torch.float64), _t(F, [[1.0]]), _t(F, [1.0])),
    "linear bias": lambda F: fn_of(F, "linear")(_t(F, [[1.0]]), _t(F, [[1.0]]), _t(F, [1.0, 2.0])),
    "linear list": lambda F: fn_of(F, "linear")(_t(F, [1.0]), [1.0]),
    "mse reduction": lambda F: fn_of(F, "mse_loss")(_t(F, [1.0]), _t(F, [1.0]), reduction="avg"),
    "mse of ints": lambda F: fn_of(F, "mse_loss")(_t(F, [1, 2]), _t(F, [1, 2])),
    "mse of a number": lambda F: fn_of(F, "mse_loss")(_t(F, [1.0]), 1.0),
    "mse weight size": lambda F: fn_of(F, "mse_loss")(_t(F, [1.0, 2.0]), _t(F, [1.0, 2.0]), weight=_t(F, [1.0])),
    "l1 of ints": lambda F: fn_of(F, "l1_loss")(_t(F, [1, 2]), _t(F, [1, 3])),
    "smooth_l1 beta": lambda F: fn_of(F, "smooth_l1_loss")(_t(F, [1.0]), _t(F, [1.0]), beta=-1.0),
    "huber delta": lambda F: fn_of(F, "huber_loss")(_t(F, [1.0]), _t(F, [1.0]), delta=0.0),
    "bce size": lambda F: fn_of(F, "binary_cross_entropy")(_t(F, [0.5]), _t(F, [[0.5]])),
    "bce dtype": lambda F: fn_of(F, "binary_cross_entropy")(_t(F, [0.5]), _t(F, [1.0], dtype=torch.float64)),
    "bce weight grad": lambda F: fn_of(F, "binary_cross_entropy")(
        _t(F, [0.5]), _t(F, [1.0]), weight=_t(F, [1.0], requires_grad=True)),
    "bce weight shape": lambda F: fn_of(F, "binary_cross_entropy")(_t(F, [0.5]), _t(F, [1.0]), _t(F, [1.0, 2.0])),
    "bce with logits size": lambda F: fn_of(F, "binary_cross_entropy_with_logits")(_t(F, [0.5]), _t(F, [[1.0]])),
    "bce with logits int target": lambda F: fn_of(F, "binary_cross_entropy_with_logits")(_t(F, [0.5]), _t(F, [1])),
    "bce with logits pos_weight": lambda F: fn_of(F, "binary_cross_entropy_with_logits")(
        _t(F, [0.5, 1.0]), _t(F, [1.0, 0.0]), pos_weight=_t(F, [1.0, 2.0, 3.0])),
    "nll 0-d": lambda F: fn_of(F, "nll_loss")(_t(F, 1.0), _t(F, 0)),
    "nll target dtype": lambda F: fn_of(F, "nll_loss")(_t(F, [[1.0, 2.0]]), _t(F, [1.0])),
    "nll batch": lambda F: fn_of(F, "nll_loss")(_t(F, [[1.0, 2.0]]), _t(F, [1, 0])),
    "nll 2-d target": lambda F: fn_of(F, "nll_loss")(_t(F, [[1.0, 2.0]]), _t(F, [[1]])),
    "nll 1-d target size": lambda F: fn_of(F, "nll_loss")(_t(F, [1.0, 2.0]), _t(F, [1, 0])),
    "nll weight": lambda F: fn_of(F, "nll_loss")(_t(F, [[1.0, 2.0]]), _t(F, [1]), _t(F, [1.0])),
    "nll weight dtype": lambda F: fn_of(F, "nll_loss")(_t(F, [[1.0, 2.0]]), _t(F, [1]),
                                                        _t(F, [1.0, 1.0], dtype=torch.float64)),
    "nll 3-d target": lambda F: fn_of(F, "nll_loss")(_t(F, [[[1.0, 2.0]]]), _t(F, [[0, 0, 0]])),
    "nll 4-d target": lambda F: fn_of(F, "nll_loss")(_t(F, [[[[1.0]]]]), _t(F, [[0]])),
    "cross_entropy smoothing": lambda F: fn_of(F, "cross_entropy")(_t(F, [[1.0, 2.0]]), _t(F, [1]),
                                                                    label_smoothing=1.5),
    "cross_entropy probabilities int": lambda F: fn_of(F, "cross_entropy")(_t(F, [[1.0, 2.0]]), _t(F, [[1, 0]])),
    "cross_entropy probabilities ignore": lambda F: fn_of(F, "cross_entropy")(
        _t(F, [[1.0, 2.0]]), _t(F, [[1.0, 0.0]]), ignore_index=1),
    "cross_entropy 0-d": lambda F: fn_of(F, "cross_entropy")(_t(F, 1.0), _t(F, 0.0)),
    "cross_entropy int input": lambda F: fn_of(F, "cross_entropy")(_t(F, [[1, 2]]), _t(F, [1])),
    "cross_entropy weight grad": lambda F: fn_of(F, "cross_entropy")(
        _t(F, [[1.0, 2.0]]), _t(F, [1]), _t(F, [1.0, 1.0], requires_grad=True)),
    "kl_div of ints": lambda F: fn_of(F, "kl_div")(_t(F, [1]), _t(F, [1]), reduction="sum"),
    "softshrink lambda": lambda F: fn_of(F, "softshrink")(_t(F, [1.0]), -1.0),
    "softshrink of int": lambda F: fn_of(F, "softshrink")(_t(F, [1])),
    "one_hot": lambda F: fn_of(F, "one_hot")(_t(F, [[0], [2]]), 4),
    "one_hot inferred": lambda F: fn_of(F, "one_hot")(_t(F, [3, 1])),
    "one_hot of floats": lambda F: fn_of(F, "one_hot")(_t(F, [1.0])),
    "one_hot too small": lambda F: fn_of(F, "one_hot")(_t(F, [0, 5]), 3),
    "one_hot negative": lambda F: fn_of(F, "one_hot")(_t(F, [-1])),
    "one_hot empty": lambda F: fn_of(F, "one_hot")(_t(F, [], dtype=torch.int64)),
    "one_hot empty sized": lambda F: fn_of(F, "one_hot")(_t(F, [], dtype=torch.int64), 3),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name: str) -> None:
    call = ERRORS[name]
    compare(lambda F: call(F), [])


def test_oracle_compare_can_fail() -> None:
    """The comparison itself notices a wrong value, a wrong node and a wrong message."""
    with pytest.raises(AssertionError):
        compare(lambda F, t: t * 2 if F is TF else t * 3, [Arg(np.array([1.0]), True)])
    with pytest.raises(AssertionError):
        compare(lambda F, t: t * 2 if F is TF else t + t, [Arg(np.array([1.0]), True)])
    with pytest.raises(AssertionError):
        compare(lambda F, t: fn_of(F, "relu")(t, foo=1) if F is TF else fn_of(F, "relu")(t, bar=1),
                [Arg(np.array([1.0]))])


# -- exhaustive grids over the structural options (each decides a different decomposition) ----------

GRID_RNG = np.random.default_rng(20260)


def _grid_array(shape: tuple, dtype: str = "float32") -> np.ndarray:
    return GRID_RNG.uniform(-2, 2, size=shape).astype(dtype)


@pytest.mark.parametrize("batch", [(), (2,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("bias", ["none", "1d", "0d", "row", "grid"])
@pytest.mark.parametrize("weight_1d", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
def test_linear_grid(batch: tuple, bias: str, weight_1d: bool, transposed: bool) -> None:
    x = _grid_array(batch + (3,))
    if transposed and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2).copy()
    args = [Arg(x, True), Arg(_grid_array((3,) if weight_1d else (2, 3)), True)]
    shapes = {"1d": (2,), "0d": (), "row": (1, 2), "grid": (batch[-1] if batch else 1, 2)}
    if bias != "none":
        args.append(Arg(_grid_array(shapes[bias]), True))

    def call(F: Any, *ts: Any) -> Any:
        t = ts[0].transpose(-1, -2) if transposed and ts[0].ndim >= 2 else ts[0]
        return fn_of(F, "linear")(t, *ts[1:])
    compare(call, args, scale=12.0, zeros=False)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("probs", [False, True])
def test_cross_entropy_grid(ndim: int, weighted: bool, smoothing: float, reduction: str, probs: bool) -> None:
    classes = 4
    shape = (classes,) if ndim == 1 else (3, classes) + (2,) * (ndim - 2)
    target_shape = () if ndim == 1 else (3,) + (2,) * (ndim - 2)
    if probs:
        target = GRID_RNG.uniform(0, 1, size=shape).astype("float32")
    else:
        target = GRID_RNG.integers(0, classes, size=target_shape)
        target.reshape(-1)[-1] = -100  # one ignored entry (the only one for a 1-d input)
    args = [Arg(_grid_array(shape), True), Arg(np.asarray(target))]
    if weighted:
        args.append(Arg(GRID_RNG.uniform(0.5, 2, size=(classes,)).astype("float32")))

    def call(F: Any, x: Any, t: Any, *w: Any) -> Any:
        return fn_of(F, "cross_entropy")(x, t, *w, reduction=reduction, label_smoothing=smoothing)
    compare(call, args)
