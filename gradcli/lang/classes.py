"""Classes a script defines: real Python classes, made as Python's ``class`` statement makes them.

``make_class`` runs after the class body has filled its namespace: the metaclass is the most
derived one of the bases (``type`` for script classes, the built-in exceptions,
``torch.autograd.Function`` and ``nn.Module``), so a base's ``__init_subclass__`` runs as in
Python (a Function subclass gets its ``<Name>Backward`` node class there).  Methods are
UserFunctions, which bind as Python functions do; ``staticmethod``, ``classmethod`` and
``property`` are Python's own, so engine code that calls ``cls.forward(ctx, ...)`` gets the
script's function back.

A script class carries a marker (``SCRIPT_CLASS``) the sandbox reads: the names of the members
the script gave it (its body, later assignments), which may be read and set; what it inherits
from an engine or built-in class -- and what an engine base's ``__init_subclass__`` stored on it
(a Function's ``_backward_cls``) -- is reachable only where that class lets a script reach it
(gradcli.lang.class_access).
"""

from __future__ import annotations

import builtins as _python
from typing import Any

from gradcli.lang.errors import ScriptNotImplementedError, ScriptTypeError

SCRIPT_CLASS = "__gradcli_script_class__"

# The special methods a script may define, and that the language then uses (modules.md section 1).
SPECIAL_METHODS = frozenset("""__init__ __call__ __repr__ __str__ __len__ __getitem__ __setitem__
    __iter__ __next__ __contains__ __eq__ __lt__ __le__ __gt__ __ge__ __hash__ __bool__ __add__
    __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __matmul__ __neg__ __pow__
    __rpow__ __enter__ __exit__""".split())


def is_script_class(cls: type) -> bool:
    return SCRIPT_CLASS in cls.__dict__


def is_python_builtin(cls: type) -> bool:
    """One of Python's own built-in classes (``object``, ``ValueError``, ``list``), not a gradcli
    class that merely prints like one."""
    return cls.__module__ == "builtins" and getattr(_python, cls.__name__, None) is cls


def opens_special_methods(cls: type) -> bool:
    """Whether a script may read the special methods of ``cls`` (``Base.__init__(self)``,
    ``nn.Module.__init__(self)``, ``object.__repr__(self)``): a script class, a Python built-in,
    or an engine class made for scripts (it lists what they may reach)."""
    return (is_script_class(cls) or is_python_builtin(cls) or hasattr(cls, "__script_attrs__")
            or getattr(cls, "__script_dynamic__", False))


def check_base(base: Any) -> None:
    """A class a script may derive from: its own classes, Python's built-in ones, and the engine
    classes made to be subclassed (``torch.autograd.Function``, which sets ``__init_subclass__``;
    ``nn.Module``, whose instances hold a script's attributes: ``__script_dynamic__``)."""
    if not isinstance(base, type):
        from gradcli.lang.script_types import OpaqueType
        if type(base) is OpaqueType:   # type(len): a class the script may not call, nor derive from
            raise ScriptTypeError(f"type '{base.name}' is not an acceptable base type")
        raise ScriptTypeError("bases must be types")
    if is_script_class(base) or is_python_builtin(base):
        return
    if getattr(base, "__script_base__", False) or getattr(base, "__script_dynamic__", False):
        return
    if "__init_subclass__" in base.__dict__:
        return
    name = base.__qualname__
    if base.__module__ not in ("builtins", "__main__"):
        name = f"{base.__module__}.{name}"
    raise ScriptNotImplementedError(f"gradcli does not support subclassing {name}")


def make_class(name: str, qualname: str, bases: tuple, namespace: dict, keywords: dict) -> type:
    """The class a ``class`` statement makes from its evaluated bases and filled namespace."""
    for base in bases:
        check_base(base)
    namespace[SCRIPT_CLASS] = frozenset(namespace)    # the script's own members
    namespace["__module__"] = "__main__"
    namespace["__qualname__"] = qualname
    # the instances hold the script's own attributes (read, set and deleted by the sandbox)
    namespace["__script_dynamic__"] = True
    namespace.setdefault("__doc__", None)
    if not bases:
        bases = (object,)
    # type() finds the most derived metaclass of the bases and runs __init_subclass__ and
    # __set_name__, as Python's class statement does
    return type(name, bases, namespace, **keywords)
