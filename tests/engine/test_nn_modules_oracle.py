"""``torch.nn`` modules against live PyTorch: the same snippets print the same, bit for bit.

Skipped unless torch is importable.  Each snippet runs once with PyTorch and
once with gradcli's engine (``nn_scripts``), with plain Python subclasses of
``nn.Module`` as a script's classes will be; the whole printed output (reprs,
values, gradients), the warnings and the final error must be identical.
Hypothesis draws stacks of layers, activations and a loss, and compares the
forward values, the loss and every gradient bit for bit.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, example, find, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from cpu_kernels import only_avx512  # noqa: E402
import mkl_reference  # noqa: E402
from nn_scripts import gradcli_names, run, torch_names  # noqa: E402

TORCH = torch_names()
GRADCLI = gradcli_names()
EXAMPLES = int(os.environ.get("GRADCLI_ORACLE_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=EXAMPLES <= 40)


NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]\d+)?|-?\d+e[-+]\d+")


def same(source: str, rtol: float = 0.0) -> None:
    """The snippet prints, warns and fails as with PyTorch; with ``rtol`` the printed floats may differ
    by that much (where the engine's matrix products do not add in MKL's order)."""
    want = run(source, TORCH, real_torch=True)
    got = run(source, GRADCLI, real_torch=False)
    assert got[1] == want[1], f"error: torch {want[1]!r}, gradcli {got[1]!r}\n{got[0]}"
    if rtol:
        assert NUMBER.split(got[0]) == NUMBER.split(want[0])
        expected = np.array([float(v) for v in NUMBER.findall(want[0])])
        actual = np.array([float(v) for v in NUMBER.findall(got[0])])
        scale = np.abs(expected).max() if expected.size else 1.0
        assert np.allclose(actual, expected, rtol=rtol, atol=rtol * scale), (want[0], got[0])
    else:
        assert got[0] == want[0]
    assert got[2] == want[2], "warnings"


SNIPPETS = {
    "subclass_registration": """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.scale = nn.Parameter(torch.ones(2))
        self.register_buffer("steps", torch.tensor(0))
        self.register_buffer("cache", torch.zeros(1), persistent=False)
        self.note = "text"
    def forward(self, x):
        self.steps += 1
        return self.fc(x) * self.scale
torch.manual_seed(0)
net = Net()
print(net)
print([n for n, _ in net.named_parameters()], [n for n, _ in net.named_buffers()])
print(list(net.state_dict().keys()), net.note, net.training)
y = net(torch.ones(4, 3))
y.sum().backward()
print(y, net.steps, net.fc.weight.grad, net.scale.grad)
net.scale = None
print([n for n, _ in net.named_parameters()], net.scale)
del net.fc
print(net, hasattr(net, "fc"))
""",
    "setattr_errors": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(1))
        self.sub = nn.ReLU()
        self.register_buffer("b", torch.ones(1))
m = M()
for attempt in ["m.w = torch.ones(1)", "m.sub = 3", "m.b = [1]", "m.register_buffer('w', torch.ones(1))",
                "m.register_parameter('x.y', None)", "m.add_module('', nn.ReLU())", "m.add_module('k', 3)",
                "m.register_parameter('p', torch.ones(1))", "m.register_buffer(3, None)",
                "m.register_parameter('q', nn.Parameter(torch.ones(1)) * 2)", "m.missing", "del m.missing",
                "m.train(1)", "m.to(torch.int64)", "nn.Module(3)", "nn.Module(a=1)", "m()"]:
    try:
        exec(attempt)
    except Exception as e:
        print(type(e).__name__, e)
""",
    "forgot_init": """
class Broken(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(2, 2)
class NoParam(nn.Module):
    def __init__(self):
        self.w = nn.Parameter(torch.ones(2))
class NoBuffer(nn.Module):
    def __init__(self):
        self.register_buffer("b", torch.ones(1))
class Plain(nn.Module):
    def __init__(self):
        self.k = 3
    def forward(self, x):
        return x * self.k
for cls in [Broken, NoParam, NoBuffer]:
    try:
        cls()
    except AttributeError as e:
        print(cls.__name__, e)
p = Plain()
print(p.k, p.forward(torch.ones(2)))
try:
    p(torch.ones(2))
except AttributeError as e:
    print(e)
try:
    print(p)
except AttributeError as e:
    print(e)
""",
    "traversal": """
torch.manual_seed(1)
shared = nn.Linear(2, 2)
net = nn.Sequential(shared, nn.Tanh(), nn.Sequential(shared, nn.ReLU()), nn.Linear(2, 1, bias=False))
print([n for n, _ in net.named_modules()])
print([n for n, _ in net.named_modules(remove_duplicate=False)])
print([n for n, _ in net.named_parameters()], len(list(net.parameters())))
print([n for n, _ in net.named_parameters(prefix="model", remove_duplicate=False)])
print([n for n, _ in net.named_children()], len(list(net.modules())))
print([type(m).__name__ for m in net.children()])
print(net.get_submodule("2.0") is shared, net.get_parameter("3.weight").shape)
print(list(net.parameters(recurse=False)), [n for n, _ in net[2].named_parameters(recurse=False)])
""",
    "train_eval_zero_grad": """
torch.manual_seed(4)
net = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.Linear(3, 1))
print(net.training, [m.training for m in net], net.eval() is net, [m.training for m in net])
net.train()
x = torch.ones(2, 3)
net(x).sum().backward()
net(x).sum().backward()
print(net[2].bias.grad, net[0].weight.grad)
net.zero_grad(set_to_none=False)
print(net[2].bias.grad, net[0].bias.grad.requires_grad)
net.zero_grad()
print(net[2].bias.grad)
print(net.requires_grad_(False) is net, [p.requires_grad for p in net.parameters()])
print(net(x).requires_grad)
""",
    "conversions": """
torch.manual_seed(2)
net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
w = net[0].weight
net(torch.randn(3, 2)).sum().backward()
print(net.double() is net, net[0].weight is w, w.dtype, w.grad.dtype, net[1].running_mean.dtype,
      net[1].num_batches_tracked.dtype)
print(net.float()[0].weight.dtype, net.to(torch.float64)[0].bias.dtype, net.to("cpu") is net)
print(net.to(torch.ones(1, dtype=torch.float32))[0].weight.dtype, net.cpu() is net)
print(net.type(torch.float64)[0].weight.dtype)
print(net(torch.randn(3, 2, dtype=torch.float64)))
""",
    "apply_and_init": """
torch.manual_seed(0)
def init_weights(m):
    if isinstance(m, nn.Linear):
        init.xavier_normal_(m.weight, gain=init.calculate_gain("tanh"))
        init.zeros_(m.bias)
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
print(net.apply(init_weights) is net)
print(net[0].weight, net[2].bias)
w = torch.empty(3, 5)
print(init.kaiming_normal_(w, a=0.1, mode="fan_out"), init.uniform_(w, -2, 2), init.normal_(w, 1.0, 0.5))
print(init.trunc_normal_(torch.empty(20), mean=0.0, std=1.0, a=-0.3, b=0.3))
print(init.trunc_normal_(torch.empty(10), mean=1.0, std=2.0), init.eye_(torch.empty(3, 2)))
print(init.constant_(torch.empty(2), 0.25), init.ones_(torch.empty(2, dtype=torch.float64)))
print(init.calculate_gain("leaky_relu"), init.calculate_gain("conv2d"), init.calculate_gain("selu"))
for bad in ["init.calculate_gain('bogus')", "init.xavier_uniform_(torch.empty(3))",
            "init.kaiming_uniform_(torch.empty(2, 2), mode='fan')", "init.calculate_gain('leaky_relu', 'x')"]:
    try:
        eval(bad)
    except ValueError as e:
        print(e)
""",
    "default_inits": """
torch.manual_seed(5)
print(nn.Linear(4, 3).weight, nn.Linear(4, 3).bias, nn.Bilinear(2, 3, 2).weight, nn.Embedding(3, 2).weight)
print(nn.Embedding(4, 3, padding_idx=-1).weight, nn.LayerNorm(3).weight, nn.BatchNorm1d(2).running_var)
print(nn.Linear(5, 2, dtype=torch.float64).weight)
print(torch.rand(2))
""",
    "reprs": """
print(nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(inplace=True), nn.Dropout(0.2)), nn.LogSoftmax(dim=1)))
print(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU(), nn.ReLU()]), nn.ModuleDict())
print(nn.ModuleDict({"b": nn.Linear(1, 1), "a": nn.Identity()}))
print(nn.LeakyReLU(0.3, inplace=True), nn.ELU(), nn.CELU(0.5), nn.SELU(), nn.GELU("tanh"), nn.SiLU(inplace=True))
print(nn.Hardtanh(-2, 2), nn.ReLU6(), nn.Softplus(2, 10), nn.Threshold(0.1, 20), nn.Hardshrink(), nn.Softshrink(1))
print(nn.Softmax(), nn.Softmin(1), nn.LogSigmoid(), nn.Softsign(), nn.Tanhshrink(), nn.Mish(), nn.Hardswish())
print(nn.MSELoss(), nn.L1Loss(reduction="sum"), nn.CrossEntropyLoss(label_smoothing=0.1), nn.NLLLoss(), nn.BCELoss())
print(nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(delta=2), nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)))
print(nn.BatchNorm1d(3, affine=False, track_running_stats=False), nn.BatchNorm2d(4), nn.LayerNorm((2, 3), bias=False))
print(nn.Embedding(5, 2, max_norm=1.0, scale_grad_by_freq=True), nn.Flatten(), nn.Unflatten(-1, [2, 3]))
print(nn.ParameterList([nn.Parameter(torch.ones(2, 2)), torch.zeros(3, dtype=torch.float64), "text"]))
print(nn.ParameterDict({"b": torch.ones(1), "a": nn.Parameter(torch.zeros(2, 3))}))
print(repr(nn.Sequential()), str(nn.ModuleList([nn.ReLU()])), [type(m) for m in [nn.Linear(1, 1), nn.MSELoss()]])
""",
    "containers": """
torch.manual_seed(3)
seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
print(seq[-1], seq[0:2], len(seq), seq[::2])
seq[1] = nn.Tanh()
del seq[0]
print(seq, seq.pop(0), len(seq))
seq.insert(0, nn.Sigmoid())
seq.extend([nn.ReLU()])
print(seq, seq + nn.Sequential(nn.Identity()), seq * 2)
ml = nn.ModuleList([nn.ReLU()])
ml += [nn.Tanh()]
ml.insert(1, nn.Sigmoid())
ml.extend(nn.ModuleList([nn.Identity()]))
print(ml, ml[1:], ml.pop(-1), len(ml), ml + nn.ModuleList([nn.ELU()]))
md = nn.ModuleDict([("x", nn.ReLU()), ("y", nn.Tanh())])
md.update({"z": nn.Sigmoid()})
print(list(md), list(md.keys()), md.pop("x"), "x" in md, len(md))
pl = nn.ParameterList()
pl.append(torch.ones(1))
pl.extend([nn.Parameter(torch.zeros(2))])
print(pl, type(pl[0]).__name__, pl[1:], len(pl), [p.shape for p in pl])
pd = nn.ParameterDict()
pd["w"] = torch.ones(2)
pd.update([("v", torch.zeros(1))])
print(pd, list(pd.keys()), pd.get("q"), "w" in pd, pd.pop("w").shape, len(pd))
for bad in ["seq[10]", "ml[5]", "md['missing']", "pl(1)", "pd(1)", "nn.Sequential(3)", "seq + 1", "seq * 0",
            "pd[1]", "nn.ModuleList(3)"]:
    try:
        eval(bad)
    except Exception as e:
        print(type(e).__name__, e)
""",
    "state_dict": """
torch.manual_seed(5)
net = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
sd = net.state_dict()
print(sd)
print(type(sd).__name__, sd["0.weight"].requires_grad, sd["1.num_batches_tracked"])
print(net.state_dict(keep_vars=True)["0.bias"].requires_grad, list(net.state_dict(prefix="p.").keys()))
torch.manual_seed(6)
other = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
print(other.load_state_dict(sd), torch.equal(other[0].weight, net[0].weight))
print(other.load_state_dict({"0.weight": torch.zeros(2, 3)}, strict=False))
for bad in [{"0.weight": torch.zeros(2, 3)}, {**sd, "extra": torch.ones(1)}, {**sd, "0.bias": torch.ones(5)},
            {**sd, "0.weight": 3}, [1]]:
    try:
        other.load_state_dict(bad)
    except Exception as e:
        print(type(e).__name__, e)
print(other[0].weight)
""",
    "hooks": """
torch.manual_seed(11)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
log = []
h1 = net[0].register_forward_pre_hook(lambda m, args: log.append(("pre", tuple(args[0].shape))))
h2 = net[0].register_forward_hook(lambda m, args, out: out + 1)
h3 = net.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] * 2,), kwargs), with_kwargs=True)
h4 = net[2].register_forward_hook(lambda m, args, kwargs, out: log.append(("kw", kwargs)), with_kwargs=True)
h5 = net[1].register_forward_hook(lambda m, a, o: log.append("first"), prepend=True)
x = torch.tensor([[1., -2., 0.5]], requires_grad=True)
y = net(x)
print(y, log, h1.id < h2.id, type(h1).__name__)
def bwd(module, grad_input, grad_output):
    print("bwd", type(module).__name__, grad_input, grad_output)
def bwd_pre(module, grad_output):
    print("pre-bwd", grad_output)
    return (grad_output[0] * 10,)
h6 = net[2].register_full_backward_hook(bwd)
h7 = net[2].register_full_backward_pre_hook(bwd_pre)
h8 = net[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
out = net(x)
print(out.grad_fn)
out.sum().backward()
print(x.grad, net[2].bias.grad)
for h in [h1, h2, h3, h4, h5, h6, h7, h8]:
    h.remove()
print(torch.equal(net(x), y), len(net._forward_hooks), len(net[2]._backward_hooks))
try:
    net[0].register_backward_hook(lambda *a: None)
    net[0].register_full_backward_hook(lambda *a: None)
except RuntimeError as e:
    print(e)
""",
    "old_backward_hook": """
torch.manual_seed(2)
lin = nn.Linear(2, 2)
lin.register_backward_hook(lambda m, gi, go: print("old", [None if g is None else g.shape for g in gi], go))
lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
""",
    "backward_hook_no_input_grad": """
torch.manual_seed(2)
lin = nn.Linear(2, 2)
lin.register_full_backward_hook(lambda m, gi, go: print("hook", gi, go))
lin(torch.ones(1, 2)).sum().backward()
""",
    "parameter": """
p = nn.Parameter(torch.tensor([1.0, -2.0]))
print(p, repr(p), str(p), f"{p}", type(p), isinstance(p, torch.Tensor), p.is_leaf, p.requires_grad)
q = nn.Parameter(torch.zeros(2, dtype=torch.float64), requires_grad=False)
print(q, q.requires_grad, nn.Parameter(), nn.Parameter(torch.tensor(2.5)))
r = p * 3
print(type(r).__name__, type(p.data).__name__, type(p.detach()).__name__, type(p.clone()).__name__, type(p[0]))
with torch.no_grad():
    p.add_(1)
    s = p.mul_(2)
print(p, s is p, type(s).__name__, p._version)
t = torch.ones(2)
u = nn.Parameter(t)
u.data.mul_(3)
print(t, u, u.grad_fn)
(p ** 2).sum().backward()
print(p.grad, p.sum(), p.view(2, 1).shape, torch.cat([p, p]))
for bad in ["nn.Parameter(torch.tensor([1, 2]))", "nn.Parameter([1.0])", "f'{nn.Parameter(torch.tensor(1.0)):.2f}'",
            "nn.Parameter(torch.ones(1), requires_grad=1)"]:
    try:
        eval(bad)
    except Exception as e:
        print(type(e).__name__, e)
""",
    "layers": """
torch.manual_seed(9)
x = torch.randn(2, 3, 4, requires_grad=True)
ln = nn.LayerNorm([3, 4])
bn = nn.BatchNorm1d(3)
out = ln(x).sum() + (bn(x) * torch.arange(24.).reshape(2, 3, 4)).sum()
out.backward()
print(x.grad, ln.weight.grad, bn.weight.grad, bn.bias.grad, bn.running_mean, bn.running_var)
bn.eval()
e = bn(x)
print(e, e.grad_fn.next_functions)
emb = nn.Embedding(5, 3, padding_idx=0, scale_grad_by_freq=True)
idx = torch.tensor([[0, 1, 1], [4, 1, 2]])
(emb(idx) * torch.arange(3.)).sum().backward()
print(emb.weight.grad)
bil = nn.Bilinear(3, 4, 2)
print(bil(torch.randn(5, 3), torch.randn(5, 4)))
flat = nn.Flatten(0, 1)
print(flat(x).shape, nn.Unflatten(2, (2, 2))(x).shape, nn.Identity(5, k=2)(x) is x)
drop = nn.Dropout(0.3)
print(drop(torch.ones(2, 5)), nn.Dropout(0.3, inplace=True)(torch.ones(5)))
try:
    bn(torch.ones(2, 3, 4, 5))
except ValueError as err:
    print(err)
""",
    "losses": """
torch.manual_seed(1)
pred = torch.randn(4, 3, requires_grad=True)
target = torch.tensor([0, 2, 1, 2])
soft = torch.softmax(torch.randn(4, 3), dim=1)
for fn in [nn.CrossEntropyLoss(), nn.CrossEntropyLoss(weight=torch.tensor([1., 2., .5]), reduction="sum"),
           nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.2), nn.NLLLoss(reduction="none")]:
    out = fn(pred, target)
    (g,) = torch.autograd.grad(out.sum(), pred)
    print(fn, out, g)
print(nn.CrossEntropyLoss()(pred, soft), nn.KLDivLoss(reduction="batchmean")(pred.log_softmax(1), soft))
y = torch.rand(4, 3)
for fn in [nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(beta=0.3), nn.HuberLoss(delta=0.5), nn.BCEWithLogitsLoss(),
           nn.BCELoss(weight=torch.rand(3)), nn.MSELoss(size_average=False), nn.L1Loss(reduce=False)]:
    inp = torch.sigmoid(pred) if isinstance(fn, nn.BCELoss) else pred
    out = fn(inp, y)
    (g,) = torch.autograd.grad(out.sum(), pred)
    print(fn.reduction, out, g)
try:
    nn.MSELoss()(pred)
except TypeError as e:
    print(e)
print(nn.MSELoss()(pred, torch.zeros(3)))
""",
    "activations": """
x = torch.tensor([[-3.0, -1.0, -0.25, 0.0], [0.25, 1.0, 2.5, 30.0]], requires_grad=True)
for act in [nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.LeakyReLU(0.2), nn.ELU(alpha=2.0), nn.CELU(), nn.SELU(),
            nn.SiLU(), nn.Mish(), nn.Softplus(beta=2.0, threshold=5.0), nn.Hardtanh(-0.5, 2), nn.ReLU6(),
            nn.Hardsigmoid(), nn.Hardswish(), nn.LogSigmoid(), nn.Softsign(), nn.Tanhshrink(), nn.Hardshrink(0.3),
            nn.Softshrink(0.3), nn.Threshold(0.5, -1.0)]:
    y = act(x)
    (g,) = torch.autograd.grad((y * torch.arange(8.).reshape(2, 4)).sum(), x)
    print(act, y, g)
print(nn.Softmax()(torch.ones(2, 3)))
z = torch.ones(3)
print(nn.ReLU(inplace=True)(z) is z, nn.Softmax2d()(torch.ones(1, 2, 2, 2)).shape)
""",
}

# (to a tolerance: _softmax_backward_data is composed of the engine's ops, which do not add in the order
# of PyTorch's vectorised kernel)
SOFTMAX_FAMILY = """
x = torch.tensor([[-3.0, -1.0, -0.25, 0.0], [0.25, 1.0, 2.5, 30.0]], requires_grad=True)
for act in [nn.Softmax(dim=1), nn.Softmin(dim=0), nn.LogSoftmax(dim=1), nn.Softmax(dim=0), nn.LogSoftmax(dim=-2)]:
    y = act(x)
    (g,) = torch.autograd.grad((y * torch.arange(8.).reshape(2, 4)).sum(), x)
    print(act, y.tolist(), g.tolist())
"""


def test_softmax_modules_match() -> None:
    same(SOFTMAX_FAMILY, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_prints_what_pytorch_prints(name: str) -> None:
    same(SNIPPETS[name])


# -- stacks of layers drawn by Hypothesis -----------------------------------------------------------

ACTIVATIONS = ["nn.ReLU()", "nn.Tanh()", "nn.Sigmoid()", "nn.LeakyReLU(0.1)", "nn.ELU()", "nn.SiLU()",
               "nn.Softplus()", "nn.Identity()", "nn.Hardtanh()", "nn.LayerNorm({n})", "nn.Dropout(0.25)"]
LOSSES = ["nn.MSELoss()", "nn.L1Loss()", "nn.SmoothL1Loss()", "nn.HuberLoss(delta=0.5)",
          "nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(label_smoothing=0.1)", "nn.BCEWithLogitsLoss()",
          "nn.MSELoss(reduction='sum')"]


@st.composite
def stacks(draw: st.DrawFn, max_width: int = 9, activations: tuple = tuple(ACTIVATIONS),
           dtypes: tuple = ("torch.float32", "torch.float64")) -> str:
    widths = draw(st.lists(st.integers(1, max_width), min_size=2, max_size=5))
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers.append(f"nn.Linear({a}, {b}, bias={draw(st.booleans())})")
        if draw(st.booleans()):
            layers.append(draw(st.sampled_from(activations)).format(n=b))
    loss = draw(st.sampled_from(LOSSES))
    batch = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**16))
    dtype = draw(st.sampled_from(dtypes))
    out = widths[-1]
    if "CrossEntropy" in loss:
        target = f"torch.randint(0, {out}, ({batch},))"
    else:
        target = f"torch.rand({batch}, {out}, dtype={dtype})"
    return f"""
torch.manual_seed({seed})
model = nn.Sequential({", ".join(layers)}).to({dtype})
x = torch.randn({batch}, {widths[0]}, dtype={dtype})
target = {target}
out = model(x)
loss = {loss}(out, target)
loss.backward()
print(out.tolist(), loss.item())
for name, p in model.named_parameters():
    print(name, p.grad.tolist())
"""


@SETTINGS
@given(stacks())
def test_stack_of_layers_matches(source: str) -> None:
    # Bit for bit but for the order of MKL's products with a transposed weight (x @ W.T, which the
    # engine's matmul kernels do not model for every shape): the layers themselves add nothing.
    same(source, rtol=1e-12 if "float64" in source else 2e-5)


@example(rows=2, features=17, length=1, dtype="float32", seed=0, affine=False)  # two rows, >16 channels
@example(rows=2, features=70, length=1, dtype="float32", seed=1, affine=True)
@SETTINGS
@given(st.integers(1, 40), st.integers(1, 70), st.integers(1, 5), st.sampled_from(["float32", "float64"]),
       st.integers(0, 2**16), st.booleans())
def test_norm_layers_match_bit_for_bit(rows: int, features: int, length: int, dtype: str, seed: int,
                                       affine: bool) -> None:
    same(f"""
torch.manual_seed({seed})
x = (torch.randn({rows}, {features}, dtype=torch.{dtype}) * 3 + 1).requires_grad_()
ln = nn.LayerNorm({features}, elementwise_affine={affine}, dtype=torch.{dtype})
if {affine}:
    with torch.no_grad():
        ln.weight.normal_()
        ln.bias.normal_()
y = ln(x)
g = torch.randn_like(y)
y.backward(g)
print(y.tolist(), x.grad.tolist())
if {affine}:
    print(ln.weight.grad.tolist(), ln.bias.grad.tolist())
if {rows} > 1:
    z = (torch.randn({rows}, {features}, {length}, dtype=torch.{dtype}) * 2).squeeze(-1).requires_grad_()
    bn = nn.BatchNorm1d({features}, affine={affine}, dtype=torch.{dtype})
    out = bn(z)
    out.backward(torch.randn_like(out))
    print(out.tolist(), z.grad.tolist(), bn.running_mean.tolist(), bn.running_var.tolist())
    bn.eval()
    z.grad = None
    out = bn(z * 0.5)
    out.backward(torch.ones_like(out))
    print(out.tolist(), z.grad.tolist())
""")


def test_embedding_matches_bit_for_bit() -> None:
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 7, size=(4, 5)).tolist()
    same(f"""
torch.manual_seed(3)
emb = nn.Embedding(7, 6)
idx = torch.tensor({idx})
out = emb(idx)
(out * torch.randn(4, 5, 6)).sum().backward()
print(out.tolist(), emb.weight.grad.tolist(), emb.weight.tolist())
w = torch.randn(7, 3, requires_grad=True)
o = F.embedding(idx, w, padding_idx=2, scale_grad_by_freq=True)
(o * torch.randn(4, 5, 3)).sum().backward()
print(w.grad.tolist(), o.grad_fn, o.grad_fn._saved_padding_idx, o.grad_fn._saved_scale_grad_by_freq)
g = torch.ones(4, 5, 3, requires_grad=True)
(gw,) = torch.autograd.grad(F.embedding(idx, w), w, g, create_graph=True)
print(gw.grad_fn, torch.autograd.grad((gw * torch.arange(21.).reshape(7, 3)).sum(), g)[0].tolist())
for bad in ["F.embedding(torch.tensor([1.]), w)", "F.embedding(torch.tensor([7]), w)", "F.embedding(idx, w[0])",
            "nn.Embedding(3, 2, padding_idx=3)"]:
    try:
        eval(bad)
    except Exception as e:
        print(type(e).__name__, e)
""")


def test_embedding_max_norm_renormalises_the_rows_it_looks_up() -> None:
    # (to a tolerance: the row norms come from the engine's norm, which does not add in PyTorch's order)
    same("""
torch.manual_seed(3)
emb = nn.Embedding(7, 6, max_norm=1.5)
out = emb(torch.tensor([[5, 4, 3], [0, 0, 1]]))
print(out.tolist(), emb.weight.tolist())
print(F.embedding(torch.tensor([1, 2]), torch.full((3, 2), 4.0), max_norm=1.0, norm_type=1.0))
""", rtol=1e-6)


def test_pad_matches() -> None:
    same("""
x = torch.arange(6.).reshape(2, 3).requires_grad_()
for pad in [(1, 2), (0, 0, 1, 0), (-1, 1), (1, -2, 2, 0), [2, 2]]:
    y = F.pad(x, pad, value=-1.5)
    y.backward(torch.arange(float(y.numel())).reshape(y.shape))
    print(y, x.grad, y.grad_fn, y.grad_fn._saved_pad)
    x.grad = None
print(F.pad(torch.ones(2, 2, dtype=torch.int64), (1, 0), value=2.7))
for bad in ["F.pad(x, (1,))", "F.pad(x, (1, 1, 1, 1, 1, 1))", "F.pad(x, (-3, 0))",
            "F.pad(x, (1, 1), mode='reflect', value=1)"]:
    try:
        eval(bad)
    except Exception as e:
        print(type(e).__name__, e)
""")


def test_always_called_forward_hooks_run_when_forward_fails() -> None:
    same("""
class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("no forward today")
m = Boom()
m.register_forward_hook(lambda mod, args, out: print("always", out), always_call=True)
m.register_forward_hook(lambda mod, args, out: print("not this one"))
try:
    m(torch.ones(1))
except ValueError as e:
    print("caught", e)
""")


@SETTINGS
@given(st.integers(2, 9), st.integers(1, 9), st.integers(1, 4), st.sampled_from(["float32", "float64"]),
       st.integers(0, 2**16))
def test_batch_norm_of_strided_inputs_and_gradients_matches(rows: int, features: int, length: int, dtype: str,
                                                            seed: int) -> None:
    # PyTorch leaves its vectorised kernels for per-channel loops when the input or the incoming gradient
    # is not contiguous (a transposed input, the expanded gradient of .sum())
    same(f"""
torch.manual_seed({seed})
x = torch.randn({length}, {features}, {rows}, dtype=torch.{dtype}).transpose(0, 2).squeeze(-1).requires_grad_()
bn = nn.BatchNorm1d({features}, dtype=torch.{dtype})
y = bn(x * 2)
y.sum().backward()
print(y.tolist(), x.grad.tolist(), bn.weight.grad.tolist(), bn.bias.grad.tolist(), bn.running_var.tolist())
x.grad = None
z = torch.randn({rows}, {features}, dtype=torch.{dtype}).requires_grad_()
bn(z).sum().backward()
print(z.grad.tolist(), bn.weight.grad.tolist(), bn.running_mean.tolist())
bn.eval()
bn(x).sum().backward()
print(x.grad.tolist(), bn.weight.grad.tolist())
""")


@st.composite
def narrow_stacks(draw: st.DrawFn) -> str:
    # every Linear of at most 3 inputs: the forward's x @ W.T is a dot kernel MKL adds in order,
    # the gradients g @ W and g.T @ x running sums -- so the whole training step is exact
    # -- in float32, whose kernels gradcli reproduces (float64's vector paths are NumPy's), and
    # without Tanh: torch.tanh is MKL's closed-source VML kernel
    return draw(stacks(max_width=3, activations=tuple(a for a in ACTIVATIONS if a != "nn.Tanh()"),
                       dtypes=("torch.float32",)))


@only_avx512(torch)
@SETTINGS
@given(narrow_stacks())
def test_narrow_stack_of_layers_matches_bit_for_bit(source: str) -> None:
    same(source)


OPTIMIZERS = {
    "SGD": "torch.optim.SGD(model.parameters(), lr={lr}, momentum={momentum}, weight_decay={decay})",
    "SGD nesterov": "torch.optim.SGD(model.parameters(), lr={lr}, momentum=0.9, nesterov=True)",
    "Adam": "torch.optim.Adam(model.parameters(), lr={lr}, weight_decay={decay}, amsgrad={flag})",
    "AdamW": "torch.optim.AdamW(model.parameters(), lr={lr}, betas=(0.8, 0.95), weight_decay={decay})",
    "RMSprop": "torch.optim.RMSprop(model.parameters(), lr={lr}, momentum={momentum}, centered={flag})",
    "Adagrad": "torch.optim.Adagrad(model.parameters(), lr={lr}, lr_decay=0.01, weight_decay={decay})",
}
TRAINING_EXAMPLES = int(os.environ.get("GRADCLI_ORACLE_TRAININGS", "500"))


@st.composite
def narrow_trainings(draw: st.DrawFn) -> str:
    """A narrow stack (see above) trained for a few steps by a random optimizer; every parameter is
    printed after every step."""
    stack, _, rest = draw(narrow_stacks()).partition("out = model(x)")
    loss = re.search(r"loss = (.*)\(out, target\)", rest).group(1)  # the stack's loss, for its target
    optimizer = OPTIMIZERS[draw(st.sampled_from(sorted(OPTIMIZERS)))].format(
        lr=draw(st.sampled_from([0.001, 0.01, 0.1, 0.5])), momentum=draw(st.sampled_from([0.0, 0.5, 0.9])),
        decay=draw(st.sampled_from([0.0, 0.01])), flag=draw(st.booleans()))
    steps = draw(st.integers(1, 4))
    return stack + f"""opt = {optimizer}
loss_fn = {loss}
for step in range({steps}):
    opt.zero_grad()
    loss = loss_fn(model(x), target)
    loss.backward()
    opt.step()
    print(step, loss.item(), [p.tolist() for p in model.parameters()])
"""


# (the optimizers' square roots are MKL's: bit for bit only where torch runs MKL's reference
# sqrt, the rule of test_optim_oracle; an Intel CPU's rsqrtps makes another)
@only_avx512(torch)
@pytest.mark.skipif(not mkl_reference.is_reference(torch), reason="torch here is not on MKL's reference sqrt path")
@settings(max_examples=TRAINING_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(narrow_trainings())
def test_narrow_stacks_train_as_pytorch_bit_for_bit(source: str) -> None:
    assert run(source, TORCH, real_torch=True)[1] is None  # a training that runs, not an error on both sides
    same(source)


def test_products_in_numpys_order_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # the comparison above notices a training whose matrix products add in another order
    from gradcli.engine.kernels import matmul_order
    monkeypatch.setattr(matmul_order, "ordered_kernel", lambda a, b: None)

    def caught(source: str) -> bool:
        try:
            same(source)
        except AssertionError:
            return True
        return False
    find(narrow_trainings(), caught, settings=settings(max_examples=200, derandomize=True, database=None,
                                                        suppress_health_check=list(HealthCheck)))
