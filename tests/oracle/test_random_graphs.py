"""gradcli against live PyTorch on random expression graphs.

Skipped unless torch is importable.  Hypothesis draws small programs --
inputs of random broadcasting shapes and dtypes, then steps drawn from the
torch ops gradcli supports (graph_ops_math, graph_ops_shape), some under
``no_grad``, some in place on
views and non-leaves -- and ``graph_check.check`` runs each program on both
libraries in lockstep, comparing values, errors, warnings, graphs and
gradients.  Seeds are derandomized, so a CI run is reproducible; 3000
programs take about half a minute.

The last tests break gradcli on purpose and check that the comparison
notices: a check that cannot fail proves nothing.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import graph_ops_math  # noqa: E402
import graph_ops_shape  # noqa: E402
from graph_check import check  # noqa: E402
from graph_gen import build_program  # noqa: E402
from graph_program import Const, Finish, Input, Program, Ref, Step  # noqa: E402

SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck), print_blob=False)
MIXED = graph_ops_math.TABLE + graph_ops_shape.TABLE


@st.composite
def programs(draw: st.DrawFn, table: list = MIXED, max_steps: int = 8, gradients: bool = False) -> Program:
    return build_program(draw, table, max_steps=max_steps, gradients=gradients)


@settings(max_examples=1200, **SETTINGS)
@given(programs())
def test_mixed_graphs(program: Program) -> None:
    check(program)


@settings(max_examples=800, **SETTINGS)
@given(programs(graph_ops_math.TABLE + graph_ops_shape.TABLE, max_steps=5, gradients=True))
def test_gradient_chains(program: Program) -> None:
    """Short chains of differentiable steps on inputs that require grad: every formula is on a
    gradient path here, so a wrong one cannot hide behind no_grad or an integer."""
    check(program)


@settings(max_examples=500, **SETTINGS)
@given(programs(graph_ops_math.TABLE))
def test_math_graphs(program: Program) -> None:
    check(program)


@settings(max_examples=500, **SETTINGS)
@given(programs(graph_ops_shape.TABLE + [(10, graph_ops_math.gen_binary)]))
def test_views_and_inplace_graphs(program: Program) -> None:
    check(program)


# -- the comparison can fail -------------------------------------------------------------------------

def _program() -> Program:
    x = np.array([[0.5, -1.25], [2.0, 0.75]], dtype=np.float32)
    return Program([Input(x, True)], [
        Step("method", "sin", (Ref(0),)),
        Step("op", "mul", (Ref(1), Const(np.array([2.0, -1.0], dtype=np.float32)))),
        Step("method", "sum", (Ref(2), 1)),
    ], Finish([Ref(3)], [np.array([1.0, -0.5], dtype=np.float32)]))


def _broken(monkeypatch: pytest.MonkeyPatch, patch: Callable[[Any], None]) -> None:
    from gradcli.engine.autograd import formulas, node_plans
    from gradcli.engine.dispatch.publish import OPS
    monkeypatch.setattr(formulas, "_FORMULAS", {})  # nodes share formulas made before the patch
    monkeypatch.setattr(node_plans, "_PLANS", {})  # and so do node plans
    patch(OPS)
    with pytest.raises(AssertionError):
        check(_program())


def test_the_unbroken_program_passes() -> None:
    check(_program())


def test_a_wrong_gradient_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.engine.autograd.formulas import Deriv

    def patch(ops: Any) -> None:
        wrong = Deriv(("self",), lambda g, s: g * s.self.sin())  # sin's derivative is cos
        monkeypatch.setitem(ops["sin"].derivs, "self", wrong)
    _broken(monkeypatch, patch)


def test_a_wrong_value_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken(monkeypatch, lambda ops: monkeypatch.setattr(ops["sin"], "forward", lambda b: np.cos(b["self"]._data)))


def test_a_wrong_node_name_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken(monkeypatch, lambda ops: monkeypatch.setattr(ops["sum"], "node", "SumBackward0"))


def test_a_wrong_error_message_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.engine.ops import reductions

    def wrong(dims: Any, ndim: int) -> tuple:
        raise IndexError("Dimension out of range")  # PyTorch's message goes on
    monkeypatch.setattr(reductions, "wrap_dims", wrong)
    program = _program()
    program.steps[2] = Step("method", "sum", (Ref(2), 5))  # out of range in both libraries
    with pytest.raises(AssertionError):
        check(program)


def test_a_wrong_leaf_flag_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.engine.tensor import Tensor
    monkeypatch.setattr(Tensor, "is_leaf", property(lambda self: True))
    with pytest.raises(AssertionError):
        check(_program())
