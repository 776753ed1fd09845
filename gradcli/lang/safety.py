"""What a script may reach through ``.``: whitelisted attributes only, so that it reaches
no file, process, environment or Python object outside the language.

Engine classes list the attributes a script may read in ``__script_attrs__``
and may assign in ``__script_settable__``; Python's own types get the
whitelists below.  A class whose instances hold the script's own attributes
(``nn.Module``: ``self.fc = nn.Linear(...)``) sets ``__script_dynamic__``: then
any non-dunder attribute the object has may be read, set and deleted.  Dunder names are never
reachable, but for ``__name__``/``__doc__`` of the script's own classes and functions and the
special methods a script may define and call (``super().__init__()``).  Script classes, their
instances and ``super()`` objects follow gradcli.lang.class_access.  ``str.format`` is
replaced by a formatter whose ``{0.attr}`` fields go through the same checks.
"""

from __future__ import annotations

from types import MethodType
from typing import Any, Callable

from gradcli.lang.classes import SCRIPT_CLASS, SPECIAL_METHODS, opens_special_methods
from gradcli.lang.errors import (ScriptAttributeError, ScriptNotImplementedError, ScriptTypeError,
                                 attribute_error)
from gradcli.lang.functions import UserFunction
from gradcli.lang.numpy_module import ATTRIBUTES as NUMPY_ATTRIBUTES
from gradcli.lang.numpy_module import SUBSET as NUMPY_SUBSET
from gradcli.lang.stdlib import ATTRIBUTES as STDLIB_ATTRIBUTES

_STR = frozenset("""capitalize casefold center count endswith expandtabs find format index isalnum
    isalpha isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle
    isupper join ljust lower lstrip partition removeprefix removesuffix replace rfind rindex rjust
    rpartition rsplit rstrip split splitlines startswith strip swapcase title upper zfill""".split())
_LIST = frozenset("append clear copy count extend index insert pop remove reverse sort".split())
_TUPLE = frozenset("count index".split())
_DICT = frozenset("clear copy fromkeys get items keys pop popitem setdefault update values".split())
_SET = frozenset("""add clear copy difference difference_update discard intersection
    intersection_update isdisjoint issubset issuperset pop remove symmetric_difference
    symmetric_difference_update union update""".split())
_INT = frozenset("bit_length bit_count conjugate real imag numerator denominator as_integer_ratio".split())
_FLOAT = frozenset("as_integer_ratio conjugate hex is_integer real imag".split())
_COMPLEX = frozenset("conjugate real imag".split())
_RANGE = frozenset("start stop step count index".split())
_SLICE = frozenset("start stop step indices".split())
_PROPERTY = frozenset("fget fset fdel getter setter deleter".split())

BUILTIN_ATTRIBUTES: dict[type, frozenset[str]] = {
    str: _STR, list: _LIST, tuple: _TUPLE, dict: _DICT, set: _SET, frozenset: _SET - {
        "add", "clear", "discard", "pop", "remove", "update", "difference_update",
        "intersection_update", "symmetric_difference_update"},
    int: _INT, bool: _INT, float: _FLOAT, complex: _COMPLEX, range: _RANGE, slice: _SLICE,
    property: _PROPERTY,
    # what Python's exceptions tell about themselves
    BaseException: frozenset({"args"}), StopIteration: frozenset({"value"}),
    NameError: frozenset({"name"}), AttributeError: frozenset({"name"}), ImportError: frozenset({"name", "msg"}),
    **NUMPY_ATTRIBUTES,  # ndarray, NumPy scalars and dtypes (lang/numpy_module.py)
    **STDLIB_ATTRIBUTES,  # partial, OrderedDict, Counter, ... (lang/stdlib.py)
}

# type -> readable names; filled by readable_attributes, read directly by compiled code.
# Types whose attributes need more than getattr (type objects, modules) never enter it.
READABLE_CACHE: dict[type, frozenset[str]] = {}


def readable_attributes(cls: type) -> frozenset[str]:
    """Attribute names a script may read on instances of ``cls`` (cached per type)."""
    found = READABLE_CACHE.get(cls)
    if found is None:
        if SCRIPT_CLASS in cls.__dict__:
            return class_access.instance_members(cls)
        names: set[str] = set(getattr(cls, "__script_attrs__", ()))
        for base in cls.__mro__:
            names |= BUILTIN_ATTRIBUTES.get(base, frozenset())
        found = frozenset(name for name in names if not is_dunder(name))
        if not issubclass(cls, type) and cls is not Namespace:
            READABLE_CACHE[cls] = found
    return found


def settable_attributes(cls: type) -> frozenset[str]:
    return frozenset(getattr(cls, "__script_settable__", ()))


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


class Namespace:
    """A module as a script sees it (``torch``, ``torch.nn.functional``, ``math``).

    ``members`` are what gradcli has.  ``pytorch_module`` names the real
    PyTorch module it mirrors (``""`` for ``torch``, ``"nn.functional"``, ...;
    None for ``math``), so a real name gradcli lacks says "not supported yet"
    instead of "no such attribute".  ``mirrors`` is the real module (or its name, imported
    when a script asks for what the subset lacks) of which this is a subset (numpy, random),
    and ``note`` says which subset that is.  ``missing`` words the AttributeError for a name
    the module lacks, where a module's own words help more than Python's ("gradcli's
    matplotlib.pyplot does not support plt.hist").
    """

    def __init__(self, path: str, members: dict[str, Any], pytorch_module: str | None = None,
                 mirrors: Any = None, loader: Callable[[], dict[str, Any]] | None = None,
                 note: str | None = None, missing: Callable[[str], str] | None = None) -> None:
        self.path = path
        self._members = members
        self.pytorch_module = pytorch_module
        self._mirrors = mirrors
        self.note = note
        self._missing = missing
        # Members that load on first use (torch.nn, torch.optim: a script that never touches
        # them does not pay for importing them at start-up).
        self._loader = loader

    @property
    def members(self) -> dict[str, Any]:
        if self._loader is not None:
            loader, self._loader = self._loader, None
            self._members.update(loader())
        return self._members

    @property
    def mirrors(self) -> Any:
        if isinstance(self._mirrors, str):
            import importlib
            self._mirrors = importlib.import_module(self._mirrors)
        return self._mirrors

    def add(self, name: str, value: Any) -> None:
        """A member known at once (a submodule), without loading the lazy ones."""
        self._members[name] = value

    def pytorch_has(self, name: str) -> bool:
        """Whether the real PyTorch module has ``name`` (the table is read on the first miss)."""
        if self.pytorch_module is None:
            return False
        from gradcli.lang.pytorch_names import MODULES
        return name in MODULES.get(self.pytorch_module, ())

    def unsupported(self, name: str) -> str | None:
        """The message for a name the real module has and this one lacks, else None."""
        if self.pytorch_has(name):
            return f"gradcli does not support {self.path}.{name} yet"
        if self._mirrors is not None and not is_dunder(name) and hasattr(self.mirrors, name):
            if self.note is None:
                return f"gradcli does not support {self.path}.{name} yet"
            return f"gradcli does not support {self.path}.{name} ({self.note})"
        return None

    def lookup(self, name: str) -> Any:
        try:
            return self.members[name]
        except KeyError:
            pass
        message = self.unsupported(name)
        if message is not None:
            raise ScriptNotImplementedError(message)
        if self._missing is not None and not is_dunder(name):
            raise attribute_error(self._missing(name), self, name)
        raise attribute_error(f"module '{self.path}' has no attribute '{name}'", self, name)

    def __repr__(self) -> str:
        return f"<module '{self.path}'>"


Namespace.__module__ = "builtins"
Namespace.__name__ = Namespace.__qualname__ = "module"


def get_attribute(obj: Any, name: str) -> Any:
    """``obj.name`` for a script."""
    cls = type(obj)
    if cls is Namespace:
        return obj.lookup(name)
    if isinstance(obj, type):
        return _class_attribute(obj, name)
    if SCRIPT_CLASS in cls.__dict__:
        return class_access.instance_attribute(obj, name)
    if cls is super:
        return class_access.super_attribute(obj, name)
    if is_dunder(name):
        if name in ("__name__", "__doc__") and is_script_function(obj):
            return getattr(obj, name)
        raise _missing(obj, name)
    if name in readable_attributes(cls):
        if name == "format" and isinstance(obj, str):
            return SafeFormat(obj)
        return getattr(obj, name)
    if getattr(cls, "__script_dynamic__", False):
        return getattr(obj, name)  # (its own AttributeError, worded as the class words it)
    raise _missing(obj, name)


def set_attribute(obj: Any, name: str, value: Any) -> None:
    """``obj.name = value`` for a script."""
    cls = type(obj)
    if SCRIPT_CLASS in cls.__dict__:     # an instance of a script class: its own attributes
        if is_dunder(name) or name.startswith("_gradcli_"):
            raise _missing(obj, name, reading=False)
        setattr(obj, name, value)
        return
    if isinstance(obj, type) and SCRIPT_CLASS in obj.__dict__:
        return class_access.set_class_attribute(obj, name, value)
    if not is_dunder(name) and (name in settable_attributes(cls) or getattr(cls, "__script_dynamic__", False)):
        setattr(obj, name, value)
        return
    if cls is Namespace:
        raise ScriptAttributeError(f"cannot set attributes of module '{obj.path}'")
    raise _not_writable(obj, name)


def delete_attribute(obj: Any, name: str) -> None:
    """``del obj.name``: allowed where assignment is (``del x.grad``).

    PyTorch's Tensor attributes are C getsets whose setter gets NULL on ``del``:
    ``del x.grad`` clears the gradient, ``del x.data`` refuses, and
    ``del x.requires_grad`` fails as assigning a non-bool does.
    """
    cls = type(obj)
    if isinstance(obj, type) and SCRIPT_CLASS in obj.__dict__:
        return class_access.delete_class_attribute(obj, name)
    if SCRIPT_CLASS in cls.__dict__ and name.startswith("_gradcli_"):
        raise _missing(obj, name, reading=False)
    if not is_dunder(name) and getattr(cls, "__script_dynamic__", False) and name not in settable_attributes(cls):
        delattr(obj, name)
        return
    if not is_dunder(name) and name in settable_attributes(cls):
        if cls.__name__ == "Tensor":
            if name == "data":
                from gradcli.engine.errors import TorchRuntimeError
                raise TorchRuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")
            setattr(obj, name, None)
            return
        delattr(obj, name)
        return
    raise _not_writable(obj, name)


def _not_writable(obj: Any, name: str) -> Exception:
    """Python's error for assigning or deleting an attribute a script may only read."""
    cls = type(obj)
    if is_dunder(name) or name not in readable_attributes(cls):
        return _missing(obj, name, reading=False)
    if cls.__name__ == "Tensor":
        if not callable(getattr(cls, name, None)):   # a getset of torch._C.TensorBase
            return ScriptAttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
    elif not callable(getattr(obj, name, None)):     # a getset/member of a Python type (int.real)
        return ScriptAttributeError(f"attribute '{name}' of '{type_name(cls)}' objects is not writable")
    return ScriptAttributeError(f"'{type_name(cls)}' object attribute '{name}' is read-only")


def type_name(cls: type) -> str:
    """A class's name as Python's messages give it (its C ``tp_name``): ``torch.Size``,
    ``torch.return_types.max``, but ``Tensor`` and ``MulBackward0``.  The engine's torch
    types carry their tp_name as ``__name__`` (their repr uses ``__qualname__``); NumPy's C
    types name their module (``numpy.ndarray``)."""
    return f"{cls.__module__}.{cls.__name__}" if _is_numpy(cls) else cls.__name__


def _is_numpy(cls: type) -> bool:
    module = getattr(cls, "__module__", None) or ""
    return module == "numpy" or module.startswith("numpy.")


def is_script_function(obj: Any) -> bool:
    """A function the script defined, or one of its methods bound to an instance."""
    cls = type(obj)
    return cls is UserFunction or (cls is MethodType and type(obj.__func__) is UserFunction)


def _class_attribute(cls: type, name: str) -> Any:
    if SCRIPT_CLASS in cls.__dict__:
        return class_access.class_attribute(cls, name)
    if name == "__name__":
        return cls.__name__
    if name in SPECIAL_METHODS and opens_special_methods(cls) and hasattr(cls, name):
        return getattr(cls, name)
    if name in readable_attributes(cls) and hasattr(cls, name):
        if name == "format" and cls is str:
            return _unbound_format
        return getattr(cls, name)
    return _raise(attribute_error(f"type object '{type_name(cls)}' has no attribute '{name}'", cls, name))


def _missing(obj: Any, name: str, reading: bool = True) -> Exception:
    """``obj`` has no attribute ``name`` a script may reach; when reading it, the error can
    suggest a close name, as Python's does (not when assigning or deleting, as in Python)."""
    cls_name = type_name(type(obj))
    if cls_name == "Tensor" and not is_dunder(name):
        # A real Tensor method gradcli lacks says so, rather than "no attribute".
        from gradcli.lang.pytorch_names import TENSOR
        if name in TENSOR:
            return ScriptNotImplementedError(f"gradcli does not support Tensor.{name} yet")
    if _is_numpy(type(obj)) and not is_dunder(name) and hasattr(obj, name):
        return ScriptNotImplementedError(f"gradcli does not support {cls_name}.{name} ({NUMPY_SUBSET})")
    # a class may word the error itself (matplotlib's Axes: "... does not support ax.hist")
    worded = getattr(type(obj), "__script_missing__", None)
    message = worded(name) if worded is not None and not is_dunder(name) else \
        f"'{cls_name}' object has no attribute '{name}'"
    return attribute_error(message, obj, name) if reading else ScriptAttributeError(message)


def _raise(error: BaseException) -> Any:
    raise error


def _safe_formatter() -> Any:
    """The one ``string.Formatter`` whose ``{0.attr}`` fields obey the attribute whitelist (made on
    first use: importing ``string`` compiles its Template pattern, ~1 ms a run would pay for nothing)."""
    global _formatter
    if _formatter is None:
        import string

        class _SafeFormatter(string.Formatter):
            def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, Any]:
                first, rest = _formatter_field_name_split(field_name)
                obj = self.get_value(first, args, kwargs)
                for is_attribute, key in rest:
                    obj = get_attribute(obj, key) if is_attribute else obj[key]
                return obj, first

            def format_field(self, value: Any, format_spec: str) -> Any:
                from gradcli.lang.sizes import check_format  # (a width past --max-memory)
                check_format(format_spec)
                return format(value, format_spec)

        _formatter = _SafeFormatter()
    return _formatter


def _formatter_field_name_split(field_name: str):
    import _string
    return _string.formatter_field_name_split(field_name)


_formatter: Any = None


class SafeFormat:
    """The bound ``"...".format`` a script gets."""

    __slots__ = ("template",)

    def __init__(self, template: str) -> None:
        self.template = template

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        return _safe_formatter().vformat(self.template, args, kwargs)

    def __repr__(self) -> str:
        return f"<built-in method format of str object at {id(self.template):#x}>"


def _unbound_format(template: str, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        raise ScriptTypeError("descriptor 'format' for 'str' objects doesn't apply to a "
                              f"'{type(template).__name__}' object")
    return _safe_formatter().vformat(template, args, kwargs)


# (at the bottom: class_access reads this module's whitelists)
from gradcli.lang import class_access  # noqa: E402
