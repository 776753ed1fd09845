"""Hooks for saved tensors: ``torch.autograd.graph.saved_tensors_hooks`` and its kin.

Inside ``with saved_tensors_hooks(pack, unpack):`` every tensor a node saves for backward is
given to ``pack`` at once and the node keeps what ``pack`` returns; when backward (or
``grad_fn._saved_x``) needs the tensor, ``unpack`` gets that value back and must return a
tensor.  ``grad_fn._raw_saved_x.register_hooks(pack, unpack)`` does the same for one tensor
already saved.  As in PyTorch:

* a node packs its saved tensors in the order it unpacks them (node.unpack_order: inputs by
  name, then outputs), which is the order PyTorch's generated nodes use for the common ops;
* pack hooks run with grad mode off (what they compute records nothing);
* a tensor that went through hooks is not version-checked (PyTorch cannot see through them);
* the unpacked tensor is a new one around the returned data, attached to the graph where the
  saved one was: the node itself for its own output, the saved tensor's node for an input, the
  leaf's gradient accumulator for a leaf that requires grad.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import TorchRuntimeError, TorchTypeError
from ..tensor import Tensor
from . import grad_mode
from .node import SavedOutput, SavedTensor, unpack_order

# The hooks now in force, innermost last (the innermost packs).
stack: list[tuple[Callable, Callable]] = []
_disabled_message: str | None = None

_ALREADY_SET = ("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one "
                "pair of hooks is allowed at a time.")
_FREED = ("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
          "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
          "to backward through the graph a second time or if you need to access saved variables after calling "
          "backward.")


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` -- the hooks for tensors saved inside."""

    __script_attrs__ = frozenset({"pack_hook", "unpack_hook"})

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _disabled_message is not None:
            raise TorchRuntimeError(_disabled_message)
        stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc: Any) -> None:
        stack.pop()

    def __repr__(self) -> str:
        return f"<torch.autograd.graph.{type(self).__name__} object at {id(self):#x}>"


class save_on_cpu(saved_tensors_hooks):
    """PyTorch's hooks that keep saved tensors in CPU memory: here, where they already are."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Tensor) -> tuple:
            return (tensor.device, tensor)

        def unpack_from_cpu(packed: tuple) -> Tensor:
            return packed[1]
        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Inside, turning saved-tensor hooks on fails with ``error_message`` (also a decorator)."""

    __script_attrs__ = frozenset()

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message
        self._previous: list = []

    def __enter__(self) -> None:
        global _disabled_message
        if stack:
            raise TorchRuntimeError(self.error_message)
        self._previous.append(_disabled_message)
        _disabled_message = self.error_message

    def __exit__(self, *exc: Any) -> None:
        global _disabled_message
        _disabled_message = self._previous.pop()

    def __call__(self, func: Callable) -> Callable:
        def with_hooks_disabled(*args: Any, **kwargs: Any) -> Any:
            with disable_saved_tensors_hooks(self.error_message):
                return func(*args, **kwargs)
        return with_hooks_disabled


for _cls in (saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks):
    _cls.__module__ = "torch.autograd.graph"


def reset() -> None:
    """No hooks and nothing disabled (a fresh process)."""
    global _disabled_message
    stack.clear()
    _disabled_message = None


class HookedSaved(SavedTensor):
    """A saved tensor kept as what a pack hook made of it."""

    __slots__ = ("packed", "unpack_hook", "grad_fn", "output_nr", "accumulator")

    def __init__(self, saved: SavedTensor, pack: Callable, unpack: Callable) -> None:
        original = saved.tensor
        self.version = saved.version
        self.shape = saved.shape
        self.was_leaf = saved.was_leaf
        self.output_nr = saved.nr if type(saved) is SavedOutput else 0
        self.grad_fn = self.accumulator = None
        if saved.is_output:
            self.is_output = True
            # (an alias for the views, which show what was saved: the output itself would make a cycle)
            self.tensor = Tensor._make(original._data, original._dtype)
            self.tensor._vc = original._vc
        else:
            self.tensor = original
            if original._grad_fn is not None:
                self.grad_fn, self.output_nr = original._grad_fn, original._output_nr
            elif original._requires_grad:
                self.accumulator = original._grad_accumulator()
        self.unpack_hook = unpack
        previous = grad_mode._enabled
        grad_mode._set(False)   # (PyTorch runs pack hooks without recording: no node, no nested pack)
        try:
            self.packed = pack(original)
        finally:
            grad_mode._set(previous)

    def unpack(self) -> Tensor:
        return self.unpack_for(None)

    def unpack_for(self, node: Any) -> Tensor:
        value = self.unpack_hook(self.packed)
        if not isinstance(value, Tensor):
            raise TorchTypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                                 f"type {type(value).__name__}")
        t = Tensor._make(value._data, value._dtype)
        if self.is_output:
            if node is not None and t._dtype.is_floating_point:
                t._grad_fn, t._output_nr = node, self.output_nr
        elif self.grad_fn is not None:
            t._grad_fn, t._output_nr = self.grad_fn, self.output_nr
        elif self.accumulator is not None:
            t._requires_grad = True
            t._accumulator = self.accumulator
        return t


def _hooked(value: Any, pack: Callable, unpack: Callable) -> Any:
    if isinstance(value, SavedTensor) and not isinstance(value, HookedSaved):
        if type(value) is not SavedOutput and value.tensor._wrapped:
            return value   # a Python number's tensor (x * 2's 2) is never shown to a hook, as in PyTorch
        return HookedSaved(value, pack, unpack)
    if isinstance(value, (list, tuple)):
        return type(value)(_hooked(v, pack, unpack) for v in value)
    return value


def pack_node(saved: dict) -> None:
    """A node's saved values through the innermost hooks (called when ``stack`` is not empty)."""
    pack, unpack = stack[-1]
    for key, sizes in unpack_order(tuple(saved)):
        if not sizes and not key.startswith("_"):   # (not _out_meta, _together: no tensors saved there)
            saved[key] = _hooked(saved[key], pack, unpack)


def pack_list(saved: list) -> list:
    """A custom Function's ``save_for_backward`` tensors through the innermost hooks."""
    pack, unpack = stack[-1]
    return [_hooked(v, pack, unpack) for v in saved]


class RawSaved:
    """``grad_fn._raw_saved_<name>``: one saved tensor, for ``register_hooks``."""

    __script_attrs__ = frozenset({"register_hooks"})

    def __init__(self, node: Any, key: str) -> None:
        self._node = node
        self._key = key

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TorchTypeError(
                "register_hooks(): incompatible function arguments. The following argument types are supported:\n"
                "    1. (self: torch._C._autograd.SavedTensor, arg0: collections.abc.Callable, arg1: "
                "collections.abc.Callable) -> None\n\n"
                f"Invoked with: {self!r}, {pack_hook!r}, {unpack_hook!r}")
        saved = self._node._saved
        value = saved.get(self._key)
        if isinstance(value, HookedSaved):
            raise TorchRuntimeError(_ALREADY_SET)
        if not isinstance(value, SavedTensor):
            raise TorchRuntimeError(_FREED)
        saved[self._key] = HookedSaved(value, pack_hook, unpack_hook)

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {id(self):#x}>"


RawSaved.__module__ = "torch._C._autograd"
RawSaved.__name__ = RawSaved.__qualname__ = "SavedTensor"
