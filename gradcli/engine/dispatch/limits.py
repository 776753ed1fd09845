"""The element limit of ``--max-elements``: one tensor may not hold more than this.

Factories check the shape they are asked for before allocating; ops that make new
memory check their result (views are free and are not counted).  Without a limit
an allocation too large for the machine fails as PyTorch's allocator does.
"""

from __future__ import annotations

from ..errors import TorchRuntimeError
from ..shape_rules import list_str, numel

_max_elements: int | None = None


def set_max_elements(n: int | None) -> None:
    """Refuse to create tensors of more than ``n`` elements (None: no limit)."""
    global _max_elements
    _max_elements = n


def check_size(shape: tuple[int, ...]) -> None:
    """Before a factory allocates ``shape``: PyTorch's negative-size error, then the limit."""
    for s in shape:
        if s < 0:
            raise TorchRuntimeError(f"Trying to create tensor with negative dimension {s}: {list_str(shape)}")
    check_count(numel(shape))


def check_count(count: int) -> None:
    if _max_elements is not None and count > _max_elements:
        raise TorchRuntimeError(
            f"gradcli refuses to create a tensor of {count} elements: the limit is {_max_elements} "
            "(see --max-elements)")


def limited() -> bool:
    """Whether a limit is set (ops skip counting their results when it is not)."""
    return _max_elements is not None
