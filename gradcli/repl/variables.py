"""``:vars``: the session's variables as a Rich table.

Tensors get shape, dtype, requires_grad, grad_fn and whether ``.grad`` is
set; other values their type and, when short, the value itself.
"""

from __future__ import annotations

import io
from typing import Any, Mapping, TextIO

COLUMNS = ("name", "type", "value", "shape", "dtype", "requires_grad", "grad_fn", "grad")
_SHORT_REPR = 32
_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def is_tensor(value: Any) -> bool:
    cls = type(value)
    return all(hasattr(cls, name) for name in ("shape", "dtype", "requires_grad", "grad_fn", "is_leaf"))


def describe(name: str, value: Any) -> tuple[str, ...]:
    """One row of the table, as text."""
    if is_tensor(value):
        grad = stored_grad(value)
        grad_fn = value.grad_fn
        return (name, "Tensor", "", str(list(value.shape)), str(value.dtype).removeprefix("torch."),
                str(value.requires_grad), "" if grad_fn is None else type(grad_fn).__name__,
                "no" if grad is None else "yes")
    return (name, type(value).__name__, short_value(value), "", "", "", "", "")


def stored_grad(tensor: Any) -> Any:
    """``tensor.grad`` without PyTorch's warning about reading a non-leaf's ``.grad``."""
    if tensor.is_leaf or getattr(tensor, "retains_grad", False):
        return tensor.grad
    return None


def short_value(value: Any) -> str:
    """``3``, ``'a'``, ``[1, 2]`` (a repr cut at 32 characters), ``3 items``; ``""`` for the rest
    (functions, modules, ...: the type says enough).  Containers of anything but plain scalars
    are only counted: the repr of a list of tensors is long and costs a print of each."""
    if isinstance(value, _SCALARS):
        return _shortened(repr(value))
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        items = list(value.items()) if isinstance(value, dict) else list(value)
        flat = [part for item in items for part in (item if isinstance(value, dict) else (item,))]
        if len(items) <= _SHORT_REPR and all(isinstance(part, _SCALARS) for part in flat):
            return _shortened(repr(value))
        return f"{len(items)} item{'' if len(items) == 1 else 's'}"
    return ""


def _shortened(text: str) -> str:
    return text if len(text) <= _SHORT_REPR else text[:_SHORT_REPR - 3] + "..."


def render_table(names: Mapping[str, Any], stream: TextIO, *, color: bool) -> None:
    """Write the table (or a line saying there is nothing yet) to ``stream``; plain text
    (``color`` False) has no trailing spaces."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    if not names:
        stream.write("No variables yet.\n")
        stream.flush()
        return
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False)
    rows = [describe(name, value) for name, value in names.items()]
    if color:
        console = Console(file=stream, force_terminal=True, highlight=False, emoji=False, markup=False)
    else:   # a file or a pipe has no width to fit: nothing is cut there
        text = io.StringIO()
        console = Console(file=text, force_terminal=False, no_color=True, highlight=False, emoji=False,
                          markup=False, width=None if _is_terminal(stream) else _UNLIMITED)
    value_width = _value_width(rows, console.width)
    for column in COLUMNS:
        table.add_column(column, style="bold" if column == "name" else None, no_wrap=True,
                         overflow="ellipsis", max_width=value_width if column == "value" else None)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if not color:
        stream.write("".join(line.rstrip() + "\n" for line in text.getvalue().splitlines()))
    stream.flush()


def _value_width(rows: list[tuple[str, ...]], width: int) -> int:
    """How wide the value column may be: what the other columns leave of ``width`` (cut values
    end in an ellipsis rather than wrap), but at least the width of its heading."""
    value = COLUMNS.index("value")
    others = sum(max(len(column), *(len(row[index]) for row in rows))
                 for index, column in enumerate(COLUMNS) if index != value)
    gaps = _GAP * (len(COLUMNS) - 1)
    return max(len("value"), width - others - gaps)


_GAP = 3   # a space of padding either side of the SIMPLE_HEAD box's blank column rule
_UNLIMITED = 10_000


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
