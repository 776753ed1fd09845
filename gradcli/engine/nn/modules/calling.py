"""Calling a module: ``forward`` with its forward pre-hooks, forward hooks and backward hooks
(``Module._call_impl``), and the warnings of the old non-full backward hooks."""

from __future__ import annotations

from typing import Any, Callable

from ...callbacks import call
from ...errors import TorchRuntimeError
from ...tensor import Tensor
from ...warnings import warn
from .hooks import BackwardHook


def call_with_hooks(self: Any, forward_call: Callable, args: tuple, kwargs: dict) -> Any:
    """``Module._call_impl`` when the module has hooks: pre-hooks, forward, hooks, backward hooks."""
    full_backward_hooks: list[Callable] = []
    non_full_backward_hooks: list[Callable] = []
    backward_pre_hooks = list(self._backward_pre_hooks.values())
    if self._backward_hooks:
        if self._is_full_backward_hook is True:
            full_backward_hooks = list(self._backward_hooks.values())
        elif self._is_full_backward_hook is False:
            non_full_backward_hooks = list(self._backward_hooks.values())
    for hook_id, hook in list(self._forward_pre_hooks.items()):
        if hook_id in self._forward_pre_hooks_with_kwargs:
            args_kwargs_result = call(hook, self, args, kwargs)
            if args_kwargs_result is not None:
                if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                    args, kwargs = args_kwargs_result
                else:
                    raise TorchRuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                            f"but got {args_kwargs_result}.")
        else:
            args_result = call(hook, self, args)
            if args_result is not None:
                if not isinstance(args_result, tuple):
                    args_result = (args_result,)
                args = args_result
    bw_hook = None
    if full_backward_hooks or backward_pre_hooks:
        bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
        args = bw_hook.setup_input_hook(args)
    result = None
    called: set[int] = set()
    try:
        result = call(forward_call, *args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called:
                called.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs:
                hook_result = call(hook, self, args, kwargs, result)
            else:
                hook_result = call(hook, self, args, result)
            if hook_result is not None:
                result = hook_result
    except Exception:
        _run_always_called_hooks(self, args, kwargs, result, called)
        raise
    if bw_hook:
        if not isinstance(result, (Tensor, tuple)):
            warn("For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but "
                 f"received {type(result)}")
        result = bw_hook.setup_output_hook(result)
    if non_full_backward_hooks:
        var = result
        while not isinstance(var, Tensor):
            var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
        grad_fn = var.grad_fn
        if grad_fn is not None:
            for hook in non_full_backward_hooks:
                grad_fn.register_hook(
                    lambda grad_input, grad_output, hook=hook: call(hook, self, grad_input, grad_output))
            _maybe_warn_non_full_backward_hook(args, result, grad_fn)
    return result


def _run_always_called_hooks(self: Any, args: tuple, kwargs: dict, result: Any, called: set[int]) -> None:
    """The ``always_call=True`` forward hooks not yet run, after forward (or a hook) raised."""
    for hook_id, hook in list(self._forward_hooks.items()):
        if hook_id in self._forward_hooks_always_called and hook_id not in called:
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    hook_result = call(hook, self, args, kwargs, result)
                else:
                    hook_result = call(hook, self, args, result)
                if hook_result is not None:
                    result = hook_result
            except Exception as error:  # noqa: BLE001 - PyTorch silences it with a warning
                warn("module forward hook with ``always_call=True`` raised an exception that was silenced as "
                     f"another error was raised in forward: {str(error)}")


_NON_FULL = "Using a non-full backward hook when "
_MISSING = " is deprecated and will be removed in future versions. This hook will be missing some grad_"
_USE_FULL = " Please use register_full_backward_hook to get the documented behavior."


def _maybe_warn_non_full_backward_hook(inputs: Any, result: Any, grad_fn: Any) -> None:
    """``Module._maybe_warn_non_full_backward_hook``: where the old hook sees less than it should."""
    def future(message: str) -> None:
        warn(message, "FutureWarning")

    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            return future("Using non-full backward hooks on a Module that does not return a single Tensor or a "
                          "tuple of Tensors is deprecated and will be removed in future versions. This hook will "
                          "be missing some of the grad_output." + _USE_FULL)
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            return future("Using non-full backward hooks on a Module that does not take as input a single Tensor "
                          "or a tuple of Tensors is deprecated and will be removed in future versions. This hook "
                          "will be missing some of the grad_input." + _USE_FULL)
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        future(_NON_FULL + "outputs are nested in python data structure" + _MISSING + "output.")
    elif len(out_grad_fn) > 1:
        future(_NON_FULL + "outputs are generated by different autograd Nodes" + _MISSING + "output." + _USE_FULL)
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        if inputs_grad_fn != {n[0] for n in grad_fn.next_functions}:
            future(_NON_FULL + "the forward contains multiple autograd Nodes" + _MISSING + "input." + _USE_FULL)
