"""Convolution and pooling against live PyTorch on random shapes and options.

Skipped unless torch is importable.  Each case builds the same inputs for both,
runs the same call and compares the error (type and message) when torch raises;
otherwise the output's shape and dtype, the backward graph's node names, and the
values of the output and of the gradients of input, weight and bias.

Tolerances: PyTorch's CPU convolution sums in oneDNN's (or its BLAS's) order, which
no NumPy order reproduces in the last bit, so convolution values and gradients are
compared with a tight tolerance (float32: 1e-5 relative to the largest magnitude,
float64: 1e-12).  Pooling has a known order (PyTorch's loops), so max and average
pooling, their indices and their gradients must be identical, bit for bit.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

from gradcli.engine import api  # noqa: E402
from gradcli.engine import warnings as engine_warnings  # noqa: E402
from gradcli.engine.tensor import Tensor  # noqa: E402

GF = api.SUBMODULES["nn.functional"]
GT = api.TORCH
TOL = {"float32": 1e-5, "float64": 1e-12}
CASES = 60


def graph(fn: Any, depth: int = 0) -> Any:
    if fn is None:
        return None
    name = type(fn).__name__
    if depth > 8 or name == "AccumulateGrad":
        return name
    return (name, tuple(graph(f, depth + 1) for f, _ in fn.next_functions))


def both(arrays: list[np.ndarray | None], grads: list[bool]) -> tuple[list, list]:
    t_in, g_in = [], []
    for a, g in zip(arrays, grads):
        if a is None:
            t_in.append(None)
            g_in.append(None)
            continue
        t, c = torch.from_numpy(a.copy()), Tensor._make(a.copy())
        if g:
            t.requires_grad_()
            c.requires_grad_()
        t_in.append(t)
        g_in.append(c)
    return t_in, g_in


def attempt(fn: Callable, *args: Any) -> Any:
    seen: list[str] = []
    engine_warnings.set_warning_handler(lambda category, message: seen.append(message))
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return error
    finally:
        engine_warnings.set_warning_handler(None)


def near(expected: np.ndarray, actual: np.ndarray, tol: float | None) -> None:
    assert expected.shape == actual.shape and expected.dtype == actual.dtype
    if tol is None:
        assert expected.tobytes() == actual.tobytes(), (expected, actual)
        return
    scale = max(1.0, float(np.abs(expected).max()) if expected.size else 1.0)
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale)


def compare(call: Callable, arrays: list, grads: list[bool], exact: bool, seed: int) -> None:
    """``call(namespace, *tensors)`` in both; backward with the same random output gradient."""
    t_in, g_in = both(arrays, grads)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = attempt(call, TF, *t_in)
    actual = attempt(call, GF, *g_in)
    if isinstance(expected, Exception):
        assert isinstance(actual, Exception), f"torch raised {expected!r}, gradcli returned {actual!r}"
        assert (type(actual).__name__, str(actual)) == (type(expected).__name__, str(expected))
        return
    if isinstance(actual, Exception):
        raise actual
    expected_t = expected[0] if isinstance(expected, tuple) else expected
    actual_t = actual[0] if isinstance(actual, tuple) else actual
    if isinstance(expected, tuple):
        assert actual[1].tolist() == expected[1].tolist()  # the indices
    tol = None if exact else TOL[str(expected_t.dtype).replace("torch.", "")]
    near(expected_t.detach().numpy(), actual_t.detach().numpy(), tol)
    assert graph(actual_t.grad_fn) == graph(expected_t.grad_fn)
    if expected_t.grad_fn is None:
        return
    g = np.random.default_rng(seed).standard_normal(tuple(expected_t.shape)).astype(expected_t.detach().numpy().dtype)
    expected_t.backward(torch.from_numpy(g.copy()))
    actual_t.backward(Tensor._make(g.copy()))
    for t, c in zip(t_in, g_in):
        if t is not None and t.requires_grad:
            near(t.grad.numpy(), c.grad.numpy(), tol)


def _conv_case(rng: np.random.Generator, dims: int) -> tuple[Callable, list, list[bool]]:
    groups = int(rng.choice([1, 1, 2, 3]))
    cin, cout = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
    kernel = tuple(int(k) for k in rng.integers(1, 4, dims))
    dilation = tuple(int(v) for v in rng.integers(1, 3, dims))
    kw: dict[str, Any] = {"groups": groups}
    choice = rng.integers(0, 4)
    if choice == 0:
        kw["padding"] = "same"
    elif choice == 1:
        kw["padding"] = "valid"
        kw["stride"] = tuple(int(v) for v in rng.integers(1, 3, dims))
    else:
        kw["padding"] = tuple(int(v) for v in rng.integers(0, 3, dims)) if choice == 2 else int(rng.integers(0, 2))
        kw["stride"] = tuple(int(v) for v in rng.integers(1, 4, dims))
    if rng.random() < 0.5:
        kw["dilation"] = dilation
    reach = [d * (k - 1) + 1 for d, k in zip(kw.get("dilation", (1,) * dims), kernel)]
    spatial = tuple(int(r + rng.integers(0, 5)) for r in reach)
    batch = () if rng.random() < 0.2 else (int(rng.integers(1, 4)),)
    dtype = rng.choice(["float32", "float64"])
    x = rng.standard_normal(batch + (cin,) + spatial).astype(dtype)
    w = rng.standard_normal((cout, cin // groups) + kernel).astype(dtype)
    b = rng.standard_normal(cout).astype(dtype) if rng.random() < 0.7 else None
    name = "conv1d" if dims == 1 else "conv2d"
    grads = [bool(rng.random() < 0.8), bool(rng.random() < 0.8), bool(rng.random() < 0.8)]
    return (lambda ns, x, w, b: _ns(ns)[name](x, w, b, **kw)), [x, w, b], grads


def _ns(ns: Any) -> Any:
    names = ("conv1d", "conv2d", "max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d")
    return GF if ns is GF else {k: getattr(TF, k) for k in names}


@pytest.mark.parametrize("dims", [1, 2])
def test_random_convolutions_match_torch(dims: int) -> None:
    rng = np.random.default_rng(100 + dims)
    for i in range(CASES):
        call, arrays, grads = _conv_case(rng, dims)
        compare(call, arrays, grads, exact=False, seed=i)


def _pool_case(rng: np.random.Generator, kind: str) -> tuple[Callable, list]:
    kernel = tuple(int(k) for k in rng.integers(1, 4, 2))
    stride = None if rng.random() < 0.3 else tuple(int(s) for s in rng.integers(1, 4, 2))
    pad = tuple(int(rng.integers(0, k // 2 + 1)) for k in kernel)
    ceil_mode = bool(rng.random() < 0.5)
    batch = () if rng.random() < 0.25 else (int(rng.integers(1, 3)),)
    spatial = tuple(int(k + rng.integers(0, 6)) for k in kernel)
    dtype = rng.choice(["float32", "float64"])
    x = rng.standard_normal(batch + (int(rng.integers(1, 4)),) + spatial).astype(dtype)
    if rng.random() < 0.3:
        x = np.round(x)  # ties: the first largest wins
    if kind == "max":
        dilation = tuple(int(v) for v in rng.integers(1, 3, 2))
        ok = all(p <= ((k - 1) * d + 1) // 2 for p, k, d in zip(pad, kernel, dilation))
        dilation = dilation if ok and rng.random() < 0.5 else 1
        ri = bool(rng.random() < 0.3)
        return (lambda ns, x: _ns(ns)["max_pool2d"](x, kernel, stride, pad, dilation, ceil_mode=ceil_mode,
                                                    return_indices=ri)), [x]
    include = bool(rng.random() < 0.5)
    divisor = None if rng.random() < 0.7 else int(rng.integers(1, 7))
    return (lambda ns, x: _ns(ns)["avg_pool2d"](x, kernel, stride, pad, ceil_mode, include, divisor)), [x]


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_random_pooling_matches_torch_bit_for_bit(kind: str) -> None:
    rng = np.random.default_rng(200 + len(kind))
    for i in range(CASES * 2):
        call, arrays = _pool_case(rng, kind)
        compare(call, arrays, [True], exact=True, seed=i)


def _pool1d_case(rng: np.random.Generator, kind: str) -> tuple[Callable, list]:
    kernel = int(rng.integers(1, 5))
    stride = None if rng.random() < 0.3 else int(rng.integers(1, 4))
    pad = int(rng.integers(0, kernel // 2 + 1))
    ceil_mode = bool(rng.random() < 0.5)
    batch = () if rng.random() < 0.25 else (int(rng.integers(1, 3)),)
    x = rng.standard_normal(batch + (int(rng.integers(1, 4)), kernel + int(rng.integers(0, 6))))
    x = x.astype(rng.choice(["float32", "float64"]))
    if kind == "max":
        dilation = 1 if rng.random() < 0.5 else 2
        ri = bool(rng.random() < 0.3)
        return (lambda ns, x: _ns(ns)["max_pool1d"](x, kernel, stride, pad, dilation, ceil_mode, ri)), [x]
    include = bool(rng.random() < 0.5)
    return (lambda ns, x: _ns(ns)["avg_pool1d"](x, kernel, stride, pad, ceil_mode, include)), [x]


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_random_1d_pooling_matches_torch_bit_for_bit(kind: str) -> None:
    rng = np.random.default_rng(400 + len(kind))
    for i in range(CASES):
        call, arrays = _pool1d_case(rng, kind)
        compare(call, arrays, [True], exact=True, seed=i)


ERRORS = [
    "F.conv2d(x[0, 0], w)", "F.conv2d(x.unsqueeze(0), w)", "F.conv2d(x, w[:, :2])", "F.conv2d(x, w, groups=2)",
    "F.conv2d(x, w[:3], groups=3)", "F.conv2d(x, w, groups=0)", "F.conv2d(x, w[..., 0])", "F.conv2d(x, w[0, 0])",
    "F.conv2d(x, torch.ones(4, 3, 9, 9))", "F.conv2d(x, w, dilation=4)", "F.conv2d(x, w, torch.ones(3))",
    "F.conv2d(x, w, torch.ones(4, 1))", "F.conv2d(x, w, stride=0)", "F.conv2d(x, w, padding=-1)",
    "F.conv2d(x, w, dilation=0)", "F.conv2d(x, w, dilation=-1)", "F.conv2d(x, w, stride=(1, 2, 3))",
    "F.conv2d(x, w, padding='same', stride=2)", "F.conv2d(x, w, padding='foo')", "F.conv2d(x, w.double())",
    "F.conv2d(x.double(), w)", "F.conv2d(x, w, torch.ones(4).double())", "F.conv2d(x.bool(), w.bool())",
    "F.conv2d(x, w[..., 0], padding='same')", "F.conv2d(x, w, padding='same', dilation=(1, 2, 3))",
    "F.conv2d(x, w, padding=1.5)", "F.conv2d(x, w, groups=2.0)", "F.conv1d(x[0], w[..., 0])",
    "F.conv1d(x[0, 0, 0], w[..., 0])", "F.conv1d(x[:, :, 0], torch.ones(4, 3, 9))", "F.conv1d(x[:, :, 0], w)",
    "F.max_pool2d(x, 9)", "F.max_pool2d(x, 0)", "F.max_pool2d(x, 2, 0)", "F.max_pool2d(x, 2, dilation=0)",
    "F.max_pool2d(x, 2, padding=-1)", "F.max_pool2d(x, 3, 2, 2)", "F.max_pool2d(x, (2, 2, 2))",
    "F.max_pool2d(x, 2, (1, 1, 1))", "F.max_pool2d(x[0, 0], 2)", "F.max_pool2d(x.unsqueeze(0), 2)",
    "F.max_pool2d(x.bool(), 2)", "F.max_pool2d(x, -1, 1)", "F.max_pool2d(x, 2, -1)", "F.max_pool2d(x, 2.5)",
    "F.max_pool2d(torch.ones(2, 3, 0, 4), 2)", "F.max_pool2d(x, 2, return_indices=True, padding=3)",
    "F.avg_pool2d(x, 9)", "F.avg_pool2d(x, 3, 2, 2)", "F.avg_pool2d(x, 0)", "F.avg_pool2d(x, 2, padding=-1)",
    "F.avg_pool2d(x, 2, divisor_override=0)", "F.avg_pool2d(x[0, 0], 2)", "F.avg_pool2d(x[0, 0, 0], 2)",
    "F.avg_pool2d(x.int(), 2)", "F.avg_pool2d(x.bool(), 2)", "F.avg_pool2d(x, (2, 2, 2))",
    "F.avg_pool2d(x, 2, stride=(1, 1, 1))", "F.avg_pool2d(x.unsqueeze(0), 2)", "F.avg_pool2d(x, 2.5)",
    "F.max_pool1d(x[0], 9)", "F.max_pool1d(x[0, 0, 0], 2)", "F.max_pool1d(x, 2)", "F.max_pool1d(x[0], (2, 2))",
    "F.max_pool1d(x[0], 2, (1, 1))", "F.max_pool1d(x[0], 2, padding=(1, 1))", "F.max_pool1d(x[0], 2, dilation=(1, 1))",
    "F.max_pool1d(x[0], 0)", "F.max_pool1d(x[0], 2, 0)", "F.max_pool1d(x[0], 2, padding=-1)",
    "F.max_pool1d(x[0], 3, padding=2)", "F.max_pool1d(x[0], 2, dilation=0)", "F.max_pool1d(x[0].bool(), 2)",
    "F.max_pool1d(torch.ones(2, 0, 4), 2)", "F.max_pool1d(x[0], 2**31)", "F.max_pool1d(x[0])",
    "F.avg_pool1d(x[0], 9)", "F.avg_pool1d(x[0, 0, 0], 2)", "F.avg_pool1d(x, 2)", "F.avg_pool1d(x[0], (2, 2))",
    "F.avg_pool1d(x[0], 2, (1, 1))", "F.avg_pool1d(x[0], 0)", "F.avg_pool1d(x[0], -1)", "F.avg_pool1d(x[0].int(), 2)",
    "F.avg_pool1d(x[0], 2, padding=2)", "F.avg_pool1d(torch.ones(2, 0, 4), 2)",
    "F.avg_pool1d(x[0], 2, divisor_override=2)",
]


@pytest.mark.parametrize("source", ERRORS)
def test_errors_are_torchs(source: str) -> None:
    results = []
    for functional, factory in ((TF, torch), (_Attrs(GF), _Attrs(GT))):
        x = factory.ones(2, 3, 8, 8)
        w = factory.ones(4, 3, 3, 3)
        results.append(attempt(lambda: eval(source, {"F": functional, "torch": factory, "x": x, "w": w})))
    expected, actual = results
    assert isinstance(expected, Exception), f"torch ran {source}"
    assert isinstance(actual, Exception), f"gradcli ran {source}"
    assert type(actual).__name__ == type(expected).__name__
    assert str(actual).splitlines()[0] == str(expected).splitlines()[0]


class _Attrs:
    def __init__(self, table: dict) -> None:
        self._table = table

    def __getattr__(self, name: str) -> Any:
        return self._table[name]


def test_integer_convolution_and_pooling_match_torch() -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(-5, 6, (2, 3, 7, 7))
    w = rng.integers(-3, 4, (4, 3, 3, 3))
    for dtype in ("int64", "int32"):
        t = TF.conv2d(torch.from_numpy(x.astype(dtype)), torch.from_numpy(w.astype(dtype)), padding=1)
        g = GF["conv2d"](Tensor._make(x.astype(dtype)), Tensor._make(w.astype(dtype)), padding=1)
        assert g.tolist() == t.tolist() and str(g.dtype) == str(t.dtype)
        t = TF.max_pool2d(torch.from_numpy(x.astype(dtype)), 3, 2, 1, return_indices=True)
        g = GF["max_pool2d"](Tensor._make(x.astype(dtype)), 3, 2, 1, return_indices=True)
        assert [g[0].tolist(), g[1].tolist()] == [t[0].tolist(), t[1].tolist()]
    t = TF.avg_pool2d(torch.from_numpy(x), 3, 2, 1, count_include_pad=False)
    g = GF["avg_pool2d"](Tensor._make(x), 3, 2, 1, count_include_pad=False)
    assert g.tolist() == t.tolist()


def test_max_pool_special_values_match_torch() -> None:
    nan, inf = math.nan, math.inf
    a = np.array([[[[nan, 1.0, 2.0], [nan, -inf, 3.0], [-inf, -inf, -inf]]]], dtype=np.float32)
    for args in ((2, 1), (2, 2, 1), (3, 1, 1), ((1, 2), 1, (0, 1))):
        t = TF.max_pool2d(torch.from_numpy(a.copy()), *args, return_indices=True)
        g = GF["max_pool2d"](Tensor._make(a.copy()), *args, return_indices=True)
        assert g[1].tolist() == t[1].tolist()
        assert np.array_equal(g[0].numpy(), t[0].numpy(), equal_nan=True)


def test_second_derivatives_match_torch() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 6, 5))
    w = rng.standard_normal((6, 2, 3, 2))
    b = rng.standard_normal(6)
    results = []
    for ns, grad, make in ((TF, torch.autograd.grad, lambda a: torch.from_numpy(a).requires_grad_()),
                           (GF, api.SUBMODULES["autograd"]["grad"], lambda a: Tensor._make(a).requires_grad_())):
        tx, tw, tb = make(x.copy()), make(w.copy()), make(b.copy())
        fns = {"conv2d": ns.conv2d, "max_pool2d": ns.max_pool2d, "avg_pool2d": ns.avg_pool2d} if ns is TF else ns
        y = fns["conv2d"](tx, tw, tb, stride=(1, 2), padding=1, groups=2)
        y = fns["avg_pool2d"](y.tanh(), 2, 1, 1) + fns["max_pool2d"](y * y, 2, 1, 1)
        gx, gw = grad(y.sum(), (tx, tw), create_graph=True)
        total = (gx.sin().sum() + (gw * gw).sum())
        results.append([t.detach().numpy() if hasattr(t, "detach") else t.numpy()
                        for t in grad(total, (tx, tw, tb))])
    for expected, actual in zip(*results):
        near(expected, actual, 1e-10)


SCRIPT = """
torch.manual_seed(3)
modules = [nn.Conv2d(1, 6, 5), nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2, bias=False),
           nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=1, dilation=2),
           nn.Conv2d(2, 2, 3, padding='same'), nn.Conv1d(2, 2, 4, padding='valid'),
           nn.MaxPool2d(2), nn.MaxPool2d((3, 2), stride=1, padding=1, dilation=1, ceil_mode=True),
           nn.AvgPool2d(3, 2, 1, True, False, 4), nn.AvgPool2d((2, 3)), nn.MaxPool1d(3, 1, 1, 2, True, True),
           nn.AvgPool1d(3), nn.AvgPool1d((2,), 1, 1, True, False)]
out = [repr(m) for m in modules]
out += [p.detach().numpy().tolist() for m in modules for p in m.parameters()]
"""


def test_modules_initialise_and_print_as_torchs() -> None:
    found = []
    from gradcli.engine.nn.modules import members
    for nn in (torch.nn, _Attrs(members())):
        scope = {"torch": torch if nn is torch.nn else _Attrs(GT), "nn": nn}
        exec(SCRIPT, scope)
        found.append(scope["out"])
    assert found[1] == found[0]


def test_a_bad_argument_lists_both_overloads_as_torch_does() -> None:
    x, w = torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)
    with pytest.raises(TypeError) as expected:
        TF.conv2d(x, w, padding=1.5)
    actual = attempt(lambda: GF["conv2d"](Tensor._make(x.numpy()), Tensor._make(w.numpy()), padding=1.5))
    assert type(actual).__name__ == "TypeError" and str(actual) == str(expected.value)


PAD_ERRORS = [  # F.pad's arguments before mode=
    "ones(2, 3), (3, 1)", "ones(2, 3), (1, 3)", "ones(2, 0), (1, 1)", "ones(0, 3), (1, 1)",
    "ones(2, 0, 3), (1, 1)", "ones(2, 3), (-2, -2)", "ones(2, 3), (-3, 0)",
    "ones(1, 2, 3, 3), (-2, -2, -2, -2)", "ones(1, 2, 3, 3), (1, 1, 3, 1)",
    "ones(1, 2, 3, 3, 3), (1, 1, 1, 1, 3, 1)", "ones(1, 2, 3, 3, 3), (3, 1, 1, 1, 1, 1)",
    "ones(2, 0, 3, 3, 3), (1, 1, 1, 1, 1, 1)", "ones(2, 3, 3, 3), (-2, -2, -2, -2, -2, -2)",
    "ones(2, 3, 3), (-3, 0, -3, 0)", "ones(2, 3).bool(), (1, 1)", "ones(1, 2, 3, 3), (1, 2)",
    "ones(3), (1, 1)", "ones(1, 2, 3, 3), (1, 1, 1, 1, 1)", "ones(2, 3), (4, 0)", "ones(2, 3), (-2, -2)",
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("source", PAD_ERRORS + ["ones(1, 2, 3, 3), (1, 1, 1, 1), value=1.0"])
def test_pad_mode_errors_are_torchs(mode: str, source: str) -> None:
    if "value=" in source:
        call = f"F.pad({source.replace(', value=', f', mode={mode!r}, value=')})"
    else:
        call = f"F.pad({source}, mode={mode!r})"
    results = []
    for functional, factory in ((TF, torch), (_Attrs(GF), _Attrs(GT))):
        results.append(attempt(lambda: eval(call, {"F": functional, "ones": factory.ones})))
    expected, actual = results
    if not isinstance(expected, Exception):
        assert not isinstance(actual, Exception) and tuple(actual.shape) == tuple(expected.shape), source
        return
    assert isinstance(actual, Exception), f"gradcli ran {call}"
    assert (type(actual).__name__, str(actual)) == (type(expected).__name__, str(expected))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_random_pad_modes_match_torch_bit_for_bit(mode: str) -> None:
    rng = np.random.default_rng(300 + len(mode))
    for i in range(40):
        n = int(rng.integers(1, 4))
        batch = () if rng.random() < 0.3 else (int(rng.integers(1, 3)),)
        sizes = tuple(int(s) for s in rng.integers(2, 6, n))
        pads = []
        for size in reversed(sizes):
            top = {"reflect": size - 1, "replicate": 4, "circular": size}[mode]
            # (no negative pads: they crop, and then PyTorch's reflection kernel leaves some outputs
            # unwritten, and its circular copies may read what they wrote, in their order)
            pads += [int(rng.integers(0, top + 1)), int(rng.integers(0, top + 1))]
        x = rng.standard_normal(batch + (int(rng.integers(1, 3)),) + sizes).astype(rng.choice(["float32", "float64"]))
        compare(lambda ns, t, pads=tuple(pads): (TF.pad if ns is TF else GF["pad"])(t, pads, mode=mode), [x], [True],
                exact=True, seed=i)


def test_conv_padding_modes_match_torch() -> None:
    found = []
    for nn, seed in ((torch.nn, torch.manual_seed), (_Attrs(__import__("gradcli.engine.nn.modules", fromlist=["x"])
                                                           .members()), GT["manual_seed"])):
        seed(5)
        out = []
        for mode in ("reflect", "replicate", "circular"):
            layer = nn.Conv2d(2, 3, 3, padding=2, padding_mode=mode)
            x = (torch if nn is torch.nn else _Attrs(GT)).ones(1, 2, 4, 4)
            y = layer(x)
            out.append((repr(layer), tuple(y.shape), type(y.grad_fn).__name__,
                        [type(f).__name__ for f, _ in y.grad_fn.next_functions]))
        found.append(out)
    assert found[1] == found[0]


@pytest.mark.parametrize("source", [
    "F.pad(x, None)", "F.pad(x, 'ab')", "F.pad('a', (1, 1))", "F.pad(x, (1, 1), mode=3)", "F.pad(x, (1, 1), value='a')",
    "F.pad(x, 1)", "F.pad(x, (1, 1), 'reflect', value=float('nan'))", "F.pad(x, (1, 1), 'wrap')",
])
def test_pad_arguments_are_checked_as_torchs(source: str) -> None:
    results = []
    for functional, factory in ((TF, torch), (_Attrs(GF), _Attrs(GT))):
        results.append(attempt(lambda: eval(source, {"F": functional, "x": factory.ones(1, 2, 3, 3)})))
    expected, actual = results
    assert isinstance(expected, Exception) and isinstance(actual, Exception), source
    assert (type(actual).__name__, str(actual)) == (type(expected).__name__, str(expected))


def test_double_backward_nodes_have_torchs_edges() -> None:
    found = []
    for ns, grad, leaf in ((TF, torch.autograd.grad, lambda a: torch.from_numpy(a).requires_grad_()),
                           (GF, api.SUBMODULES["autograd"]["grad"], lambda a: Tensor._make(a).requires_grad_())):
        x, w = leaf(np.ones((1, 2, 4, 4))), leaf(np.ones((3, 2, 2, 2)))
        conv = ns.conv2d if ns is TF else ns["conv2d"]
        gx, = grad(conv(x, w).sum(), x, create_graph=True)
        gw, = grad(conv(x, w).sum(), w, create_graph=True)
        (gx * gx).sum().backward()
        found.append([graph(gx.grad_fn), graph(gw.grad_fn), x.grad is None, w.grad.numpy().tolist()])
    assert found[1] == found[0]
