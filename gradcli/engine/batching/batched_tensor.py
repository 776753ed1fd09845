"""The tensor a function sees inside ``vmap``: a physical tensor with one dimension hidden as the batch.

``_value`` is the physical tensor (itself batched when vmaps nest), ``_bdim`` the hidden
dimension, ``_level`` the vmap it belongs to (1 for the outermost).  Everything a script can ask
of a tensor answers for the logical tensor, the physical one without ``_bdim``; what has no
meaning per sample fails with PyTorch's error (``.item()``, ``bool()``, ``.data``).  Ops never
reach ``_data``: the runner hands them to batching/rules.py first, and any other code that would
read the array meets PyTorch's own "doesn't have storage" error instead of a wrong answer.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..errors import TorchIndexError, TorchRuntimeError, TorchTypeError
from ..size import Size
from ..tensor import Tensor, VersionCounter
from . import state

_new = object.__new__

NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"
CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We "
                "don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")
ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
        "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
        "inside PyTorch internals, please file a bug report.")
BACKWARD = ("backward() called inside a functorch transform. This is not supported, please use functorch.grad or "
            "functorch.vjp instead or call backward() outside of functorch transforms.")


class BatchedTensor(Tensor):
    __slots__ = ("_value", "_bdim", "_level")

    _value: Tensor
    _bdim: int
    _level: int
    _batched = True
    # Every sample the same, made from tensors vmap did not batch (an input shared by the samples,
    # expanded for a gradient transform; the primal of jacfwd's duals): PyTorch would not batch
    # it, so it prints as one sample (printing/wrappers.py).  Ops keep it (dispatch.py).
    _invariant = False

    @staticmethod
    def wrap(value: Tensor, bdim: int, level: int) -> "BatchedTensor":
        if value._batched and value._level > level:
            # (a batch of an inner vmap's values, vmap(vjp_fn) inside vmap: the inner level's
            # wrapper stays outermost, this level goes inside it; bdim counts value's logical dims)
            inner = bdim if bdim < value._bdim else bdim + 1
            outer = value._bdim if value._bdim < inner else value._bdim - 1
            return BatchedTensor.wrap(BatchedTensor.wrap(value._value, inner, level), outer, value._level)
        t = _new(BatchedTensor)
        t._value = value
        t._bdim = bdim
        t._level = level
        t._dtype = value._dtype
        t._grad_fn = None
        t._output_nr = 0
        t._vc = VersionCounter()
        t._wrapped = False
        return t

    @property
    def _data(self) -> Any:
        raise TorchRuntimeError(NO_STORAGE)

    # -- the logical tensor ---------------------------------------------------------------
    @property
    def _logical(self) -> tuple[int, ...]:
        physical = tuple(self._value.shape)
        return physical[:self._bdim] + physical[self._bdim + 1:]

    @property
    def _batch_size(self) -> int:
        return self._value.shape[self._bdim]

    @property
    def shape(self) -> Size:
        return Size._of(self._logical)

    def size(self, dim: int | None = None) -> Any:
        shape = self._logical
        if dim is None:
            return Size._of(shape)
        return shape[_wrapped_dim(dim, len(shape))]

    @property
    def ndim(self) -> int:
        return self._value.ndim - 1

    def dim(self) -> int:
        return self._value.ndim - 1

    ndimension = dim

    def numel(self) -> int:
        count = 1
        for n in self._logical:
            count *= n
        return count

    nelement = numel

    def stride(self, dim: int | None = None) -> Any:
        strides = self._value.stride()
        logical = strides[:self._bdim] + strides[self._bdim + 1:]
        return logical if dim is None else logical[_wrapped_dim(dim, len(logical))]

    def storage_offset(self) -> int:
        return self._value.storage_offset()

    def is_contiguous(self, memory_format: Any = None) -> bool:
        expected = 1
        for size, stride in reversed(list(zip(self._logical, self.stride()))):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True

    @property
    def _version(self) -> int:
        return self._value._version

    # -- autograd, as a function inside vmap sees it -----------------------------------------
    @property
    def requires_grad(self) -> bool:
        # only a transform inside this vmap (grad, vjp, jacrev) tracks gradients that a function
        # can see; the script's own graph is outside, as PyTorch's levels hide it
        return self._value.requires_grad and state.tracks_inside(self._level)

    @requires_grad.setter
    def requires_grad(self, value: object) -> None:
        self._value.requires_grad = value

    def _set_requires_grad(self, value: bool, dtype_message: str, method: bool = False) -> None:
        self._value._set_requires_grad(value, dtype_message, method)

    @property
    def is_leaf(self) -> bool:
        return True

    @property
    def grad_fn(self) -> Any:
        return None

    @property
    def grad(self) -> None:
        return None

    @grad.setter
    def grad(self, value: object) -> None:
        raise TorchRuntimeError("accessing `grad` under vmap transform is not allowed")

    # (a value vmap batched but PyTorch would not -- _invariant, jacfwd's primal -- answers these
    # as its one sample does)
    @property
    def data(self) -> Any:
        sample = one_sample(self)
        if sample is None:
            raise TorchRuntimeError("accessing `data` under vmap transform is not allowed")
        return sample.data

    @data.setter
    def data(self, value: object) -> None:
        raise TorchRuntimeError("mutating directly with `.data` under vmap transform is not allowed.")

    def backward(self, *args: Any, **kwargs: Any) -> None:
        raise TorchRuntimeError(BACKWARD)

    def register_hook(self, hook: Any) -> Any:
        raise TorchRuntimeError("gradcli does not support Tensor.register_hook inside vmap yet")

    def retain_grad(self) -> None:
        raise TorchRuntimeError("gradcli does not support Tensor.retain_grad inside vmap yet")

    def detach(self) -> "BatchedTensor":
        return BatchedTensor.wrap(self._value.detach(), self._bdim, self._level)

    def detach_(self) -> "BatchedTensor":
        raise TorchRuntimeError("gradcli does not support Tensor.detach_ inside vmap yet")

    # -- Python protocols ------------------------------------------------------------------
    def item(self) -> Any:
        return self._as_sample(ITEM).item()

    def tolist(self) -> Any:
        return self._as_sample(NO_STORAGE).tolist()

    def numpy(self, *args: Any, **kwargs: Any) -> Any:
        return self._as_sample(NO_STORAGE).numpy(*args, **kwargs)

    def __float__(self) -> float:
        return float(self._as_sample(ITEM))

    def __int__(self) -> int:
        return int(self._as_sample(ITEM))

    def __index__(self) -> int:
        return self._as_sample(ITEM).__index__()

    def __complex__(self) -> complex:
        return complex(self._as_sample(ITEM))

    def __bool__(self) -> bool:
        return bool(self._as_sample(CONTROL_FLOW))

    def _as_sample(self, refusal: str) -> Tensor:
        sample = one_sample(self)
        if sample is None:
            raise TorchRuntimeError(refusal)
        return sample

    def __len__(self) -> int:
        shape = self._logical
        if not shape:
            raise TorchTypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._logical:
            raise TorchTypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element: object) -> bool:
        raise TorchRuntimeError(CONTROL_FLOW)

    def __repr__(self) -> str:
        from ..printing.wrappers import wrapped_repr
        return wrapped_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:
            raise TorchTypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __reduce__(self) -> Any:
        raise TorchTypeError("cannot pickle 'Tensor' object")

    def __deepcopy__(self, memo: dict) -> Any:
        raise TorchRuntimeError("gradcli does not support copy.deepcopy inside vmap yet")


BatchedTensor.__module__ = "torch"
BatchedTensor.__qualname__ = BatchedTensor.__name__ = "Tensor"


def _wrapped_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise TorchIndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def level_of(value: Any) -> int:
    """The vmap level ``value`` is batched at (0: not batched)."""
    return value._level if isinstance(value, BatchedTensor) else 0


def at_front(value: Any, level: int) -> tuple[Any, bool]:
    """``value``'s physical tensor with its batch first when it is batched at ``level``, else
    ``value`` itself; and whether it was."""
    if isinstance(value, BatchedTensor) and value._level == level:
        physical = value._value
        if value._bdim != 0:
            physical = physical.movedim(value._bdim, 0)
        return physical, True
    return value, False


def batch_size(value: Any, level: int) -> int | None:
    if isinstance(value, BatchedTensor) and value._level == level:
        return value._batch_size
    return None


def physical(t: Any) -> Any:
    """The innermost plain tensor under every level of batching."""
    while isinstance(t, BatchedTensor):
        t = t._value
    return t


def wrapped_as(g: Tensor, x: Any) -> Any:
    """``g`` (shaped as ``x``'s physical tensor) wrapped in ``x``'s levels of batching."""
    levels = []
    while isinstance(x, BatchedTensor):
        levels.append((x._bdim, x._level))
        x = x._value
    for bdim, level in reversed(levels):
        g = BatchedTensor.wrap(g, bdim, level)
    return g


def per_element(fn: Any) -> Any:
    """A hand-written function of a tensor (first argument) whose result is shaped and laid out
    as that tensor, element by element (zeros_like, full_like): inside vmap, the function of the
    physical tensor, batched as the input is."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        source = args[0] if args else kwargs.get("input")
        if not isinstance(source, BatchedTensor):
            return fn(*args, **kwargs)
        if args:
            return wrapped_as(fn(physical(source), *args[1:], **kwargs), source)
        return wrapped_as(fn(**dict(kwargs, input=physical(source))), source)
    for name in ("__name__", "__qualname__", "__doc__", "__signature__"):
        if hasattr(fn, name):
            setattr(wrapper, name, getattr(fn, name))
    return wrapper


def one_sample(t: Any) -> Any:
    """An invariant BatchedTensor (every sample the same) as its one sample, unbatched at every
    level; None when some level's samples differ.  (What PyTorch, which never batched it, sees.)"""
    while isinstance(t, BatchedTensor):
        if not t._invariant:
            return None
        t = t._value.select(t._bdim, 0)
    return t

