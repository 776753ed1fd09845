"""What ``type(v)`` gives a script, and what a script reaches through a class.

``type(v)`` hands out the class itself only where calling it is a documented constructor and its
attributes are the documented ones:

* the Python builtins a script has by name (``int str list dict tuple set frozenset range slice
  bool float enumerate zip map filter reversed object property staticmethod classmethod super``),
  ``NoneType ellipsis NotImplementedType complex``, whose constructors only make such values, and
  every exception class (Python's, NumPy's; but ``KeyboardInterrupt SystemExit GeneratorExit``),
  so that ``except type(e):`` works -- gradcli's own error classes are the builtins they subclass;
* the classes a module a script can import has as a member (``torch.Tensor torch.Size
  torch.dtype torch.device torch.Generator``, the grad modes, ``nn.Linear``, ``optim.SGD``,
  ``collections.OrderedDict``, ``numpy.ndarray``, ...): calling ``type(v)`` is then calling the
  documented name;
* the script's own classes, and the named tuples it made.

For every other value ``type(v)`` is a stand-in (OpaqueType) that prints as Python or PyTorch
prints the class (``<class 'function'>``, ``<class 'builtin_function_or_method'>``,
``<class 'module'>``, ``<class 'MulBackward0'>``, ``<class 'list_iterator'>``,
``<class 'types.GenericAlias'>``), knows its ``__name__``, works with ``isinstance`` and
``type(a) is type(b)``, and reads on the class what the class would let a script read
(unbound methods); calling it fails as PyTorch fails for a class with no constructor
(``TypeError: cannot create 'MulBackward0' instances``), and no class may derive from it.  So
no script builds a function from a body, binds a method to any object, fakes a module or makes
an engine object its documentation does not offer.

Reading a data attribute through a class (``torch.Tensor.shape``, ``int.real``,
``range.start``) gives an AttributeView: it prints as the descriptor PyTorch or Python shows
(``<attribute 'shape' of 'torch._C.TensorBase' objects>``) and can do nothing else -- a
script cannot reach the engine's property object, its getter or setter.  Methods read through
a class are the unbound methods (``torch.Tensor.add(x, 1)``, ``str.upper('a')``), which Python
and PyTorch offer.
"""

from __future__ import annotations

from types import FunctionType, MethodType
from typing import Any

from gradcli.lang.errors import ScriptTypeError, visible_class

# Python classes whose constructors only make their own plain values.
_HARMLESS_PYTHON = (type(None), type(Ellipsis), type(NotImplemented), complex)
# Exceptions a script may not make: they stop the interpreter.
_STOPPING = (KeyboardInterrupt, SystemExit, GeneratorExit)
# A class that carries this in its own namespace is the script's (collections.namedtuple's).
SCRIPT_TYPE_MARK = "__script_type__"
# Engine classes a script has by name whose instances PyTorch makes itself: `torch.dtype()` is
# "TypeError: cannot create 'torch.dtype' instances" there, so the name is bound to a stand-in.
_NOT_CONSTRUCTIBLE = frozenset({"torch.dtype"})


class OpaqueType:
    """A class as a script sees it when the real one is not its to call (see the module doc)."""

    __slots__ = ("name", "display", "classes", "origin")

    def __init__(self, name: str, display: str, classes: tuple[type, ...]) -> None:
        self.name = name            # what Python's messages and __name__ give
        self.display = display      # what repr gives inside <class '...'>
        self.classes = classes      # the real classes it stands for (isinstance)
        self.origin = classes[0]    # where attribute reads on the class are looked up

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ScriptTypeError(f"cannot create '{self.name}' instances")

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, self.classes)

    def __subclasscheck__(self, cls: Any) -> bool:
        if isinstance(cls, OpaqueType):
            return all(issubclass(one, self.classes) for one in cls.classes)
        return isinstance(cls, type) and issubclass(cls, self.classes)

    @property
    def __bases__(self) -> tuple:     # (issubclass(type(f), object) asks for it)
        return (object,)

    def __mro_entries__(self, bases: tuple) -> tuple:
        raise ScriptTypeError(f"type '{self.name}' is not an acceptable base type")

    def __repr__(self) -> str:
        return f"<class '{self.display}'>"


OpaqueType.__module__ = "builtins"
OpaqueType.__name__ = OpaqueType.__qualname__ = "type"


_CLOSED: dict[type, OpaqueType] = {}


def closed_class(value: Any) -> Any:
    """``value``, or for an engine class PyTorch does not let a script construct, the stand-in bound
    to its name (the same one ``type(v)`` gives for its instances)."""
    if not isinstance(value, type) or value.__name__ not in _NOT_CONSTRUCTIBLE or value.__module__ != "torch":
        return value
    from gradcli.lang.namespaces import DTypeWord
    if value is DTypeWord:
        return value
    found = _CLOSED.get(value)
    if found is None:
        found = _CLOSED[value] = OpaqueType(value.__name__, value.__name__, (value, DTypeWord))
    return found


class AttributeView:
    """A data attribute read through its class: prints as the descriptor, does nothing else."""

    __slots__ = ("text", "kind")

    def __init__(self, text: str, kind: str) -> None:
        self.text = text
        self.kind = kind      # getset_descriptor or member_descriptor: what type() shows

    def __repr__(self) -> str:
        return self.text


AttributeView.__module__ = "builtins"
AttributeView.__name__ = AttributeView.__qualname__ = "getset_descriptor"


def attribute_view(cls: type, name: str, raw: Any) -> AttributeView:
    """What ``cls.name`` shows for a data attribute ``raw`` found in ``cls``'s namespace."""
    from gradcli.lang.safety import type_name
    from gradcli.lang.classes import is_python_builtin
    kind = type(raw).__name__
    if kind in ("getset_descriptor", "member_descriptor") and is_python_builtin(cls):
        return AttributeView(repr(raw), kind)       # Python's own (int.real, range.start)
    owner = type_name(cls)
    if _is_tensor_class(cls):
        owner = "torch._C.TensorBase"               # every Tensor attribute is a C getset there
    return AttributeView(f"<attribute '{name}' of '{owner}' objects>", "getset_descriptor")


def _is_tensor_class(cls: type) -> bool:
    return any(klass.__name__ == "Tensor" and "__script_attrs__" in klass.__dict__ for klass in cls.__mro__)


def is_data_attribute(raw: Any, owner: type) -> bool:
    """Whether the member ``raw`` of class ``owner`` is data of its instances (a property or slot),
    not a method or a class constant: reading it on the class gives an AttributeView.  A Tensor's
    class-level defaults (``_base = None``) count as data: PyTorch's are all C getsets."""
    if isinstance(raw, (staticmethod, classmethod)):
        return False
    kind = type(raw)
    if hasattr(kind, "__set__") or hasattr(kind, "__delete__"):
        return True
    return not callable(raw) and _is_tensor_class(owner)


class TypeTable:
    """One session's answers to ``type(v)``: the real class or its stand-in, decided once per class."""

    def __init__(self, modules: Any = None, builtins: dict | None = None) -> None:
        self.modules = modules
        self.builtins = builtins if builtins is not None else {}
        self._decided: dict[type, Any] = {}
        self._stand_ins: dict[str, OpaqueType] = {}
        self._named: set[type] = set()
        self._loaded_count = -1
        self.type_object: Any = None     # the script's `type` (type of a class is it)

    # ------------------------------------------------------------ type(v)
    def of(self, value: Any) -> Any:
        cls = type(value)
        if issubclass(cls, type) or cls is OpaqueType or cls is type(self.type_object):
            return self.type_object
        if cls is MethodType:
            return self._method_type(value)
        if cls is FunctionType and (getattr(value, "__module__", None) or "").startswith("gradcli.lang"):
            return self._builtin_function_type()    # print, getattr, dir: Python's are built-in
        if cls is AttributeView:
            return self._stand_in(value.kind, value.kind, (AttributeView,))
        return self.visible(cls)

    def visible(self, cls: type) -> Any:
        """The class itself or the stand-in a script sees for ``cls``."""
        found = self._decided.get(cls)
        if found is None:
            found = self._decided[cls] = self._decide(cls)
        return found

    def _decide(self, cls: type) -> Any:
        shown = visible_class(cls)     # gradcli's error classes are the builtins they stand for
        if shown is not cls:
            return self.visible(shown)
        from gradcli.lang.classes import is_python_builtin, is_script_class
        if is_script_class(cls) or cls.__dict__.get(SCRIPT_TYPE_MARK, False) or cls in _HARMLESS_PYTHON:
            return cls
        if issubclass(cls, BaseException) and not issubclass(cls, _STOPPING):
            return cls      # an exception class (NumPy's AxisError too): `except type(e):` works
        if is_python_builtin(cls):
            if self._is_named(cls):
                return cls
            return self._stand_in(cls.__name__, cls.__name__, (cls,))
        stand_in = self._gradcli_stand_in(cls)
        if stand_in is not None:
            return stand_in
        closed = closed_class(cls)
        if closed is not cls:
            return closed
        if self._is_named(cls):
            return cls
        from gradcli.lang.safety import type_name
        display = repr(cls)[len("<class '"):-2] if repr(cls).startswith("<class '") else type_name(cls)
        # (Python's tp_name of types.GenericAlias and types.UnionType names the module)
        return OpaqueType(display if cls.__module__ == "types" else type_name(cls), display, (cls,))

    def _gradcli_stand_in(self, cls: type) -> Any:
        """The Python class a gradcli-made value stands for (a module, a function, a dtype word)."""
        from gradcli.lang.functions import UserFunction
        from gradcli.lang.safety import Namespace, SafeFormat
        if cls is Namespace:
            return self._stand_in("module", "module", (Namespace,))
        if cls is SafeFormat:
            return self._builtin_function_type()
        from gradcli.lang.namespaces import DTypeWord
        from gradcli.lang.shorthand import GradWord
        if cls in (UserFunction, FunctionType, GradWord):
            return self._stand_in("function", "function", (UserFunction, FunctionType, GradWord))
        if cls is DTypeWord:    # `double`, `long`: they print and compare as torch.dtype
            dtype = self.builtins.get("float32")
            return self.visible(type(dtype)) if dtype is not None else self._stand_in(
                "torch.dtype", "torch.dtype", (DTypeWord,))
        return None

    def _builtin_function_type(self) -> OpaqueType:
        from gradcli.lang.safety import SafeFormat
        return self._stand_in("builtin_function_or_method", "builtin_function_or_method",
                              (type(len), SafeFormat))

    def _method_type(self, method: MethodType) -> Any:
        # a Tensor's methods are PyTorch's built-in methods; a class's are Python's bound methods
        if _is_tensor_class(type(method.__self__)):
            return self._builtin_function_type()
        return self._stand_in("method", "method", (MethodType,))

    def _stand_in(self, name: str, display: str, classes: tuple[type, ...]) -> OpaqueType:
        found = self._stand_ins.get(display)
        if found is None:
            found = self._stand_ins[display] = OpaqueType(name, display, classes)
        return found

    # ------------------------------------------------------------ classes a script has by name
    def _is_named(self, cls: type) -> bool:
        self._refresh()
        if cls in self._named:
            return True
        if self._load_modules_of(cls):
            self._refresh()
        return cls in self._named

    def _namespaces(self) -> list:
        return list(self.modules.by_path.values()) if self.modules is not None else []

    def _refresh(self) -> None:
        spaces = [space for space in self._namespaces() if space.loaded]
        if len(spaces) == self._loaded_count:
            return
        named = {value for value in self.builtins.values() if isinstance(value, type)}
        for space in spaces:
            named.update(value for value in space.members.values() if isinstance(value, type))
        self._named = named
        self._loaded_count = len(spaces)

    def _load_modules_of(self, cls: type) -> bool:
        """Load the lazy modules whose path begins ``cls``'s module (``torch.nn.modules.linear``:
        ``torch.nn``): a class they have is then known by name."""
        module = getattr(cls, "__module__", None) or ""
        loaded = False
        for space in self._namespaces():
            if not space.loaded and (module == space.path or module.startswith(space.path + ".")):
                space.members
                loaded = True
        return loaded

