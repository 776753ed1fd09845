"""``torch.optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov, weight decay.

The update is PyTorch 2.13's ``_single_tensor_sgd`` (the CPU default), op for op: the gradient is
negated out of place for ``maximize``, weight decay is ``grad.add(param, alpha=wd)``, the first
momentum buffer is a detached clone of the gradient, later ones ``buf.mul_(momentum).add_(grad,
alpha=1 - dampening)``, and the parameter moves by ``param.add_(grad, alpha=-lr)`` (one fused
multiply-add per element, as PyTorch's add kernel).
"""

from __future__ import annotations

from typing import Any, Callable

from ..callbacks import transcribed
from ..errors import TorchValueError
from ..tensor import Tensor
from .checks import check_fused, checked, refuse_fast_paths
from .optimizer import Optimizer, complete_group, run_closure, to_scalar, use_grad_for_differentiable


class SGD(Optimizer):
    def __init__(self, params: Any, lr: Any = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: Any = 0, nesterov: bool = False, *, maximize: bool = False, foreach: Any = None,
                 differentiable: bool = False, fused: Any = None) -> None:
        checked(lambda: _check_hyperparameters(lr, momentum, weight_decay))
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
            "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
            "fused": fused,
        }
        if checked(lambda: nesterov and (momentum <= 0 or dampening != 0)):
            raise TorchValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            complete_group(group, nesterov=False, maximize=False, foreach=None, differentiable=False, fused=False)

    def _init_group(self, group: dict[str, Any], params: list[Tensor], grads: list[Tensor],
                    momentum_buffer_list: list[Tensor | None]) -> None:
        for p in group["params"]:
            if p.grad is not None:
                params.append(p)
                grads.append(p.grad)
                if group["momentum"] != 0:
                    momentum_buffer_list.append(self.state[p].get("momentum_buffer"))

    @use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step (``closure`` reevaluates the model and returns the loss)."""
        loss = run_closure(closure)
        for group in self.param_groups:
            refuse_fast_paths(group, "SGD")
            params: list[Tensor] = []
            grads: list[Tensor] = []
            momentum_buffer_list: list[Tensor | None] = []
            self._init_group(group, params, grads, momentum_buffer_list)
            single_tensor_sgd(params, grads, momentum_buffer_list, weight_decay=group["weight_decay"],
                              momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                              nesterov=group["nesterov"], maximize=group["maximize"])
            if group["momentum"] != 0:
                for p, momentum_buffer in zip(params, momentum_buffer_list):
                    self.state[p]["momentum_buffer"] = momentum_buffer
        return loss


def _check_hyperparameters(lr: Any, momentum: Any, weight_decay: Any) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise TorchValueError("Tensor lr must be 1-element")
    if lr < 0.0:
        raise TorchValueError(f"Invalid learning rate: {lr}")
    if momentum < 0.0:
        raise TorchValueError(f"Invalid momentum value: {momentum}")
    if weight_decay < 0.0:
        raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")


def single_tensor_sgd(params: list[Tensor], grads: list[Tensor], momentum_buffer_list: list[Tensor | None], *,
                      weight_decay: Any, momentum: float, lr: Any, dampening: float, nesterov: bool,
                      maximize: bool) -> None:
    lr = to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        if weight_decay != 0:
            if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                # the differentiable path (param.clone() keeps param out of the graph's saved values)
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            if nesterov:
                grad = grad.add(buf, alpha=momentum)
            else:
                grad = buf
        if isinstance(lr, Tensor) and lr.requires_grad:
            param.addcmul_(grad, lr, value=-1)
        else:
            param.add_(grad, alpha=-lr)


transcribed(SGD, "torch.optim.sgd")
