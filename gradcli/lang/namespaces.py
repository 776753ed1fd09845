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
from gradcli.lang.shorthand import GradWord, factory_with_grad_flag, method_form, tensor_or_builtin

# Modules that are not packages: `import random.x` says so, as Python does.
_PLAIN_MODULES = frozenset({"math", "random", "functools", "itertools"})

# Python builtins that also name a torch function: a Tensor argument picks torch's.
SHARED_WITH_TORCH = ("sum", "max", "min", "abs", "round", "pow", "all", "any")


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
        torch = self._namespace("torch", "", {**engine.TORCH, **self.wrapped_factories})
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
        numpy.add("random", Namespace("numpy.random", numpy_module.random_members(), mirrors=numpy_module.np.random,
                                      note=numpy_module.SUBSET))
        self.by_path["numpy.random"] = numpy.members["random"]
        for name, loader in stdlib.MODULES.items():
            self.by_path[name] = Namespace(name, {}, mirrors=name, loader=loader)

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
        names = python_builtins(write, flush)
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
            names[name] = self.wrapped_factories.get(name, value)
        for name in methods:
            if name not in names and not name.startswith("_"):
                names[name] = method_form(name, getattr(engine.Tensor, name, None))
        names["grad"] = self.grad_word
        return names


def _unsupported(full_name: str) -> Callable[..., Any]:
    def unsupported(*args: Any, **kwargs: Any) -> Any:
        raise ScriptNotImplementedError(f"gradcli does not support {full_name} yet")
    return unsupported
