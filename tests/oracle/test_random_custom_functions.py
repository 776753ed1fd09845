"""gradcli against live PyTorch on random custom autograd Functions.

Skipped unless torch is importable.  Hypothesis draws a Function -- a few
elementwise factors of its tensor inputs, multiplied (forward) and their
derivatives (backward), optionally scaled by a number passed positionally or
by keyword, written with ctx in forward or with a separate setup_context,
saving inputs or its output, with a second output, a non-differentiable
integer output, materialized gradients or not -- and a use of it: backward
into the leaves, or autograd.grad with create_graph and a second derivative.
Both libraries run the same Python; every observable (values bit for bit,
node names, edges, needs_input_grad, gradients, errors) must agree.

The last test breaks gradcli on purpose and checks that the comparison
notices.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck), print_blob=False)

# name -> (f(T, x), f'(T, x)), with differentiable ops.  Only +, -, *, / and powers: those round
# the same on both sides, whereas gradcli's transcendental kernels (sin, tanh, log1p, ...) are
# NumPy's, which differ from PyTorch's in the last bit for some inputs -- not what is tested here.
FACTORS: dict[str, tuple] = {
    "square": (lambda T, x: x * x, lambda T, x: 2 * x),
    "cube": (lambda T, x: x ** 3, lambda T, x: 3 * x ** 2),
    "identity": (lambda T, x: x, lambda T, x: T.ones_like(x)),
    "affine": (lambda T, x: x * 0.5 + 1, lambda T, x: T.full_like(x, 0.5)),
    "rational": (lambda T, x: 1 / (1 + x * x), lambda T, x: -2 * x / (1 + x * x) ** 2),
    "relu": (lambda T, x: x.clamp(min=0), lambda T, x: (x > 0).to(x.dtype)),
}


def gradcli_namespace() -> Any:
    from gradcli.engine import api
    ns = SimpleNamespace(**api.TORCH)
    ns.autograd = SimpleNamespace(**api.SUBMODULES["autograd"])
    ns.autograd.function = SimpleNamespace(**api.SUBMODULES["autograd.function"])
    return ns


@st.composite
def specs(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 3))
    return {
        "factors": draw(st.lists(st.sampled_from(sorted(FACTORS)), min_size=n, max_size=n)),
        "requires": draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        "dtype": draw(st.sampled_from(["float32", "float64"])),
        "shape": draw(st.sampled_from([(), (3,), (2, 3)])),
        "values": draw(st.lists(st.floats(-2, 2, width=32), min_size=n * 6, max_size=n * 6)),
        "scale": draw(st.sampled_from([None, "positional", "keyword"])),
        "setup_context": draw(st.booleans()),
        "save": draw(st.sampled_from(["inputs", "output", "attributes"])),
        "second_output": draw(st.booleans()),
        "integer_output": draw(st.booleans()),
        "materialize": draw(st.booleans()),
        "use": draw(st.sampled_from(["backward", "grad", "second_derivative", "second_output_only"])),
        "weights": draw(st.lists(st.floats(-1, 1, width=32), min_size=6, max_size=6)),
    }


def make_function(T: Any, spec: dict) -> type:
    """The Function a spec describes, for the library ``T``."""
    factors = [FACTORS[name] for name in spec["factors"]]
    n = len(factors)

    def value(xs: tuple, k: Any) -> Any:
        y = factors[0][0](T, xs[0])
        for (f, _), x in zip(factors[1:], xs[1:]):
            y = y * f(T, x)
        return y if k is None else y * k

    def forward_body(ctx: Any, xs: tuple, k: Any) -> Any:
        y = value(xs, k)
        outputs = [y]
        if spec["second_output"]:
            outputs.append(factors[0][0](T, xs[0]) * 2)
        if spec["integer_output"]:
            outputs.append((xs[0] > 0).long())
        return tuple(outputs) if len(outputs) > 1 else y

    def remember(ctx: Any, xs: tuple, k: Any, output: Any) -> None:
        ctx.k = k
        if spec["save"] == "inputs":
            ctx.save_for_backward(*xs)
        elif spec["save"] == "output":
            ctx.save_for_backward(*xs, output[0] if isinstance(output, tuple) else output)
        else:
            ctx.xs = xs
        if spec["integer_output"]:
            ctx.mark_non_differentiable(output[-1])
        if not spec["materialize"]:
            ctx.set_materialize_grads(False)

    def backward(ctx: Any, *grads: Any) -> Any:
        xs = ctx.xs if spec["save"] == "attributes" else ctx.saved_tensors[:n]
        g = grads[0]
        if g is None:
            g = T.zeros_like(xs[0] if spec["shape"] == () else value(xs, ctx.k)) * 0
        result = []
        for i in range(n):
            d = factors[i][1](T, xs[i])
            for j in range(n):
                if j != i:
                    d = d * factors[j][0](T, xs[j])
            if ctx.k is not None:
                d = d * ctx.k
            grad = g * d
            if i == 0 and spec["second_output"] and grads[1] is not None:
                grad = grad + grads[1] * 2 * factors[0][1](T, xs[0])
            result.append(grad if ctx.needs_input_grad[i] else None)
        return tuple(result) + (None,)  # the scale's (or an extra None, which PyTorch allows)

    if spec["setup_context"]:
        def forward(*args: Any, k: Any = None) -> Any:
            return forward_body(None, args[:n], args[n] if len(args) > n else k)

        def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
            remember(ctx, inputs[:n], inputs[n] if len(inputs) > n else None, output)

        attrs = {"forward": staticmethod(forward), "setup_context": staticmethod(setup_context)}
    else:
        def forward(ctx: Any, *args: Any, k: Any = None) -> Any:
            ctx.seen = tuple(ctx.needs_input_grad)
            xs, k = args[:n], (args[n] if len(args) > n else k)
            output = forward_body(ctx, xs, k)
            remember(ctx, xs, k, output)
            return output

        attrs = {"forward": staticmethod(forward)}
    attrs["backward"] = staticmethod(backward)
    return type("Product" + "".join(s.title() for s in spec["factors"]), (T.autograd.Function,), attrs)


def observe(T: Any, spec: dict) -> list[str]:
    """Run the spec on ``T``; everything observable, one line each."""
    seen: list[str] = []
    n = len(spec["factors"])
    dtype = getattr(T, spec["dtype"])
    size = int(np.prod(spec["shape"])) if spec["shape"] else 1
    xs = [T.tensor(spec["values"][i * 6:i * 6 + size], dtype=dtype).reshape(spec["shape"])
          for i in range(n)]
    for x, flag in zip(xs, spec["requires"]):
        x.requires_grad_(flag)
    fn = make_function(T, spec)

    def show(t: Any) -> str:
        if not hasattr(t, "tolist"):
            return repr(t)
        node = t.grad_fn
        edges = [] if node is None else [None if c is None else (type(c).__name__, nr) for c, nr in node.next_functions]
        return f"{t.tolist()!r} {t.dtype} {t.requires_grad} {type(node).__name__ if node else None} {edges}"

    try:
        args = list(xs) + ([-0.75] if spec["scale"] == "positional" else [])
        kwargs = {"k": 1.5} if spec["scale"] == "keyword" else {}
        out = fn.apply(*args, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        seen += [show(o) for o in outs]
        node = outs[0].grad_fn
        if node is not None:
            seen.append(repr((node.needs_input_grad, getattr(node, "seen", None))))
        weights = T.tensor(spec["weights"][:size], dtype=dtype).reshape(spec["shape"])
        if spec["use"] == "second_output_only" and len(outs) > 1:
            loss = (outs[1] * weights).sum()
        else:
            loss = (outs[0] * weights).sum()
            if len(outs) > 1 and outs[1].dtype.is_floating_point and spec["use"] != "second_derivative":
                loss = loss + outs[1].sum()
        wanted = [x for x in xs if x.requires_grad]
        if spec["use"] in ("backward", "second_output_only"):
            loss.backward()
            seen += [show(x.grad) for x in xs]
        elif spec["use"] == "grad":
            seen += [show(g) for g in T.autograd.grad(loss, wanted, allow_unused=True)]
        else:
            firsts = T.autograd.grad(loss, wanted, create_graph=True, allow_unused=True)
            seen += [show(g) for g in firsts]
            total = sum(g.sum() for g in firsts if g is not None)
            if hasattr(total, "requires_grad") and total.requires_grad:
                seen += [show(g) for g in T.autograd.grad(total, wanted, allow_unused=True)]
    except Exception as e:  # noqa: BLE001 - an error is an outcome to compare
        seen.append(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    return seen


def compare(spec: dict, gradcli: Any = None) -> None:
    ns = gradcli or gradcli_namespace()
    want = observe(torch, spec)
    got = observe(ns, spec)
    for i, (w, g) in enumerate(zip(want, got)):
        assert g == w, f"line {i} of {spec}"
    assert len(got) == len(want), f"{got} vs {want}"


@settings(max_examples=600, **SETTINGS)
@given(specs())
def test_random_custom_functions(spec: dict) -> None:
    compare(spec)


def test_the_comparison_notices_a_wrong_materialized_gradient(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.engine.autograd import function
    spec = {"factors": ["rational", "square"], "requires": [True, True], "dtype": "float32", "shape": (3,),
            "values": [0.5, -1.0, 2.0, 0.25, 1.0, -0.5] * 2, "scale": None, "setup_context": False,
            "save": "inputs", "second_output": True, "integer_output": False, "materialize": True,
            "use": "second_output_only", "weights": [1.0, 0.5, -1.0, 0, 0, 0]}
    compare(spec)
    monkeypatch.setattr(function, "_zeros", lambda meta: function.Tensor._make(np.ones(meta[0], meta[1].np)))
    with pytest.raises(AssertionError):
        compare(spec)
