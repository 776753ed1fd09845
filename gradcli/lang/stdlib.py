"""The pure parts of Python's standard library a script can import, each a documented subset.

The members are CPython's own objects, so values, reprs and errors are CPython 3.11's:

- ``random``: ``seed random randint randrange choice choices shuffle sample uniform gauss``, the
  methods of one ``random.Random`` per session (after ``random.seed(n)`` the numbers are
  CPython's, bit for bit);
- ``functools``: ``partial reduce`` (a partial's ``func args keywords`` are readable);
- ``itertools``: ``count chain product islice permutations combinations repeat``
  (``chain.from_iterable`` too);
- ``collections``: ``OrderedDict defaultdict Counter namedtuple`` (with ``move_to_end``/``popitem``,
  ``default_factory``, ``most_common``/``elements``/``subtract``/``total``, and a named tuple's
  fields and ``_fields _asdict _replace _make``).

The iterators that can run without end or explode combinatorially (``count repeat product
permutations combinations``) step through Python code, so ``--timeout`` and Ctrl-C stop a script
that exhausts one inside ``list()`` or ``sum()``.  What else these modules have says "gradcli does
not support random.X yet"; a script reaches nothing they would reach (files, the clock, threads).
"""

from __future__ import annotations

import collections as _collections
import functools as _functools
import itertools as _itertools
from typing import Any, Callable

# Python sources of these modules (and the helpers they call), relative to the standard library:
# an exception raised inside them is the script's, as one raised inside NumPy is.
PYTHON_SOURCES = ("random.py", "functools.py", "collections", "reprlib.py", "heapq.py", "keyword.py")

RANDOM = "seed random randint randrange choice choices shuffle sample uniform gauss".split()
FUNCTOOLS = ("partial", "reduce")
ITERTOOLS = "count chain product islice permutations combinations repeat".split()
COLLECTIONS = ("OrderedDict", "defaultdict", "Counter", "namedtuple")

_NAMED_TUPLE_ATTRIBUTES = frozenset({"_fields", "_field_defaults", "_asdict", "_replace", "_make"})

# type -> what a script may read on its instances (merged into the sandbox's whitelists).
ATTRIBUTES: dict[type, frozenset[str]] = {
    _functools.partial: frozenset({"func", "args", "keywords"}),
    _itertools.chain: frozenset({"from_iterable"}),
    _collections.OrderedDict: frozenset({"move_to_end", "popitem"}),
    _collections.defaultdict: frozenset({"default_factory"}),
    _collections.Counter: frozenset({"most_common", "elements", "subtract", "update", "total"}),
}


def random_members() -> dict[str, Any]:
    """A fresh ``random.Random`` for one session, seen through the subset of its methods."""
    import random
    generator = random.Random()
    return {name: getattr(generator, name) for name in RANDOM}


def functools_members() -> dict[str, Any]:
    return {name: getattr(_functools, name) for name in FUNCTOOLS}


def collections_members() -> dict[str, Any]:
    members: dict[str, Any] = {name: getattr(_collections, name) for name in COLLECTIONS}
    members["namedtuple"] = namedtuple
    return members


def namedtuple(typename: Any, field_names: Any, *, rename: bool = False, defaults: Any = None,
               module: Any = None) -> type:
    """``collections.namedtuple``, whose class belongs to the script (``__main__``) and lets a
    script read its fields and its ``_asdict``/``_replace``/``_make``."""
    cls = _collections.namedtuple(typename, field_names, rename=rename, defaults=defaults,
                                  module="__main__" if module is None else module)
    cls.__script_attrs__ = frozenset(cls._fields) | _NAMED_TUPLE_ATTRIBUTES
    cls.__script_base__ = True   # `class Point(namedtuple("Point", "x y")):` is fine
    cls.__script_type__ = True   # the script's own class: type(p) is it (lang/script_types.py)
    return cls


namedtuple.__module__ = "collections"


def _stepping(real: type) -> type:
    """A Python-level twin of the C iterator ``real``: same repr, same name, but each item is
    produced by Python code (where a pending timeout or Ctrl-C is noticed)."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        self._iterator = real(*args, **kwargs)

    def __iter__(self: Any) -> Any:
        return self

    def __next__(self: Any) -> Any:
        return next(self._iterator)

    def __repr__(self: Any) -> str:
        text = repr(self._iterator)
        return text if not text.startswith("<") else f"<itertools.{real.__name__} object at {id(self):#x}>"

    cls = type(real.__name__, (), {"__slots__": ("_iterator",), "__init__": __init__, "__iter__": __iter__,
                                   "__next__": __next__, "__repr__": __repr__, "__module__": "itertools",
                                   "__doc__": real.__doc__})
    return cls


_STEPPING = frozenset({"count", "repeat", "product", "permutations", "combinations"})


def itertools_members() -> dict[str, Any]:
    from gradcli.lang.nesting import ITERTOOLS_ITERATORS   # (chain, islice: counting how deeply chained)
    return {name: _stepping(getattr(_itertools, name)) if name in _STEPPING
            else ITERTOOLS_ITERATORS.get(name) or getattr(_itertools, name) for name in ITERTOOLS}


# module name -> its members (loaded on the first use in a session)
MODULES: dict[str, Callable[[], dict[str, Any]]] = {
    "random": random_members,
    "functools": functools_members,
    "itertools": itertools_members,
    "collections": collections_members,
}
