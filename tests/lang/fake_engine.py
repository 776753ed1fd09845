"""A tiny stand-in for gradcli.engine.api, for language tests that must not depend on the engine.

It has a Tensor-like class with just enough behaviour to exercise the language
(attribute whitelists, the shorthand, function forms, warnings); it is test
code only.  Which names real PyTorch has (for "gradcli does not support
torch.X yet") is the language's own table, gradcli.lang.pytorch_names, so
the fake needs none: torch.fft, torch.nn.Linear and torch.autograd.Function
are real names this fake lacks.
"""

from __future__ import annotations

from types import SimpleNamespace

from gradcli.engine.errors import TorchAttributeError, TorchRuntimeError


class FakeTensor:
    __script_attrs__ = frozenset({"values", "requires_grad", "grad", "sum", "mean", "backward",
                                  "shape", "tolist", "double"})
    __script_settable__ = frozenset({"requires_grad", "grad"})

    def __init__(self, values, requires_grad=False):
        self.values = list(values) if isinstance(values, (list, tuple)) else [values]
        self.requires_grad = requires_grad
        self.grad = None

    @property
    def shape(self):
        return (len(self.values),)

    def sum(self, dim=None):
        return FakeTensor([sum(self.values)])

    def mean(self):
        return FakeTensor([sum(self.values) / len(self.values)])

    def double(self):
        return FakeTensor([float(v) for v in self.values])

    def tolist(self):
        return list(self.values)

    def backward(self, gradient=None):
        if len(self.values) != 1 and gradient is None:
            raise TorchRuntimeError("grad can be implicitly created only for scalar outputs")
        self.grad = "done"

    def __add__(self, other):
        other_values = other.values if isinstance(other, FakeTensor) else [other] * len(self.values)
        return FakeTensor([a + b for a, b in zip(self.values, other_values)])

    __radd__ = __add__

    def __iadd__(self, other):
        self.values = (self + other).values
        return self

    def __bool__(self):
        if len(self.values) != 1:
            raise TorchRuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.values[0])

    def __repr__(self):
        return f"tensor({self.values})"


FakeTensor.__name__ = FakeTensor.__qualname__ = "Tensor"


def tensor(values, requires_grad=False, dtype=None):
    return FakeTensor(values, requires_grad)


def ones(n, requires_grad=False):
    return FakeTensor([1.0] * n, requires_grad)


def torch_sum(t, dim=None):
    return t.sum(dim)


def autograd_grad(outputs, inputs):
    return ("grad of", outputs, inputs)


class NoGrad:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False

    def __call__(self, function):
        return function


def interrupt():
    raise KeyboardInterrupt


class Param:
    """A value a Module registers (as nn.Parameter)."""

    __script_attrs__ = frozenset({"value"})

    def __init__(self, value):
        self.value = value


class Module:
    """Shaped like nn.Module: its instances hold the script's attributes (__script_dynamic__),
    assignments register parameters, __getattr__ finds them, __call__ runs forward."""

    __script_dynamic__ = True
    __script_attrs__ = frozenset({"params", "describe", "forward"})

    def __init__(self):
        object.__setattr__(self, "_params", {})

    def __setattr__(self, name, value):
        if isinstance(value, Param):
            self.__dict__["_params"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        params = self.__dict__.get("_params", {})
        if name in params:
            return params[name]
        raise TorchAttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __call__(self, *args):
        return self.forward(*args)

    def params(self):
        return list(self._params)

    def describe(self):
        return f"{type(self).__name__} with {len(self._params)}"


class Function:
    """Shaped like torch.autograd.Function: subclassing it runs engine code (__init_subclass__)."""

    __script_attrs__ = frozenset({"apply", "created"})
    created: list = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._private_node = object()
        Function.created.append(cls.__name__)

    @classmethod
    def apply(cls, *args):
        return cls.forward(None, *args)


def make_engine():
    calls = []
    torch = {"tensor": tensor, "ones": ones, "sum": torch_sum, "Tensor": FakeTensor,
             "no_grad": NoGrad, "float32": "torch.float32", "double": "torch.float64",
             "__version__": "2.13.0+cpu", "broken": lambda: [][1], "interrupt": interrupt,
             "manual_seed": lambda seed: calls.append(("manual_seed", seed)),
             "call_back": lambda function, *args: function(*args),
             "Module": Module, "Param": Param, "Function": Function}
    return SimpleNamespace(
        calls=calls,
        set_max_elements=lambda n: calls.append(("set_max_elements", n)),
        set_max_memory=lambda n: calls.append(("set_max_memory", n)),
        TORCH=torch,
        SUBMODULES={"autograd": {"grad": autograd_grad}, "nn": {}, "nn.functional": {"relu": lambda t: t},
                    "autograd.functional": {}},
        TENSOR_METHODS=frozenset({"sum", "mean", "backward", "tolist", "double"}),
        FACTORIES=frozenset({"tensor", "ones"}),
        Tensor=FakeTensor,
    )
