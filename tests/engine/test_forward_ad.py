"""Forward-mode AD: every op of the table has a rule, and the state a dual level leaves behind.

The values are compared with PyTorch in test_forward_ad_oracle.py and the golden cases
``tests/golden/cases/autograd/forward_ad_*``; here, what does not need PyTorch.
"""

from __future__ import annotations

import io

import numpy as np

from gradcli.engine import api
from gradcli.engine.autograd import forward_ad
from gradcli.engine.autograd.formulas import NOT_IMPLEMENTED
from gradcli.engine.dispatch import jvp_rules
from gradcli.engine.dispatch.publish import OPS
from gradcli.engine.transforms.dual_tensors import make_dual
from gradcli.lang import Session

torch = api.TORCH

# Ops whose outputs are never floating point: no tangent to give (PyTorch gives none either).
INTEGER_VALUED = {"argmax", "argmin", "any", "all", "count_nonzero"}
# Ops PyTorch has no forward formula for: a dual input is its NotImplementedError.
WITHOUT_JVP = {"floor_divide", "hardsigmoid_backward"}
RULES = {jvp_rules.POINTWISE, jvp_rules.LINEAR, jvp_rules.MULTILINEAR}


def _kind(op) -> str:
    if callable(op.jvp):
        return "written out"
    if op.jvp in RULES:
        return op.jvp
    if op.jvp is None and op.derivs:
        return "transposed"
    return "none"


def test_every_op_has_a_forward_rule_or_is_listed_without_one() -> None:
    unlisted = []
    for name, op in OPS.items():
        kind = _kind(op)
        no_formula = any(d.rule == NOT_IMPLEMENTED for d in op.derivs.values())
        if name in WITHOUT_JVP:
            assert no_formula, f"{name} is listed without a forward formula but has a backward one"
        elif kind == "none":
            if name not in INTEGER_VALUED:
                unlisted.append(name)
        elif no_formula:
            unlisted.append(name)
    assert not unlisted, f"ops with neither a forward rule nor a place on a list: {unlisted}"


def test_ops_without_a_formula_fail_as_pytorch() -> None:
    with forward_ad.dual_level():
        d = make_dual(torch["ones"](2), torch["ones"](2))
        try:
            d // 2
        except NotImplementedError as e:
            assert str(e) == "Trying to use forward AD with aten::floor_divide that does not support it."
        else:
            raise AssertionError("floor_divide of a dual tensor did not fail")


def test_leaving_the_level_drops_every_tangent() -> None:
    with forward_ad.dual_level():
        d = make_dual(torch["ones"](3), torch["full"]((3,), 2.0))
        y = d.sin() * 3
        assert forward_ad.tangent_of(y) is not None
        assert forward_ad.watching
    assert not forward_ad.watching
    assert forward_ad.tangent_of(y) is None and forward_ad.unpack_dual(y).tangent is None
    with forward_ad.dual_level():   # a new level does not bring them back
        assert forward_ad.tangent_of(y) is None


def test_a_write_through_a_view_reaches_the_base_tangent() -> None:
    with forward_ad.dual_level():
        base = torch["zeros"](2, 3)
        value = make_dual(torch["ones"](3), torch["tensor"]([1.0, 2.0, 3.0]))
        base[1] = value          # base had no tangent: it gets zeros, its row 1 the value's
        np.testing.assert_array_equal(forward_ad.tangent_of(base)._data, [[0, 0, 0], [1, 2, 3]])
        base[1].mul_(torch["tensor"]([2.0, 2.0, 2.0]))
        np.testing.assert_array_equal(forward_ad.tangent_of(base)._data, [[0, 0, 0], [2, 4, 6]])


def test_custom_function_forward_sees_primals_only() -> None:
    script = """\
import torch
import torch.autograd.forward_ad as fwAD
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        print(fwAD.unpack_dual(x).tangent)
        return x * 2
    @staticmethod
    def jvp(ctx, t):
        return t * 2
with fwAD.dual_level():
    print(fwAD.unpack_dual(Twice.apply(fwAD.make_dual(torch.ones(2), torch.ones(2)))).tangent)
"""
    out = io.StringIO()
    assert Session(stdout=out).run_source(script, "<t>").exit_code == 0
    assert out.getvalue() == "None\ntensor([2., 2.])\n"


def test_a_new_session_has_no_level_open() -> None:
    forward_ad.enter_dual_level()
    api.reset_global_state(0)
    assert not forward_ad.watching and forward_ad._level is None
