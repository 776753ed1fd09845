"""The ops the optimizers' updates are made of, against live PyTorch, bit for bit.

Skipped unless torch is importable.  ``addcmul``/``addcdiv`` (new), ``add``/``sub`` with ``alpha`` and
``lerp`` (one fused multiply-add each in PyTorch's kernels) are drawn with random shapes -- past the
vector blocks, broadcasting, 0-dim -- dtypes, values (with signed zeros, infinities and NaNs) and
Scalars, out of place and in place; the results' bits (NaNs compared as NaNs), dtypes, errors, node
names, saved values and gradients must agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gradcli.engine import api  # noqa: E402

G = api.TORCH
SETTINGS = settings(max_examples=300, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))
SHAPES = [(), (1,), (5,), (16,), (17,), (33,), (2, 40), (3, 1), (1, 4)]
SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]


def _array(rng: np.random.Generator, shape: tuple, dtype: str, special: bool) -> np.ndarray:
    if dtype in ("int64", "bool"):
        return rng.integers(-3, 4, shape).astype(dtype)
    a = rng.standard_normal(shape).astype(dtype)
    if special and a.size:
        mask = rng.random(shape) < 0.15
        a[mask] = rng.choice(SPECIAL, int(mask.sum()))
    return a


def _bits(t: Any) -> tuple:
    a = np.array(t.detach().numpy(), copy=True)
    if a.dtype.kind == "f":
        a[np.isnan(a)] = np.nan
    return str(a.dtype), a.shape, a.tobytes()


def _outcome(fn: Any) -> Any:
    try:
        return ("ok", _bits(fn()))
    except Exception as e:  # noqa: BLE001 -- compared
        return ("error", type(e).__name__, str(e))


OPS = {
    "addcmul": lambda L, a, b, c, v: L.addcmul(a, b, c, value=v),
    "addcdiv": lambda L, a, b, c, v: L.addcdiv(a, b, c, value=v),
    "addcmul_": lambda L, a, b, c, v: a.clone().addcmul_(b, c, value=v),
    "addcdiv_": lambda L, a, b, c, v: a.clone().addcdiv_(b, c, value=v),
    "add": lambda L, a, b, c, v: L.add(a, b, alpha=v),
    "sub_": lambda L, a, b, c, v: a.clone().sub_(b, alpha=v),
    "lerp": lambda L, a, b, c, v: L.lerp(a, b, v),
    "lerp_": lambda L, a, b, c, v: a.clone().lerp_(b, v),
    "lerp_tensor": lambda L, a, b, c, v: L.lerp(a, b, c),
}


class _Lib:
    def __init__(self, names: dict) -> None:
        self.__dict__.update(names)


TORCH = _Lib({"addcmul": torch.addcmul, "addcdiv": torch.addcdiv, "add": torch.add, "lerp": torch.lerp,
              "from_numpy": torch.from_numpy})
GRADCLI = _Lib({"addcmul": G["addcmul"], "addcdiv": G["addcdiv"], "add": G["add"], "lerp": G["lerp"],
                "from_numpy": G["from_numpy"]})


@SETTINGS
@given(st.sampled_from(sorted(OPS)), st.lists(st.sampled_from(SHAPES), min_size=3, max_size=3),
       st.lists(st.sampled_from(["float32", "float32", "float64", "int64"]), min_size=3, max_size=3),
       st.sampled_from([1, 0.5, -0.0123456789, -1.0, 0.1, 1.0, 0.7, 2]), st.integers(0, 2**32 - 1),
       st.booleans(), st.booleans())
def test_forwards_match_pytorch(op: str, shapes: list, dts: list, value: Any, seed: int, special: bool,
                                same: bool) -> None:
    rng = np.random.default_rng(seed)
    if same:  # the optimizers' case: one shape, one dtype
        shapes, dts = [shapes[0]] * 3, [dts[0]] * 3
    arrays = [_array(rng, s, d, special) for s, d in zip(shapes, dts)]
    fn = OPS[op]
    expected = _outcome(lambda: fn(TORCH, *[torch.from_numpy(a.copy()) for a in arrays], value))
    got = _outcome(lambda: fn(GRADCLI, *[G["from_numpy"](a.copy()) for a in arrays], value))
    assert got == expected


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, 0.5, -2.0])
def test_graphs_and_gradients_match_pytorch(name: str, value: Any) -> None:
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype("float64") + 2 for s in [(2, 3), (3,), (2, 1)]]
    results = []
    for lib, make in ((torch, torch.from_numpy), (None, G["from_numpy"])):
        leaves = [make(a.copy()).requires_grad_() for a in arrays]
        fn = getattr(torch, name) if lib is torch else G[name]
        out = fn(*leaves, value=value)
        node = out.grad_fn
        saved = (node._saved_value, _bits(node._saved_tensor1), _bits(node._saved_tensor2))
        (out * out).sum().backward()
        results.append((type(node).__name__ if lib is torch else node.name(), saved, _bits(out),
                        [_bits(x.grad) for x in leaves], len(node.next_functions)))
    assert results[0] == results[1]


def test_double_backward_of_addcdiv_matches_pytorch() -> None:
    arrays = [np.array([1.5, -2.0]), np.array([0.5, 3.0]), np.array([2.0, -4.0])]
    grads = []
    gradcli_grad = api.SUBMODULES["autograd"]["grad"]
    for grad_fn, make in ((torch.autograd.grad, torch.from_numpy), (gradcli_grad, G["from_numpy"])):
        leaves = [make(a.copy()).requires_grad_() for a in arrays]
        addcdiv = torch.addcdiv if make is torch.from_numpy else G["addcdiv"]
        out = addcdiv(*leaves, value=0.5).sum()
        first = grad_fn(out, leaves, create_graph=True)
        second = grad_fn(first[2].sum(), leaves[1:])
        grads.append([_bits(g) for g in first + second])
    assert grads[0] == grads[1]
