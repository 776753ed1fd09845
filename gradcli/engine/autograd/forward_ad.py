"""Forward-mode AD, ``torch.autograd.forward_ad``: dual levels and the tangents tensors carry
(``make_dual`` is in ``transforms/dual_tensors.py``: it makes a view, an op).

A dual tensor is an ordinary tensor carrying a tangent per open dual level.  A script's own
``dual_level`` is a single level (PyTorch refuses to nest it); torch.func's forward transforms
nest levels (``jvp(jvp(f))``, ``jacfwd(jacfwd(f))``), one per transform, innermost last.  While a
level is visible, every op the runner runs with a dual input gives its outputs tangents at the
innermost visible level, by the op record's ``jvp`` rule (``autograd/jvp_rules.py``): the op itself
and the rule's formulas run with that level hidden (``suspended``), so they carry the tangents of
the levels outside it -- a tangent's own tangent is how a second derivative comes out.  Leaving
a level drops its tangents at once (each tangent is stored under its level's token, and a closed
level's token matches nothing).

``watching`` is the one flag the runner reads per op: True while some level is visible.
"""

from __future__ import annotations

from typing import Any

from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from ..tensor import Tensor

_levels: list = []   # the open levels' tokens, outermost first
_visible = 0         # how many of them ops see (the rest are hidden while a tangent is computed)
_level: object | None = None   # the innermost open level's token
_script_level = False          # whether the outermost level is the script's own dual_level()
watching = False


class _Level:
    __slots__ = ()


def _update() -> None:
    global _level, watching
    _level = _levels[-1] if _levels else None
    watching = _visible > 0


def current() -> object | None:
    """The token of the level ops now give tangents at (the innermost visible one), or None."""
    return _levels[_visible - 1] if _visible else None


def outer_visible() -> bool:
    """Whether a level outside the current one is visible too (nested forward transforms)."""
    return _visible > 1


class suspended:
    """Within: the current level is hidden, so ops carry only the tangents of the levels outside
    it (while a tangent is computed, or inside a custom Function's forward)."""

    def __enter__(self) -> None:
        global _visible
        self.was = _visible
        if _visible:
            _visible -= 1
        _update()

    def __exit__(self, *exc: Any) -> None:
        global _visible
        _visible = min(self.was, len(_levels))
        _update()


def tangent_of(t: Tensor, level: object | None = None) -> Tensor | None:
    """``t``'s tangent at ``level`` (by default the current one), or None (also while every level
    is hidden: a custom Function's forward sees its inputs' primals only, as in PyTorch)."""
    fw = t._fw
    if fw is None:
        return None
    return fw.get(current() if level is None else level)


def set_tangent(t: Tensor, tangent: Tensor | None, level: object | None = None) -> None:
    """Give ``t`` ``tangent`` at ``level`` (by default the current one; None removes it).  The
    table is replaced, never changed in place: a saved output may share the old one."""
    level = current() if level is None else level
    table = dict(t._fw) if t._fw else {}
    if tangent is None:
        table.pop(level, None)
    else:
        table[level] = tangent
    t._fw = table or None


def without_level(t: Tensor, level: object) -> dict | None:
    """``t``'s tangents at every level but ``level`` (a primal keeps those of the outer levels)."""
    if not t._fw:
        return None
    return {k: v for k, v in t._fw.items() if k is not level} or None


def push_level() -> None:
    """A torch.func forward transform's own level, inside any open one."""
    global _visible
    if len(_levels) != _visible:
        raise TorchNotImplementedError("gradcli does not support a forward-mode transform inside a custom "
                                       "Function's forward or jvp")
    _levels.append(_Level())
    _visible += 1
    _update()


def pop_level() -> None:
    global _visible, _script_level
    _levels.pop()
    _visible = min(_visible, len(_levels))
    if not _levels:
        _script_level = False
    _update()


# -- the script's API -------------------------------------------------------------------------

def enter_dual_level() -> int:
    """The script's own level (and the outermost forward transform's): never inside another."""
    global _script_level
    if _levels:
        raise TorchRuntimeError("Nested forward mode AD is not supported at the moment")
    push_level()
    _script_level = True
    return 0


def exit_dual_level(*, level: Any = None) -> None:
    if _level is None:
        raise TorchRuntimeError("Dual level must be a positive number.")
    if (level is not None and level != 0) or len(_levels) > 1:
        raise TorchRuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                                "This is not supported.")
    pop_level()


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
    # straight through, named Identity; it keeps the tangents of the levels outside this one
    from .record import record_identity
    from .views import mark_view
    out = record_identity(t, "Identity")
    mark_view(t, out, lambda b: b)
    out._fw = without_level(t, current())
    return out


def reset() -> None:
    """A fresh process: no level open."""
    global _visible, _script_level
    _levels.clear()
    _visible = 0
    _script_level = False
    _update()
