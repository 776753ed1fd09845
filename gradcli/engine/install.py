"""Publishing every op: ``install()`` turns the op families' catalogs into ``torch.X`` and ``Tensor.X``.

Importing an op module only defines its records (plain data); nothing reaches
the Tensor class or the torch tables until ``install`` runs, once, from
``gradcli.engine.api``.  The order is the order of publication (a later entry
of the same name would replace an earlier one).
"""

from __future__ import annotations

from .ops import (arithmetic, backward_ops, comparison, conversions, joining, pointwise_binary, pointwise_unary,
                  shape, slicing)

_installed = False


def install() -> None:
    """Publish every op family, nn included (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    for module in (pointwise_unary, arithmetic, pointwise_binary, comparison, backward_ops, conversions, shape,
                   joining, slicing):
        module.CATALOG.install()
