"""``torch.nn``: the functional ops (``torch.nn.functional``), ``Parameter``, ``init`` and the modules.

The functional ops are built on the op families (``gradcli.engine.ops``) as
PyTorch builds ``torch.nn.functional`` on ATen: native functions are ops of
their own with PyTorch's nodes (``NativeLayerNormBackward0``,
``EmbeddingBackward0``, ...), composite ones are composed from the same ops.
``nn.modules`` (``Module``, the containers, layers and losses), ``parameter``
and ``init`` are loaded on first use of ``torch.nn`` (``api.LAZY_SUBMODULES``).
"""
