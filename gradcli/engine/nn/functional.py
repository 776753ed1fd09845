"""``torch.nn.functional``: the namespace, and the softmax family, ``normalize``
and ``dropout``.

Functions PyTorch implements natively get their own op (and node name:
``LeakyReluBackward0``, ``MseLossBackward0``, ...); functions PyTorch
composes from other ops are composed the same way here, so their nodes
match too (``l1_loss`` ends in ``MeanBackward0``, ``cross_entropy`` in
``NllLossBackward0`` over ``LogSoftmaxBackward0``, ``dropout`` in
``MulBackward0``).  The pieces live in ``activations.py``,
``activation_functions.py``, ``linear.py``, ``losses.py`` and ``cross_entropy.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..batching import state as vmap_state
from ..batching.randomness import batched_draw, draws, wrapped
from ..dispatch.limits import check_size
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchAttributeError, TorchRuntimeError, TorchValueError
from ..lazy_random import rng
from ..ops.arithmetic import DIV
from ..ops.pointwise_binary import CLAMP_MIN
from ..tensor import Tensor
from ..warnings import warn
from . import cross_entropy, losses
from .activation_functions import NAMESPACE as ACTIVATIONS
from .activation_functions import python_op
from .linear import bilinear, linear
from .reduction import attribute

CATALOG = Catalog()


# -- softmax / log_softmax / softmin --------------------------------------------------------------

def _implicit_dim(name: str, input: Any) -> int:  # noqa: A002 - PyTorch's name
    ndim = attribute(input, "dim")()
    warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
         "argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _implicit_dim("softmax", input)
    method = attribute(input, "softmax")
    return method(dim) if dtype is None else method(dim, dtype=dtype)


def log_softmax(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _implicit_dim("log_softmax", input)
    method = attribute(input, "log_softmax")
    return method(dim) if dtype is None else method(dim, dtype=dtype)


def softmin(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _implicit_dim("softmin", input)
    negated = -input if isinstance(input, Tensor) else python_op(lambda: -input)
    if not isinstance(negated, Tensor):  # (-1 is an int: PyTorch's Python code fails on .softmax)
        raise TorchAttributeError(f"'{type(negated).__name__}' object has no attribute 'softmax'")
    return negated.softmax(dim) if dtype is None else negated.softmax(dim, dtype=dtype)


# -- normalize ----------------------------------------------------------------------------------

def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:  # noqa: A002
    """``input / max(norm(input, p, dim), eps)``, composed as PyTorch composes it."""
    norm = attribute(input, "norm")(p, dim, keepdim=True)
    if out is None:
        return input / CLAMP_MIN(norm, eps).expand_as(input)
    return DIV(input, norm.clamp_min_(eps).expand_as(input), out=out)


# -- dropout ------------------------------------------------------------------------------------

_DROPOUT = LazyParser("dropout(Tensor input, float p, bool train)")
_DROPOUT_ = LazyParser("dropout_(Tensor input, float p, bool train)")


def _dropout(x: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    """ATen's ``_dropout_impl``: ``x * noise`` (``MulBackward0``) or ``x`` itself."""
    if not 0 <= p <= 1:
        raise TorchRuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or x.numel() == 0:
        return x
    if not x._dtype.is_floating_point:
        # the noise takes x's dtype, and dividing it by 1 - p cannot stay integral
        raise TorchRuntimeError(f"result type Float can't be cast to the desired output type {x._dtype.legacy_name}")
    if vmap_state.depth:   # (inside vmap: randomness= decides the noise's shape)
        shape, level = draws(tuple(x.shape))
        with batched_draw():
            noise = wrapped(Tensor._make(rng.dropout_noise(np.empty(shape, dtype=x._dtype.np), p), x._dtype), level)
    else:
        noise = Tensor._make(rng.dropout_noise(x._data, p), x._dtype)
    return x.mul_(noise) if inplace else x * noise


@signed(_DROPOUT)
def torch_dropout(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.dropout(input, p, train)``."""
    _, b = _DROPOUT.parse(args, kwargs)
    return _dropout(b["input"], b["p"], b["train"], inplace=False)


@signed(_DROPOUT_)
def torch_dropout_(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.dropout_(input, p, train)``."""
    _, b = _DROPOUT_.parse(args, kwargs)
    return _dropout(b["input"], b["p"], b["train"], inplace=True)


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    if python_op(lambda: p < 0.0 or p > 1.0):
        raise TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return (torch_dropout_ if inplace else torch_dropout)(input, p, training)


# -- one_hot ------------------------------------------------------------------------------------

_ONE_HOT = LazyParser("one_hot(Tensor input, int num_classes=-1)")


@signed(_ONE_HOT)
def one_hot(*args: Any, **kwargs: Any) -> Tensor:
    """``F.one_hot(tensor, num_classes=-1)``: int64 rows with a 1 at each class index."""
    _, b = _ONE_HOT.parse(args, kwargs)
    t, n = b["input"], b["num_classes"]
    if t._dtype.name != "int64":
        raise TorchRuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = t._data
    if a.size == 0:
        if n == -1:
            raise TorchRuntimeError("Can not infer total number of classes from empty tensor.")
        return Tensor._make(np.zeros(a.shape + (n,), dtype=np.int64))
    if a.min() < 0:
        raise TorchRuntimeError("Class values must be non-negative.")
    if n == -1:
        n = int(a.max()) + 1
    elif a.max() >= n:
        raise TorchRuntimeError("Class values must be smaller than num_classes.")
    check_size(a.shape + (n,), 9)  # a bool comparison, then its int64 copy
    return Tensor._make((a[..., None] == np.arange(n)).astype(np.int64))


CATALOG.register(torch_dropout, "dropout", torch=True)
CATALOG.register(torch_dropout_, "dropout_", torch=True)
CATALOG.register(one_hot, "one_hot", namespaces=("nn.functional",))

_NAMESPACE: dict[str, Any] = {
    **ACTIVATIONS,
    "softmax": softmax, "log_softmax": log_softmax, "softmin": softmin, "normalize": normalize,
    "dropout": dropout, "linear": linear, "bilinear": bilinear,
    "mse_loss": losses.mse_loss, "l1_loss": losses.l1_loss, "smooth_l1_loss": losses.smooth_l1_loss,
    "huber_loss": losses.huber_loss, "binary_cross_entropy": losses.binary_cross_entropy,
    "binary_cross_entropy_with_logits": losses.binary_cross_entropy_with_logits, "kl_div": losses.kl_div,
    "nll_loss": cross_entropy.nll_loss, "cross_entropy": cross_entropy.cross_entropy,
}
for _name, _fn in _NAMESPACE.items():
    CATALOG.register(_fn, _name, namespaces=("nn.functional",))
