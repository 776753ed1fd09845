"""``torch.optim.Adam`` (and, with ``decoupled_weight_decay=True``, the update AdamW runs).

The update is PyTorch 2.13's ``_single_tensor_adam`` (the CPU default), op for op:

* ``step`` is a float32 (float64 under a float64 default dtype) 0-dim tensor incremented in place;
  the bias corrections are Python floats from its ``item()`` (``1 - beta1 ** step``, and
  ``bias_correction2 ** 0.5``);
* weight decay is ``grad.add(param, alpha=wd)``, or, decoupled, ``param.mul_(1 - lr * wd)``
  before the moments;
* the first moment is ``exp_avg.lerp_(grad, 1 - beta1)`` (not ``mul_``/``add_``), the second
  ``exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)``;
* ``denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)`` -- sqrt first, then the
  division, eps last -- and ``param.addcdiv_(exp_avg, denom, value=-step_size)``;
* amsgrad keeps ``torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)`` and divides by
  its square root instead.

With ``differentiable=True`` the bias corrections are tensors, as in PyTorch's capturable branch.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import dtypes
from ..callbacks import transcribed
from ..errors import TorchRuntimeError, TorchValueError
from ..ops.constants import zeros_like
from ..ops.pointwise_binary import MAXIMUM
from ..tensor import Tensor
from .checks import check_capturable, check_fused, checked, refuse_fast_paths
from .optimizer import (Optimizer, complete_group, get_value, run_closure, step_counter, tensor_steps, to_scalar,
                        use_grad_for_differentiable)


class Adam(Optimizer):
    def __init__(self, params: Any, lr: Any = 1e-3, betas: Any = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: Any = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: Any = None,
                 decoupled_weight_decay: bool = False) -> None:
        betas = checked(lambda: check_adam_hyperparameters(lr, betas, eps, weight_decay, foreach, capturable))
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize, "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
            "fused": fused, "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            complete_group(group, amsgrad=False, maximize=False, foreach=None, capturable=False, differentiable=False,
                           decoupled_weight_decay=False, fused=None)
            # (PyTorch's _get_scalar_dtype(is_fused=fused) where capturable or fused: float32 if fused)
            fused_dtype = dtypes.float32 if group["fused"] else None
            tensor_steps(self.state, group, fused_dtype if group["capturable"] or group["fused"] else None)

    def _init_group(self, group: dict[str, Any], params_with_grad: list[Tensor], grads: list[Tensor],
                    exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor],
                    state_steps: list[Tensor]) -> None:
        for p in group["params"]:
            if p.grad is not None:
                params_with_grad.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:  # lazy state initialization
                    state["step"] = step_counter()
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = zeros_like(p)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                if group["amsgrad"]:
                    max_exp_avg_sqs.append(state["max_exp_avg_sq"])
                if group["differentiable"] and state["step"].requires_grad:
                    raise TorchRuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
                state_steps.append(state["step"])

    @use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step (``closure`` reevaluates the model and returns the loss)."""
        loss = run_closure(closure)
        for group in self.param_groups:
            refuse_fast_paths(group, type(self).__name__)
            params_with_grad: list[Tensor] = []
            grads: list[Tensor] = []
            exp_avgs: list[Tensor] = []
            exp_avg_sqs: list[Tensor] = []
            max_exp_avg_sqs: list[Tensor] = []
            state_steps: list[Tensor] = []
            beta1, beta2 = group["betas"]
            self._init_group(group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps)
            single_tensor_adam(params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                               amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                               weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                               capturable=group["capturable"], differentiable=group["differentiable"],
                               decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def check_adam_hyperparameters(lr: Any, betas: Any, eps: Any, weight_decay: Any, foreach: Any,
                               capturable: Any) -> tuple:
    """Adam's and AdamW's checks, in PyTorch's order; the betas as the tuple the group keeps."""
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise TorchValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise TorchValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise TorchValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise TorchValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise TorchValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise TorchValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
    if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
        raise TorchValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor):
            if not capturable and foreach:
                raise TorchValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and "
                                      "foreach=True")
            if betas[i].numel() != 1:
                raise TorchValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(map(to_scalar, betas))


def single_tensor_adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
                       exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], *,
                       amsgrad: bool, beta1: Any, beta2: Any, lr: Any, weight_decay: Any, eps: float,
                       maximize: bool, capturable: bool, differentiable: bool,
                       decoupled_weight_decay: bool) -> None:
    lr, beta1, beta2 = to_scalar(lr), to_scalar(beta1), to_scalar(beta2)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]
        check_capturable(capturable)
        step_t += 1
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            elif differentiable and isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        # (a tensor beta1 is cast to the parameter's dtype first, as PyTorch's beta1_dict does)
        device_beta1 = beta1.to(dtype=param.dtype) if isinstance(beta1, Tensor) else beta1
        exp_avg.lerp_(grad, 1 - device_beta1)
        if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
            exp_avg_sq.lerp_(grad.square(), 1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if capturable or differentiable:
            _tensor_corrected_update(param, exp_avg, exp_avg_sq, max_exp_avg_sqs, i, step_t, amsgrad=amsgrad,
                                     beta1=beta1, beta2=beta2, lr=lr, eps=eps, differentiable=differentiable)
            continue
        step = get_value(step_t)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            MAXIMUM(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


def _tensor_corrected_update(param: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor, max_exp_avg_sqs: list[Tensor],
                             i: int, step: Tensor, *, amsgrad: bool, beta1: Any, beta2: Any, lr: Any, eps: float,
                             differentiable: bool) -> None:
    """PyTorch's capturable/differentiable branch: the step size folded into the denominator."""
    bias_correction1 = 1 - beta1 ** (step.clone() if isinstance(beta1, Tensor) and beta1.requires_grad else step)
    bias_correction2 = 1 - beta2 ** (step.clone() if isinstance(beta2, Tensor) and beta2.requires_grad else step)
    step_size = lr / bias_correction1
    step_size_neg = step_size.neg()
    bias_correction2_sqrt = bias_correction2.sqrt()
    if amsgrad:
        max_exp_avg_sq = max_exp_avg_sqs[i].clone() if differentiable else max_exp_avg_sqs[i]
        max_exp_avg_sqs[i].copy_(MAXIMUM(max_exp_avg_sq, exp_avg_sq))
        denom = (max_exp_avg_sqs[i].sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
    else:
        denom = (exp_avg_sq.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
    param.addcdiv_(exp_avg.clone() if differentiable else exp_avg, denom)


transcribed(Adam, "torch.optim.adam")
