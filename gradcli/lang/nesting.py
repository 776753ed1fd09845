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

from gradcli.lang.errors import ScriptRecursionError

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
        depth = 0
        for argument in args:
            if argument.__class__ in _CHAINED and argument._nesting > depth:
                depth = argument._nesting
        if depth >= MAX_NESTING:
            raise _too_deep("iterators")
        self = base.__new__(cls, *args, **kwargs)
        self._nesting = depth + 1
        return self

    cls = type(base.__name__, (base,), {"__slots__": ("_nesting",), "__new__": __new__,
                                        "__module__": module, "__doc__": base.__doc__})
    _CHAINED.add(cls)
    return cls


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
