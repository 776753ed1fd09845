"""Every value a script can reach, walked through the sandbox as a script walks it.

``walk()`` runs SETUP in a real Session (the real engine), then reads, through the sandbox's own
``get_attribute``, every attribute of every value it meets, starting from the builtins, every
member of every importable module and SETUP's variables; it also takes ``type(v)`` of each value
(and walks the class), iterates what iterates, calls the methods that take no argument on the
values SETUP made (a tensor method's result is a value too) and every function of torch's modules
with a tensor; SETUP keeps what engine code passes the script's callbacks (hooks, closures).  It returns, per class as a script sees it (``repr(type(v))``), the attribute names
that were readable, and the real classes of the values met.

``python tests/lang/reachable.py`` rewrites reachable_types.txt, the whitelist the test compares with:
review its diff before committing it.
"""

from __future__ import annotations

import collections
import io
import re
import sys
from pathlib import Path
from typing import Any

WHITELIST = Path(__file__).with_name("reachable_types.txt")

SETUP = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import numpy as np
import math, random, functools, itertools, collections
import matplotlib.pyplot as plt

x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
i = torch.tensor([1, 2, 3])
b = torch.tensor([True, False])
s = torch.tensor(2.5)
y = (x * 2).sum()
z = x.exp().mean(0)
v = x[0]
views = [x.T, x.t(), x.view(4), x.reshape(4), x.unsqueeze(0), x.expand(2, 2, 2), x[:, 1]]
nodes = [(x + 1).grad_fn, (x * x).grad_fn, x.pow(2).grad_fn, x.sin().grad_fn, x.relu().grad_fn, (x @ x).grad_fn,
         x.sum(0).grad_fn, x.max(0).values.grad_fn, x.clamp(0, 1).grad_fn, torch.cat([x, x]).grad_fn,
         F.mse_loss(x, x.detach()).grad_fn, y.grad_fn.next_functions[0][0]]
accumulate = (x * 2).grad_fn.next_functions[0][0]
y.backward(retain_graph=True)
handle = x.register_hook(lambda g: g)
maximum = x.max(1)
shape = x.shape
kinds = [x.dtype, torch.float64, torch.int64, torch.bool, x.device, x.layout, torch.default_generator]
modes = [torch.no_grad(), torch.enable_grad(), torch.set_grad_enabled(True), torch.inference_mode()]

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        contexts.append(ctx)
        return a * a
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g
contexts = []
squared = Square.apply(x)
square_node = squared.grad_fn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.layers = nn.Sequential(nn.ReLU(), nn.Linear(2, 1))
        self.items = nn.ModuleList([nn.Tanh()])
        self.table = nn.ModuleDict({'a': nn.Sigmoid()})
        self.params = nn.ParameterList([nn.Parameter(torch.ones(1))])
        self.embed = nn.Embedding(3, 2)
        self.norm = nn.LayerNorm(2)
        self.batch = nn.BatchNorm1d(2)
        self.drop = nn.Dropout(0.5)
    def forward(self, a):
        return self.layers(self.fc(a))
net = Net()
callbacks = []     # what engine code hands the script's functions
net.register_forward_pre_hook(lambda *args: callbacks.append(args))
net.register_forward_hook(lambda *args: callbacks.append(args))
net.register_full_backward_hook(lambda *args: callbacks.append(args))
net.fc.register_full_backward_pre_hook(lambda *args: callbacks.append(args))
net.apply(lambda *args: callbacks.append(args))
loss = net(x).sum()
loss.grad_fn.register_hook(lambda *args: callbacks.append(args))
loss.grad_fn.register_prehook(lambda *args: callbacks.append(args))
loss.backward()
adam = optim.Adam(net.parameters(), lr=0.1)
sgd = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
adam.step()
sgd.step()
sgd.step(lambda *args: callbacks.append(args) or loss)
schedule = optim.lr_scheduler.StepLR(sgd, 1)
lambda_schedule = optim.lr_scheduler.LambdaLR(adam, lambda *args: callbacks.append(args) or 1.0)
lambda_schedule.step()
torch.autograd.functional.jacobian(lambda *args: callbacks.append(args) or args[0] * 2, x)
functools.reduce(lambda *args: callbacks.append(args) or 1, [1, 2, 3])
state = net.state_dict()
losses = [nn.MSELoss(), nn.CrossEntropyLoss(), nn.BCELoss()]

array = np.ones((2, 2))
numbers = [array[0, 0], array.dtype, np.arange(3), x.detach().numpy()]

partial = functools.partial(print, 1)
ordered = collections.OrderedDict(a=1)
default = collections.defaultdict(list)
counter = collections.Counter('abca')
Point = collections.namedtuple('Point', 'x y')
point = Point(1, 2)
iterators = [itertools.count(), itertools.chain([1], [2]), itertools.islice([1, 2], 1), itertools.product([1], [2]),
             itertools.permutations([1, 2]), itertools.combinations([1, 2], 1), itertools.repeat(1, 2)]

figure = plt.figure()
axes = plt.gca()
lines = plt.plot([1, 2, 3])

class Base:
    "A class."
    count = 0
    def method(self):
        return 1
    @staticmethod
    def static():
        return 2
    @classmethod
    def klass(cls):
        return cls
    @property
    def prop(self):
        return 3
    def __enter__(self):
        return self
    def __exit__(self, kind, value, tb):
        exits.append((kind, value, tb))
        return True
class Child(Base):
    def method(self):
        return super()
exits = []
with Base():
    1 / 0
with Base():
    x.view(3)
child = Child()
proxy = child.method()

def function(a, b=1, *args, c=2, **kwargs):
    return a
lam = lambda: 0
errors = []
for code in [lambda: 1 / 0, lambda: [][1], lambda: {}['a'], lambda: int('a'), lambda: x.view(3), lambda: undefined,
             lambda: x.nothing, lambda: y.backward(), lambda: next(iter([])), lambda: torch.zeros(2) + torch.zeros(3)]:
    try:
        code()
    except Exception as error:
        errors.append(error)

values = [1, 2.5, True, None, 'text', (1, 2), [1], {1: 2}, {1}, frozenset({1}), range(3),
          slice(1, 2), (-1) ** 0.5, ..., NotImplemented, list[int], int | None, 'a{}'.format, str.format,
          {1: 2}.keys(), {1: 2}.values(), {1: 2}.items(), iter([1]), iter((1,)), iter({1: 2}), iter('ab'), iter({1}),
          iter(range(2)), iter(x), iter(shape), (a for a in [1]), zip([1], [2]), map(abs, [1]), filter(None, [1]),
          enumerate([1]), reversed([1]), object(), staticmethod(abs), classmethod(abs), property(abs),
          torch.Tensor.shape, int.real, range.start, torch.Tensor.add, str.upper, int.__add__,
          Base.__init__, Base().__repr__, double, long, grad, type, torch.Size, torch.FloatTensor, x.add, Base().method]
'''

# Methods with no argument that are not called on SETUP's values (they would change them for the
# rest of the walk or print).
NOT_CALLED = frozenset({"backward", "clear", "pop", "popitem", "zero_", "detach_", "requires_grad_", "zero_grad",
                        "step", "remove", "train", "eval", "show", "close", "clf", "cla", "print"})


def _session():
    from gradcli.lang import Session
    return Session(stdout=io.StringIO(), stderr=io.StringIO(), plot_dir=None)


def walk(limit_per_class: int = 3) -> tuple[dict[str, set[str]], set[type], list[str]]:
    """(script class -> readable attribute names, real classes met, problems met on the way)."""
    from gradcli.engine import warnings as engine_warnings
    from gradcli.lang.safety import Namespace, get_attribute
    session = _session()
    outcome = session.run_source(SETUP, "setup.ag")
    problems = [] if outcome.ok else [f"SETUP failed: {session.reporter.stream.getvalue()}"]
    table = session.builtins["type"].table
    engine_warnings.set_warning_handler(lambda category, message: None)
    roots: list[tuple[str, Any]] = [(name, value) for name, value in session.builtins.items()]
    roots += [(name, value) for name, value in session.globals.items()]
    roots += [(path, space) for path, space in session.modules.by_path.items()]
    made = {id(value) for _, value in session.globals.items()}
    for _, value in session.globals.items():
        if isinstance(value, (list, tuple)):
            made.update(id(item) for item in value)
    attributes: dict[str, set[str]] = collections.defaultdict(set)
    classes: set[type] = set()
    per_class: collections.Counter = collections.Counter()
    seen: set[int] = set()
    keep: list[Any] = []      # (so that ids stay unique while walking)
    queue = collections.deque(roots)
    try:
        while queue:
            path, value = queue.popleft()
            if id(value) in seen:
                continue
            seen.add(id(value))
            keep.append(value)
            real = type(value)
            classes.add(real)
            shown = _key(value, table)
            attributes.setdefault(shown, set())
            leak = _leaking_repr(value)
            if leak is not None:
                problems.append(f"{path}: repr names gradcli's code: {leak}")
            if real is not Namespace and id(value) not in made:
                per_class[shown] += 1
                if per_class[shown] > limit_per_class:
                    continue
            queue.append((f"type({path})", table.of(value)))
            for name in sorted(_candidates(value)):
                try:
                    found = get_attribute(value, name)
                except Exception:
                    continue
                attributes[shown].add(name)
                queue.append((f"{path}.{name}", found))
                owner = getattr(found, "__self__", None)
                if callable(found) and id(owner) in made and name not in NOT_CALLED:
                    result = _call(found)
                    if result is not _FAILED:
                        queue.append((f"{path}.{name}()", result))
            for item in _items(value):
                queue.append((f"{path}[...]", item))
            if real is Namespace and value.path.startswith("torch"):
                # what torch's functions give for a tensor (the grad modes and setters aside)
                for name, member in sorted(value.members.items()):
                    if callable(member) and not isinstance(member, (type, Namespace)) and not name.startswith("set_"):
                        result = _call(member, session.globals["x"].detach().clone().requires_grad_())
                        if result is not _FAILED:
                            queue.append((f"{value.path}.{name}(x)", result))
    finally:
        engine_warnings.set_warning_handler(None)
    return dict(attributes), classes, problems


_FAILED = object()


def _key(value: Any, table: Any) -> str:
    # (Cython's module name carries its version: _cython_3_2_4.cython_function_or_method)
    return re.sub(r"_cython_[0-9_]+\.", "_cython_.", _plain_key(value, table))


def _plain_key(value: Any, table: Any) -> str:
    """Where the whitelist lists ``value``'s attributes: a module and a class each on their own line
    (``<module 'torch'>``, ``class <class 'int'>``), any other value under ``repr(type(value))``."""
    from gradcli.lang.safety import Namespace
    from gradcli.lang.script_types import OpaqueType
    if type(value) is Namespace:
        return repr(value)
    if isinstance(value, type) or type(value) is OpaqueType:
        return f"class {value!r}"
    return repr(table.of(value))




def _leaking_repr(value: Any) -> str | None:
    """``repr(value)`` if it names gradcli's own modules or files (what a script could print)."""
    try:
        text = repr(value)
    except Exception:
        return None
    return text if "gradcli." in text or "/gradcli/" in text else None


def _call(method: Any, *args: Any) -> Any:
    try:
        return method(*args)
    except BaseException:
        return _FAILED


def _candidates(value: Any) -> set[str]:
    from gradcli.lang.safety import Namespace
    from gradcli.lang.script_types import OpaqueType
    if type(value) is Namespace:
        return set(value.members)
    from gradcli.lang.classes import SPECIAL_METHODS
    names: set[str] = {"__name__", "__doc__", "__class__", "__dict__", "__globals__"} | SPECIAL_METHODS
    for source in (value, type(value)) + ((value.origin,) if type(value) is OpaqueType else ()):
        try:
            names.update(dir(source))
        except Exception:
            pass
    from gradcli.lang.introspection import script_dir
    try:
        names.update(script_dir(value))   # (what dir() shows a script: a node's _saved_* too)
    except Exception:
        pass
    return names


def _items(value: Any) -> list[Any]:
    """A few items of what a script could iterate (never an endless or lazy-random iterator's)."""
    from gradcli.lang.safety import Namespace
    if isinstance(value, (str, type, Namespace)) or type(value).__module__ == "itertools":
        return []
    if isinstance(value, dict):
        return list(value.items())[:3] + list(value.values())[:3]
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)[:100]
    return []


def as_text(attributes: dict[str, set[str]]) -> str:
    return "".join(f"{shown}: {' '.join(sorted(names))}\n" for shown, names in sorted(attributes.items()))


def read_whitelist() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for line in WHITELIST.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            shown, _, names = line.partition(": ")
            found[shown] = set(names.split())
    return found


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    walked, _, trouble = walk()
    for problem in trouble:
        print(problem, file=sys.stderr)
    WHITELIST.write_text("# type(v) a script can reach: the attributes it can read (tests/lang/reachable.py writes\n"
                         "# this file; tests/lang/test_reachable_types.py checks the walk against it)\n"
                         + as_text(walked))
    print(f"{len(walked)} classes, {sum(map(len, walked.values()))} attributes")
