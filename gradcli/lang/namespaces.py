"""The modules a script can import and the names it has without importing anything.

``torch`` and its submodules are Namespace objects over the engine's tables
(``gradcli.engine.api``); ``math`` is Python's math module seen the same way.
A name real PyTorch has but gradcli lacks (``gradcli.lang.pytorch_names``)
fails with "gradcli does not support torch.X yet"; importing anything else
fails as Python fails: ``No module named 'os'``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from gradcli.lang import numpy_module, stdlib
from gradcli.lang.builtins import python_builtins
from gradcli.lang.errors import ScriptImportError, ScriptModuleNotFoundError, ScriptNotImplementedError
from gradcli.lang.safety import Namespace, is_dunder
from gradcli.lang.script_types import closed_class
from gradcli.lang.shorthand import GradWord, factory_with_grad_flag, method_form, tensor_or_builtin

# Modules that are not packages: `import random.x` says so, as Python does.
_PLAIN_MODULES = frozenset({"math", "random", "functools", "itertools"})

# Python builtins that also name a torch function: a Tensor argument picks torch's.
SHARED_WITH_TORCH = ("sum", "max", "min", "abs", "round", "pow", "all", "any")

# torch's dtype names that are Tensor methods too, with the dtype PyTorch names.  In the
# shorthand each is a DTypeWord: the dtype as a value, the method form when called.  (int,
# float and bool stay Python's builtins: PyTorch reads those types as int64, float64, bool.)
DTYPE_METHOD_NAMES = {"double": "float64", "long": "int64", "half": "float16", "bfloat16": "bfloat16",
                      "short": "int16", "cfloat": "complex64", "cdouble": "complex128", "chalf": "complex32"}


class DTypeWord:
    """A bare dtype name of the shorthand that is a Tensor method too (``double``, ``long``).

    Where a dtype is expected it is that dtype: ``zeros(2, dtype=long)``, ``x.to(double)``
    (the engine's parsers read ``__torch_dtype__``), and it prints and compares as the dtype
    (``long == torch.int64``).  Called, it is the method form: ``long(x)`` is ``x.long()``.
    It is no ``torch.dtype`` itself, so ``torch.long(x)`` still fails as in PyTorch.  A dtype
    gradcli lacks (``half``) says so when used either way.
    """

    __slots__ = ("_name", "_dtype", "_call")
    __script_attrs__ = frozenset({"is_floating_point", "is_signed", "itemsize", "is_complex"})

    def __init__(self, name: str, dtype: Any, method: Callable[..., Any]) -> None:
        self._name = name
        self._dtype = dtype  # the engine's DType, or None where gradcli has none
        self._call = method

    def __torch_dtype__(self) -> Any:
        return self._dtype

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # the dtype's properties (long.is_floating_point)
        if self._dtype is None or name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._dtype, name)

    def __repr__(self) -> str:
        return repr(self._dtype) if self._dtype is not None else f"torch.{DTYPE_METHOD_NAMES[self._name]}"

    def __eq__(self, other: object) -> bool:
        other_dtype = other._dtype if isinstance(other, DTypeWord) else other
        return self._dtype is not None and other_dtype is self._dtype

    def __hash__(self) -> int:
        return hash(self._dtype) if self._dtype is not None else hash(self._name)


DTypeWord.__module__ = "torch"
DTypeWord.__qualname__ = "dtype"
DTypeWord.__name__ = "torch.dtype"  # (the C tp_name Python's messages use)


class Modules:
    """Everything importable, built once per session from the engine's tables."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        autograd = engine.SUBMODULES.get("autograd", {})
        self.grad_word = GradWord(autograd.get("grad") or _unsupported("torch.autograd.grad"))
        factories = frozenset(engine.FACTORIES)
        self.wrapped_factories: dict[str, Callable[..., Any]] = {
            name: factory_with_grad_flag(value, self.grad_word)
            for name, value in engine.TORCH.items()
            if name in factories and callable(value) and not isinstance(value, type)
        }
        self.by_path: dict[str, Namespace] = {}
        # (torch.dtype is a class a script may not call: its name is bound to the stand-in
        # type(v) gives, gradcli.lang.script_types)
        torch = self._namespace("torch", "", {name: closed_class(value) for name, value in
                                              {**engine.TORCH, **self.wrapped_factories}.items()})
        lazy = getattr(engine, "LAZY_SUBMODULES", {})
        for path in sorted(set(engine.SUBMODULES) | set(lazy), key=lambda p: p.count(".")):
            parent_path, _, leaf = ("torch." + path).rpartition(".")
            namespace = self._namespace("torch." + path, path, dict(engine.SUBMODULES.get(path, {})),
                                        lazy.get(path))
            self.by_path[parent_path].add(leaf, namespace)
        self.torch = torch
        self.by_path["math"] = Namespace("math", {name: getattr(math, name) for name in dir(math)
                                                 if not name.startswith("_")})
        numpy = self.by_path["numpy"] = Namespace("numpy", numpy_module.members(), mirrors=numpy_module.np,
                                                  note=numpy_module.SUBSET)
        # numpy.random costs ~8 ms to import: its members are looked up on first use
        numpy.add("random", Namespace("numpy.random", {}, mirrors="numpy.random", loader=numpy_module.random_members,
                                      note=numpy_module.SUBSET))
        self.by_path["numpy.random"] = numpy.members["random"]
        if hasattr(engine, "functorch_members"):   # functorch: torch.func's deprecated name
            self.by_path["functorch"] = Namespace("functorch", {}, pytorch_module="functorch",
                                                  loader=engine.functorch_members)
        for name, loader in stdlib.MODULES.items():
            self.by_path[name] = Namespace(name, {}, mirrors=name, loader=loader)

    def provide(self, path: str, loader: Callable[[], dict[str, Any]],
                missing: Callable[[str], str] | None = None) -> Namespace:
        """A module whose members a layer above the language gives (``matplotlib.pyplot``, from the
        views), read from ``loader`` on first use; ``a.b`` is also a member of ``a`` (given first)."""
        namespace = Namespace(path, {}, loader=loader, missing=missing)
        parent, _, leaf = path.rpartition(".")
        if parent:
            self.by_path[parent].add(leaf, namespace)
        self.by_path[path] = namespace
        return namespace

    def _namespace(self, full_path: str, key: str, members: dict[str, Any],
                   loader: Callable[[], dict[str, Any]] | None = None) -> Namespace:
        namespace = Namespace(full_path, members, pytorch_module=key, loader=loader)
        self.by_path[full_path] = namespace
        return namespace

    def import_module(self, path: str) -> Namespace:
        """``import path``: the namespace, or Python's ModuleNotFoundError."""
        found = self.by_path.get(path)
        if found is not None:
            return found
        parts = path.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if prefix in self.by_path:
                continue
            parent_path = ".".join(parts[:end - 1])
            parent = self.by_path.get(parent_path)
            member = parent.members.get(parts[end - 1]) if parent is not None else None
            if isinstance(member, Namespace):   # a submodule among a lazy module's members
                self.by_path[prefix] = member
                continue
            message = parent.unsupported(parts[end - 1]) if parent is not None else None
            if message is not None:
                raise ScriptNotImplementedError(message)
            if parent_path in _PLAIN_MODULES:
                raise ScriptModuleNotFoundError(f"No module named '{prefix}'; '{parent_path}' is not a package")
            raise ScriptModuleNotFoundError(f"No module named '{prefix}'")
        raise ScriptModuleNotFoundError(f"No module named '{path}'")

    def import_name(self, path: str, name: str) -> Any:
        """``from path import name``."""
        module = self.import_module(path)
        if name in module.members:
            return module.members[name]
        message = module.unsupported(name)
        if message is not None:
            raise ScriptNotImplementedError(message)
        raise ScriptImportError(f"cannot import name '{name}' from '{path}' (unknown location)")

    def script_builtins(self, write: Callable[[str], Any], flush: Callable[[], Any]) -> dict[str, Any]:
        """The names a script has without importing: Python builtins, torch, shorthand."""
        engine = self.engine
        names = python_builtins(write, flush, self)
        for name in SHARED_WITH_TORCH:
            torch_function = engine.TORCH.get(name)
            if torch_function is not None and name in names:
                names[name] = tensor_or_builtin(name, names[name], torch_function, engine.Tensor)
        methods = frozenset(engine.TENSOR_METHODS)
        for name, value in engine.TORCH.items():
            if name in names or is_dunder(name):
                continue
            is_function = callable(value) and not isinstance(value, type)
            if name in methods and not is_function:
                continue  # `double(x)` is the method form; the dtype stays torch.double
            names[name] = self.torch.members.get(name, value)
        for name in methods:
            if name not in names and not name.startswith("_"):
                names[name] = method_form(name, getattr(engine.Tensor, name, None))
        for name in DTYPE_METHOD_NAMES:
            if not isinstance(names.get(name), type):  # (Python's int, float, bool are not replaced)
                names[name] = DTypeWord(name, engine.TORCH.get(name),
                                        method_form(name, getattr(engine.Tensor, name, None)))
        names["grad"] = self.grad_word
        return names


def _unsupported(full_name: str) -> Callable[..., Any]:
    def unsupported(*args: Any, **kwargs: Any) -> Any:
        raise ScriptNotImplementedError(f"gradcli does not support {full_name} yet")
    return unsupported
