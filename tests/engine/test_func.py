"""torch.func built on the engine's autograd: the transforms against each other and against
closed forms (PyTorch's own values are in the golden cases ``tests/golden/cases/autograd/func_*``)."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine.transforms import func
from gradcli.engine.transforms.functional_call import functional_call

torch = api.TORCH
X = [0.5, -1.0, 2.0]


def _x():
    return torch["tensor"](X, dtype=torch["float64"])


def f(x):
    return (x.sin() * x).sum()


def test_grad_is_the_closed_form() -> None:
    x = np.array(X)
    np.testing.assert_allclose(func.grad(f)(_x())._data, np.cos(x) * x + np.sin(x))


@pytest.mark.parametrize("compose", [
    lambda g: func.hessian(g), lambda g: func.jacrev(func.jacrev(g)), lambda g: func.jacfwd(func.jacrev(g)),
    lambda g: func.jacrev(func.jacfwd(g)), lambda g: func.jacfwd(func.jacfwd(g))])
def test_every_composition_gives_the_hessian(compose) -> None:
    x = np.array(X)
    want = np.diag(2 * np.cos(x) - x * np.sin(x))
    np.testing.assert_allclose(compose(f)(_x())._data, want, atol=1e-12)


def test_jacrev_and_jacfwd_agree_on_a_matrix_function() -> None:
    a = torch["tensor"]([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], dtype=torch["float64"])
    h = lambda x: (a @ x).tanh()  # noqa: E731
    np.testing.assert_allclose(func.jacrev(h)(_x())._data, func.jacfwd(h)(_x())._data, atol=1e-12)


def test_the_outermost_transform_leaves_no_graph_behind() -> None:
    out = func.grad(f)(_x())
    assert not out.requires_grad and out.grad_fn is None
    x = _x().requires_grad_()
    assert func.grad(f)(x).requires_grad   # the script's own graph is kept


def test_functional_call_restores_the_module() -> None:
    from gradcli.engine.nn.modules import members
    linear = members()["Linear"](3, 2)
    before = linear.weight
    zeros = {"weight": torch["zeros"](2, 3), "bias": torch["zeros"](2)}
    np.testing.assert_array_equal(functional_call(linear, zeros, (torch["ones"](3),))._data, [0, 0])
    assert linear.weight is before


def test_forward_transforms_nest_to_the_third_derivative() -> None:
    x = np.array(X)
    third = func.jacfwd(func.jacfwd(func.jacfwd(lambda t: t.sin())))(_x())._data
    want = np.zeros((3, 3, 3, 3))
    for i in range(3):
        want[i, i, i, i] = -np.cos(x[i])
    np.testing.assert_allclose(third, want, atol=1e-12)
    ones = torch["ones"](3, dtype=torch["float64"])
    inner = lambda t: func.jvp(lambda u: u.exp() * u, (t,), (ones,))[1]  # noqa: E731
    np.testing.assert_allclose(func.jvp(inner, (_x(),), (ones,))[1]._data, np.exp(x) * (x + 2), atol=1e-12)


def _written_in_place(x):
    y = x.clone()
    y.mul_(x)          # x**2, written into y
    y[1:].sin_()       # through a view
    return y.exp_().sum()


def test_in_place_writes_nest_like_the_reverse_transforms() -> None:
    forward = func.jacfwd(func.jacfwd(_written_in_place))(_x())._data
    reverse = func.jacrev(func.jacrev(_written_in_place))(_x())._data
    np.testing.assert_allclose(forward, reverse, atol=1e-12)


def test_a_forward_transform_inside_the_scripts_dual_level_is_refused_as_pytorch_refuses_it() -> None:
    from gradcli.engine.autograd import forward_ad
    with forward_ad.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported at the moment"):
            func.jvp(f, (_x(),), (_x(),))
    with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported at the moment"):
        func.jvp(lambda t: forward_ad.enter_dual_level(), (_x(),), (_x(),))
    assert not forward_ad._levels and not forward_ad.watching


