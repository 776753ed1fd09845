"""The Python builtins a script may call, and no others.

Most are Python's own functions, passed through unchanged (so their error
messages are Python's).  ``print`` writes to the session's output, ``type``
has only its one-argument form, and nothing here reaches files, the
environment, ``eval``/``exec``, ``getattr`` or imports.
"""

from __future__ import annotations

import builtins as _python
from typing import Any, Callable

from gradcli.lang.errors import ScriptAttributeError, ScriptTypeError

# Passed through as they are.
_PLAIN = """abs all any bin bool callable chr dict divmod enumerate filter float format frozenset
    hash hex id int isinstance issubclass iter len list map max min next oct ord pow range repr
    reversed round set slice sorted str sum tuple zip""".split()


class ScriptType:
    """``type``: the class of a value (``type(x)``); the three-argument form is not offered."""

    def __call__(self, *args: Any) -> Any:
        if len(args) != 1:
            raise ScriptTypeError("type() takes 1 argument in gradcli scripts")
        cls = type(args[0])
        # the metaclass would let a script build classes: hand back this function instead
        return self if issubclass(cls, type) else cls

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


def python_builtins(write: Callable[[str], Any], flush: Callable[[], Any]) -> dict[str, Any]:
    """Name -> value for the Python builtins of a script whose output goes to ``write``."""
    names: dict[str, Any] = {name: getattr(_python, name) for name in _PLAIN}
    names["print"] = make_print(write, flush)
    names["type"] = ScriptType()
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
