"""torch.func built on the engine's autograd: the transforms against each other and against
closed forms (PyTorch's own values are in the golden cases ``tests/golden/cases/autograd/func_*``)."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine.transforms import func

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
    lambda g: func.jacrev(func.jacfwd(g))])
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
    np.testing.assert_array_equal(func.functional_call(linear, zeros, (torch["ones"](3),))._data, [0, 0])
    assert linear.weight is before


def test_nested_forward_transforms_are_refused_clearly() -> None:
    with pytest.raises(NotImplementedError, match="gradcli does not support jacfwd inside another"):
        func.jacfwd(func.jacfwd(f))(_x())
