"""``dir(obj)`` and ``help(obj)`` for scripts and the REPL, through the sandbox.

Read on the first call of either.  ``dir`` lists what a script can reach with
``obj.name`` (safety.readable_attributes; the members of a torch namespace),
sorted as Python sorts it, never a dunder.  ``help`` is pydoc's layout,
shortened for a learner:

    Help on function ones in module torch:

    ones(size, *, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False)
        PyTorch's torch.ones, computed by gradcli (CPU, NumPy).
        PyTorch's documentation: https://pytorch.org/docs/stable/generated/torch.ones.html

The signature comes from ``inspect.signature`` (the engine's callables carry
PyTorch's); nothing of gradcli's own code is shown: no module path of the
engine, no docstring written for gradcli's developers.
"""

from __future__ import annotations

import builtins as _python
import inspect
import textwrap
from types import MethodType
from typing import Any, Callable

from gradcli.lang.classes import is_script_class
from gradcli.lang.safety import Namespace, is_dunder, readable_attributes, type_name

DOCS = "https://pytorch.org/docs/stable/generated/"
WIDTH = 78


def script_dir(obj: Any) -> list[str]:
    """The attribute names a script may read on ``obj``, sorted."""
    if type(obj) is Namespace:
        return sorted(name for name in obj.members if not is_dunder(name))
    from gradcli.lang.suggestions import script_names
    own = script_names(obj)     # a script class or its instance: its attributes too, as Python's dir
    if own is not None:
        return sorted(name for name in own if not is_dunder(name))
    from gradcli.lang.script_types import OpaqueType
    if type(obj) is OpaqueType:    # type(len), type(y.grad_fn): what the class it stands for shows
        obj = obj.origin
    cls = obj if isinstance(obj, type) else type(obj)
    try:
        names = readable_attributes(cls)
    except Exception:
        names = frozenset()
    if isinstance(obj, type):
        names = frozenset(name for name in names if hasattr(obj, name))
    return sorted(name for name in names if not is_dunder(name))


# ---------------------------------------------------------------- help
class Helper:
    """What ``help`` needs of a session: where to write, the torch namespaces, the builtins."""

    def __init__(self, write: Callable[[str], Any], modules: Any, names: dict) -> None:
        self.write = write
        self.modules = modules
        self.names = names

    def __call__(self, *args: Any) -> None:
        if not args:
            self.write("help(obj) describes a value, a function or a module: help(torch.ones), help(x.sum),\n"
                       "help(torch). dir(obj) lists the names obj has: dir(torch), dir(x).\n")
            return None
        if len(args) > 1:
            from gradcli.lang.errors import ScriptTypeError
            raise ScriptTypeError(f"help() takes at most 1 argument ({len(args)} given)")
        self.write(self.text(args[0]).rstrip("\n") + "\n")
        return None

    def text(self, obj: Any) -> str:
        from gradcli.lang.functions import UserFunction
        if type(obj) is Namespace:
            return self._module(obj)
        if isinstance(obj, UserFunction):
            return self._user_function(obj)
        if isinstance(obj, MethodType) and isinstance(obj.__func__, UserFunction):
            owner = type(obj.__self__) if not isinstance(obj.__self__, type) else obj.__self__
            return "\n".join([f"Help on method {obj.__name__} in module __main__:", "",
                              f"{obj.__name__}{_signature(obj)} method of __main__.{owner.__qualname__} "
                              + ("instance" if owner is not obj.__self__ else "class")])
        owner = getattr(obj, "__self__", None)
        tensor_class = getattr(self.modules.engine, "Tensor", None)
        if tensor_class is not None and isinstance(owner, tensor_class) and callable(obj):
            return self._torch_function(obj, "Tensor." + obj.__name__, f"method {obj.__name__} of Tensor object")
        found = self._torch_name(obj)
        if found is not None:
            module, name = found
            return self._torch_function(obj, f"{module}.{name}", f"function {name} in module {module}")
        if obj is self.names.get("dir") or obj is self.names.get("help"):
            return self._introspection(obj)
        python = self._python_builtin(obj)
        if python is not None and not isinstance(obj, type):
            return self._python_function(python)
        for path, namespace in self.modules.by_path.items():   # Python's math
            if namespace.pytorch_module is None and callable(obj) and any(
                    member is obj for member in namespace.members.values()):
                return self._python_function(obj, path)
        if isinstance(obj, type):
            return self._class(obj)
        from gradcli.lang.script_types import OpaqueType
        if type(obj) is OpaqueType:
            return self._stand_in_class(obj)
        return self._value(obj)

    # ------------------------------------------------------------ kinds of objects
    def _module(self, namespace: Namespace) -> str:
        names = script_dir(namespace)
        lines = [f"Help on module {namespace.path}:", ""]
        if namespace.pytorch_module is not None:
            lines.append(f"    PyTorch's {namespace.path}: the {len(names)} names gradcli has so far.")
        else:
            lines.append(f"    Python's {namespace.path} module ({len(names)} names).")
        lines += ["", "NAMES"] + _wrapped(", ".join(names))
        return "\n".join(lines)

    def _torch_function(self, obj: Any, full_name: str, title: str) -> str:
        from gradcli.lang.script_types import OpaqueType
        short = full_name.rsplit(".", 1)[-1]
        stand_in = type(obj) is OpaqueType    # torch.dtype: a class PyTorch makes the instances of
        lines = [f"Help on {title}:", "", f"class {short}" if stand_in else short + _signature(obj)]
        what = "class" if isinstance(obj, type) or stand_in else "callable"
        lines.append(f"    PyTorch's {full_name}, computed by gradcli (CPU, NumPy).")
        if what == "class":
            lines[0] = f"Help on class {short} in module {full_name.rsplit('.', 1)[0]}:"
        page = full_name if full_name.startswith("torch.") else "torch." + full_name
        lines.append(f"    PyTorch's documentation: {DOCS}{page}.html")
        return "\n".join(lines)

    def _introspection(self, obj: Any) -> str:
        if obj is self.names.get("dir"):
            return ("Help on built-in function dir in module builtins:\n\ndir([object])\n"
                    "    The names a script can use after object. (attributes, methods, a module's names),\n"
                    "    sorted; without an argument, the names the script has defined.")
        return ("Help on built-in function help in module builtins:\n\nhelp([object])\n"
                "    What object is: a function's signature and PyTorch's documentation page,\n"
                "    a value's attributes, a module's names.")

    def _user_function(self, function: Any) -> str:
        return "\n".join([f"Help on function {function.__name__} in module __main__:", "",
                          function.__name__ + _user_signature(function)])

    def _python_function(self, function: Any, module: str = "builtins") -> str:
        lines = [f"Help on built-in function {function.__name__} in module {module}:", "",
                 function.__name__ + _signature(function)]
        doc = inspect.getdoc(function) or ""
        paragraph = doc.split("\n\n")[0] if not doc.startswith(function.__name__) else \
            (doc.split("\n\n")[1] if "\n\n" in doc else "")
        lines += ["    " + line for line in paragraph.splitlines() if line.strip()]
        return "\n".join(lines)

    def _class(self, cls: type) -> str:
        name = type_name(cls)
        module = "torch" if getattr(cls, "__script_attrs__", None) is not None else "builtins"
        if is_script_class(cls):
            module, name = "__main__", cls.__qualname__
        lines = [f"Help on class {name} in module {module}:", ""]
        if is_script_class(cls) and cls.__doc__:
            lines += ["    " + line for line in textwrap.dedent(cls.__doc__).strip().splitlines()] + [""]
        names = script_dir(cls)
        if names:
            lines += ["ATTRIBUTES AND METHODS"] + _wrapped(", ".join(names))
        return "\n".join(lines)

    def _stand_in_class(self, cls: Any) -> str:
        """A class a script holds but may not call (gradcli.lang.script_types.OpaqueType)."""
        module, _, name = cls.display.rpartition(".")
        lines = [f"Help on class {name} in module {module or 'builtins'}:", ""]
        names = script_dir(cls)
        if names:
            lines += ["ATTRIBUTES AND METHODS"] + _wrapped(", ".join(names))
        return "\n".join(lines)

    def _value(self, obj: Any) -> str:
        cls = type(obj)
        name = type_name(cls)
        lines = [f"Help on {name} object:", ""]
        shape = getattr(obj, "shape", None) if readable_attributes(cls) >= {"shape", "dtype"} else None
        if shape is not None:
            lines.append(f"    A tensor of shape {list(shape)}, dtype {obj.dtype}, "
                         f"requires_grad={obj.requires_grad}.")
            lines.append(f"    PyTorch's documentation: {DOCS}../tensors.html".replace("generated/../", ""))
            lines.append("")
        names = script_dir(obj)
        if names:
            lines += ["ATTRIBUTES AND METHODS (dir)"] + _wrapped(", ".join(names))
        return "\n".join(lines)

    # ------------------------------------------------------------ finding names
    def _torch_name(self, obj: Any) -> tuple[str, str] | None:
        """(module, name) of a torch callable or class, found in the namespaces; bare shorthand
        names (``ones`` without ``torch.``) count as torch's."""
        for path, namespace in self.modules.by_path.items():
            if namespace.pytorch_module is None:
                continue
            for name, member in namespace.members.items():
                if member is obj and not is_dunder(name) and type(member) is not Namespace:
                    return path, name
        for name, member in self.names.items():
            if member is obj and name in self.modules.torch.members and callable(obj):
                return "torch", name
        return None

    def _python_builtin(self, obj: Any) -> Any:
        for name, member in self.names.items():
            if member is obj and hasattr(_python, name) and callable(getattr(_python, name)):
                return getattr(_python, name)
        return None


def _signature(obj: Any) -> str:
    """``(a, b=1, *, c=None) -> Tensor`` without PyTorch's schema types."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    parameters = [parameter.replace(annotation=inspect.Parameter.empty)
                  for parameter in signature.parameters.values() if parameter.name != "self"]
    try:
        plain = signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty)
    except ValueError:
        return "(...)"
    text = str(plain)
    returns = signature.return_annotation
    if returns is not inspect.Signature.empty:
        returns = returns if isinstance(returns, str) else getattr(returns, "__name__", "")
        if returns and returns.isidentifier() and returns != "None":
            text += f" -> {returns}"
    return text


def _user_signature(function: Any) -> str:
    signature = function.signature
    parts = []
    first_default = len(signature.names) - len(function.defaults)
    for index, name in enumerate(signature.names):
        if index >= first_default:
            parts.append(f"{name}={function.defaults[index - first_default]!r}")
        else:
            parts.append(name)
        if signature.posonly and index == signature.posonly - 1:
            parts.append("/")
    if signature.star:
        parts.append("*" + signature.star)
    elif signature.kwonly:
        parts.append("*")
    for name in signature.kwonly:
        parts.append(f"{name}={function.kwdefaults[name]!r}" if name in function.kwdefaults else name)
    if signature.double_star:
        parts.append("**" + signature.double_star)
    return "(" + ", ".join(parts) + ")"


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent="    ", subsequent_indent="    ",
                         break_long_words=False, break_on_hyphens=False) or ["    (none)"]


def make_dir(global_names: dict) -> Callable[..., list[str]]:
    def dir(*args: Any) -> list[str]:  # noqa: A001 - the builtin's name
        if not args:
            return sorted(name for name in global_names if not is_dunder(name))
        if len(args) > 1:
            from gradcli.lang.errors import ScriptTypeError
            raise ScriptTypeError(f"dir expected at most 1 argument, got {len(args)}")
        return script_dir(args[0])
    dir.__qualname__ = "dir"
    return dir
