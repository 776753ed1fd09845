"""Depth limits for nested data whose C code recurses without Python's recursion check.

Hashing a tuple hashes its items in C, and ``next`` of a ``map`` calls ``next`` of the iterator
it maps, in C: neither counts against the recursion limit, so a tuple nested a million deep or a
million chained ``map`` objects overflow the C stack (CPython itself crashes).  Here the depth
is counted as such data is built, and building past MAX_NESTING raises Python's RecursionError.

Iterators: ``map``, ``filter``, ``zip``, ``enumerate`` (and itertools' ``chain``, ``islice``) are
subclasses of Python's that remember their depth, under Python's names.  Tuples cannot remember
anything: a tuple display measures its items that are tuples, looking the most recent ones up in
a small table first (a chain such as ``t = (t,)`` then costs one look-up a level).
"""

from __future__ import annotations

import builtins as _python
import itertools as _itertools
from typing import Any

from gradcli.lang.errors import ScriptRecursionError, ScriptTypeError, ScriptValueError

# Deep enough for any real data; ~100 bytes of C stack a level, far within the script thread's.
MAX_NESTING = 100_000


def _too_deep(what: str) -> Exception:
    return ScriptRecursionError(f"maximum recursion depth exceeded ({what} nested more than "
                                f"{MAX_NESTING} deep)")


# ---------------------------------------------------------------- iterators
_CHAINED: set[type] = set()


def _chained(base: type, module: str) -> type:
    """A subclass of the C iterator ``base`` that knows how many such iterators it wraps."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if base is _python.enumerate:
            args, kwargs = _enumerate_arguments(args, kwargs), {}
        depth = 0
        for argument in args:
            if argument.__class__ in _CHAINED and argument._nesting > depth:
                depth = argument._nesting
        if depth >= MAX_NESTING:
            raise _too_deep("iterators")
        try:
            self = base.__new__(cls, *args, **kwargs)
        except (TypeError, ValueError) as error:
            # Python's own refusal of the arguments (`zip(5)`, `islice(x, -1)`) is the script's
            # mistake; an error from deeper down (a script's __iter__) passes as it is.
            if error.__traceback__ is None or error.__traceback__.tb_next is not None:
                raise
            kind = ScriptTypeError if isinstance(error, TypeError) else ScriptValueError
            raise kind(*error.args) from None
        self._nesting = depth + 1
        return self

    cls = type(base.__name__, (base,), {"__slots__": ("_nesting",), "__new__": __new__,
                                        "__module__": module, "__doc__": base.__doc__})
    _CHAINED.add(cls)
    return cls


def _enumerate_arguments(args: tuple, kwargs: dict) -> tuple:
    """``enumerate(iterable, start=0)``'s arguments as positional ones, checked as Python's own
    call checks them: a subclass is made by tp_new, whose messages differ (``enumerate()``:
    "missing required argument 'iterable' (pos 1)")."""
    given = len(args) + len(kwargs)
    names = list(kwargs)
    if given == 2:
        if len(names) == 2 and names[0] == "start":
            names.reverse()
        expected = ["iterable", "start"][2 - len(names):]
        for name, wanted in zip(names, expected):
            if name != wanted:
                raise ScriptTypeError(f"'{name}' is an invalid keyword argument for enumerate()")
        return (*args, *(kwargs[name] for name in names))
    if given == 1:
        if names and names[0] != "iterable":
            raise ScriptTypeError(f"'{names[0]}' is an invalid keyword argument for enumerate()")
        return (*args, *kwargs.values())
    if not args:
        raise ScriptTypeError("enumerate() missing required argument 'iterable'")
    raise ScriptTypeError(f"enumerate() takes at most 2 arguments ({given} given)")


BUILTIN_ITERATORS: dict[str, type] = {
    base.__name__: _chained(base, "builtins") for base in (_python.map, _python.filter, _python.zip,
                                                           _python.enumerate)}
ITERTOOLS_ITERATORS: dict[str, type] = {
    base.__name__: _chained(base, "itertools") for base in (_itertools.chain, _itertools.islice)}


# ---------------------------------------------------------------- tuples
_RECENT_SIZE = 16
_recent: dict[int, tuple[tuple, int]] = {}   # id -> (the tuple, kept alive so the id stays its, depth)


def check_tuple(items: tuple) -> tuple:
    """``items`` (a tuple just built from a display), once its depth is within MAX_NESTING."""
    for item in items:
        if isinstance(item, tuple):
            break
    else:
        return items   # (the common case: no tuple inside)
    depth = 0
    for item in items:
        if isinstance(item, tuple):
            known = _recent.get(id(item))
            found = known[1] if known is not None and known[0] is item else _depth(item)
            if found > depth:
                depth = found
    if depth:
        depth += 1
        if depth > MAX_NESTING:
            raise _too_deep("tuples")
        if len(_recent) >= _RECENT_SIZE:
            del _recent[next(iter(_recent))]
        _recent[id(items)] = (items, depth)
    return items


def _depth(root: tuple) -> int:
    """How deeply tuples nest in ``root`` (1: no tuple inside), without recursion; each shared
    tuple is measured once."""
    measured: dict[int, int] = {}
    stack: list[tuple[tuple, bool]] = [(root, False)]
    keep: list[tuple] = []   # (ids in `measured` stay unique while their tuples live)
    while stack:
        node, done = stack.pop()
        if done:
            deepest = 0
            for item in node:
                if isinstance(item, tuple):
                    deepest = max(deepest, measured[id(item)])
            measured[id(node)] = deepest + 1
            if deepest + 1 > MAX_NESTING:
                raise _too_deep("tuples")
            continue
        if id(node) in measured:
            continue
        known = _recent.get(id(node))
        if known is not None and known[0] is node:
            measured[id(node)] = known[1]
            continue
        keep.append(node)
        stack.append((node, True))
        for item in node:
            if isinstance(item, tuple) and id(item) not in measured:
                stack.append((item, False))
    return measured[id(root)]
