"""Module hooks: the handle ``register_*_hook`` returns, and PyTorch's ``BackwardHook``.

A full backward hook (``register_full_backward_hook``) needs the gradients
with respect to a module's inputs and outputs together.  PyTorch gets them by
passing the inputs, and then the outputs, through an identity autograd Function
(``BackwardHookFunctionBackward``) whose node hooks capture the gradients;
the same is done here with an identity op of that name.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ...autograd import grad_mode
from ...autograd import node as autograd_node
from ...autograd.formulas import d
from ...callbacks import call, length
from ...dispatch.op import defop
from ...dispatch.runner import run
from ...errors import TorchRuntimeError
from ...tensor import Tensor
from ...warnings import warn


class RemovableHandle(autograd_node.RemovableHandle):
    """``torch.utils.hooks.RemovableHandle``: removes the hook from its dict and the extra ones
    (``with_kwargs``, ``always_call``); its ids count with those of tensor and node hooks."""

    def __init__(self, hooks: dict, extra: Sequence[dict] = ()) -> None:
        super().__init__(hooks)
        self._extra = tuple(extra)

    def remove(self) -> None:
        super().remove()
        for extra in self._extra:
            extra.pop(self.id, None)


RemovableHandle.__module__ = "torch.utils.hooks"
RemovableHandle.__qualname__ = RemovableHandle.__name__ = "RemovableHandle"


def _identity_forward(b: dict) -> tuple:
    return tuple(t._data for t in b["tensors"])


# torch.nn.modules._functions.BackwardHookFunction: returns its inputs, passes gradients through.
BACKWARD_HOOK_FUNCTION = defop(
    "_backward_hook_function", "_backward_hook_function(Tensor[] tensors)", _identity_forward,
    node="BackwardHookFunctionBackward", inputs=("tensors",), function=False, method=False,
    derivs={"tensors": d()(lambda g, s: list(g))})


def _function_node_repr(node: Any) -> str:
    return f"<torch.autograd.function.{type(node).__name__} object at {id(node):#x}>"


def _through_identity(tensors: list[Tensor]) -> tuple[Tensor, ...]:
    outputs = run(BACKWARD_HOOK_FUNCTION, {"tensors": tensors})
    for source, out in zip(tensors, outputs):
        if not source.requires_grad:
            out._grad_fn = None  # ctx.mark_non_differentiable
        elif type(out._grad_fn).__module__ != "torch.autograd.function":
            # the node of an autograd.Function prints with its module
            type(out._grad_fn).__module__ = "torch.autograd.function"
            type(out._grad_fn).__repr__ = _function_node_repr
    return outputs


class BackwardHook:
    """``torch.utils.hooks.BackwardHook``: calls the user's hooks once the gradients of the
    module's outputs and inputs are both known."""

    def __init__(self, module: Any, user_hooks: list[Callable], user_pre_hooks: list[Callable]) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs: tuple | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None

    @staticmethod
    def _pack_with_none(indices: list[int], values: Sequence[Any], size: int) -> tuple:
        res: list[Any] = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices: list[int], values: Sequence[Any]) -> tuple:
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn: Any) -> None:
        def hook(grad_input: tuple, _: tuple) -> Any:
            if self.grad_outputs is None:
                return None  # the gradient reached the inputs without passing the outputs
            res = self._pack_with_none(self.input_tensors_index or [], grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = call(user_hook, self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if length(out) != len(res):
                    raise TorchRuntimeError("Backward hook returned an invalid number of grad_input, "
                                            f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index or [], res)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn: Callable[[Any], None], args: tuple) -> tuple[tuple, list[int] | None]:
        tensors_idx = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled()):
            return args, None
        new_tensors = _through_identity(tensors)
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None]
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args: tuple) -> tuple:
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args: Any) -> Any:
        def fn(grad_fn: Any) -> None:
            def hook(_: tuple, grad_output: tuple) -> Any:
                self.grad_outputs = self._pack_with_none(self.output_tensors_index or [], grad_output,
                                                         self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = call(user_pre_hook, self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = length(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise TorchRuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                                    f"got {actual_len}, but expected {expected_len}")
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                         "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                         "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                            raise TorchRuntimeError("Backward hook for Modules where no input requires gradient "
                                                    "should always return None or None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index or [])
                return None
            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]
