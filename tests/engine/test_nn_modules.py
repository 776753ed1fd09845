"""``torch.nn``'s modules on their own (no PyTorch needed): plain Python subclasses of ``nn.Module``,
as a script's classes will be, registration and its errors, traversal, hooks, state dicts, reprs,
``Parameter``, and the lazy loading of ``torch.nn``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradcli.engine import api
from gradcli.engine.errors import TorchError
from gradcli.engine.tensor import Tensor

nn = api.LAZY_SUBMODULES["nn"]()
init = api.LAZY_SUBMODULES["nn.init"]()
torch = api.TORCH
Module, Parameter, Linear = nn["Module"], nn["Parameter"], nn["Linear"]


def tensor(data: object) -> Tensor:
    return torch["tensor"](data)


def error_of(fn: object) -> str:
    with pytest.raises(TorchError) as caught:
        fn()
    return f"{type(caught.value).__name__}: {caught.value}"


class Net(Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = Linear(3, 2)
        self.gain = Parameter(torch["ones"](2))
        self.register_buffer("count", tensor(0))
        self.tag = "net"

    def forward(self, x: Tensor) -> Tensor:
        self.count += 1
        return self.fc(x) * self.gain


def test_importing_the_api_does_not_load_torch_nn() -> None:
    program = ("import sys, gradcli.engine.api\n"
               "print(sorted(m for m in sys.modules if m.startswith('gradcli.engine.nn.modules') or m in "
               "('gradcli.engine.nn.init', 'gradcli.engine.nn.parameter')))")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_nn_has_pytorchs_classes_with_pytorchs_names() -> None:
    for name in ("Module", "Parameter", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
                 "Linear", "Bilinear", "Identity", "Flatten", "Unflatten", "Embedding", "Dropout", "LayerNorm",
                 "BatchNorm1d", "ReLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "GELU", "SiLU", "Softplus", "Softmax",
                 "LogSoftmax", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss",
                 "CrossEntropyLoss", "NLLLoss"):
        assert nn[name].__name__ == name
    assert repr(nn["Linear"]) == "<class 'torch.nn.modules.linear.Linear'>"
    assert repr(nn["Module"]) == "<class 'torch.nn.modules.module.Module'>"
    assert repr(nn["Parameter"]) == "<class 'torch.nn.parameter.Parameter'>"
    assert repr(nn["Sequential"]) == "<class 'torch.nn.modules.container.Sequential'>"
    assert repr(nn["CrossEntropyLoss"]) == "<class 'torch.nn.modules.loss.CrossEntropyLoss'>"
    assert Module.__script_dynamic__ is True and "parameters" in Module.__script_attrs__
    assert set(init) >= {"uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_", "xavier_uniform_",
                         "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "calculate_gain"}


def test_a_plain_subclass_registers_what_it_assigns() -> None:
    torch["manual_seed"](0)
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["gain", "fc.weight", "fc.bias"]
    assert [n for n, _ in net.named_buffers()] == ["count"]
    assert list(net.state_dict()) == ["gain", "count", "fc.weight", "fc.bias"]
    assert net.tag == "net" and net.training is True
    out = net(torch["ones"](4, 3))
    out.sum().backward()
    assert net.count.item() == 1 and net.gain.grad is not None
    assert repr(net) == "Net(\n  (fc): Linear(in_features=3, out_features=2, bias=True)\n)"
    net.extra = Linear(1, 1)
    del net.fc
    assert [n for n, _ in net.named_children()] == ["extra"]
    assert error_of(lambda: net.fc) == "AttributeError: 'Net' object has no attribute 'fc'"


def test_assignment_errors_are_pytorchs() -> None:
    net = Net()
    assert error_of(lambda: setattr(net, "gain", torch["ones"](2))) == (
        "TypeError: cannot assign 'torch.FloatTensor' as parameter 'gain' (torch.nn.Parameter or None expected)")
    net.sub = nn["ReLU"]()
    assert error_of(lambda: setattr(net, "sub", 3)) == (
        "TypeError: cannot assign 'int' as child module 'sub' (torch.nn.Module or None expected)")
    assert error_of(lambda: net.register_buffer("gain", None)) == "KeyError: \"attribute 'gain' already exists\""
    assert error_of(lambda: net.add_module("a.b", None)) == "KeyError: 'module name can\\'t contain \".\", got: a.b'"
    assert error_of(lambda: net.register_parameter("p", torch["ones"](1))) == (
        "TypeError: cannot assign 'torch.FloatTensor' object to parameter 'p' (torch.nn.Parameter or None required)")
    assert error_of(lambda: net.train("yes")) == "ValueError: training mode is expected to be boolean"
    assert error_of(lambda: Module(1)) == "TypeError: Module.__init__() takes 1 positional argument but 2 were given"


def test_a_subclass_that_forgot_init_fails_as_in_pytorch() -> None:
    class Broken(Module):
        def __init__(self) -> None:
            self.fc = Linear(2, 2)

    class NoParameters(Module):
        def __init__(self) -> None:
            self.w = Parameter(torch["ones"](2))

    class Plain(Module):
        def __init__(self) -> None:
            self.k = 3

        def forward(self, x: Tensor) -> Tensor:
            return x * self.k

    assert error_of(Broken) == "AttributeError: cannot assign module before Module.__init__() call"
    assert error_of(NoParameters) == "AttributeError: cannot assign parameters before Module.__init__() call"
    plain = Plain()
    assert plain.forward(torch["ones"](1)).item() == 3
    assert error_of(lambda: plain(torch["ones"](1))) == (
        "AttributeError: 'Plain' object has no attribute '_backward_hooks'")


def test_a_module_without_forward_says_so() -> None:
    class NoForward(Module):
        pass

    assert error_of(lambda: NoForward()(1)) == (
        'NotImplementedError: Module [NoForward] is missing the required "forward" function')


def test_a_forward_called_with_the_wrong_arguments_fails_with_pythons_message() -> None:
    assert error_of(lambda: nn["MSELoss"]()(torch["ones"](1))) == (
        "TypeError: MSELoss.forward() missing 1 required positional argument: 'target'")


def test_traversal_visits_shared_modules_once() -> None:
    shared = Linear(2, 2)
    seq = nn["Sequential"](shared, nn["Tanh"](), nn["Sequential"](shared))
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1", "2"]
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1", "2", "2.0"]
    assert len(list(seq.parameters())) == 2
    assert seq.get_submodule("2.0") is shared


def test_train_eval_requires_grad_and_zero_grad() -> None:
    seq = nn["Sequential"](Linear(2, 2), nn["Dropout"](0.5))
    assert seq.eval() is seq and not seq[1].training
    seq.train()
    seq(torch["ones"](1, 2)).sum().backward()
    seq.zero_grad(set_to_none=False)
    assert seq[0].bias.grad.tolist() == [0.0, 0.0]
    seq.zero_grad()
    assert seq[0].bias.grad is None
    seq.requires_grad_(False)
    assert [p.requires_grad for p in seq.parameters()] == [False, False]


def test_containers_index_grow_and_print() -> None:
    layers = nn["ModuleList"]([nn["ReLU"](), nn["ReLU"](), nn["Tanh"]()])
    assert repr(layers) == "ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n)"
    layers.append(nn["Sigmoid"]())
    assert len(layers) == 4 and type(layers[-1]).__name__ == "Sigmoid"
    assert error_of(lambda: layers[9]) == "IndexError: index 9 is out of range"
    seq = nn["Sequential"]({"first": Linear(1, 1), "act": nn["ReLU"]()})
    assert list(seq._modules) == ["first", "act"] and seq.first is seq[0]
    assert isinstance(seq[1:], nn["Sequential"])
    pd = nn["ParameterDict"]({"b": torch["ones"](1), "a": torch["zeros"](2)})
    assert list(pd.keys()) == ["a", "b"] and isinstance(pd["a"], Parameter)
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of size 2]\n"
                        "    (b): Parameter containing: [torch.FloatTensor of size 1]\n)")
    assert error_of(lambda: nn["ParameterList"]()(1)) == "RuntimeError: ParameterList should not be called."


def test_state_dict_round_trip_and_errors() -> None:
    torch["manual_seed"](1)
    a, b = Linear(2, 1), Linear(2, 1)
    sd = a.state_dict()
    assert repr(b.load_state_dict(sd)) == "<All keys matched successfully>"
    assert torch["equal"](a.weight, b.weight) and a.weight is not b.weight
    assert repr(b.load_state_dict({"weight": torch["ones"](1, 2)}, strict=False)) == (
        "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])")
    message = error_of(lambda: b.load_state_dict({"weight": torch["ones"](3, 3), "bias": torch["ones"](1)}))
    assert message == ("RuntimeError: Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying "
                       "a "
                       "param with shape torch.Size([3, 3]) from checkpoint, the shape in current model is "
                       "torch.Size([1, 2]).")


def test_hooks_run_in_order_and_handles_remove_them() -> None:
    seen: list[str] = []
    lin = Linear(2, 2)
    h1 = lin.register_forward_pre_hook(lambda m, args: seen.append("pre"))
    h2 = lin.register_forward_hook(lambda m, args, out: out * 0)
    assert lin(torch["ones"](1, 2)).abs().sum().item() == 0 and seen == ["pre"]
    assert repr(h1).startswith("<torch.utils.hooks.RemovableHandle object at 0x") and h2.id == h1.id + 1
    h1.remove()
    h2.remove()
    assert lin(torch["ones"](1, 2)).abs().sum().item() != 0 and seen == ["pre"]


def test_full_backward_hook_sees_the_gradients_of_inputs_and_outputs() -> None:
    seen: list = []
    lin = Linear(2, 3)
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((tuple(gi[0].shape), tuple(go[0].shape))))
    x = torch["ones"](4, 2).requires_grad_()
    out = lin(x)
    assert repr(out.grad_fn).startswith("<torch.autograd.function.BackwardHookFunctionBackward object at 0x")
    out.sum().backward()
    assert seen == [((4, 2), (4, 3))]


def test_parameter_is_a_tensor_whose_results_are_plain_tensors() -> None:
    p = Parameter(tensor([1.0, -2.0]))
    assert repr(p) == "Parameter containing:\ntensor([ 1., -2.], requires_grad=True)" == str(p)
    assert p.is_leaf and p.requires_grad and isinstance(p, Tensor)
    assert type(p * 2) is Tensor and type(p.data) is Tensor and type(p.detach()) is Tensor
    with torch["no_grad"]():
        assert p.add_(0) is p
    q = Parameter(tensor([1.0]), requires_grad=False)
    assert repr(q) == "Parameter containing:\ntensor([1.])"
    assert error_of(lambda: Parameter(tensor([1, 2]))) == (
        "RuntimeError: Only Tensors of floating point and complex dtype can require gradients")


def test_default_initialisation_draws_pytorchs_numbers() -> None:
    torch["manual_seed"](0)
    lin = Linear(3, 2)
    assert lin.weight.tolist() == [[-0.004322517663240433, 0.3097158372402191, -0.4751853346824646],
                                   [-0.4248946011066437, -0.2223689705133438, 0.15482072532176971]]
    assert lin.bias.tolist() == [-0.011439144611358643, 0.45777493715286255]
    assert init["calculate_gain"]("tanh") == 5.0 / 3 and init["calculate_gain"]("linear") == 1


def test_conversions_keep_the_parameter_objects() -> None:
    lin = Linear(2, 2)
    w = lin.weight
    assert lin.double() is lin and lin.weight is w and w.dtype is api.TORCH["float64"]
    assert error_of(lambda: lin.to(api.TORCH["int64"])) == (
        "TypeError: nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64")
