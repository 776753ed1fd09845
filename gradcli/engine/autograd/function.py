"""Custom autograd Functions: ``torch.autograd.Function``, its ``apply`` and its ctx.

A subclass gets its own node class, ``<Name>Backward`` (as PyTorch's
FunctionMeta makes it).  One ``apply`` call makes one node, and that node is
the ``ctx`` the subclass's ``forward``/``setup_context`` and ``backward`` see:
``y.grad_fn is ctx``.  ``apply`` follows PyTorch's THPFunction_apply: forward
runs under no_grad on the inputs themselves; then each output is wired into
the graph (``wrap_outputs``), with PyTorch's treatment of inputs returned
as-is, dirty (in-place) inputs and non-differentiable outputs; then the
tensors given to ``save_for_backward`` are saved with their versions.  When
the node runs, undefined output gradients are materialized as zeros (unless
``set_materialize_grads(False)``) and the subclass's ``backward`` is called;
what it returns is checked as PyTorch's PyNode checks it.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..errors import TorchAssertionError, TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from ..tensor import Tensor
from ..warnings import warn
from . import forward_ad, grad_mode, saved_hooks
from .inplace import rebase_history
from .node import FREED_MESSAGE, NODE_ATTRS, Node, SavedTensor, move_retain_hook, short_name
from .views import gradient_edge, mark_view

_CTX_ATTRS = frozenset({"save_for_backward", "saved_tensors", "saved_variables", "needs_input_grad",
                        "mark_dirty", "mark_non_differentiable", "set_materialize_grads",
                        "save_for_forward"})


class FunctionCtx:
    """What ``ctx`` offers a Function's forward, setup_context and backward."""

    def save_for_backward(self, *tensors: Any) -> None:
        self._to_save = tensors

    _for_forward: tuple = ()
    _in_jvp = False   # while jvp runs, saved_tensors gives what save_for_forward kept

    def save_for_forward(self, *tensors: Any) -> None:
        if not all(isinstance(t, Tensor) or t is None for t in tensors):
            raise TorchAssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                      "non-tensors as attributes on ctx.")
        self._for_forward = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:
            return tuple(self._for_forward)
        if self._released:
            raise TorchRuntimeError(FREED_MESSAGE)
        if self._saved is None:
            return ()  # (read in forward, before anything is saved)
        return tuple(None if s is None else s.unpack_for(self) for s in self._saved)

    @property
    def saved_variables(self) -> tuple:
        return self.saved_tensors


FunctionCtx.__module__ = "torch.autograd.function"


class BackwardFunction(Node, FunctionCtx):
    """The node of one ``apply`` call, which is also its ctx.

    No ``__slots__``: a ctx takes any attribute a script gives it (``ctx.k = k``)."""

    __script_attrs__ = NODE_ATTRS | _CTX_ATTRS
    __script_dynamic__ = True
    skips_without_grads = False
    _forward_cls: type

    def __init__(self) -> None:
        super().__init__(())
        self.needs_input_grad: tuple[bool, ...] = ()
        self._to_save: tuple = ()
        self._saved: list | None = None
        self._released = False
        self._dirty: tuple = ()
        self._non_differentiable: tuple = ()
        self._materialize = True
        self._input_is_tensor: tuple[bool, ...] = ()
        self._input_meta: list = []   # (shape, dtype) per tensor input, for the engine's checks
        self._output_meta: list = []  # (shape, dtype) per output, None for a non-tensor output

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {id(self):#x}>"

    # -- what the engine calls ----------------------------------------------------------
    @property
    def num_outputs(self) -> int:
        return len(self._output_meta)

    def input_metadata(self, index: int) -> tuple | None:
        return self._input_meta[index]

    def apply(self, grads: list, create_graph: bool) -> list:
        if self._materialize:
            grads = [_zeros(meta) if g is None and meta is not None else g
                     for g, meta in zip(grads, self._output_meta)]
        result = _user_backward(self._forward_cls)(self, *grads)
        return self._tensor_input_grads(result)

    def release(self) -> None:
        if self._saved is not None:
            self._released = True
            self._saved = None

    def rule_lines(self) -> list[str]:
        return [f"{self._forward_cls.__name__}.backward(ctx, grad): the Function's own backward()"]

    def _tensor_input_grads(self, result: Any) -> list:
        """backward's result as gradients for the tensor inputs, checked as PyNode::apply does."""
        name = type(self).__name__
        if not isinstance(result, tuple):
            result = (result,)  # (a list too: it counts as one gradient)
        expected = len(self._input_is_tensor)
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]  # extra Nones are allowed
        if len(result) != expected:
            raise TorchRuntimeError(f"function {name} returned an incorrect number of gradients "
                                    f"(expected {expected}, got {len(result)})")
        grads = []
        for position, (is_tensor, grad) in enumerate(zip(self._input_is_tensor, result)):
            if not is_tensor:
                if grad is not None:
                    raise TorchRuntimeError(
                        f"function {name} returned a gradient different than None at position {position + 1}, "
                        "but the corresponding forward input was not a Variable")
                continue
            if grad is not None and not isinstance(grad, Tensor):
                raise TorchRuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            grads.append(grad)
        return grads


BackwardFunction.__module__ = "torch.autograd.function"


def _zeros(meta: tuple) -> Tensor:
    shape, dtype = meta
    return Tensor._make(np.zeros(shape, dtype=dtype.np), dtype)


class Function(FunctionCtx):
    """``torch.autograd.Function``: subclass it with static ``forward`` and ``backward``
    (and optionally ``setup_context``), then call ``Subclass.apply(...)``."""

    __script_attrs__ = frozenset({"apply", "forward", "backward", "setup_context", "vjp", "jvp"})
    _backward_cls: type

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__name__ + "Backward"
        cls._backward_cls = type(name, (BackwardFunction,), {
            "_forward_cls": cls, "__module__": "torch.autograd.function", "__qualname__": name})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warn(f"{_class_repr(type(self))} should not be instantiated. Methods on autograd functions are all "
             "static, so you should invoke them on the class itself. Instantiating an autograd function will "
             "raise an error in a future version of PyTorch.", "DeprecationWarning")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TorchRuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise TorchNotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise TorchNotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise TorchNotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use "
            "it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise TorchNotImplementedError("You must implement the jvp function for custom autograd.Function to use "
                                       "it with forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        return apply_function(cls, args, kwargs)


Function.__module__ = "torch.autograd.function"


def _class_repr(cls: type) -> str:
    return f"<class '{cls.__module__}.{cls.__qualname__}'>"


def _user_backward(cls: type) -> Any:
    backward, vjp = cls.backward, cls.vjp
    if backward is not Function.backward and vjp is not Function.vjp:
        raise TorchRuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                                "You should only implement one of them.")
    return vjp if vjp is not Function.vjp else backward


# -- apply -------------------------------------------------------------------------------------

def apply_function(cls: type, args: tuple, kwargs: dict) -> Any:
    """``cls.apply(*args, **kwargs)``."""
    separate_setup = cls.setup_context is not Function.setup_context
    if separate_setup:
        args, kwargs = _bind_with_defaults(cls.forward, args, kwargs)
    if kwargs:
        args = _keywords_as_positions(cls.forward, args, kwargs, skip_ctx=not separate_setup)
    inputs = args
    ctx = cls._backward_cls()
    tensors = [x for x in inputs if isinstance(x, Tensor)]
    executable = grad_mode._enabled and any(t.requires_grad for t in tensors)
    ctx._input_is_tensor = tuple(isinstance(x, Tensor) for x in inputs)
    ctx.needs_input_grad = tuple(isinstance(x, Tensor) and x.requires_grad for x in inputs)
    if executable:
        # PyTorch collects the edges before forward runs (an in-place forward changes them)
        ctx.next_functions = tuple(gradient_edge(t) or (None, 0) for t in tensors)
        ctx._input_meta = [(t._data.shape, t._dtype) for t in tensors]
    dual = forward_ad.watching and any(t._fw is not None for t in tensors)
    if dual and forward_ad.outer_visible():
        raise TorchNotImplementedError(f"gradcli does not support custom Function {cls.__name__} inside nested "
                                       "forward-mode transforms (jvp or jacfwd inside jvp or jacfwd) yet")
    dual = dual and any(forward_ad.tangent_of(t) is not None for t in tensors)
    previous = grad_mode._enabled
    grad_mode._set(False)
    try:
        with forward_ad.suspended():   # (the outputs' tangents come from jvp)
            if separate_setup:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
    finally:
        grad_mode._set(previous)
    for t in ctx._dirty:
        if isinstance(t, Tensor):
            t._vc.value += 1  # PyTorch's _mark_dirty bumps the version of each tensor it is given
    single = not isinstance(output, tuple)
    outputs = _wrap_outputs(ctx, (output,) if single else output, tensors, executable)
    if executable:
        _save_variables(ctx, outputs)
    if dual:
        _forward_tangents(cls, ctx, inputs, outputs)
    return outputs[0] if single else outputs


def _forward_tangents(cls: type, ctx: Any, inputs: tuple, outputs: tuple) -> None:
    """Forward AD through a custom Function: its jvp, given a tangent per input (zeros for a
    tensor without one, None for anything else), gives the outputs' tangents."""
    tangents = []
    for x in inputs:
        if isinstance(x, Tensor):
            t = forward_ad.tangent_of(x)
            tangents.append(t if t is not None else Tensor._make(np.zeros_like(x._data), x._dtype))
        else:
            tangents.append(None)
    ctx._in_jvp = True
    try:
        with forward_ad.suspended():
            found = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    found = found if isinstance(found, tuple) else (found,)
    for out, tangent in zip(outputs, found):
        if isinstance(out, Tensor) and isinstance(tangent, Tensor) and out._dtype.is_floating_point:
            forward_ad.set_tangent(out, tangent)


def _bind_with_defaults(forward: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """PyTorch binds the arguments of a forward with a separate setup_context, defaults included,
    so setup_context sees every input."""
    try:
        bound = inspect.signature(forward).bind(*args, **kwargs)
    except TypeError as e:  # (inspect's own wording, which PyTorch shows)
        raise TorchTypeError(str(e)) from None
    bound.apply_defaults()
    return bound.args, bound.kwargs


def _keywords_as_positions(forward: Any, args: tuple, kwargs: dict, skip_ctx: bool) -> tuple:
    """PyTorch's apply passes keyword arguments to forward by position: each must name a
    positional parameter after the given ones, and together they must leave no gap."""
    names = [p.name for p in inspect.signature(forward).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1 if skip_ctx else 0:]
    slots: dict[int, Any] = {}
    for key, value in kwargs.items():
        if key not in names:
            raise TorchTypeError(f"forward() got an unexpected keyword argument '{key}'")
        position = names.index(key)
        if position < len(args):
            raise TorchTypeError(f"forward() got multiple values for argument '{key}'")
        slots[position] = value
    filled = list(args)
    for position in range(len(args), max(slots) + 1):
        if position not in slots:
            raise TorchTypeError(f"forward() missing required argument: '{names[position]}' (position {position})")
        filled.append(slots[position])
    return tuple(filled)


def _wrap_outputs(ctx: BackwardFunction, raw: tuple, inputs: list, executable: bool) -> tuple:
    """Each output's place in the graph, as PyTorch's ``_wrap_outputs``."""
    input_ids = {id(t) for t in inputs}
    dirty_ids = {id(t) for t in ctx._dirty if isinstance(t, Tensor)}
    non_diff_ids = {id(t) for t in ctx._non_differentiable if isinstance(t, Tensor)}
    tensor_outputs = sum(isinstance(o, Tensor) for o in raw)
    outputs = []
    returned_dirty = 0
    for nr, out in enumerate(raw):
        if not isinstance(out, Tensor):
            ctx._output_meta.append(None)
            outputs.append(out)
            continue
        is_input = id(out) in input_ids
        modified = id(out) in dirty_ids
        returned_dirty += modified
        differentiable = (executable and id(out) not in non_diff_ids
                          and (out._dtype.is_floating_point or out._dtype.is_complex))
        ctx._output_meta.append((out._data.shape, out._dtype))
        if not differentiable:
            if not out.requires_grad:
                if is_input and not modified:
                    out = _view_of_self(out)
            elif is_input:
                out = out.detach()  # an alias without history, the input itself left alone
            elif out._base is None:
                out.detach_()
        elif modified:
            _rebase_dirty(ctx, out, nr, tensor_outputs, is_input)
        else:
            if is_input:
                out = _view_of_self(out)
            old = out._grad_fn, out._output_nr
            out._grad_fn, out._output_nr = ctx, nr
            move_retain_hook(out, *old)
        if differentiable and out._base is not None:
            out._creation = "custom"  # a view made in a custom Function may not be changed in place
        outputs.append(out)
    if returned_dirty != len(dirty_ids):
        raise TorchRuntimeError("Some elements marked as dirty during the forward method were not returned as "
                                "output. The inputs that are modified inplace must all be outputs of the Function.")
    return tuple(outputs)


def _view_of_self(t: Tensor) -> Tensor:
    """An input returned as-is comes back as a view of it (PyTorch's _view_as_self_with_no_grad)."""
    out = Tensor._make(t._data, t._dtype)
    previous = grad_mode._enabled
    grad_mode._set(False)
    try:
        mark_view(t, out, lambda base: base)
    finally:
        grad_mode._set(previous)
    return out


def _rebase_dirty(ctx: BackwardFunction, out: Tensor, nr: int, tensor_outputs: int, is_input: bool) -> None:
    """An input the forward changed in place (``ctx.mark_dirty``) gets the node as its history."""
    if out._grad_fn is None and out._requires_grad:
        raise TorchRuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    if not is_input:
        warn("Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an input, there is no "
             "need to pass it to mark_dirty().")
    if out._base is not None:
        if tensor_outputs != 1:
            raise TorchRuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, your Function "
                "cannot return more than one Tensor. This is not supported by the current autograd engine. You "
                "should either make sure the input is not a view (using .clone() for example) or make your "
                "Function only return one Tensor (potentially splitting it into two Functions: one computing "
                "the Tensor and one doing the inplace modification).")
        rebase_history(out, ctx)
        return
    out._grad = None
    old = out._grad_fn, out._output_nr
    out._grad_fn, out._output_nr = ctx, nr
    move_retain_hook(out, *old)


def _save_variables(ctx: BackwardFunction, outputs: tuple) -> None:
    """The tensors given to ``save_for_backward``, saved with their versions."""
    output_nrs = {id(o): nr for nr, o in enumerate(outputs) if isinstance(o, Tensor)}
    saved: list = []
    for position, t in enumerate(ctx._to_save):
        if t is None:
            saved.append(None)
        elif not isinstance(t, Tensor):
            raise TorchTypeError(f"save_for_backward can only save variables, but argument {position} is of "
                                 f"type {type(t).__name__}")
        elif id(t) in output_nrs and t._grad_fn is ctx:
            saved.append(SavedTensor(t, f"{output_nrs[id(t)]} of {short_name(type(ctx).__name__)}",
                                     is_output=True))
        else:
            saved.append(SavedTensor(t, None))
    ctx._saved = saved_hooks.pack_list(saved) if saved_hooks.stack else saved
    ctx._to_save = ()
