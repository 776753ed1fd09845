"""Saved-tensor hooks in the engine (autograd/saved_hooks.py): what the golden cases cannot
see -- higher-order gradients through hooked tensors, freeing, and the state being reset."""

from __future__ import annotations

import pytest

from gradcli.engine import api
from gradcli.engine.autograd import saved_hooks
from gradcli.engine.errors import TorchRuntimeError

T = api.TORCH
A = api.SUBMODULES["autograd"]
G = api.SUBMODULES["autograd.graph"]


def _second_derivative(hooks: bool) -> list:
    x = T["tensor"]([0.5, 2.0], requires_grad=True)
    if hooks:
        with G["saved_tensors_hooks"](lambda t: t, lambda t: t):
            y = (x.pow(3) * x.sin()).sum()
    else:
        y = (x.pow(3) * x.sin()).sum()
    (g,) = A["grad"](y, x, create_graph=True)
    (h,) = A["grad"](g.sum(), x)
    return g.tolist() + h.tolist()


def test_higher_order_gradients_go_through_hooked_tensors():
    assert _second_derivative(hooks=True) == _second_derivative(hooks=False)


def test_a_leaf_unpacked_from_a_copy_still_reaches_the_leaf():
    x = T["tensor"]([1.0, 2.0], requires_grad=True)
    with G["saved_tensors_hooks"](lambda t: t.clone(), lambda t: t):
        y = (x * x).sum()
    (g,) = A["grad"](y, x, create_graph=True)
    g.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_hooked_tensors_are_freed_by_backward():
    x = T["tensor"]([1.0], requires_grad=True)
    with G["saved_tensors_hooks"](lambda t: t, lambda t: t):
        y = x.exp()
    y.backward()
    with pytest.raises(TorchRuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_pack_runs_without_recording():
    made = []
    x = T["tensor"]([1.0], requires_grad=True)
    with G["saved_tensors_hooks"](lambda t: made.append((t * t).grad_fn) or t, lambda t: t):
        x.exp()
    assert made == [None]
    assert T["is_grad_enabled"]()


def test_reset_forgets_hooks_and_the_disabled_message():
    G["disable_saved_tensors_hooks"]("off").__enter__()
    api.reset_global_state(0)
    assert saved_hooks._disabled_message is None
    G["saved_tensors_hooks"](lambda t: t, lambda t: t).__enter__()
    api.reset_global_state(0)
    assert saved_hooks.stack == [] and saved_hooks._disabled_message is None
    x = T["tensor"]([1.0], requires_grad=True)
    assert type(x.exp().grad_fn._saved["result"]).__name__ == "SavedOutput"
