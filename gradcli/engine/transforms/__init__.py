"""What PyTorch builds on autograd and the ops for functions of tensors.

``torch.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) and
``gradcheck``/``gradgradcheck``: they call user functions and ops, so they sit
above both (autograd itself imports no op).
"""
