"""``:vars``: the session's variables as a Rich table.

Tensors get shape, dtype, requires_grad, grad_fn and whether ``.grad`` is
set; other values their type and, when short, the value itself.
"""

from __future__ import annotations

from typing import Any, Mapping, TextIO

COLUMNS = ("name", "type", "shape", "dtype", "requires_grad", "grad_fn", "grad")
_SHORT_REPR = 32


def is_tensor(value: Any) -> bool:
    cls = type(value)
    return all(hasattr(cls, name) for name in ("shape", "dtype", "requires_grad", "grad_fn", "is_leaf"))


def describe(name: str, value: Any) -> tuple[str, ...]:
    """One row of the table, as text."""
    if is_tensor(value):
        grad = stored_grad(value)
        grad_fn = value.grad_fn
        return (name, "Tensor", str(list(value.shape)), str(value.dtype).removeprefix("torch."),
                str(value.requires_grad), "" if grad_fn is None else type(grad_fn).__name__,
                "no" if grad is None else "yes")
    return (name, _kind(value), "", "", "", "", "")


def stored_grad(tensor: Any) -> Any:
    """``tensor.grad`` without PyTorch's warning about reading a non-leaf's ``.grad``."""
    if tensor.is_leaf or getattr(tensor, "retains_grad", False):
        return tensor.grad
    return None


def _kind(value: Any) -> str:
    """``int 3``, ``str 'a'``, ``list of 3``, ``function``, ``module``."""
    kind = type(value).__name__
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        text = repr(value)
        if len(text) > _SHORT_REPR:
            text = text[:_SHORT_REPR - 3] + "..."
        return f"{kind} {text}" if value is not None else "None"
    if isinstance(value, (list, tuple, dict, set)):
        return f"{kind} of {len(value)}"
    return kind


def render_table(names: Mapping[str, Any], stream: TextIO, *, color: bool) -> None:
    """Write the table (or a line saying there is nothing yet) to ``stream``."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(file=stream, force_terminal=color, no_color=not color, highlight=False,
                      emoji=False, markup=False)
    if not names:
        console.print("No variables yet.")
        stream.flush()
        return
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False)
    for column in COLUMNS:
        table.add_column(column, style="bold" if column == "name" else None, no_wrap=column == "name")
    for name, value in names.items():
        table.add_row(*describe(name, value))
    console.print(table)
    stream.flush()
