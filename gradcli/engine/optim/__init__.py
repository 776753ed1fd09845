"""``torch.optim``: the optimizers and ``torch.optim.lr_scheduler``, ported from PyTorch 2.13.

Loaded on first use only (``api.LAZY_SUBMODULES``): a script that never touches ``torch.optim``
does not import it.  Each optimizer's update is PyTorch's single-tensor CPU loop, op for op.
"""

from __future__ import annotations

from typing import Any


def members() -> dict[str, Any]:
    """The members of ``torch.optim`` (its ``lr_scheduler`` submodule is a namespace of its own)."""
    from .adagrad import Adagrad
    from .adam import Adam
    from .adamw import AdamW
    from .optimizer import Optimizer
    from .rmsprop import RMSprop
    from .sgd import SGD
    return {"Optimizer": Optimizer, "SGD": SGD, "Adam": Adam, "AdamW": AdamW, "RMSprop": RMSprop,
            "Adagrad": Adagrad}


def lr_scheduler_members() -> dict[str, Any]:
    """The members of ``torch.optim.lr_scheduler``."""
    from . import lr_scheduler
    return {name: getattr(lr_scheduler, name) for name in (
        "LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR")}
