"""A random graph as a small program, and the interpreter that runs it on either library.

A program is a list of input arrays and a list of steps.  Each step names
*how* to call (a torch function, a Tensor method, a Python operator, an
index, ...) and the arguments, which refer to earlier values by position.
The same program object is interpreted once with torch and once with
gradcli, so the two runs cannot drift apart.
"""

from __future__ import annotations

import contextlib
import operator
import warnings
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Iterator

import numpy as np


# -- the program ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ref:
    """A value made earlier: ``env[index]``, or element ``item`` of a tuple value."""
    index: int
    item: int | None = None


@dataclass(frozen=True, eq=False)
class Const:
    """A fresh tensor made from an array (an index, a mask, an operand that never requires grad)."""
    array: np.ndarray


@dataclass(frozen=True)
class DType:
    name: str


@dataclass
class Input:
    array: np.ndarray
    requires_grad: bool


@dataclass
class Step:
    """``kind`` says how to call: fn (torch.<name>), method, op (operator.<name>), getitem,
    setitem, attr, call (a helper of this module)."""
    kind: str
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    no_grad: bool = False
    # For the generator's bookkeeping only (the interpreter ignores them): the tensor an
    # in-place step writes, and whether the op gives the same bits in both libraries.
    target: Ref | None = None
    exact_op: bool = True

    def operands(self) -> Iterator[Any]:
        """Every argument, keyword values and the items of tuples, lists and dicts included."""
        return _leaves((self.args, self.kwargs))

    def __repr__(self) -> str:
        ctx = " [no_grad]" if self.no_grad else ""
        return f"{self.kind}:{self.name}{_short(self.args)}{_short(self.kwargs) if self.kwargs else ''}{ctx}"


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, (tuple, list)):
        for x in value:
            yield from _leaves(x)
    elif isinstance(value, dict):
        for x in value.values():
            yield from _leaves(x)
    else:
        yield value


@dataclass
class Finish:
    """How the run ends: a weighted sum of ``outputs`` is differentiated.

    ``mode`` is "backward" (into .grad) or "grad" (torch.autograd.grad); ``again``
    runs the same backward a second time (accumulation, or the freed-graph error).
    """
    outputs: list[Ref]
    weights: list[np.ndarray]
    mode: str = "backward"
    again: bool = False
    retain_graph: bool = False


@dataclass
class Program:
    inputs: list[Input]
    steps: list[Step]
    finish: Finish | None = None

    def __repr__(self) -> str:
        lines = [f"  in{i}: {a.array.dtype}{list(a.array.shape)} grad={a.requires_grad} {a.array.tolist()}"
                 for i, a in enumerate(self.inputs)]
        n = len(self.inputs)
        lines += [f"  v{n + i} = {s!r}" for i, s in enumerate(self.steps)]
        if self.finish is not None:
            f = self.finish
            lines.append(f"  {f.mode} of {[(r.index, r.item) for r in f.outputs]} again={f.again} "
                         f"retain={f.retain_graph}")
        return "Program(\n" + "\n".join(lines) + ")"


def _short(x: Any) -> str:
    if isinstance(x, Const):
        return f"C{x.array.dtype}{x.array.tolist()}"
    if isinstance(x, Ref):
        return f"v{x.index}" + ("" if x.item is None else f"[{x.item}]")
    if isinstance(x, tuple):
        return "(" + ", ".join(_short(a) for a in x) + ")"
    if isinstance(x, list):
        return "[" + ", ".join(_short(a) for a in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}={_short(v)}" for k, v in x.items()) + "}"
    return repr(x)


# -- the two libraries ----------------------------------------------------------------------------

class Backend:
    """What the interpreter needs of a library: its namespace and a few primitives."""

    name: str
    ns: Any

    def tensor(self, array: np.ndarray, requires_grad: bool = False) -> Any:
        raise NotImplementedError

    def dtype(self, name: str) -> Any:
        return getattr(self.ns, name)

    def no_grad(self) -> Any:
        return self.ns.no_grad()

    def array(self, t: Any) -> np.ndarray:
        raise NotImplementedError

    def is_tensor(self, x: Any) -> bool:
        raise NotImplementedError

    def capture_warnings(self) -> Any:
        """A context manager yielding a list that collects the warning messages."""
        raise NotImplementedError


class TorchBackend(Backend):
    def __init__(self) -> None:
        import torch
        self.name, self.ns, self._torch = "torch", torch, torch

    def tensor(self, array: np.ndarray, requires_grad: bool = False) -> Any:
        t = self._torch.from_numpy(array.copy())
        return t.requires_grad_() if requires_grad else t

    def array(self, t: Any) -> np.ndarray:
        # (a derivative PyTorch knows is zero, abs'' say, comes as a ZeroTensor: it has no storage)
        return t.detach().numpy(force=t._is_zerotensor())

    def is_tensor(self, x: Any) -> bool:
        return isinstance(x, self._torch.Tensor)

    @contextlib.contextmanager
    def capture_warnings(self) -> Any:
        seen: list[str] = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield seen
            finally:
                seen.extend(str(w.message) for w in caught)


class GradcliBackend(Backend):
    def __init__(self) -> None:
        from gradcli.engine import api
        from gradcli.engine import warnings as engine_warnings
        from gradcli.engine.tensor import Tensor
        ns = SimpleNamespace(**api.TORCH)
        for module, members in api.SUBMODULES.items():
            if "." not in module:
                setattr(ns, module, SimpleNamespace(**members))
        self.name, self.ns, self._Tensor, self._warnings = "gradcli", ns, Tensor, engine_warnings

    def tensor(self, array: np.ndarray, requires_grad: bool = False) -> Any:
        t = self._Tensor._make(array.copy())
        return t.requires_grad_() if requires_grad else t

    def array(self, t: Any) -> np.ndarray:
        return t._data

    def is_tensor(self, x: Any) -> bool:
        return isinstance(x, self._Tensor)

    @contextlib.contextmanager
    def capture_warnings(self) -> Any:
        seen: list[str] = []
        self._warnings.set_warning_handler(lambda category, message: seen.append(message))
        try:
            yield seen
        finally:
            self._warnings.set_warning_handler(None)


# -- running a program ----------------------------------------------------------------------------

def _setitem(x: Any, index: Any, value: Any) -> None:
    x[index] = value


def _retain_grad(x: Any) -> Any:
    x.retain_grad()
    return x


def _detach_inplace(x: Any) -> Any:
    return x.detach_()


def _set_requires_grad(x: Any, value: bool) -> Any:
    x.requires_grad = value
    return x


HELPERS: dict[str, Callable] = {
    "retain_grad": _retain_grad,
    "detach_": _detach_inplace,
    "set_requires_grad": _set_requires_grad,
}


class Runner:
    """Interprets a program on one backend, one step at a time."""

    def __init__(self, backend: Backend, program: Program) -> None:
        self.b = backend
        self.program = program
        self.env: list[Any] = [backend.tensor(a.array, a.requires_grad) for a in program.inputs]

    def resolve(self, a: Any) -> Any:
        if isinstance(a, Ref):
            v = self.env[a.index]
            return v if a.item is None else v[a.item]
        if isinstance(a, Const):
            return self.b.tensor(a.array)
        if isinstance(a, DType):
            return self.b.dtype(a.name)
        if isinstance(a, tuple):
            return tuple(self.resolve(x) for x in a)
        if isinstance(a, list):
            return [self.resolve(x) for x in a]
        return a

    def call(self, step: Step) -> Any:
        args = [self.resolve(a) for a in step.args]
        kwargs = {k: self.resolve(v) for k, v in step.kwargs.items()}
        kind, name = step.kind, step.name
        if kind == "fn":
            fn = self.b.ns
            for part in name.split("."):
                fn = getattr(fn, part)
            return fn(*args, **kwargs)
        if kind == "method":
            return getattr(args[0], name)(*args[1:], **kwargs)
        if kind == "op":
            return getattr(operator, name)(*args)
        if kind == "attr":
            return getattr(args[0], name)
        if kind == "getitem":
            return args[0][args[1]]
        if kind == "setitem":
            _setitem(*args)
            return None
        if kind == "call":
            return HELPERS[name](*args, **kwargs)
        raise AssertionError(kind)

    def step(self, step: Step) -> tuple[Any, list[str]]:
        """Run one step; the value (or the exception raised) is appended to the env."""
        with self.b.capture_warnings() as seen:
            try:
                if step.no_grad:
                    with self.b.no_grad():
                        value = self.call(step)
                else:
                    value = self.call(step)
            except Exception as error:  # noqa: BLE001 - the error is what gets compared
                value = error
        self.env.append(value)
        return value, seen

    def finish(self) -> tuple[Any, Any, list[str]]:
        """The weighted sum's backward (twice if asked): (first, second outcome, warnings)."""
        f = self.program.finish
        assert f is not None
        with self.b.capture_warnings() as seen:
            first = self._differentiate(f, f.retain_graph or f.again and f.mode == "grad")
            second = self._differentiate(f, False) if f.again and not isinstance(first, Exception) else None
        return first, second, seen

    def _differentiate(self, f: Finish, retain: bool) -> Any:
        try:
            loss = None
            for ref, w in zip(f.outputs, f.weights):
                out = self.resolve(ref)
                term = (out * self.b.tensor(w)).sum()
                loss = term if loss is None else loss + term
            if f.mode == "backward":
                loss.backward(retain_graph=retain)
                return None
            leaves = [t for t, a in zip(self.env, self.program.inputs) if a.requires_grad]
            return self.b.ns.autograd.grad(loss, leaves, retain_graph=retain, allow_unused=True)
        except Exception as error:  # noqa: BLE001
            return error
