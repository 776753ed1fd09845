"""Autograd: the graph, recorded as ops run, and the backward pass over it.

``record.py`` makes an op's node from what its record says (``formulas.py``:
the gradient formulas a node runs); ``views.py`` tracks views and their
``CopySlices``/``AsStridedBackward0`` nodes; ``inplace.py`` rewires history
after an in-place write; ``engine.py`` walks the graph backward in PyTorch's
order; ``backward.py`` is ``torch.autograd.backward``/``grad``;
``accumulate.py`` fills ``.grad``; ``grad_mode.py`` is ``no_grad`` & co.
Autograd knows of ops only what ``record.RecordedOp`` lists, and imports none.
"""

# Autograd is built on Tensor, and tensor.py imports autograd's entry points at its bottom:
# loading tensor first, whichever module of either is imported, keeps that cycle well ordered.
from .. import tensor as _tensor  # noqa: F401
