"""``torch.optim.RMSprop``: a running average of squared gradients, optionally centered, with momentum.

The update is PyTorch 2.13's ``_single_tensor_rmsprop`` (the CPU default), op for op: the state's
``step`` counts in a 0-dim float tensor (nothing reads it); ``square_avg.mul_(alpha).addcmul_(grad,
grad, value=1 - alpha)``; centered keeps ``grad_avg.lerp_(grad, 1 - alpha)`` and takes
``square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()``, else ``square_avg.sqrt()``; eps is added
after the square root; with momentum ``buf.mul_(momentum).addcdiv_(grad, avg)`` then
``param.add_(buf, alpha=-lr)``, else ``param.addcdiv_(grad, avg, value=-lr)``.
"""

from __future__ import annotations

from typing import Any, Callable

from ..callbacks import transcribed
from ..errors import TorchValueError
from ..ops.constants import zeros_like
from ..tensor import Tensor
from .checks import check_capturable, checked, refuse_fast_paths
from .optimizer import (Optimizer, complete_group, run_closure, step_counter, tensor_steps, to_scalar,
                        use_grad_for_differentiable)


class RMSprop(Optimizer):
    def __init__(self, params: Any, lr: Any = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach: Any = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        checked(lambda: _check_hyperparameters(lr, alpha, eps, weight_decay, momentum))
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            complete_group(group, momentum=0, centered=False, foreach=None, maximize=False, differentiable=False,
                           capturable=False)
            tensor_steps(self.state, group)

    def _init_group(self, group: dict[str, Any], params_with_grad: list[Tensor], grads: list[Tensor],
                    square_avgs: list[Tensor], momentum_buffer_list: list[Tensor], grad_avgs: list[Tensor],
                    state_steps: list[Tensor]) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_counter()
                state["square_avg"] = zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])

    @use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step (``closure`` reevaluates the model and returns the loss)."""
        loss = run_closure(closure)
        for group in self.param_groups:
            refuse_fast_paths(group, "RMSprop")
            params_with_grad: list[Tensor] = []
            grads: list[Tensor] = []
            square_avgs: list[Tensor] = []
            grad_avgs: list[Tensor] = []
            momentum_buffer_list: list[Tensor] = []
            state_steps: list[Tensor] = []
            self._init_group(group, params_with_grad, grads, square_avgs, momentum_buffer_list, grad_avgs,
                             state_steps)
            single_tensor_rmsprop(params_with_grad, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
                                  lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                                  weight_decay=group["weight_decay"], momentum=group["momentum"],
                                  centered=group["centered"], maximize=group["maximize"],
                                  differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def _check_hyperparameters(lr: Any, alpha: Any, eps: Any, weight_decay: Any, momentum: Any) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise TorchValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise TorchValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise TorchValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= momentum:
        raise TorchValueError(f"Invalid momentum value: {momentum}")
    if not 0.0 <= weight_decay:
        raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
    if not 0.0 <= alpha:
        raise TorchValueError(f"Invalid alpha value: {alpha}")


def single_tensor_rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
                          grad_avgs: list[Tensor], momentum_buffer_list: list[Tensor], state_steps: list[Tensor], *,
                          lr: Any, alpha: float, eps: float, weight_decay: float, momentum: float, centered: bool,
                          maximize: bool, differentiable: bool, capturable: bool) -> None:
    lr = to_scalar(lr)
    for i, param in enumerate(params):
        step = state_steps[i]
        check_capturable(capturable)
        grad = grads[i]
        grad = grad if not maximize else -grad
        square_avg = square_avgs[i]
        step += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps) if differentiable else avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


transcribed(RMSprop, "torch.optim.rmsprop")
