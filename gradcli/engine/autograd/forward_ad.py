"""Forward-mode AD, ``torch.autograd.forward_ad``: dual levels and the tangents tensors carry
(``make_dual`` is in ``transforms/dual_tensors.py``: it makes a view, an op).

A dual tensor is an ordinary tensor carrying a tangent for the one dual level that may be
open (PyTorch supports a single level).  While a level is open, every op the runner runs
with a dual input gives its outputs tangents too, by the op record's ``jvp`` rule
(``autograd/jvp_rules.py``); leaving the level drops every tangent at once (each tangent is
stored with the level's token, and a closed level's token matches nothing).

``watching`` is the one flag the runner reads per op: True while a level is open and no
tangent is being computed (the formulas of a tangent carry no tangents of their own).
"""

from __future__ import annotations

from typing import Any

from ..errors import TorchRuntimeError, TorchTypeError
from ..tensor import Tensor

_level: object | None = None   # the open level's token
watching = False


class _Level:
    __slots__ = ()


def _set_level(token: object | None) -> None:
    global _level, watching
    _level = token
    watching = token is not None


class suspended:
    """Within: ops carry no tangents (while a tangent is computed, or inside a custom jvp)."""

    def __enter__(self) -> None:
        global watching
        self.was = watching
        watching = False

    def __exit__(self, *exc: Any) -> None:
        global watching
        watching = self.was and _level is not None


def tangent_of(t: Tensor) -> Tensor | None:
    """``t``'s tangent at the open level, or None (also while tangents are suspended: a custom
    Function's forward sees its inputs' primals only, as in PyTorch)."""
    fw = t._fw
    if fw is None or fw[0] is not _level or not watching:
        return None
    return fw[1]


def set_tangent(t: Tensor, tangent: Tensor | None) -> None:
    t._fw = None if tangent is None else (_level, tangent)


# -- the script's API -------------------------------------------------------------------------

def enter_dual_level() -> int:
    if _level is not None:
        raise TorchRuntimeError("Nested forward mode AD is not supported at the moment")
    _set_level(_Level())
    return 0


def exit_dual_level(*, level: Any = None) -> None:
    if _level is None:
        raise TorchRuntimeError("Dual level must be a positive number.")
    if level is not None and level != 0:
        raise TorchRuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                                "This is not supported.")
    _set_level(None)


class dual_level:
    """``with fwAD.dual_level():`` -- a level for dual tensors, closed (tangents dropped) on exit."""

    __script_attrs__ = frozenset()

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()


dual_level.__module__ = "torch.autograd.forward_ad"


class UnpackedDualTensor(tuple):
    """(primal, tangent), PyTorch's namedtuple (a plain tuple subclass here: typing.NamedTuple
    costs start-up time a script without forward AD would pay)."""

    __slots__ = ()
    __script_attrs__ = frozenset({"primal", "tangent", "count", "index"})

    def __new__(cls, primal: Any, tangent: Any) -> "UnpackedDualTensor":
        return tuple.__new__(cls, (primal, tangent))

    @property
    def primal(self) -> Any:
        return self[0]

    @property
    def tangent(self) -> Any:
        return self[1]

    def __repr__(self) -> str:
        return f"UnpackedDualTensor(primal={self[0]!r}, tangent={self[1]!r})"


UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"


def unpack_dual(tensor: Any, *, level: Any = None) -> UnpackedDualTensor:
    """(primal, tangent): outside a level the tensor itself and None; inside, a view of the
    tensor without tangent and its tangent (None if it has none)."""
    if _level is None:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TorchTypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                             f"{type(tensor).__name__}")
    if tensor._batched:   # (inside vmap: the dual is the physical tensor)
        from ..batching.batched_tensor import physical, wrapped_as
        inner = unpack_dual(physical(tensor))
        tangent = inner.tangent
        return UnpackedDualTensor(wrapped_as(inner.primal, tensor), None if tangent is None else
                                  wrapped_as(tangent, tensor))
    return UnpackedDualTensor(_primal_view(tensor), tangent_of(tensor))


def _primal_view(t: Tensor) -> Tensor:
    # PyTorch's _unpack_dual: an alias of the tensor (a view) whose node passes the gradient
    # straight through, named Identity
    from .record import record_identity
    from .views import mark_view
    out = record_identity(t, "Identity")
    mark_view(t, out, lambda b: b)
    return out


def reset() -> None:
    """A fresh process: no level open."""
    _set_level(None)
