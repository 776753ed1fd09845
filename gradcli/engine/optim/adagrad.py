"""``torch.optim.Adagrad``: per-element learning rates from the running sum of squared gradients.

As PyTorch 2.13, the constructor fills every parameter's state (``step`` 0 and ``sum`` at
``initial_accumulator_value``, so ``state_dict()`` lists them all before any step), and the update is
``_single_tensor_adagrad`` op for op: ``step_t += 1`` then its Python value; ``clr = lr / (1 + (step
- 1) * lr_decay)``; ``state_sum.addcmul_(grad, grad, value=1)``; ``std = state_sum.sqrt().add_(eps)``;
``param.addcdiv_(grad, std, value=-clr)``.
"""

from __future__ import annotations

from typing import Any, Callable

from ..callbacks import transcribed
from ..errors import TorchValueError
from ..ops.factories import full_like
from ..tensor import Tensor
from .checks import check_fused, checked, refuse_fast_paths
from .optimizer import (Optimizer, complete_group, get_value, run_closure, step_counter, tensor_steps, to_scalar,
                        use_grad_for_differentiable)


class Adagrad(Optimizer):
    def __init__(self, params: Any, lr: Any = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Any = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: Any = None) -> None:
        checked(lambda: _check_hyperparameters(lr, lr_decay, weight_decay, initial_accumulator_value, eps))
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = step_counter()
                state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            complete_group(group, foreach=None, maximize=False, differentiable=False, fused=None)
            tensor_steps(self.state, group)

    def _init_group(self, group: dict[str, Any], params_with_grad: list[Tensor], grads: list[Tensor],
                    state_sums: list[Tensor], state_steps: list[Tensor]) -> None:
        for p in group["params"]:
            if p.grad is not None:
                params_with_grad.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:  # a parameter of a group added after the constructor
                    state["step"] = step_counter()
                    # (PyTorch reads the optimizer's default here, not the group's option)
                    state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])
                state_sums.append(state["sum"])
                state_steps.append(state["step"])

    @use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step (``closure`` reevaluates the model and returns the loss)."""
        loss = run_closure(closure)
        for group in self.param_groups:
            refuse_fast_paths(group, "Adagrad")
            params_with_grad: list[Tensor] = []
            grads: list[Tensor] = []
            state_sums: list[Tensor] = []
            state_steps: list[Tensor] = []
            self._init_group(group, params_with_grad, grads, state_sums, state_steps)
            single_tensor_adagrad(params_with_grad, grads, state_sums, state_steps, lr=group["lr"],
                                  weight_decay=group["weight_decay"], lr_decay=group["lr_decay"], eps=group["eps"],
                                  maximize=group["maximize"], differentiable=group["differentiable"])
        return loss


def _check_hyperparameters(lr: Any, lr_decay: Any, weight_decay: Any, initial_accumulator_value: Any,
                           eps: Any) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise TorchValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise TorchValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= lr_decay:
        raise TorchValueError(f"Invalid lr_decay value: {lr_decay}")
    if not 0.0 <= weight_decay:
        raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
    if not 0.0 <= initial_accumulator_value:
        raise TorchValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
    if not 0.0 <= eps:
        raise TorchValueError(f"Invalid epsilon value: {eps}")


def single_tensor_adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor],
                          state_steps: list[Tensor], *, lr: Any, weight_decay: Any, lr_decay: Any, eps: float,
                          maximize: bool, differentiable: bool) -> None:
    lr = to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t += 1
        step = get_value(step_t)
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)


transcribed(Adagrad, "torch.optim.adagrad")
