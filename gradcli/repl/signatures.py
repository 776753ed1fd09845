"""Keyword parameter names of a callable a script can reach, for ``name=`` completion.

Script functions list their parameters; Python functions have
``inspect.signature``.  Most torch functions are ``(*args, **kwargs)``
wrappers around the engine's PyTorch-style argument parsers, so for those we
look, by convention, for the parser (or the op record holding it) in the
wrapper's closure or module globals.  Everything here is best effort: a
completion that cannot be worked out is simply not offered.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable

_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_MAX_DEPTH = 3


def parameter_names(function: Any, tensor_type: type | None = None) -> list[str]:
    """Names that ``function(name=...)`` accepts, in declaration order; [] when unknown.

    ``tensor_type`` lets a method form (``mean(y, dim=0)``) borrow the names of
    the Tensor method it calls.
    """
    try:
        return _unique(_names(function, tensor_type, 0))
    except Exception:  # introspection must never break the prompt
        return []


def _names(function: Any, tensor_type: type | None, depth: int, bound: bool = False) -> list[str]:
    """Parameter names; ``bound`` drops the first (``self``, or a method's ``input``)."""
    if depth > _MAX_DEPTH or not callable(function):
        return []
    declared = getattr(function, "signature", None)   # a function the script defined
    if declared is not None and hasattr(declared, "names"):
        return list(declared.names) + list(getattr(declared, "kwonly", ()))
    if inspect.ismethod(function):
        return _names(function.__func__, tensor_type, depth + 1, bound=True)
    if not inspect.isfunction(function) and not inspect.isbuiltin(function):
        # a callable object (the shorthand word ``grad``): what it wraps
        return [name for value in vars(function).values() if callable(value)
                for name in _names(value, tensor_type, depth + 1)] if hasattr(function, "__dict__") else []
    named, open_ended = _python_names(function)
    if bound:
        named = named[1:]
    if open_ended:
        named += _engine_names(function, tensor_type, depth, bound)
    return named


def _python_names(function: Callable[..., Any]) -> tuple[list[str], bool]:
    """Named parameters from ``inspect.signature``, and whether it also takes ``*args``/``**kwargs``."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return [], True
    named = [p.name for p in parameters if p.kind in _KEYWORD_KINDS]
    open_ended = any(p.kind in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
                     for p in parameters)
    return named, open_ended


def _engine_names(function: Any, tensor_type: type | None, depth: int, bound: bool) -> list[str]:
    """Names from an engine parser or op record found in the wrapper's closure or globals."""
    name = getattr(function, "__name__", None)
    found: list[str] = []
    cells = [cell.cell_contents for cell in getattr(function, "__closure__", None) or ()
             if _filled(cell)]
    for value in cells:
        if _is_op(value):
            found += _parser_names(value.parser("function"), bound)
        elif _is_parser(value):
            found += _parser_names(value, bound)
        elif callable(value) and value is not function and getattr(value, "__name__", None) == name:
            found += _names(value, tensor_type, depth + 1)   # a wrapper around a same-named function
        elif value == name and tensor_type is not None:
            # a method form: name(x, ...) calls x.name(...); x is the first argument
            method = getattr(tensor_type, value, None)
            if method is not None:
                found += _names(method, tensor_type, depth + 1)
    if not found and name:
        for value in list(getattr(function, "__globals__", {}).values()):
            if _is_parser(value) and value.name == name:
                found += _parser_names(value, bound)
    return found


def _parser_names(parser: Any, bound: bool) -> list[str]:
    return [name for name in parser.parameter_names(skip_first=bound) if name != "self"]


def _is_op(value: Any) -> bool:
    return hasattr(value, "sigs") and callable(getattr(value, "parser", None))


def _is_parser(value: Any) -> bool:
    """The engine's argument parser (``ArgParser`` or ``LazyParser``)."""
    return callable(getattr(value, "parameter_names", None)) and isinstance(getattr(value, "name", None), str)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # a closure variable not assigned yet
        return False
    return True


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(name for name in names
                              if name and name != "self" and not name.startswith("_")))
