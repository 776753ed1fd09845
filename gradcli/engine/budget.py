"""The limits of ``--max-memory`` and ``--max-elements``, checked before anything is allocated.

One memory budget (``--max-memory``, by default half of the machine's physical memory) bounds
every new tensor, and every list, string or formatted text the language builds (those check
through ``check_bytes``); ``--max-elements`` (off by default) also bounds a tensor's count.

Factories and the ops that can make more than their inputs hold (broadcasting, products,
repeat, cat, one_hot, *_like of an expanded view, tolist, ...) check the size they are about
to make, from shapes and dtypes, before allocating; the runner checks every other op's result
as a last resort (a view is free and is not counted).  A single allocation of more than a
sixteenth of the budget also counts what the process holds already (its resident memory), so
that two big tensors cannot together pass the budget either.
"""

from __future__ import annotations

import os
import sys

from .errors import TorchMemoryError, TorchNotImplementedError, TorchRuntimeError
from .shape_rules import list_str, numel

NO_LIMIT = sys.maxsize
_INT64_MAX = 2 ** 63 - 1

_max_elements: int | None = None
# The budget in bytes (NO_LIMIT: none).  Read directly by the hot paths: one comparison.
max_bytes: int = NO_LIMIT
_resident_above = NO_LIMIT   # allocations above this also count the resident memory
# Results of more bytes than this are looked at closely by the runner (the smaller of the
# above and --max-elements: a result over either is over this, as an element is a byte or more).
watch_above: int = NO_LIMIT
watch_elements: int = NO_LIMIT  # watch_above in elements of the widest dtype (8 bytes)
# Whether a view that repeats memory and looks larger than watch_elements was ever made (an
# expanded view): from then on the runner checks what each op's input looks like, not only
# what it holds.  (Until then that costs the runner one comparison.)
big_views = False


def physical_memory() -> int | None:
    """The machine's physical memory in bytes, or None where the system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def default_max_memory() -> int | None:
    """The default budget: half of the physical memory (None where it is unknown)."""
    total = physical_memory()
    return None if total is None or total <= 0 else total // 2


def set_max_elements(n: int | None) -> None:
    """Refuse to create tensors of more than ``n`` elements (None: no limit)."""
    global _max_elements
    _max_elements = n
    _set_watch()


def set_max_memory(n: int | None) -> None:
    """Refuse to allocate more than ``n`` bytes at once (None: no limit)."""
    global max_bytes, _resident_above
    max_bytes = NO_LIMIT if n is None else n
    _resident_above = NO_LIMIT if n is None else min(max(n // 16, 1 << 20), n)
    _set_watch()


def _set_watch() -> None:
    global watch_above, watch_elements
    watch_above = min(_resident_above, NO_LIMIT if _max_elements is None else _max_elements)
    watch_elements = watch_above // 8


def max_memory() -> int | None:
    return None if max_bytes == NO_LIMIT else max_bytes


def check_size(shape: tuple[int, ...], itemsize: int = 8) -> None:
    """Before a factory allocates ``shape`` of ``itemsize``-byte elements (by default the
    widest dtype's): PyTorch's negative-size and overflow errors, then the limits."""
    for s in shape:
        if s < 0:
            raise TorchRuntimeError(f"Trying to create tensor with negative dimension {s}: {list_str(shape)}")
    count = numel(shape)
    if count * itemsize > _INT64_MAX:
        raise TorchRuntimeError(f"Storage size calculation overflowed with sizes={list_str(shape)}")
    if count == 0:
        _check_empty(shape, itemsize)
    check_count(count, itemsize)


def _check_empty(shape: tuple[int, ...], itemsize: int) -> None:
    """An empty shape whose other sizes are huge: PyTorch's contiguous strides (each the product of
    the later sizes, 0 counted as 1) must fit int64; NumPy's product of the nonzero sizes in bytes too."""
    stride = 1
    for s in shape[:0:-1]:
        stride *= max(s, 1)
    if stride > _INT64_MAX:
        raise TorchRuntimeError("Stride calculation overflowed")
    if numel([s for s in shape if s]) * itemsize > _INT64_MAX:
        raise TorchNotImplementedError(
            f"gradcli does not support an empty tensor of sizes {list_str(shape)}: "
            f"NumPy cannot describe one whose nonzero sizes span more than {_INT64_MAX} bytes")


def check_count(count: int, itemsize: int = 1) -> None:
    """Before ``count`` elements of ``itemsize`` bytes are allocated for one tensor."""
    if _max_elements is not None and count > _max_elements:
        raise TorchRuntimeError(
            f"gradcli refuses to create a tensor of {count_text(count)} elements: the limit is {_max_elements} "
            "(see --max-elements)")
    nbytes = count * itemsize
    if nbytes > _resident_above:
        _check_tensor_bytes(count, nbytes)


def check_array(result: object) -> None:
    """After a kernel made ``result`` (the runner's last resort for ops that check nothing)."""
    check_count(int(getattr(result, "size", 1)), int(getattr(getattr(result, "dtype", None), "itemsize", 1)))


def note_view(array: object) -> None:
    """After a view op made ``array`` of more than watch_elements elements."""
    global big_views
    if _repeats(array):
        big_views = True


def check_expanded(tensor: object) -> None:
    """Before an op reads ``tensor``, when it may repeat memory (an expanded view): its result is as
    large as the view looks, not as the memory behind it (``exp(ones(1).expand(10**9))``)."""
    array = getattr(tensor, "_data", None)
    if array is not None and getattr(array, "size", 0) > watch_elements and _repeats(array):
        check_count(int(array.size), 8)


def _repeats(array: object) -> bool:
    shape, strides = getattr(array, "shape", ()), getattr(array, "strides", ())
    return any(st == 0 and n > 1 for st, n in zip(strides, shape))


def _check_tensor_bytes(count: int, nbytes: int) -> None:
    total = physical_memory()
    if total is not None and nbytes > total:   # where PyTorch's own allocator would fail too
        raise TorchRuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                                f"allocate memory: you tried to allocate {nbytes} bytes. Error code 12 "
                                "(Cannot allocate memory)")
    problem = over_budget(nbytes)
    if problem:
        raise TorchRuntimeError(f"gradcli refuses to create a tensor of {count_text(count)} elements "
                                f"({size_text(nbytes)}): "
                                f"{problem} (see --max-memory)")


def check_bytes(nbytes: int, what: str) -> None:
    """Before the language builds ``what`` (``a list of 10 items``) of ``nbytes`` bytes: a
    MemoryError naming the limit (Python's own, for an object too large for the machine)."""
    if nbytes > _resident_above:
        problem = over_budget(nbytes)
        if problem:
            raise TorchMemoryError(f"gradcli refuses to build {what} ({size_text(nbytes)}): {problem} "
                              "(see --max-memory)")


# What one tensor costs Python (the object, its NumPy view, its autograd links): 600-800 bytes measured.
TENSOR_OBJECT_BYTES = 1024


def check_tensors(count: int) -> None:
    """Before an op makes ``count`` tensors at once (unbind, split): their objects fit the budget."""
    check_bytes(count * TENSOR_OBJECT_BYTES, f"a tuple of {count} tensors")


def over_budget(nbytes: int) -> str:
    """Why ``nbytes`` more do not fit ('' when they do)."""
    if nbytes > max_bytes:
        return f"the memory limit is {size_text(max_bytes)}"
    held = resident_memory()
    if held + nbytes > max_bytes:
        return f"the memory limit is {size_text(max_bytes)} and {size_text(held)} are in use"
    return ""


def check_graph() -> None:
    """While a graph is recorded (every few thousand nodes): the process within the budget.  A
    node's objects are memory no shape shows -- a million-node scalar graph is ~900 MB."""
    if max_bytes == NO_LIMIT:
        return
    held = resident_memory()
    if held > max_bytes:
        raise TorchMemoryError(f"gradcli refuses to record more of the autograd graph: the memory limit is "
                               f"{size_text(max_bytes)} and {size_text(held)} are in use (see --max-memory)")


def resident_memory() -> int:
    """The process's resident memory in bytes (0 where the system does not say)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def count_text(count: int) -> str:
    """A count as it is, unless it is too long to read (``arange(1e300)``)."""
    return str(count) if count < 10 ** 21 else f"{count:.3g}"


def size_text(nbytes: int) -> str:
    """``nbytes`` for a person: 512 bytes, 3.2 MB, 8 GB (powers of 1024, as --max-memory reads them)."""
    if nbytes < 1024:
        return f"{nbytes} bytes"
    value = float(nbytes)
    for unit in ("kB", "MB", "GB", "TB", "PB", "EB"):
        value /= 1024
        if value < 1024 or unit == "EB":
            break
    if value >= 1e6:
        return f"{value:.3g} {unit}"
    return f"{value:.1f} {unit}".replace(".0 ", " ")


def parse_size(text: str) -> int | None:
    """``--max-memory``'s value: bytes, or with a unit (``512M``, ``2G``, ``1.5GB``, ``30%`` of
    the physical memory); ``0`` or ``none``: no limit.  ValueError says what is wrong."""
    word = text.strip().lower()
    if word in ("none", "0", "off"):
        return None
    if word.endswith("%"):
        total = physical_memory()
        if total is None:
            raise ValueError(f"{text!r}: the machine's memory is unknown; give a size.")
        number, scale = word[:-1], total / 100
    else:
        number, scale = word.rstrip("b").rstrip("i"), 1
        units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
        if number and number[-1] in units:
            number, scale = number[:-1], units[number[-1]]
    try:
        value = float(number)
    except ValueError:
        value = float("nan")
    if not value == value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text!r} is not a size (bytes, or 512M, 2G, 50%).")
    if value < 0:
        raise ValueError(f"{text} is not in the range x>=0.")
    return None if value == 0 else max(int(value * scale), 1)


def limited() -> bool:
    """Whether a limit is set (always, unless --max-memory none and no --max-elements)."""
    return _max_elements is not None or max_bytes != NO_LIMIT


set_max_memory(default_max_memory())
