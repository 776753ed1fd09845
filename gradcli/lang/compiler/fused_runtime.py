"""What the Python code of a fused loop (gradcli.lang.compiler.fusion) calls while it runs.

The sandbox's two fast paths live here.  A script reads ``obj.name`` directly (CPython's own
attribute lookup) only where the sandbox has already let that name through for exactly that
type: ``DIRECT_READS[name]`` holds the types ``read_attribute`` found it readable on, the way
``get_attribute`` would read it (a whitelisted name of an engine or Python class; never a
script class, whose members change, nor a type object, a module or ``super``).  Any other
type, including a subclass of one that is there, takes ``read_attribute``, which asks the
sandbox.  Assignments work the same way with ``DIRECT_WRITES``.  A dunder name, ``format``
(``str.format`` is replaced) and ``_gradcli_`` names never take the direct path: the
fused code calls the sandbox for them every time.

Where an exception happened is kept as the closures keep it (errors.mark): every Python
instruction of a fused loop carries, as its line number, the number of a Record (the span the
closures would mark an exception there with, the span innermost_span would find there, and
for a call the temporaries holding callee and arguments); ``failed`` marks the exception from
the instruction it stopped at.  Errors Python raises in this file count as the script's
(gradcli.lang.compiler.FUSED_FILES), as in the closure modules.
"""

from __future__ import annotations

from typing import Any

from gradcli.lang.class_access import SCRIPT_MEMBERS
from gradcli.lang.classes import SCRIPT_CLASS, is_script_class
from gradcli.lang.error_origin import is_catchable
from gradcli.lang.errors import ScriptTypeError, Span, mark, mark_call, visible_class
from gradcli.lang.safety import (READABLE_CACHE, Namespace, get_attribute, set_attribute, settable_attributes,
                                 type_name)

# attribute name -> the types on which fused code reads (writes) it with CPython's own lookup
DIRECT_READS: dict[str, set[type]] = {}
DIRECT_WRITES: dict[str, set[type]] = {}


# Instructions are numbered from this line on: a traceback's source line lookup finds nothing there.
LINE_BASE = 1 << 20


class Record:
    """What the closures would have done at some instructions of fused code."""

    __slots__ = ("mark", "where", "call")

    def __init__(self, mark: Span | None, where: Span | None, call: tuple[str, str] | None) -> None:
        self.mark = mark      # the span an exception raised there is marked with (None: not here)
        self.where = where    # what innermost_span finds while that instruction runs
        self.call = call      # (callee, arguments) temporaries of a call, for errors.mark_call


class Table:
    """The records of one fused loop and, once asked, the record of each of its instructions."""

    __slots__ = ("records", "code", "_by_unit")

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self.code: Any = None
        self._by_unit: list[Record] | None = None

    def record_at(self, offset: int) -> Record:
        """The record of the instruction at byte ``offset`` (a traceback's or frame's lasti)."""
        by_unit = self._by_unit
        if by_unit is None:
            records, none = self.records, self.records[0]
            by_unit = self._by_unit = [
                records[line - LINE_BASE] if line is not None and line >= LINE_BASE else none
                for line, _, _, _ in self.code.co_positions()]
        index = offset // 2
        return by_unit[index] if 0 <= index < len(by_unit) else self.records[0]


def failed(error: BaseException, table: Table) -> None:
    """Mark ``error``, which a fused loop caught, as the closures it stands for would have."""
    trace = error.__traceback__
    if trace is None:
        return
    record = table.record_at(trace.tb_lasti)
    if record.mark is None:
        return
    if record.call is None:
        mark(error, record.mark)
        return
    values = trace.tb_frame.f_locals
    callee, arguments = record.call
    mark_call(error, record.mark, values.get(callee), values.get(arguments))


def read_attribute(obj: Any, name: str, direct: set) -> Any:
    """``obj.name`` for a type not (yet) in ``direct``: the closures' attribute read, which also
    tells ``direct`` when ``type(obj)`` may be read directly from now on."""
    cls = type(obj)
    if cls is Namespace:    # a module's member: what get_attribute reads first
        return obj.lookup(name)
    allowed = READABLE_CACHE.get(cls)
    if allowed is not None:
        if name in allowed:
            if SCRIPT_CLASS not in cls.__dict__:
                direct.add(cls)
            return getattr(obj, name)
        if cls in SCRIPT_MEMBERS and not name.startswith("_"):   # (private names: the sandbox's)
            values = obj.__dict__
            if name in values:
                return values[name]
    value = get_attribute(obj, name)
    allowed = READABLE_CACHE.get(cls)   # (get_attribute fills it for a type first seen)
    if allowed is not None and name in allowed and SCRIPT_CLASS not in cls.__dict__:
        direct.add(cls)
    return value


def write_attribute(obj: Any, name: str, value: Any, direct: set | None) -> None:
    """``obj.name = value`` for a type not (yet) in ``direct`` (through the sandbox; ``direct``
    None for a name never written directly)."""
    set_attribute(obj, name, value)
    cls = type(obj)
    if direct is not None and not issubclass(cls, type) and (SCRIPT_CLASS in cls.__dict__ or name in settable_attributes(cls)
                                      or getattr(cls, "__script_dynamic__", False)):
        direct.add(cls)


def with_enter(context: Any) -> tuple:
    """Enter a ``with`` statement's manager: (its class, the manager, what ``__enter__`` gave)."""
    cls = type(context)
    if not (hasattr(cls, "__enter__") and hasattr(cls, "__exit__")):
        raise ScriptTypeError(f"'{type_name(cls)}' object does not support the context manager protocol")
    return cls, context, cls.__enter__(context)


def with_failed(entered: tuple, error: BaseException, table: Table) -> bool:
    """Leave a ``with`` whose body raised ``error``; whether ``__exit__`` suppressed it.  As the
    closures' ``with``: only the script's own errors reach a script's ``__exit__``."""
    failed(error, table)     # (the closures inside the body have marked it by now)
    cls, context = entered[0], entered[1]
    if is_catchable(error):
        return bool(cls.__exit__(context, visible_class(type(error)), error, error.__traceback__))
    if isinstance(error, KeyboardInterrupt) or not is_script_class(cls):
        cls.__exit__(context, type(error), error, error.__traceback__)
    return False
