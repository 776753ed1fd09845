"""SymPy's derivative against autograd's on random small graphs over every pointwise op.

Each graph is built through the engine's API (the op records called as ``torch.<op>`` calls them,
in-place forms with the runner's in-place path), recorded by a Provenance as a script's run is,
then replayed symbolically by explain.  SymPy's exact derivative, evaluated at the leaves' values,
must agree with ``torch.autograd.grad`` through the engine, and SymPy's replay with the graph's
own value.  A fixed seed, 200 graphs of three ops each over leaves of shapes (), (2,) and (2, 2),
float64 and float32; each op appears in several graphs.  Inputs are first brought into each op's
domain by other ops (``sigmoid(t) + 0.5`` before ``log``), which exercises those ops too.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine.dispatch.publish import OPS
from gradcli.engine.dispatch.runner import run_inplace
from gradcli.views.explain.autograd_values import autograd_gradients
from gradcli.views.explain.derivatives import Evaluator, exact_gradients
from gradcli.views.explain.graph import read_graph
from gradcli.views.explain.replay import replay_elements
from gradcli.views.explain.symbolic_ops import TABLE, pointwise_op_names
from gradcli.views.provenance import Provenance

T = api.TORCH
GRAPHS = 200
OPS_PER_GRAPH = 3
SHAPES = [(), (2,), (2, 2)]
# (float64 within 1e-6: some of PyTorch's float64 kernels use a float32 constant, hardsigmoid's 1/6)
TOLERANCE = {"float64": (1e-6, 1e-9), "float32": (2e-3, 1e-4)}
# The ops whose derivative autograd refuses (PyTorch's NotImplemented nodes): only their values are compared.
NO_DERIVATIVE = {"floor_divide"}


def positive(t):
    """Into (0.5, 1.5) (without repeating t: each repetition doubles the expression SymPy differentiates)."""
    return t.sigmoid() + 0.5


def unit(t):
    """Into (0.1, 0.9)."""
    return t.sigmoid() * 0.8 + 0.1


def inside(t):
    """Into (-0.9, 0.9)."""
    return t.tanh() * 0.9


def _scalar(rng):
    return float(np.round(rng.uniform(-1.5, 1.5), 2))


def _inplace(name):
    def call(rng, a, b, c):
        target = a * 1.0   # (a non-leaf: a leaf that requires grad cannot be written in place)
        args = ACTIVATION_ARGS.get(name.removeprefix("_").removesuffix("_inplace"), lambda r: {})(rng)
        return run_inplace(OPS[name], {"self": target, **args})
    return call


ACTIVATION_ARGS = {
    "hardtanh": lambda r: {"min_val": -0.5, "max_val": 0.75},
    "leaky_relu": lambda r: {"negative_slope": 0.2},
    "elu": lambda r: {"alpha": 1.3, "scale": 1.1, "input_scale": 0.9},
    "celu": lambda r: {"alpha": 0.7},
    "threshold": lambda r: {"threshold": 0.25, "value": -2.0},
    "silu": lambda r: {}, "mish": lambda r: {}, "hardsigmoid": lambda r: {}, "hardswish": lambda r: {},
}

# How each pointwise op is called on up to three operands (a, b, c), already tensors.
CALLS = {
    "exp": lambda r, a, b, c: OPS["exp"](inside(a)),
    "exp2": lambda r, a, b, c: OPS["exp2"](a),
    "expm1": lambda r, a, b, c: OPS["expm1"](a),
    "log": lambda r, a, b, c: OPS["log"](positive(a)),
    "log2": lambda r, a, b, c: OPS["log2"](positive(a)),
    "log10": lambda r, a, b, c: OPS["log10"](positive(a)),
    "log1p": lambda r, a, b, c: OPS["log1p"](positive(a)),
    "sqrt": lambda r, a, b, c: OPS["sqrt"](positive(a)),
    "rsqrt": lambda r, a, b, c: OPS["rsqrt"](positive(a)),
    "sin": lambda r, a, b, c: OPS["sin"](a),
    "cos": lambda r, a, b, c: OPS["cos"](a),
    "tan": lambda r, a, b, c: OPS["tan"](inside(a)),
    "asin": lambda r, a, b, c: OPS["asin"](inside(a)),
    "acos": lambda r, a, b, c: OPS["acos"](inside(a)),
    "atan": lambda r, a, b, c: OPS["atan"](a),
    "sinh": lambda r, a, b, c: OPS["sinh"](a),
    "cosh": lambda r, a, b, c: OPS["cosh"](a),
    "tanh": lambda r, a, b, c: OPS["tanh"](a),
    "sigmoid": lambda r, a, b, c: OPS["sigmoid"](a),
    "erf": lambda r, a, b, c: OPS["erf"](a),
    "reciprocal": lambda r, a, b, c: OPS["reciprocal"](positive(a)),
    "neg": lambda r, a, b, c: OPS["neg"](a),
    "abs": lambda r, a, b, c: OPS["abs"](a),
    "sign": lambda r, a, b, c: OPS["sign"](a) + a,
    "sgn": lambda r, a, b, c: OPS["sgn"](a) * a,
    "floor": lambda r, a, b, c: OPS["floor"](a * 3) + a,
    "ceil": lambda r, a, b, c: OPS["ceil"](a * 3) * a,
    "trunc": lambda r, a, b, c: OPS["trunc"](a * 3) + a,
    "frac": lambda r, a, b, c: OPS["frac"](a * 3),
    "relu": lambda r, a, b, c: OPS["relu"](a),
    "round": lambda r, a, b, c: (OPS["round"](a * 3, decimals=1) if r.random() < 0.5 else OPS["round"](a * 3)) + a,
    "square": lambda r, a, b, c: OPS["square"](a),
    "logit": lambda r, a, b, c: OPS["logit"](unit(a), eps=0.2) if r.random() < 0.5 else OPS["logit"](unit(a)),
    "add": lambda r, a, b, c: OPS["add"](a, b, alpha=_scalar(r)),
    "sub": lambda r, a, b, c: OPS["sub"](a, b, alpha=_scalar(r)),
    "rsub": lambda r, a, b, c: OPS["rsub"](a, b, alpha=_scalar(r)),
    "mul": lambda r, a, b, c: OPS["mul"](a, b),
    "div": lambda r, a, b, c: OPS["div"](a, positive(b), rounding_mode=r.choice([None, "trunc", "floor"])),
    "floor_divide": lambda r, a, b, c: OPS["floor_divide"](a * 3, positive(b)),
    "remainder": lambda r, a, b, c: OPS["remainder"](a * 3, positive(b)),
    "fmod": lambda r, a, b, c: OPS["fmod"](a * 3, positive(b)),
    "pow": lambda r, a, b, c: r.choice([lambda: OPS["pow"](positive(a), b), lambda: OPS["pow"](a, 3),
                                        lambda: OPS["pow"](2.5, a)])(),
    "_mul_scalar": lambda r, a, b, c: OPS["_mul_scalar"](a, _scalar(r)),
    "_div_scalar": lambda r, a, b, c: OPS["_div_scalar"](a, 1.5),
    "_add_scalar": lambda r, a, b, c: OPS["_add_scalar"](a, _scalar(r)),
    "_sub_scalar": lambda r, a, b, c: OPS["_sub_scalar"](a, _scalar(r)),
    "atan2": lambda r, a, b, c: OPS["atan2"](a, positive(b)),
    "hypot": lambda r, a, b, c: OPS["hypot"](a, positive(b)),
    "maximum": lambda r, a, b, c: OPS["maximum"](a, b),
    "minimum": lambda r, a, b, c: OPS["minimum"](a, b),
    "lerp": lambda r, a, b, c: OPS["lerp"](a, b, unit(c)) if r.random() < 0.5 else OPS["lerp"](a, b, 0.3),
    "clamp": lambda r, a, b, c: r.choice([lambda: OPS["clamp"](a, min=-0.2, max=0.6), lambda: OPS["clamp"](a, min=b),
                                          lambda: OPS["clamp"](a, max=b), lambda: OPS["clamp"](a, b, b + 1.0)])(),
    "clip": lambda r, a, b, c: OPS["clip"](a, min=0.1),
    "clamp_min": lambda r, a, b, c: OPS["clamp_min"](a, b) if r.random() < 0.5 else OPS["clamp_min"](a, 0.2),
    "xlogy": lambda r, a, b, c: OPS["xlogy"](a, positive(b)),
    "addcmul": lambda r, a, b, c: OPS["addcmul"](a, b, c, value=_scalar(r)),
    "addcdiv": lambda r, a, b, c: OPS["addcdiv"](a, b, positive(c), value=_scalar(r)),
    "hardtanh": lambda r, a, b, c: OPS["hardtanh"](a, -0.5, 0.75),
    "leaky_relu": lambda r, a, b, c: OPS["leaky_relu"](a, 0.2),
    "elu": lambda r, a, b, c: OPS["elu"](a, 1.3, 1.1, 0.9),
    "celu": lambda r, a, b, c: OPS["celu"](a, 0.7),
    "gelu": lambda r, a, b, c: OPS["gelu"](a, approximate=r.choice(["none", "tanh"])),
    "silu": lambda r, a, b, c: OPS["silu"](a),
    "mish": lambda r, a, b, c: OPS["mish"](a),
    "softplus": lambda r, a, b, c: OPS["softplus"](a, 2.0, 1.5),
    "log_sigmoid": lambda r, a, b, c: OPS["log_sigmoid"](a),
    "hardsigmoid": lambda r, a, b, c: OPS["hardsigmoid"](a * 4),
    "hardswish": lambda r, a, b, c: OPS["hardswish"](a * 4),
    "threshold": lambda r, a, b, c: OPS["threshold"](a, 0.25, -2.0),
    "hardshrink": lambda r, a, b, c: OPS["hardshrink"](a, 0.4),
    "softshrink": lambda r, a, b, c: OPS["softshrink"](a, 0.4),
}
for _name in ("_hardtanh_inplace", "_leaky_relu_inplace", "_elu_inplace", "_celu_inplace", "_silu_inplace",
              "_mish_inplace", "_hardsigmoid_inplace", "_hardswish_inplace", "_threshold_inplace"):
    CALLS[_name] = _inplace(_name)


def test_every_pointwise_op_has_a_call_here():
    # a new pointwise op fails here until the random graphs below call it
    assert sorted(CALLS) == sorted(pointwise_op_names())


def _leaf(rng, dtype):
    shape = SHAPES[rng.integers(len(SHAPES))]
    values = rng.uniform(-1.5, 1.5, size=shape)
    return T["tensor"](values.tolist(), dtype=dtype, requires_grad=True)


def _graph(rng, names: list[str], dtype):
    leaves = [_leaf(rng, dtype) for _ in range(rng.integers(1, 4))]
    made = list(leaves)
    for name in names:
        operands = [made[-1] if rng.random() < 0.6 else made[rng.integers(len(made))] for _ in range(3)]
        made.append(CALLS[name](rng, *operands))
    weights = T["tensor"](rng.uniform(0.5, 1.5, size=tuple(made[-1].shape)).tolist(), dtype=dtype)
    return leaves, (made[-1] * weights).sum()


def _compare(out, leaves, provenance, dtype_name):
    graph = read_graph(provenance, out, "out")
    arrays = replay_elements(graph)
    evaluate = Evaluator(graph, arrays)
    rtol, atol = TOLERANCE[dtype_name]
    value = evaluate(arrays[graph.root.key][()])
    expected = float(out._data)
    assert abs(value - expected) <= atol * max(1.0, abs(expected)) + rtol * abs(expected), (value, expected)
    ops = {step.op for step in graph.steps}
    if ops & NO_DERIVATIVE:
        return ops, False
    chosen = [v for v in graph.leaves]
    symbolic = exact_gradients(graph, arrays, chosen)
    answer = autograd_gradients(graph, out, chosen)
    assert answer.problem is None, answer.problem
    for leaf in chosen:
        got, want = answer.values[leaf.key], symbolic[leaf.key]
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale,
                                   err_msg=f"∂out/∂{leaf.name} through {sorted(ops)}")
    return ops, True


def test_sympy_agrees_with_autograd_on_random_graphs_over_all_pointwise_ops():
    rng = np.random.default_rng(20261202)
    names = sorted(CALLS)
    compared: dict[str, int] = {name: 0 for name in names}
    valid = 0
    for number in range(GRAPHS):
        picked = [names[(number * OPS_PER_GRAPH + k) % len(names)] for k in range(OPS_PER_GRAPH)]
        rng.shuffle(picked)
        dtype_name = "float64" if number % 4 else "float32"
        provenance = Provenance().start()
        try:
            leaves, out = _graph(rng, picked, T[dtype_name])
        finally:
            provenance.stop()
        if not np.isfinite(float(out._data)) or abs(float(out._data)) > 1e6:
            continue   # (a composition that overflowed: nothing to compare)
        ops, differentiated = _compare(out, leaves, provenance, dtype_name)
        valid += 1
        for name in picked:
            compared[name] += differentiated or name in NO_DERIVATIVE
    assert valid >= 0.9 * GRAPHS
    assert [name for name, count in compared.items() if count == 0] == []


def test_the_comparison_fails_when_a_symbolic_form_is_wrong(monkeypatch):
    # the oracle is shown to catch a broken form: sin with its value right and its derivative 1% off
    import mpmath
    import sympy as sp

    from gradcli.views.explain import numeric, symbolic_ops

    class sin_off(sp.Function):
        def fdiff(self, argindex=1):
            return sp.cos(self.args[0]) * sp.Rational(101, 100)

    monkeypatch.setitem(numeric.FUNCTIONS, "sin_off", mpmath.sin)
    monkeypatch.setitem(TABLE, "sin", symbolic_ops.SymbolicOp(lambda b: symbolic_ops.each(sin_off, b["self"]), True))
    provenance = Provenance().start()
    try:
        x = T["tensor"]([0.3, 0.7], dtype=T["float64"], requires_grad=True)
        out = OPS["sin"](x).sum()
    finally:
        provenance.stop()
    with pytest.raises(AssertionError, match="∂out/∂leaf"):
        _compare(out, [x], provenance, "float64")
