"""``torch.nn``'s classes: ``Module``, ``Parameter``, the containers, layers and losses.

Loaded on first use of ``torch.nn`` (``gradcli.engine.api.LAZY_SUBMODULES``), so a
script that never touches ``nn`` does not pay for importing it.
"""

from __future__ import annotations

from typing import Any

from ..parameter import Parameter
from . import activation, batchnorm, container, conv, dropout, flatten, linear, loss, normalization, pooling, sparse
from .module import Module

CLASSES: tuple[type, ...] = (
    Module, Parameter,
    container.Sequential, container.ModuleList, container.ModuleDict, container.ParameterList,
    container.ParameterDict,
    linear.Identity, linear.Linear, linear.Bilinear, flatten.Flatten, flatten.Unflatten, sparse.Embedding,
    dropout.Dropout, normalization.LayerNorm, batchnorm.BatchNorm1d, batchnorm.BatchNorm2d, batchnorm.BatchNorm3d,
    *conv.CLASSES, *pooling.CLASSES, *activation.CLASSES, *loss.CLASSES,
)


def members() -> dict[str, Any]:
    """``torch.nn`` as a script sees it (``nn.functional`` and ``nn.init`` are namespaces of their own)."""
    return {cls.__name__: cls for cls in CLASSES}
