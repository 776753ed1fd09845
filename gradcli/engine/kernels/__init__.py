"""PyTorch-exact floating-point kernels over NumPy arrays.

Where NumPy's arithmetic gives a different last bit than PyTorch's CPU
kernels, these reproduce PyTorch's order of operations: the summation order
of its reductions, SLEEF's vectorised ``expf``/``logf`` and
``sinhf``/``coshf``/``tanhf``/``expm1f``/``log1pf``/``exp2f`` (with glibc's scalar tails), the
order in which its BLAS adds a matrix product's terms, and a correctly rounded fused
multiply-add.  Pure NumPy: nothing here knows of Tensor.
"""
