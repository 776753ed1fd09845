"""Views and in-place changes through them (PyTorch's CopySlices and view replay).

A view shares memory and the version counter with its root base and keeps a
*replay* function that re-derives it from that base.  When a view is changed
in place, the base's history becomes a ``CopySlices`` node (the gradient of
the view region goes through the in-place op's node, the rest passes
through), and the view's own ``grad_fn`` becomes an ``AsStridedBackward0``
reading from the base.  A view whose base changed since it was made gets the
same ``AsStridedBackward0`` the next time its ``grad_fn`` is read.

Like PyTorch, a view remembers how it was made: under ``no_grad``, as one
of several outputs (``split``, ``unbind``), or by a custom Function.  Such a view may not be changed in
place in a way autograd records, nor may its ``grad_fn`` be read after its
base changed; both raise PyTorch's errors (``handle_view_on_rebase``).

CopySlices and AsStridedBackward0 compute their gradients with NumPy, unless the
backward records a graph (``create_graph``) or runs under forward AD
(forward-over-reverse): then with the engine's own ops, so a second derivative
through an in-place write into a view is right.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from . import forward_ad, grad_mode
from .node import FREED_MESSAGE, Node, move_retain_hook, node_class, short_name

Replay = Callable[[Tensor], Tensor]
Edge = tuple  # (Node, output_nr)


def gradient_edge(t: Tensor) -> Edge | None:
    """Where a gradient for ``t`` enters the graph, or None if it does not require grad.

    (Here, with the views: a view whose base changed since its grad_fn was set reads it
    from the base again first.)"""
    if t._view_fn is not None and t._view_ver != t._vc.value:
        refresh_view_grad_fn(t)
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    if t._requires_grad:
        return (t._grad_accumulator(), 0)
    return None


def mark_view(src: Tensor, out: Tensor, replay: Replay, multi: bool = False) -> None:
    """Record that ``out`` is a view of ``src`` obtained by ``replay(src)``."""
    root = src._base if src._base is not None else src
    parent = src._view_fn
    out._base = root
    out._vc = root._vc
    out._view_fn = replay if parent is None else (lambda b: replay(parent(b)))
    out._view_ver = root._vc.value
    # PyTorch's creation meta: no_grad wins, else a multi-output view; a view of a view
    # made in a special way inherits it (propagate_creation_meta).
    made = "no_grad" if not grad_mode._enabled else ("multi" if multi else None)
    out._creation = made if made is not None else (src._creation if parent is not None else None)


def _short(node: Any) -> str:
    return short_name(type(node).__name__)


def check_view_rebase(view: Tensor, indirect: bool) -> None:
    """PyTorch's ``handle_view_on_rebase``: views made under no_grad or by a multi-output op
    may not take part in an in-place change that autograd records."""
    if view._creation is None:
        return
    modified = "its base or another view of its base has been" if indirect else "is being"
    fn = view._grad_fn
    if view._creation == "custom":
        raise TorchRuntimeError(
            f"Output {view._output_nr} of {_short(fn)} is a view and {modified} modified inplace. This view was "
            "created inside a custom Function (or because an input was returned as-is) and the autograd logic to "
            "handle view+inplace would override the custom backward associated with the custom Function, leading "
            "to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
            "custom Function.")
    if view._creation == "no_grad" or fn is None:
        prefix = (f"Output {view._output_nr} of {_short(fn)} is a view of a view which was created in"
                  if fn is not None else "A view was created in")
        message = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = f"Output {view._output_nr} of {_short(fn)} is a view and {modified} modified inplace."
    if view._creation == "multi":
        message += (" This view is the output of a function that returns multiple views. Such functions do not "
                    "allow the output views to be modified inplace. You should replace the inplace operation by "
                    "an out-of-place one.")
    else:
        message += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
                    "your code by moving both the view and the inplace either both inside the no_grad block (if "
                    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                    "tracked).")
    raise TorchRuntimeError(message)


def region_of(view_fn: Replay, array: np.ndarray) -> np.ndarray:
    """The part of ``array`` (shaped like the base) that the view covers, as a NumPy view."""
    prev = grad_mode._enabled
    grad_mode._set(False)
    try:
        return view_fn(Tensor._make(array))._data
    finally:
        grad_mode._set(prev)


def positions_of(view_fn: Replay, shape: tuple) -> np.ndarray:
    """For each element of the view, its flat position in the base (an expanded view repeats some)."""
    return region_of(view_fn, np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)).reshape(-1)


class CopySlicesNode(Node):
    __slots__ = ("_fn", "_view_fn", "_meta", "_released")

    def __init__(self, base_edge: tuple, fn: Any, view_fn: Replay, base_meta: tuple) -> None:
        super().__init__((base_edge,) + tuple(fn.next_functions[1:]))
        # fn's edge to the view's old node goes: PyTorch's CopySlices keeps no reference to it,
        # so that node lives only while something else uses it (which a saved view result's
        # error message shows)
        fn.next_functions = ((None, 0),) + tuple(fn.next_functions[1:])
        self._fn = fn
        self._released = False
        self._view_fn = view_fn
        self._meta = base_meta

    def input_metadata(self, index: int) -> tuple | None:
        return self._meta if index == 0 else self._fn.input_metadata(index)

    def apply(self, grads: list, create_graph: bool) -> list:
        if self._released:
            # PyTorch's CopySlices drops its fn when released: a second backward fails even
            # when that fn saved nothing
            raise TorchRuntimeError(FREED_MESSAGE)
        grad = grads[0]
        if _differentiated(grad, create_graph):
            return self._apply_recorded(grad, create_graph)
        result = np.array(grad._data, copy=True, order="C")
        flat = result.reshape(-1)
        region = region_of(self._view_fn, result)
        positions = positions_of(self._view_fn, result.shape)
        inner = self._fn.apply([Tensor._make(region.copy(), grad._dtype)], create_graph)
        first = inner[0] if inner else None
        if first is not None:
            _check_distinct(positions)
        flat[positions] = 0 if first is None else np.broadcast_to(first._data, region.shape).reshape(-1)
        return [Tensor._make(result, grad._dtype)] + list(inner[1:])

    def _apply_recorded(self, grad: Tensor, create_graph: bool) -> list:
        """PyTorch's CopySlices::apply in ops: the base's gradient with the view's part replaced
        by the in-place op's gradient, each step recorded (or carrying its tangent)."""
        result = grad.clone()
        region = self._view_fn(result)
        inner = self._fn.apply([region.clone()], create_graph)
        first = inner[0] if inner else None
        if first is None:
            region.zero_()
        else:
            _check_distinct(positions_of(self._view_fn, tuple(grad.shape)))
            region.copy_(first)
        return [result] + list(inner[1:])

    def release(self) -> None:
        self._released = True
        self._fn.release()

    def rule_lines(self) -> list[str]:
        """The base's line, then the in-place op's node's own rules (its self is the view)."""
        return [f"grad to the base, the view's part replaced by {type(self._fn).__name__}'s d/dself:"] + \
            ["  " + line for line in self._fn.rule_lines()]


class AsStridedNode(Node):
    __slots__ = ("_view_fn", "_meta", "_geometry")
    rule = "zeros of the base's shape, grad added where the view sits"

    def __init__(self, base_edge: tuple, view_fn: Replay, base_meta: tuple, geometry: tuple) -> None:
        super().__init__((base_edge,))
        self._view_fn = view_fn
        self._meta = base_meta
        self._geometry = geometry   # the view's size, stride and storage offset, as PyTorch keeps them

    @property
    def _saved_size(self) -> tuple:
        return self._geometry[0]

    @property
    def _saved_stride(self) -> tuple:
        return self._geometry[1]

    @property
    def _saved_storage_offset(self) -> int:
        return self._geometry[2]

    def input_metadata(self, index: int) -> tuple | None:
        return self._meta

    def apply(self, grads: list, create_graph: bool) -> list:
        grad = grads[0]
        shape, dtype = self._meta
        if _differentiated(grad, create_graph):
            positions = Tensor._make(positions_of(self._view_fn, shape))
            zeros = Tensor._make(np.zeros(int(np.prod(shape)), dtype=dtype.np), dtype)
            return [zeros.index_add(0, positions, grad.reshape(-1)).reshape(list(shape))]
        result = np.zeros(shape, dtype=dtype.np)
        # PyTorch's as_strided_backward: elements an expanded view repeats add up (index_add_)
        np.add.at(result.reshape(-1), positions_of(self._view_fn, shape),
                  np.broadcast_to(grad._data, grad._data.shape).reshape(-1))
        return [Tensor._make(result, dtype)]


def _differentiated(grad: Tensor, create_graph: bool) -> bool:
    """Whether the gradient must be computed by the engine's ops: a second derivative follows
    (recorded, or by tangents: a saved dual tensor gives the inner gradient one), or a batch."""
    return create_graph or forward_ad.watching or grad._fw is not None or grad._batched


def _check_distinct(positions: np.ndarray) -> None:
    if len(np.unique(positions)) != positions.size:
        # PyTorch copies the gradient into the view's memory: an expanded view refuses
        raise TorchRuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


CopySlices = node_class("CopySlices", base=CopySlicesNode)
AsStridedBackward0 = node_class("AsStridedBackward0", base=AsStridedNode)
AsStridedBackward0.__script_attrs__ = AsStridedBackward0.__script_attrs__ | {
    "_saved_size", "_saved_stride", "_saved_storage_offset"}


def rebase_view(view: Tensor, fn: Any) -> None:
    """After an in-place op (node ``fn``) on ``view``, rewrite its base's history."""
    root = view._base
    edge = gradient_edge(root) or (None, 0)
    old = root._grad_fn, root._output_nr
    root._grad_fn = CopySlices(edge, fn, view._view_fn, (root.shape, root._dtype))
    root._output_nr = 0
    move_retain_hook(root, *old)
    _point_view_at_base(view)


def refresh_view_grad_fn(view: Tensor) -> None:
    """The base changed since the view's grad_fn was set: read it from the base again."""
    root = view._base
    if root is not None and (view._grad_fn is not None or root.requires_grad):
        check_view_rebase(view, indirect=True)
        _point_view_at_base(view)  # (a base detached since gives an AsStridedBackward0 to nowhere)
    else:
        view._view_ver = view._vc.value


def _point_view_at_base(view: Tensor) -> None:
    root = view._base
    view._view_ver = view._vc.value
    edge = gradient_edge(root) or (None, 0)
    old = view._grad_fn, view._output_nr
    view._grad_fn = AsStridedBackward0(edge, view._view_fn, (root.shape, root._dtype),
                                       (tuple(view.shape), view.stride(), view.storage_offset()))
    view._output_nr = 0
    move_retain_hook(view, *old)
