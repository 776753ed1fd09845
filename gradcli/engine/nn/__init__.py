"""``torch.nn.functional``: activations, losses, ``linear``, dropout, and their backward ops.

Built on the op families (``gradcli.engine.ops``) as PyTorch builds
``torch.nn.functional`` on ATen: native functions are ops of their own with
PyTorch's nodes, composite ones are composed from the same ops.
"""
