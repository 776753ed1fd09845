"""``torch.optim`` against live PyTorch: random trainings compared bit for bit after every step.

Skipped unless torch is importable.  Hypothesis draws a training -- float32 or float64 parameters of
small shapes (some past PyTorch's 32-lane vector blocks), an optimizer with random options, one or two
parameter groups with their own options, a few steps on a random loss of elementwise ops (some
parameters left without a gradient, ``zero_grad`` with or without ``set_to_none``, closures, a
``state_dict`` round trip, a scheduler) -- and runs it on both libraries.  After each step every
parameter (its bits and ``_version``, which counts the in-place ops of the update), every state value
(keys in order, tensors' dtype, bits and version), ``state_dict()["param_groups"]``, ``repr(optimizer)``
and the scheduler's learning rates must agree exactly; so must errors.  Seeds are derandomized;
GRADCLI_OPTIM_EXAMPLES=20000 explores further (20000 pass, in about seven minutes).

torch runs on MKL's reference path (MKL_CBWR=COMPATIBLE, set by tests/conftest.py; the module is skipped
when this process's torch is not on it, see mkl_reference.py): its ``sqrt``, which every adaptive
optimizer calls, is MKL's and not correctly rounded, and gradcli's is the same (kernels/vml_sqrt.py).  A
NaN's sign and payload are not compared.

The last tests break the update on purpose (mathematically equal, rounded differently) and check that
the comparison notices.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import mkl_reference  # noqa: E402
from gradcli.engine import api  # noqa: E402

if not mkl_reference.is_reference(torch):
    pytest.skip("torch here does not give MKL's reference sqrt (another CPU's rsqrtps, or MKL_CBWR unset)",
                allow_module_level=True)

EXAMPLES = int(os.environ.get("GRADCLI_OPTIM_EXAMPLES", "1000"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True, print_blob=False,
                    suppress_health_check=list(HealthCheck))

GRADCLI = SimpleNamespace(**api.TORCH, optim=SimpleNamespace(**api.LAZY_SUBMODULES["optim"]()),
                          lr_scheduler=SimpleNamespace(**api.LAZY_SUBMODULES["optim.lr_scheduler"]()))
TORCH = SimpleNamespace(from_numpy=torch.from_numpy, set_default_dtype=torch.set_default_dtype,
                        float32=torch.float32, float64=torch.float64, optim=torch.optim,
                        lr_scheduler=torch.optim.lr_scheduler)

SHAPES = [(), (1,), (3,), (2, 3), (5,), (4, 4), (33,), (2, 20), (70,)]
LOSSES = ("linear", "square", "product", "abs")


# -- what a training is --------------------------------------------------------------------------------

@dataclass
class Step:
    terms: list[tuple[int, str]]       # (parameter, loss kind): the others get no gradient this step
    zero: str                          # "none" (zero_grad()), "zeros" (set_to_none=False), "keep" (accumulate)
    closure: bool
    reload: bool                       # opt.load_state_dict(opt.state_dict()) after the step


@dataclass
class Training:
    dtype: str
    shapes: list[tuple]
    seed: int
    optimizer: str
    options: dict
    groups: list[tuple[list[int], dict]] | None
    steps: list[Step]
    scheduler: tuple[str, dict] | None = None
    default_float64: bool = False
    data: dict = field(default_factory=dict)

    def arrays(self) -> dict:
        if not self.data:
            rng = np.random.default_rng(self.seed)
            self.data["init"] = [rng.standard_normal(s).astype(self.dtype) for s in self.shapes]
            self.data["const"] = [rng.standard_normal(s).astype(self.dtype) for s in self.shapes]
        return self.data


def _unit(lo: float = 0.0, hi: float = 0.999) -> st.SearchStrategy:
    return st.one_of(st.sampled_from([lo, 0.5, 0.9]), st.floats(lo, hi, allow_subnormal=False))


LR = st.one_of(st.sampled_from([0.1, 0.01, 1e-3, 0.5, 1.0]), st.floats(1e-4, 1.0))
DECAY = st.one_of(st.just(0), st.sampled_from([0.01, 0.1]), st.floats(0.0, 0.5))
EPS = st.sampled_from([1e-8, 1e-10, 1e-6, 1e-3])


def _options(draw: st.DrawFn, name: str) -> dict:
    o: dict[str, Any] = {}
    if draw(st.booleans()):
        o["lr"] = draw(LR)
    if draw(st.booleans()):
        o["weight_decay"] = draw(DECAY)
    if draw(st.booleans()):
        o["maximize"] = True
    if name == "SGD":
        if draw(st.booleans()):
            o["momentum"] = draw(_unit(0.0, 0.99))
        if draw(st.booleans()):
            o["dampening"] = draw(_unit(0.0, 0.9))
        if draw(st.booleans()):
            o["nesterov"] = True  # (invalid without momentum or with dampening: both raise)
    elif name in ("Adam", "AdamW"):
        if draw(st.booleans()):
            o["betas"] = (draw(_unit(0.0, 0.99)), draw(_unit(0.0, 0.9999)))
        if draw(st.booleans()):
            o["eps"] = draw(EPS)
        if draw(st.booleans()):
            o["amsgrad"] = True
    elif name == "RMSprop":
        if draw(st.booleans()):
            o["alpha"] = draw(_unit(0.0, 0.999))
        if draw(st.booleans()):
            o["eps"] = draw(EPS)
        if draw(st.booleans()):
            o["momentum"] = draw(_unit(0.0, 0.99))
        if draw(st.booleans()):
            o["centered"] = True
    else:
        if draw(st.booleans()):
            o["lr_decay"] = draw(DECAY)
        if draw(st.booleans()):
            o["initial_accumulator_value"] = draw(st.sampled_from([0.0, 0.1, 1.0]))
        if draw(st.booleans()):
            o["eps"] = draw(EPS)
    if draw(st.integers(0, 9)) == 0:
        o["foreach"] = False
    return o


SCHEDULERS = st.one_of(
    st.none(),
    st.builds(lambda n, g: ("StepLR", {"step_size": n, "gamma": g}), st.integers(1, 3), _unit(0.1, 0.9)),
    st.builds(lambda m, g: ("MultiStepLR", {"milestones": m, "gamma": g}),
              st.lists(st.integers(1, 5), max_size=3), _unit(0.1, 0.9)),
    st.builds(lambda g: ("ExponentialLR", {"gamma": g}), _unit(0.5, 0.99)),
    st.builds(lambda t, e: ("CosineAnnealingLR", {"T_max": t, "eta_min": e}), st.integers(1, 4),
              st.sampled_from([0.0, 1e-4])),
    st.just(("LambdaLR", {})),
)


@st.composite
def trainings(draw: st.DrawFn) -> Training:
    n = draw(st.integers(1, 3))
    shapes = [draw(st.sampled_from(SHAPES)) for _ in range(n)]
    name = draw(st.sampled_from(["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]))
    groups = None
    if n > 1 and draw(st.booleans()):
        split = draw(st.integers(1, n - 1))
        groups = [(list(range(split)), draw(st.builds(dict))), (list(range(split, n)), _options(draw, name))]
    steps = []
    for _ in range(draw(st.integers(1, 5))):
        used = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        steps.append(Step([(i, draw(st.sampled_from(LOSSES))) for i in sorted(used)],
                          draw(st.sampled_from(["none", "none", "zeros", "keep"])), draw(st.booleans()),
                          draw(st.integers(0, 5)) == 0))
    return Training(draw(st.sampled_from(["float32", "float64"])), shapes, draw(st.integers(0, 2**32 - 1)), name,
                    _options(draw, name), groups, steps, draw(SCHEDULERS), draw(st.integers(0, 9)) == 0)


# -- running one ----------------------------------------------------------------------------------------

def _term(p: Any, kind: str, c: Any) -> Any:
    if kind == "linear":
        return (p * c).sum()
    if kind == "square":
        return ((p - c) ** 2).sum()
    if kind == "product":
        return (p * p * c).mean()
    return (p.abs() * c).sum()


def _array(t: Any) -> np.ndarray | None:
    """The tensor's values, every NaN made the same one (a NaN's sign and payload show nowhere a script
    can look: they differ with the order of a kernel's operands, in the losses' ops as much as anywhere)."""
    if t is None:
        return None
    a = np.array(t.detach().numpy(), copy=True)
    a[np.isnan(a)] = np.nan
    return a


def _value(v: Any) -> Any:
    """A state value or option as comparable data: a tensor as (dtype, shape, bytes, version)."""
    if hasattr(v, "detach"):
        a = _array(v)
        return ("tensor", str(a.dtype), a.shape, a.tobytes(), v._version)
    if isinstance(v, dict):
        return {k: _value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_value(x) for x in v)
    if isinstance(v, float):
        return ("float", v.hex())
    return v


def _snapshot(opt: Any, params: list, sched: Any) -> dict:
    sd = opt.state_dict()
    return {
        "params": [(_array(p).tobytes(), p._version) for p in params],
        "state": [(k, list(v.keys()), _value(v)) for k, v in sd["state"].items()],
        "groups": _value(sd["param_groups"]),
        "repr": repr(opt),
        "lr": None if sched is None else _value(sched.get_last_lr()),
    }


def run(lib: Any, tr: Training) -> list:
    """The training on ``lib``: what it printed after each step (or the error that stopped it)."""
    data = tr.arrays()
    if tr.default_float64:
        lib.set_default_dtype(lib.float64)
    try:
        return _run(lib, tr, data)
    finally:
        lib.set_default_dtype(lib.float32)


def _run(lib: Any, tr: Training, data: dict) -> list:
    params = [lib.from_numpy(a.copy()).requires_grad_() for a in data["init"]]
    consts = [lib.from_numpy(a.copy()) for a in data["const"]]
    if tr.groups is None:
        spec: Any = params
    else:
        spec = [{"params": [params[i] for i in idx], **opts} for idx, opts in tr.groups]
    out: list = []
    try:
        opt = getattr(lib.optim, tr.optimizer)(spec, **tr.options)
        sched = None
        if tr.scheduler is not None:
            kind, kw = tr.scheduler
            if kind == "LambdaLR":
                kw = {"lr_lambda": lambda e: 0.95 ** e}
            sched = getattr(lib.lr_scheduler, kind)(opt, **kw)
        out.append(_snapshot(opt, params, sched))
        for step in tr.steps:
            def loss(step: Step = step) -> Any:
                terms = [_term(params[i], kind, consts[i]) for i, kind in step.terms]
                total = terms[0]
                for t in terms[1:]:
                    total = total + t
                return total

            if step.closure:
                def closure() -> Any:
                    opt.zero_grad()
                    value = loss()
                    value.backward()
                    return value
                ret = opt.step(closure)
                out.append(("closure", _array(ret).tobytes(), [_array(p.grad) for p in params]))
            else:
                if step.zero != "keep":
                    opt.zero_grad(set_to_none=step.zero == "none")
                loss().backward()
                out.append(("grads", [_array(p.grad) for p in params]))
                opt.step()
            if sched is not None:
                sched.step()
            if step.reload:
                opt.load_state_dict(opt.state_dict())
            out.append(_snapshot(opt, params, sched))
    except Exception as error:  # noqa: BLE001 -- an error is part of what is compared
        out.append(("error", type(error).__name__, str(error)))
    return out


def _same_grads(a: list, b: list) -> bool:
    return all((x is None and y is None) or (x is not None and y is not None and x.tobytes() == y.tobytes()
                                             and x.dtype == y.dtype) for x, y in zip(a, b))


def check(tr: Training) -> None:
    expected, got = run(TORCH, tr), run(GRADCLI, tr)
    for i, (e, g) in enumerate(zip(expected, got)):
        if isinstance(e, tuple) and e[0] in ("grads", "closure") and isinstance(g, tuple) and g[0] == e[0]:
            # the loss's own gradients are the engine's autograd, not the optimizer: checked apart
            assert _same_grads(e[-1], g[-1]), f"entry {i}: the loss gradients differ (not the optimizer)"
            assert e[:-1] == g[:-1], f"entry {i}: the closure's loss differs"
            continue
        if e != g:
            detail = {k: (e[k], g[k]) for k in e if e[k] != g[k]} if isinstance(e, dict) and isinstance(g, dict) \
                else (e, g)
            raise AssertionError(f"entry {i} (after step {(i - 1) // 2 + 1 if i else 0}) differs: {detail}")
    assert len(expected) == len(got), (expected[-1], got[-1])


@SETTINGS
@given(trainings())
def test_random_trainings_match_pytorch(tr: Training) -> None:
    check(tr)


# -- the comparison can fail -----------------------------------------------------------------------------

def _fixed(name: str, **options: Any) -> Training:
    steps = [Step([(0, "square"), (1, "product")], "none", False, False) for _ in range(5)]
    return Training("float32", [(70,), (4, 4)], 7, name, options, None, steps)


FIXED = [_fixed("SGD", lr=0.05, momentum=0.9, weight_decay=0.01), _fixed("Adam", lr=0.03, amsgrad=True),
         _fixed("AdamW", lr=0.03), _fixed("RMSprop", lr=0.01, centered=True, momentum=0.5),
         _fixed("Adagrad", lr=0.1, lr_decay=0.01)]


@pytest.mark.parametrize("tr", FIXED, ids=lambda t: t.optimizer)
def test_the_fixed_trainings_pass(tr: Training) -> None:
    check(tr)


def _caught(tr: Training) -> None:
    with pytest.raises(AssertionError):
        check(tr)


def test_adam_with_mul_add_in_place_of_lerp_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # exp_avg * beta1 + grad * (1 - beta1) is lerp's value in exact arithmetic, not in float32
    from gradcli.engine.tensor import Tensor
    lerp_ = Tensor.lerp_

    def mul_add(self: Any, end: Any, weight: Any) -> Any:
        if isinstance(weight, float):
            return self.mul_(1 - weight).add_(end, alpha=weight)
        return lerp_(self, end, weight)
    monkeypatch.setattr(Tensor, "lerp_", mul_add)
    _caught(FIXED[1])


def test_addcdiv_dividing_first_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # the brief's guess, self + value * (t1 / t2), rounds differently from PyTorch's kernel
    from gradcli.engine.dispatch.publish import OPS
    from gradcli.engine.dispatch.promotion import arr, promote

    def divide_first(b: dict) -> Any:
        rt = promote(b["self"], b["tensor1"], b["tensor2"])
        s, t1, t2 = (arr(b[k], rt) for k in ("self", "tensor1", "tensor2"))
        return s + rt.np.type(b.get("value", 1)) * (t1 / t2)
    monkeypatch.setattr(OPS["addcdiv"], "forward", divide_first)
    _caught(FIXED[4])


def test_add_with_alpha_rounding_twice_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # param.add_(grad, alpha=-lr) is one fused multiply-add in PyTorch
    from gradcli.engine.dispatch.publish import OPS
    from gradcli.engine.dispatch.promotion import binary_arrays

    def twice(b: dict) -> Any:
        x, y, rt = binary_arrays(b["self"], b["other"])
        return x + y * rt.np.type(b.get("alpha", 1))
    monkeypatch.setattr(OPS["add"], "forward", twice)
    _caught(FIXED[0])


def test_a_correctly_rounded_sqrt_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # what gradcli had before it reproduced MKL's sqrt
    from gradcli.engine.dispatch.publish import OPS
    from gradcli.engine.dispatch.promotion import arr, float_dtype
    monkeypatch.setattr(OPS["sqrt"], "forward", lambda b: np.sqrt(arr(b["self"], float_dtype(b["self"]))))
    _caught(FIXED[1])


def test_a_missing_state_entry_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.engine.optim import rmsprop
    init_group = rmsprop.RMSprop._init_group

    def without_step(self: Any, group: dict, *lists: Any) -> None:
        init_group(self, group, *lists)
        for p in group["params"]:
            self.state[p].pop("step", None)
            self.state[p]["step"] = lists[-1][0]  # still counted, but stored after the averages
    monkeypatch.setattr(rmsprop.RMSprop, "_init_group", without_step)
    _caught(FIXED[3])


def test_a_float64_step_counter_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.engine import dtypes
    from gradcli.engine.optim import optimizer
    monkeypatch.setattr(optimizer, "scalar_dtype", lambda: dtypes.float64)
    _caught(FIXED[2])
