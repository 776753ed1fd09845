"""The Python builtins a script may call, and no others.

Most are Python's own functions, passed through unchanged (so their error
messages are Python's).  ``print`` writes to the session's output, ``type``
has only its one-argument form, ``getattr``/``setattr``/``hasattr``/``delattr``
go through the sandbox (gradcli.lang.safety) as ``obj.name`` does, and nothing
here reaches files, the environment, ``eval``/``exec``, ``vars`` or imports.
"""

from __future__ import annotations

import builtins as _python
from typing import Any, Callable

from gradcli.lang.errors import ScriptAttributeError, ScriptNotImplementedError, ScriptTypeError
from gradcli.lang.nesting import BUILTIN_ITERATORS
from gradcli.lang.safety import delete_attribute, get_attribute, set_attribute
from gradcli.lang.script_types import OpaqueType, TypeTable

# Passed through as they are.
_PLAIN = """abs all any bin bool callable chr dict divmod enumerate filter float format frozenset
    hash hex id int isinstance issubclass iter len list map max min next oct ord pow range repr
    reversed round set slice sorted str sum tuple zip
    object staticmethod classmethod property super NotImplemented Ellipsis""".split()

# The exception classes a script may raise, catch and derive from (not the ones that stop the
# interpreter -- KeyboardInterrupt, SystemExit, GeneratorExit -- nor the operating system's).
EXCEPTIONS = """BaseException Exception ArithmeticError AssertionError AttributeError FloatingPointError
    ImportError ModuleNotFoundError IndexError KeyError LookupError MemoryError NameError NotImplementedError
    OverflowError RecursionError RuntimeError StopIteration TypeError UnboundLocalError ValueError
    ZeroDivisionError UnicodeError Warning UserWarning DeprecationWarning RuntimeWarning""".split()


class ScriptType:
    """``type``: the class of a value (``type(x)``) as gradcli.lang.script_types decides it; the
    three-argument form is not offered (and the metaclass is never handed out: it builds classes)."""

    __slots__ = ("table",)

    def __init__(self, table: TypeTable) -> None:
        self.table = table
        table.type_object = self

    def __call__(self, *args: Any) -> Any:
        if len(args) != 1:
            raise ScriptTypeError("type() takes 1 argument in gradcli scripts")
        return self.table.of(args[0])

    def __instancecheck__(self, obj: Any) -> bool:   # isinstance(Net, type), isinstance(type(len), type)
        return isinstance(obj, (type, OpaqueType))

    def __subclasscheck__(self, cls: Any) -> bool:
        return issubclass(cls, type)

    def __repr__(self) -> str:
        return "<class 'type'>"


ScriptType.__module__ = "builtins"
ScriptType.__name__ = ScriptType.__qualname__ = "type"


def make_print(write: Callable[[str], Any], flush_output: Callable[[], Any]) -> Callable[..., None]:
    """``print(*values, sep=' ', end='\\n', file=None, flush=False)`` onto ``write``.

    ``file=None`` is the script's output, as in Python; a script can reach no
    stream, so any other ``file`` fails as a value without ``write`` does.
    """

    def print(*values: Any, sep: Any = None, end: Any = None, file: Any = None,  # noqa: A001
              flush: bool = False) -> None:
        if file is not None:
            raise ScriptAttributeError(f"'{type(file).__name__}' object has no attribute 'write'")
        if sep is None:
            sep = " "
        elif not isinstance(sep, str):
            raise ScriptTypeError(f"sep must be None or a string, not {type(sep).__name__}")
        if end is None:
            end = "\n"
        elif not isinstance(end, str):
            raise ScriptTypeError(f"end must be None or a string, not {type(end).__name__}")
        write(sep.join([str(value) for value in values]) + end)
        if flush:
            flush_output()

    print.__qualname__ = "print"
    return print


def _attribute_name(function: str, name: Any) -> str:
    if not isinstance(name, str):
        raise ScriptTypeError(f"{function}(): attribute name must be string" if function != "getattr"
                              else f"attribute name must be string, not '{type(name).__name__}'")
    return name


def getattr(obj: Any, name: Any, *default: Any) -> Any:  # noqa: A001
    """``getattr(obj, name[, default])``, reaching exactly what ``obj.name`` reaches."""
    if len(default) > 1:
        raise ScriptTypeError(f"getattr expected at most 3 arguments, got {2 + len(default)}")
    try:
        return get_attribute(obj, _attribute_name("getattr", name))
    except AttributeError:
        if default:
            return default[0]
        raise


def hasattr(obj: Any, name: Any) -> bool:  # noqa: A001
    try:
        get_attribute(obj, _attribute_name("hasattr", name))
    except AttributeError:
        return False
    return True


def setattr(obj: Any, name: Any, value: Any) -> None:  # noqa: A001
    set_attribute(obj, _attribute_name("setattr", name), value)


def delattr(obj: Any, name: Any) -> None:  # noqa: A001
    delete_attribute(obj, _attribute_name("delattr", name))


def vars(*obj: Any) -> Any:  # noqa: A001
    """No object's ``__dict__`` is the script's to hold."""
    if not obj:
        raise ScriptNotImplementedError("gradcli does not support vars() yet")
    raise ScriptTypeError("vars() argument must have __dict__ attribute")


def python_builtins(write: Callable[[str], Any], flush: Callable[[], Any], modules: Any = None) -> dict[str, Any]:
    """Name -> value for the Python builtins of a script whose output goes to ``write`` (``modules``:
    the session's importable modules, whose classes ``type(v)`` may hand out)."""
    names: dict[str, Any] = {name: _python.__dict__[name] for name in _PLAIN + EXCEPTIONS}
    names.update(BUILTIN_ITERATORS)   # map, zip, ... that count how deeply they are chained
    names["print"] = make_print(write, flush)
    names["type"] = ScriptType(TypeTable(modules, names))
    for function in (getattr, hasattr, setattr, delattr, vars):
        names[function.__name__] = function
    # A script runs as the main module: `if __name__ == "__main__": main()` runs main().
    names["__name__"] = "__main__"
    return names


def introspection_builtins(write: Callable[[str], Any], modules: Any, names: dict,
                           global_names: dict) -> dict[str, Any]:
    """``dir`` and ``help`` (gradcli.lang.introspection, read on their first call)."""

    def dir(*args: Any) -> list:  # noqa: A001
        from gradcli.lang.introspection import make_dir
        return make_dir(global_names)(*args)

    def help(*args: Any) -> None:  # noqa: A001
        from gradcli.lang.introspection import Helper
        return Helper(write, modules, names)(*args)

    dir.__qualname__, help.__qualname__ = "dir", "help"
    return {"dir": dir, "help": help}
