"""Anomaly mode in the engine alone (autograd/anomaly.py): no script, so no forward place
unless a front end installs one."""

from __future__ import annotations

import pytest

from gradcli.engine import api
from gradcli.engine import warnings as engine_warnings
from gradcli.engine.autograd import anomaly
from gradcli.engine.errors import TorchRuntimeError, TorchTypeError

T = api.TORCH
A = api.SUBMODULES["autograd"]


@pytest.fixture
def warned():
    seen: list[str] = []
    engine_warnings.set_warning_handler(lambda category, message: seen.append(message))
    yield seen
    engine_warnings.set_warning_handler(None)
    anomaly.set_front_end(None, None)
    api.reset_global_state(0)


def _sqrt_at_zero():
    x = T["tensor"]([0.0, 1.0], requires_grad=True)
    return x, (x.sqrt() * 0).sum()


def test_off_by_default_and_nan_passes(warned):
    assert not T["is_anomaly_enabled"]() and T["is_anomaly_check_nan_enabled"]()
    x, out = _sqrt_at_zero()
    out.backward()
    assert str(x.grad) == "tensor([nan, 0.])"
    assert warned == []


def test_nan_output_raises_after_a_warning_naming_the_node(warned):
    x, out = _sqrt_at_zero()          # made before the mode: no forward place
    with A["detect_anomaly"]():
        with pytest.raises(TorchRuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its "
                                                     r"0th output\.$"):
            out.backward()
    assert warned[0].startswith("Anomaly Detection has been enabled.")
    assert warned[1].startswith("Error detected in SqrtBackward0. No forward pass information available.")
    assert x.grad is None             # the leaf's node never ran
    assert not T["is_anomaly_enabled"]()


def test_the_front_end_places_each_node_made_while_on(warned):
    anomaly.set_front_end(lambda: "PLACE", lambda place: f"  at {place}\n")
    A["set_detect_anomaly"](True)
    x, out = _sqrt_at_zero()
    assert out.grad_fn._forward_place == "PLACE"
    with pytest.raises(TorchRuntimeError):
        out.backward()
    assert warned[-1].startswith("Error detected in SqrtBackward0. Traceback of forward call that caused "
                                 "the error:\n  at PLACE\n (Triggered internally at ")


def test_the_index_is_the_output_position(warned):
    p = T["tensor"]([1.0], requires_grad=True)
    q = T["tensor"]([0.0], requires_grad=True)
    with A["set_detect_anomaly"](True):
        out = p.detach() / q           # only `other` requires grad: its output is the second
        with pytest.raises(TorchRuntimeError, match="DivBackward0' returned nan values in its 1th output"):
            (out * 0).sum().backward()


def test_check_nan_off_only_remembers(warned):
    with A["set_detect_anomaly"](True, check_nan=False):
        x, out = _sqrt_at_zero()
        out.backward()
        assert not T["is_anomaly_check_nan_enabled"]()
    assert str(x.grad) == "tensor([nan, 0.])"
    assert T["is_anomaly_check_nan_enabled"]()


def test_bad_modes_use_the_argument_parser_wording():
    with pytest.raises(TorchTypeError, match=r"argument 'enabled' \(position 1\) must be bool, not str"):
        T["set_anomaly_enabled"]("yes")
    with pytest.raises(TorchTypeError, match=r"argument 'check_nan' \(position 2\) must be bool, not int"):
        A["set_detect_anomaly"](True, 1)
    assert not T["is_anomaly_enabled"]()


def test_reset_turns_it_off():
    T["set_anomaly_enabled"](True, False)
    api.reset_global_state(0)
    assert not T["is_anomaly_enabled"]() and T["is_anomaly_check_nan_enabled"]()
