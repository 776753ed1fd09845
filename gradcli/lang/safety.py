"""What a script may reach through ``.``: whitelisted attributes only, so that it reaches
no file, process, environment or Python object outside the language.

Engine classes list the attributes a script may read in ``__script_attrs__``
and may assign in ``__script_settable__``; Python's own types get the
whitelists below.  A class whose instances hold the script's own attributes
(``nn.Module``: ``self.fc = nn.Linear(...)``) sets ``__script_dynamic__``: then the object's
own non-dunder attributes may be read, set and deleted, and of its class's members those it
lists (all of them if it lists none) -- but not the private state the engine keeps there
(``_parameters``, a ctx's ``_saved``), which a script could only break; the private names the
script gave such objects itself (``self._step``) are its own.  Dunder names are never
reachable, but for ``__name__``/``__doc__`` of the script's own classes and functions and the
special methods a script may define and call (``super().__init__()``).  Script classes, their
instances and ``super()`` objects follow gradcli.lang.class_access; what ``type(v)`` gives and
what reading through a class gives follow gradcli.lang.script_types.  ``str.format`` is
replaced by a formatter whose ``{0.attr}`` fields go through the same checks.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from types import MethodType
from typing import Any, Callable
from weakref import WeakKeyDictionary

from gradcli.lang.classes import SCRIPT_CLASS, SPECIAL_METHODS, opens_special_methods
from gradcli.lang.errors import (ScriptAttributeError, ScriptNotImplementedError, ScriptTypeError,
                                 attribute_error)
from gradcli.lang.functions import UserFunction
from gradcli.lang.numpy_module import ATTRIBUTES as NUMPY_ATTRIBUTES
from gradcli.lang.numpy_module import SUBSET as NUMPY_SUBSET
from gradcli.lang.script_types import SCRIPT_TYPE_MARK, OpaqueType, attribute_view, is_data_attribute
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
    def loaded(self) -> bool:
        """Whether the members are all there (a lazy module's are read on first use)."""
        return self._loader is None

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
    if cls is OpaqueType:     # (of its dunders only __name__: no __call__ or __init__ of the class)
        if is_dunder(name) and name != "__name__":
            raise attribute_error(f"type object '{obj.name}' has no attribute '{name}'", obj, name)
        return _class_attribute(obj.origin, name, obj.name)
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
        return _dynamic_attribute(obj, name)
    raise _missing(obj, name)


def _dynamic_attribute(obj: Any, name: str) -> Any:
    """``obj.name`` of an engine object that holds attributes of its own (nn.Module, a Function's
    ctx, an optimizer).  Where its class lists what a script may use (``__script_attrs__``), a
    member the class has but does not list (``ctx.rule``, ``module._call_impl``) stays hidden:
    the object's own attributes and what its ``__getattr__`` provides (a module's parameters) are
    reachable.  A class that lists nothing (optim.Optimizer) opens every non-dunder name."""
    if lists_attributes(type(obj)):
        values = getattr(obj, "__dict__", None)
        if not ((values is not None and name in values) or class_access.defining_class(type(obj), name) is None):
            raise _missing(obj, name)
        if values is not None and name in values and engine_private(obj, name):
            raise _missing(obj, name)    # the engine's own state (a ctx's _saved), not the script's
    return getattr(obj, name)  # (its own AttributeError, worded as the class words it)


# class -> the private names the script gave its instances (``self._step`` of a module): the
# script's own, where the engine's private state is not (a class, not each object: fused loops
# write a name directly once the sandbox let them write it on that class)
_SCRIPT_PRIVATE: MutableMapping[type, set[str]] = WeakKeyDictionary()


def _check_engine_state(obj: Any, name: str) -> None:
    """Refuse to set or delete a private name (``_parameters``, ``_saved``, ``_call_impl``) that
    the engine keeps on an object the script may add attributes to (an nn.Module, a Function's
    ctx): a script that replaced it would break the engine's own code.  The private names the
    script itself gave the object stay its own to change."""
    cls = type(obj)
    if not name.startswith("_") or not has_engine_base(cls):
        return
    values = getattr(obj, "__dict__", None)
    if values is None or script_private(cls, name):
        return
    if name in values or any(name in klass.__dict__ for klass in cls.__mro__
                             if SCRIPT_CLASS not in klass.__dict__ and klass is not object):
        raise ScriptAttributeError(f"attribute '{name}' of '{type_name(cls)}' objects is not writable")
    _SCRIPT_PRIVATE.setdefault(cls, set()).add(name)


def script_private(cls: type, name: str) -> bool:
    """Whether the script gave instances of ``cls`` the private attribute ``name`` itself."""
    return name in _SCRIPT_PRIVATE.get(cls, ())


def engine_private(obj: Any, name: str) -> bool:
    """Whether ``name`` is private state the engine keeps on ``obj`` (``_parameters`` of a module,
    ``_saved`` of a ctx): not the script's to read."""
    return name.startswith("_") and has_engine_base(type(obj)) and not script_private(type(obj), name)


def has_engine_base(cls: type) -> bool:
    """Whether an engine class whose instances take a script's attributes is among ``cls``'s bases."""
    return any("__script_dynamic__" in klass.__dict__ and SCRIPT_CLASS not in klass.__dict__ for klass in cls.__mro__)


def lists_attributes(cls: type) -> bool:
    """Whether ``cls`` (or a base) lists the attributes a script may read on its instances."""
    return getattr(cls, "__script_attrs__", None) is not None


def set_attribute(obj: Any, name: str, value: Any) -> None:
    """``obj.name = value`` for a script."""
    cls = type(obj)
    if SCRIPT_CLASS in cls.__dict__:     # an instance of a script class: its own attributes
        if is_dunder(name) or name.startswith("_gradcli_"):
            raise _missing(obj, name, reading=False)
        _check_engine_state(obj, name)
        setattr(obj, name, value)
        return
    if isinstance(obj, type) and SCRIPT_CLASS in obj.__dict__:
        return class_access.set_class_attribute(obj, name, value)
    if isinstance(obj, type) or cls is OpaqueType:
        raise _immutable_type(obj, name)
    if not is_dunder(name) and (name in settable_attributes(cls) or getattr(cls, "__script_dynamic__", False)):
        _check_engine_state(obj, name)
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
    if isinstance(obj, type) or cls is OpaqueType:
        raise _immutable_type(obj, name)
    if SCRIPT_CLASS in cls.__dict__ and name.startswith("_gradcli_"):
        raise _missing(obj, name, reading=False)
    if not is_dunder(name) and getattr(cls, "__script_dynamic__", False) and name not in settable_attributes(cls):
        _check_engine_state(obj, name)
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


def _immutable_type(cls: Any, name: str) -> Exception:
    """Python's error for setting or deleting an attribute of a class that is not the script's (for
    an engine class too, which PyTorch's Python classes would let a script change)."""
    shown = cls.name if type(cls) is OpaqueType else type_name(cls)
    return ScriptTypeError(f"cannot set '{name}' attribute of immutable type '{shown}'")


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


def _class_attribute(cls: type, name: str, shown: str | None = None) -> Any:
    """``Cls.name`` for a class that is not the script's (``shown``: the name of the stand-in the
    script holds for it, gradcli.lang.script_types).  Methods are the unbound methods; a data
    attribute (``torch.Tensor.shape``, ``int.real``) is an inert AttributeView that prints as
    PyTorch's or Python's descriptor: a script never holds a property, its getter or setter."""
    if shown is None and SCRIPT_CLASS in cls.__dict__:
        return class_access.class_attribute(cls, name)
    if name == "__name__":     # the short name, as Python's is (engine classes keep their tp_name there)
        full = cls.__name__ if shown is None else shown
        return full.rpartition(".")[2]
    if name in SPECIAL_METHODS and opens_special_methods(cls) and hasattr(cls, name):
        return getattr(cls, name)
    if name in readable_attributes(cls) and hasattr(cls, name):
        if name == "format" and cls is str:
            return _unbound_format
        owner = class_access.defining_class(cls, name)
        raw = owner.__dict__[name] if owner is not None else None
        if owner is not None and is_data_attribute(raw, owner) and not owner.__dict__.get(SCRIPT_TYPE_MARK, False):
            return attribute_view(cls, name, raw)
        return getattr(cls, name)
    shown = type_name(cls) if shown is None else shown
    return _raise(attribute_error(f"type object '{shown}' has no attribute '{name}'", cls, name))


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


# (what Python's messages name: "'builtin_function_or_method' object has no attribute ...")
SafeFormat.__module__ = "builtins"
SafeFormat.__name__ = SafeFormat.__qualname__ = "builtin_function_or_method"


def _unbound_format(template: str, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        raise ScriptTypeError("descriptor 'format' for 'str' objects doesn't apply to a "
                              f"'{type(template).__name__}' object")
    return _safe_formatter().vformat(template, args, kwargs)


# (at the bottom: class_access reads this module's whitelists)
from gradcli.lang import class_access  # noqa: E402
