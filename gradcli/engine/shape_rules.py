"""Shape arithmetic shared by the ops: dims, broadcasting, expandability."""

from __future__ import annotations

from typing import Iterable, Sequence

from .errors import TorchIndexError, TorchRuntimeError


def wrap_dim(dim: int, ndim: int) -> int:
    """A dim in [-ndim, ndim) made non-negative; 0-dim tensors accept -1 and 0."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise TorchIndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def wrap_dims(dims: Iterable[int], ndim: int) -> tuple[int, ...]:
    out: list[int] = []
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in out:
            raise TorchRuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out)


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of two shapes, with PyTorch's error when they do not broadcast."""
    if tuple(a) == tuple(b):
        return tuple(a)
    n = max(len(a), len(b))
    out = [0] * n
    # From the last dim, as PyTorch's infer_size: the first mismatch from the right is reported.
    for i in reversed(range(n)):
        da = a[len(a) - n + i] if len(a) - n + i >= 0 else 1
        db = b[len(b) - n + i] if len(b) - n + i >= 0 else 1
        if da == db or db == 1:
            out[i] = da
        elif da == 1:
            out[i] = db
        else:
            raise TorchRuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
                f"dimension {i}")
    return tuple(out)


def broadcast_all(shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    result: tuple[int, ...] = ()
    for s in shapes:
        result = broadcast_shapes(result, s)
    return result


def is_expandable_to(shape: Sequence[int], desired: Sequence[int]) -> bool:
    if len(shape) > len(desired):
        return False
    for i in range(1, len(shape) + 1):
        if shape[-i] != desired[-i] and shape[-i] != 1:
            return False
    return True


def sum_to_axes(shape: Sequence[int], target: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """Axes to sum (keepdims) to turn ``shape`` into ``target``, and how many leading dims to drop."""
    lead = len(shape) - len(target)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, t in enumerate(target) if t == 1 and shape[lead + i] != 1)
    return axes, lead


def type_string(dtype: object) -> str:
    """How PyTorch's messages name a CPU tensor type: ``torch.FloatTensor``, but ``CPUBoolType``
    (bool has no legacy tensor type name)."""
    name = dtype.legacy_name  # type: ignore[attr-defined]
    return "CPUBoolType" if name == "Bool" else f"torch.{name}Tensor"


def list_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def numel(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# NumPy holds at most 64 dimensions (PyTorch has no such limit); a tensor of more is refused
# before NumPy is asked for it.
MAX_DIMS = 64


def check_ndim(ndim: int) -> None:
    """gradcli's refusal of a tensor of more than MAX_DIMS dimensions."""
    if ndim > MAX_DIMS:
        from .errors import TorchNotImplementedError
        raise TorchNotImplementedError(
            f"gradcli does not support tensors of more than {MAX_DIMS} dimensions (got {ndim})")
