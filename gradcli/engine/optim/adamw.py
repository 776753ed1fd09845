"""``torch.optim.AdamW``: Adam with decoupled weight decay (``param.mul_(1 - lr * weight_decay)``
before the moments), whose default weight decay is 1e-2.  As in PyTorch it is Adam's subclass and
its groups say ``decoupled_weight_decay: True``."""

from __future__ import annotations

from typing import Any

from ..callbacks import transcribed
from .adam import Adam


class AdamW(Adam):
    def __init__(self, params: Any, lr: Any = 1e-3, betas: Any = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach: Any = None,
                 capturable: bool = False, differentiable: bool = False, fused: Any = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


transcribed(AdamW, "torch.optim.adamw")
