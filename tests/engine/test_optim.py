"""``torch.optim`` and ``torch.optim.lr_scheduler``: behaviour checked against values PyTorch 2.13 printed.

(The expected numbers and texts below were printed by torch 2.13.0; test_optim_oracle.py compares with a
live torch on random trainings.)
"""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine import warnings as engine_warnings
from gradcli.engine.errors import TorchError
from gradcli.engine.tensor import Tensor

T = api.TORCH
optim = api.LAZY_SUBMODULES["optim"]()
lr_scheduler = api.LAZY_SUBMODULES["optim.lr_scheduler"]()
SGD, Adam, AdamW, RMSprop, Adagrad = (optim[n] for n in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"))


def leaf(values: Any) -> Tensor:
    return T["tensor"](values, requires_grad=True)


def train(opt: Any, x: Tensor, steps: int = 3) -> None:
    for _ in range(steps):
        opt.zero_grad()
        ((x - 0.5) ** 2).sum().backward()
        opt.step()


@pytest.fixture
def caught_warnings() -> Any:
    seen: list[str] = []
    engine_warnings.set_warning_handler(lambda category, message: seen.append(f"{category}: {message}"))
    yield seen
    engine_warnings.set_warning_handler(None)


# -- the updates (values from torch, float32) -------------------------------------------------------------

UPDATES = [
    (SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
     [0.441409170627594, 0.776362419128418, 0.21810707449913025],
     {"momentum_buffer": [1.601382851600647, -7.959347724914551, 7.975203514099121]}),
    (Adam, dict(lr=0.1, amsgrad=True), [0.7048712968826294, -1.7004739046096802, 2.7004740238189697],
     {"step": 3.0, "exp_avg": [0.21323749423027039, -1.297025442123413, 1.297025442123413],
      "exp_avg_sq": [0.0020002166274935007, 0.0691293254494667, 0.0691293329000473],
      "max_exp_avg_sq": [0.0020002166274935007, 0.0691293254494667, 0.0691293329000473]}),
    (AdamW, dict(lr=0.1), [0.702258288860321, -1.6947910785675049, 2.6917996406555176],
     {"step": 3.0, "exp_avg": [0.21268166601657867, -1.2958863973617554, 1.2953070402145386],
      "exp_avg_sq": [0.0019925101660192013, 0.0690193772315979, 0.06896353513002396]}),
    (RMSprop, dict(lr=0.01, momentum=0.9, centered=True), [0.5708675384521484, -1.539003849029541, 2.539003849029541],
     {"step": 3.0, "square_avg": [0.018537862226366997, 0.6735348701477051, 0.6735349297523499],
      "momentum_buffer": [17.493789672851562, -19.991151809692383, 19.991153717041016],
      "grad_avg": [0.02262713387608528, -0.14129333198070526, 0.14129333198070526]}),
    (Adagrad, dict(lr=0.1, lr_decay=0.1), [0.803841233253479, -1.7904499769210815, 2.790449857711792],
     {"step": 3.0, "sum": [2.111171007156372, 69.88706970214844, 69.88706970214844]}),
]


@pytest.mark.parametrize("cls, options, params, state", UPDATES, ids=lambda v: getattr(v, "__name__", ""))
def test_three_steps_give_pytorchs_parameters_and_state(cls: Any, options: dict, params: list, state: dict) -> None:
    x = leaf([1.0, -2.0, 3.0])
    opt = cls([x], **options)
    train(opt, x)
    assert x.tolist() == params
    got = {k: (v.tolist() if v.dim() else v.item()) for k, v in opt.state[x].items()}
    assert got == state  # (keys in PyTorch's order too)
    assert list(got) == list(state)


def test_the_step_counter_is_a_float_tensor_of_the_default_dtype() -> None:
    x = leaf([1.0])
    opt = Adam([x])
    train(opt, x, 2)
    assert repr(opt.state_dict()["state"][0]["step"]) == "tensor(2.)"
    assert opt.state[x]["step"].dtype is T["float32"]
    T["set_default_dtype"](T["float64"])
    try:
        y = leaf([1.0])
        opt = RMSprop([y])
        train(opt, y, 1)
        assert opt.state[y]["step"].dtype is T["float64"]
    finally:
        T["set_default_dtype"](T["float32"])


def test_a_parameter_without_a_gradient_is_skipped() -> None:
    frozen, used = leaf([1.0, 2.0]), leaf([0.5])
    opt = SGD([frozen, used], lr=1.0, momentum=0.9)
    (used * 3).sum().backward()
    opt.step()
    assert frozen.tolist() == [1.0, 2.0] and frozen.grad is None and used.tolist() == [-2.5]
    assert list(opt.state_dict()["state"]) == [1]


def test_updates_are_in_place_and_leave_no_history() -> None:
    x = leaf([1.0, -2.0])
    opt = Adam([x], lr=0.1)
    train(opt, x, 2)
    assert x.is_leaf and x.requires_grad and x.grad_fn is None
    assert x._version == 2  # one addcdiv_ per step
    assert opt.state[x]["exp_avg"]._version == 2 and opt.state[x]["exp_avg_sq"]._version == 4


# -- groups, repr, state_dict -----------------------------------------------------------------------------

SGD_REPR = """SGD (
Parameter Group 0
    dampening: 0
    differentiable: False
    foreach: None
    fused: None
    lr: 0.01
    maximize: False
    momentum: 0
    nesterov: False
    weight_decay: 0

Parameter Group 1
    dampening: 0
    differentiable: False
    foreach: None
    fused: None
    lr: 0.5
    maximize: False
    momentum: 0.9
    nesterov: False
    weight_decay: 0
)"""

RMSPROP_REPR = """RMSprop (
Parameter Group 0
    alpha: 0.99
    capturable: False
    centered: False
    differentiable: False
    eps: 1e-08
    foreach: None
    lr: 0.01
    maximize: False
    momentum: 0.5
    weight_decay: 0

Parameter Group 1
    alpha: 0.99
    capturable: False
    centered: True
    differentiable: False
    eps: 1e-08
    foreach: None
    lr: 0.1
    maximize: False
    momentum: 0.5
    weight_decay: 0
)"""


def test_groups_repr_and_key_order_are_pytorchs() -> None:
    a, b = leaf([1.0]), leaf([2.0])
    group = {"params": iter([b]), "lr": 0.5, "momentum": 0.9}
    opt = SGD([{"params": [a]}, group], lr=0.01)
    assert repr(opt) == SGD_REPR
    assert opt.param_groups[1] is group  # the dict given, completed with the defaults
    assert list(group) == ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize",
                           "foreach", "differentiable", "fused"]
    opt = RMSprop([{"params": [a]}, {"params": [b], "lr": 0.1, "centered": True}], momentum=0.5)
    assert repr(opt) == RMSPROP_REPR
    assert list(opt.param_groups[1]) == ["params", "lr", "centered", "momentum", "alpha", "eps", "weight_decay",
                                         "capturable", "foreach", "maximize", "differentiable"]


def test_adam_and_adamw_repr() -> None:
    x = leaf([1.0])
    assert repr(AdamW([x], lr=0.02)).splitlines()[1:6] == [
        "Parameter Group 0", "    amsgrad: False", "    betas: (0.9, 0.999)", "    capturable: False",
        "    decoupled_weight_decay: True"]
    assert Adam([x], betas=[0.85, 0.995]).param_groups[0]["betas"] == (0.85, 0.995)
    assert type(AdamW([x])).__mro__[1] is Adam


def test_add_param_group_and_state_dict() -> None:
    a, b, extra = leaf([1.0]), leaf([2.0, 3.0]), leaf([0.0, 0.0, 0.0])
    opt = SGD([{"params": [a, b]}], lr=0.1, momentum=0.9)
    train(opt, b, 1)
    opt.add_param_group({"params": extra, "lr": 1.0})
    assert (len(opt.param_groups), opt.param_groups[1]["momentum"], opt.param_groups[1]["nesterov"]) == (2, 0.9, False)
    sd = opt.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert list(sd["param_groups"][0]) == ["lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize",
                                           "foreach", "differentiable", "fused", "params"]
    assert list(sd["state"]) == [1] and sd["state"][1] is opt.state[b]  # (the live state, as PyTorch's)


def test_adagrad_fills_every_state_in_its_constructor() -> None:
    p, q = leaf([1.0, -2.0, 3.0]), leaf([[0.5, 0.25]])
    opt = Adagrad([p, q], lr=0.5, initial_accumulator_value=0.1)
    sd = opt.state_dict()
    assert list(sd["state"]) == [0, 1] and list(sd["state"][0]) == ["step", "sum"]
    assert repr(sd["state"][1]["sum"]) == "tensor([[0.1000, 0.1000]])" and repr(sd["state"][0]["step"]) == "tensor(0.)"


def test_load_state_dict_continues_the_same_training() -> None:
    x, y = leaf([1.0, -2.0, 3.0]), leaf([1.0, -2.0, 3.0])
    first = Adam([x], lr=0.1)
    train(first, x, 2)
    second = Adam([y], lr=0.5)
    with T["no_grad"]():
        y.copy_(x)
    second.load_state_dict(copy.deepcopy(first.state_dict()))
    assert second.param_groups[0]["lr"] == 0.1 and second.param_groups[0]["params"][0] is y
    # (without the copy both would share the state's tensors: Tensor.to of the same dtype is the tensor)
    shared = Adam([leaf([0.0])])
    shared.load_state_dict(first.state_dict())
    assert shared.state[shared.param_groups[0]["params"][0]]["exp_avg"] is first.state[x]["exp_avg"]
    train(first, x, 2)
    train(second, y, 2)
    assert x.tolist() == y.tolist()
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        second.load_state_dict({"state": {}, "param_groups": []})


# -- zero_grad and closures -------------------------------------------------------------------------------

def test_zero_grad_to_none_or_to_zeros() -> None:
    x = leaf([1.0, 2.0])
    opt = SGD([x], lr=0.1)
    (x * 2).sum().backward()
    opt.zero_grad()
    assert x.grad is None
    (x * 2).sum().backward()
    grad = x.grad
    opt.zero_grad(set_to_none=False)
    assert x.grad is grad and repr(x.grad) == "tensor([0., 0.])"


def test_a_closure_runs_with_grad_enabled_and_its_loss_is_returned() -> None:
    x = leaf([1.0, 2.0])
    opt = SGD([x], lr=0.1)
    modes = []

    def closure() -> Tensor:
        modes.append(T["is_grad_enabled"]())
        opt.zero_grad()
        loss = (x ** 2).sum()
        loss.backward()
        return loss

    with T["no_grad"]():
        loss = opt.step(closure)
        assert not T["is_grad_enabled"]()  # (the caller's mode, restored)
    assert modes == [True] and loss.item() == 5.0 and loss.grad_fn is not None
    assert x.tolist() == [0.800000011920929, 1.600000023841858]
    assert opt.step() is None


# -- errors, as PyTorch words them ------------------------------------------------------------------------

ERRORS = [
    (lambda p: SGD([]), ValueError, "optimizer got an empty parameter list"),
    (lambda p: SGD(p), TypeError, "params argument given to the optimizer should be an iterable of Tensors or "
                                  "dicts, but got torch.FloatTensor"),
    (lambda p: SGD([1]), TypeError, "optimizer can only optimize Tensors, but one of the params is int"),
    (lambda p: SGD(5), TypeError, "'int' object is not iterable"),
    (lambda p: SGD([p * 2]), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda p: SGD([{"lr": 0.1}]), KeyError, "'params'"),
    (lambda p: SGD([{"params": p}, {"params": [p]}]), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda p: SGD([{"params": {p}}]), TypeError,
     "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets "
     "will change between runs. Please use a list instead."),
    (lambda p: SGD([p]).add_param_group([p]), TypeError, "param_group must be a dict, but got <class 'list'>"),
    (lambda p: SGD([p], lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
    (lambda p: SGD([p], lr="a"), TypeError, "'<' not supported between instances of 'str' and 'float'"),
    (lambda p: SGD([p], momentum=-1), ValueError, "Invalid momentum value: -1"),
    (lambda p: SGD([p], lr=0.1, nesterov=True), ValueError, "Nesterov momentum requires a momentum and zero "
                                                            "dampening"),
    (lambda p: Adam([p], betas=(0.9, 1)), ValueError, "Invalid beta parameter at index 1: 1"),
    (lambda p: Adam([p], betas=(1.0, 0.99)), ValueError, "Invalid beta parameter at index 0: 1.0"),
    (lambda p: Adam([p], betas=(0, 0.99)), ValueError, "betas must be either both floats or both Tensors"),
    (lambda p: Adam([p], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda p: RMSprop([p], alpha=-1), ValueError, "Invalid alpha value: -1"),
    (lambda p: Adagrad([p], lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
    (lambda p: Adagrad([p], initial_accumulator_value=-1), ValueError,
     "Invalid initial_accumulator_value value: -1"),
    (lambda p: optim["Optimizer"]([p], {}).step(), NotImplementedError, ""),
    (lambda p: SGD([("a", p), p]), ValueError,
     "all optimizer params should be with/without names. Some param names are missing"),
]


@pytest.mark.parametrize("make, error, message", ERRORS, ids=[e[2][:40] or "step" for e in ERRORS])
def test_errors_are_pytorchs(make: Any, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        make(leaf([1.0]))
    assert isinstance(info.value, TorchError)  # the script's error, not an internal one
    assert str(info.value) == message


def test_capturable_fails_on_the_cpu_as_in_pytorch() -> None:
    x = leaf([1.0])
    opt = Adam([x], capturable=True)
    (x * 2).sum().backward()
    with pytest.raises(AssertionError) as info:
        opt.step()
    assert str(info.value) == ("If capturable=True, params and state_steps must be on supported devices: "
                               "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")


@pytest.mark.parametrize("option", ["foreach", "fused"])
def test_the_multi_tensor_and_fused_paths_say_they_are_not_supported(option: str) -> None:
    x = leaf([1.0])
    opt = Adam([x], **{option: True})
    (x * 2).sum().backward()
    with pytest.raises(NotImplementedError, match=f"gradcli does not support torch.optim.Adam\\({option}=True\\)"):
        opt.step()


def test_duplicate_parameters_warn(caught_warnings: list) -> None:
    x = leaf([1.0])
    SGD([x, x])
    assert caught_warnings == [
        "UserWarning: optimizer contains a parameter group with duplicate parameters; in future, this will cause "
        "an error; see github.com/pytorch/pytorch/issues/40967 for more information"]


# -- plain Python subclasses and Tensor subclasses ----------------------------------------------------------

def test_a_plain_python_subclass_is_a_working_optimizer() -> None:
    Optimizer = optim["Optimizer"]

    class SignSGD(Optimizer):
        def __init__(self, params: Any, lr: float = 0.1) -> None:
            super().__init__(params, {"lr": lr})

        def step(self, closure: Any = None) -> None:
            with T["no_grad"]():
                for group in self.param_groups:
                    for p in group["params"]:
                        self.state[p]["n"] = self.state[p].get("n", 0) + 1
                        p.add_(p.grad.sign(), alpha=-group["lr"])

    x = leaf([1.0, -2.0])
    opt = SignSGD([x], lr=0.5)
    train(opt, x, 2)
    assert x.tolist() == [0.5, -1.0] and opt.state_dict()["state"] == {0: {"n": 2}}
    assert repr(opt) == "SignSGD (\nParameter Group 0\n    lr: 0.5\n)"


def test_tensor_subclasses_are_parameters() -> None:
    class Parameter(Tensor):
        __slots__ = ()

    p = leaf([1.0, 2.0])
    p.__class__ = Parameter
    opt = SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    assert p.tolist() == [0.0, 0.0] and type(p) is Parameter


def test_pytorchs_class_names() -> None:
    names = {cls: (cls.__module__, cls.__qualname__) for cls in (SGD, Adam, AdamW, RMSprop, Adagrad)}
    assert names[AdamW] == ("torch.optim.adamw", "AdamW") and names[SGD] == ("torch.optim.sgd", "SGD")
    assert repr(optim["Optimizer"]) == "<class 'torch.optim.optimizer.Optimizer'>"
    assert repr(lr_scheduler["StepLR"]) == "<class 'torch.optim.lr_scheduler.StepLR'>"


# -- schedulers ---------------------------------------------------------------------------------------------

SCHEDULES = [
    ("StepLR", dict(step_size=2, gamma=0.5), [0.2, 0.1, 0.1, 0.05, 0.05, 0.025, 0.025],
     ["step_size", "gamma"]),
    ("MultiStepLR", dict(milestones=[1, 3, 3], gamma=0.1),
     [0.020000000000000004, 0.020000000000000004, 0.0002000000000000001, 0.0002000000000000001,
      0.0002000000000000001, 0.0002000000000000001, 0.0002000000000000001], ["milestones", "gamma"]),
    ("ExponentialLR", dict(gamma=0.9),
     [0.18000000000000002, 0.16200000000000003, 0.14580000000000004, 0.13122000000000003, 0.11809800000000004,
      0.10628820000000004, 0.09565938000000004], ["gamma"]),
    ("CosineAnnealingLR", dict(T_max=3, eta_min=0.01),
     [0.15250000000000002, 0.05750000000000003, 0.01, 0.05749999999999999, 0.1525000000000001,
      0.20000000000000012, 0.15250000000000014], ["T_max", "eta_min"]),
    ("LambdaLR", dict(lr_lambda=lambda e: 0.5 ** e), [0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125, 0.0015625], []),
]


@pytest.mark.parametrize("name, options, lrs, own", SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_schedules_are_pytorchs_floats(name: str, options: dict, lrs: list, own: list) -> None:
    x = leaf([0.0])
    opt = SGD([x], lr=0.2)
    sched = lr_scheduler[name](opt, **options)
    assert sched.last_epoch == 0 and sched.get_last_lr() == [0.2] and opt.param_groups[0]["initial_lr"] == 0.2
    seen = []
    for _ in range(7):
        opt.step()
        sched.step()
        seen.append(sched.get_last_lr()[0])
    assert seen == lrs and sched.last_epoch == 7 and opt.param_groups[0]["lr"] == lrs[-1]
    base = ["base_lrs", "last_epoch", "_step_count", "_is_initial", "_get_lr_called_within_step", "_last_lr"]
    assert list(sched.state_dict()) == own + base + (["lr_lambdas"] if name == "LambdaLR" else [])


def test_step_with_an_epoch_uses_the_closed_form(caught_warnings: list) -> None:
    x = leaf([0.0])
    opt = SGD([x], lr=1.0)
    sched = lr_scheduler["CosineAnnealingLR"](opt, T_max=4)
    sched.step()
    sched.step(2)
    assert sched.get_last_lr() == [0.5] and sched.last_epoch == 2
    sched = lr_scheduler["StepLR"](opt, 2)
    sched.step(5)
    assert sched.get_last_lr() == [0.010000000000000002]
    assert [w.split(":")[1][:40] for w in caught_warnings] == [
        " Detected call of `lr_scheduler.step()` ", " The epoch parameter in `scheduler.step(",
        " Detected call of `lr_scheduler.step()` ", " The epoch parameter in `scheduler.step("]


def test_schedulers_follow_every_group_and_wrap_the_step() -> None:
    p, q = leaf([0.0]), leaf([0.0])
    opt = SGD([{"params": [p]}, {"params": [q], "lr": 0.01}], lr=0.2)
    sched = lr_scheduler["StepLR"](opt, step_size=1, gamma=0.5)
    for _ in range(3):
        opt.step()
        sched.step()
    assert sched.get_last_lr() == [0.025, 0.00125] == [g["lr"] for g in opt.param_groups]
    assert opt._opt_called is True and opt.step.__qualname__ == "SGD.step"
    with pytest.raises(TypeError, match="int is not an Optimizer"):
        lr_scheduler["StepLR"](3, 1)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler["LambdaLR"](opt, [lambda e: 1.0])


def test_a_plain_python_scheduler_subclass() -> None:
    class Halving(lr_scheduler["LRScheduler"]):
        def get_lr(self) -> list:
            return [lr * 0.5 for lr in self.base_lrs]

    x = leaf([0.0])
    opt = SGD([x], lr=0.4)
    sched = Halving(opt)
    opt.step()
    sched.step()
    assert sched.get_last_lr() == [0.2]


# -- loading -----------------------------------------------------------------------------------------------

def test_torch_optim_loads_on_first_use_only() -> None:
    program = ("import sys\nimport gradcli.engine.api as api\n"
               "assert not any(m.startswith('gradcli.engine.optim') for m in sys.modules), 'loaded at start-up'\n"
               "members = api.LAZY_SUBMODULES['optim']()\n"
               "assert 'gradcli.engine.optim.sgd' in sys.modules and 'gradcli.engine.optim.lr_scheduler' not in "
               "sys.modules\n"
               "assert sorted(members) == ['Adagrad', 'Adam', 'AdamW', 'Optimizer', 'RMSprop', 'SGD']\n")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_numbers_are_plain_floats() -> None:
    x = leaf([1.0])
    opt = Adam([x])
    assert isinstance(opt.param_groups[0]["lr"], float) and np.isscalar(opt.defaults["eps"])
