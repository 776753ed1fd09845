"""Publishing every op: ``install()`` turns the catalogs of the op families into ``torch.X`` and ``Tensor.X``.

Importing an op module only defines its records (plain data); nothing reaches
the Tensor class or the torch tables until ``install`` runs, once, from
``gradcli.engine.api``.  The order is the order of publication: ``nn`` comes
after the ops it wraps (``F.sigmoid`` replaces the ``sigmoid`` op's entry in
``torch.nn.functional`` with PyTorch's Python-level function).
"""

from __future__ import annotations

from types import FunctionType

from .nn import (activation_backward, activations, batch_norm, cross_entropy, embedding, functional, layer_norm, linear,
                 loss_backward, losses, padding, padding_modes, convolution, pooling, pooling1d)
from .ops import (arithmetic, backward_ops, comparison, conversions, cumulative, factories, gather_scatter,
                  indexing, joining, legacy, linalg, matmul, norms, numpy_bridge, pointwise_binary, pointwise_unary,
                  random_ops, reductions, shape, slicing, softmax)
from .ops import fused_pointwise
from .dispatch.unbound import checking_self
from .tensor import Tensor

FAMILIES = (
    pointwise_unary, arithmetic, pointwise_binary, comparison, backward_ops, conversions, shape, joining,
    slicing, indexing, gather_scatter, reductions, norms, softmax, cumulative, matmul, linalg, factories,
    random_ops, numpy_bridge, legacy,
    fused_pointwise,
    activation_backward, loss_backward, activations, linear, losses, cross_entropy, functional,
    embedding, layer_norm, batch_norm, padding, padding_modes, convolution, pooling, pooling1d,
)

_installed = False


def install() -> None:
    """Publish every op family, nn included (once; later calls do nothing)."""
    global _installed
    if _installed:
        return
    _installed = True
    for family in FAMILIES:
        family.CATALOG.install()
    # the methods Tensor's class body defines refuse a wrong self too (torch.Tensor.size(1))
    for name in sorted(Tensor.__script_attrs__):
        value = Tensor.__dict__.get(name)
        if isinstance(value, FunctionType):
            setattr(Tensor, name, checking_self(value, name))
