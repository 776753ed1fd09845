"""The NumPy a script can import: ``import numpy as np`` with the subset PyTorch's tutorials use.

The members are NumPy's own functions, so values, dtypes, errors and printing
are NumPy's exactly; what a script may reach on an ndarray, a NumPy scalar or
a dtype is listed in ``ATTRIBUTES`` (the sandbox's whitelist, as for Python's
own types).  Nothing that reads or writes files, runs callables or reaches
memory (``load``, ``save``, ``fromfile``, ``tofile``, ``frompyfunc``,
``vectorize``, ``ctypes``, ``ndarray.data``) is offered.

The subset:

- creating arrays: ``array asarray zeros ones full zeros_like ones_like full_like arange linspace eye
  identity``
- arithmetic and math (ufuncs take ``out=``): ``add subtract multiply divide true_divide floor_divide
  power mod remainder negative abs absolute sqrt square exp exp2 expm1 log log2 log10 log1p sin cos
  tan arcsin arccos arctan arctan2 sinh cosh tanh floor ceil trunc round around sign maximum minimum
  clip where``
- reductions and products: ``sum prod mean std var max min amax amin argmax argmin cumsum cumprod all
  any dot matmul outer inner trace``
- comparisons: ``allclose isclose array_equal isnan isinf isfinite equal not_equal less less_equal
  greater greater_equal logical_and logical_or logical_not``
- shapes: ``reshape transpose squeeze expand_dims concatenate stack vstack hstack flip diag sort
  argsort unique``
- ``np.random``: ``seed rand randn randint random normal uniform permutation shuffle choice``
- constants and types: ``pi e inf nan newaxis float32 float64 int32 int64 bool_ ndarray``
"""

from __future__ import annotations

from typing import Any

import numpy as np

FUNCTIONS = """array asarray zeros ones full zeros_like ones_like full_like arange linspace eye identity
    add subtract multiply divide true_divide floor_divide power mod remainder negative abs absolute sqrt
    square exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh
    floor ceil trunc round around sign maximum minimum clip where
    sum prod mean std var max min amax amin argmax argmin cumsum cumprod all any dot matmul outer inner
    trace
    allclose isclose array_equal isnan isinf isfinite equal not_equal less less_equal greater
    greater_equal logical_and logical_or logical_not
    reshape transpose squeeze expand_dims concatenate stack vstack hstack flip diag sort argsort unique
    pi e inf nan newaxis float32 float64 int32 int64 bool_ ndarray""".split()
SUBSET = "a script has the subset of NumPy that PyTorch's tutorials use"
RANDOM = "seed rand randn randint random normal uniform permutation shuffle choice".split()

_ARRAY_METHODS = """shape dtype ndim size T itemsize nbytes strides real imag reshape transpose flatten ravel
    squeeze copy astype tolist item fill sum prod mean std var max min argmax argmin cumsum cumprod
    all any dot clip round sort argsort nonzero""".split()
_SCALAR_METHODS = "dtype shape ndim size real imag item tolist astype round".split()
_DTYPE_ATTRIBUTES = "name itemsize kind char".split()

# type -> what a script may read on its instances (the sandbox adds these to Python's own types').
ATTRIBUTES: dict[type, frozenset[str]] = {
    np.ndarray: frozenset(_ARRAY_METHODS),
    np.generic: frozenset(_SCALAR_METHODS),
    np.dtype: frozenset(_DTYPE_ATTRIBUTES),
}


def members() -> dict[str, Any]:
    """The members of the script's ``numpy`` module (``random`` is its own namespace)."""
    return {name: getattr(np, name) for name in FUNCTIONS}


def random_members() -> dict[str, Any]:
    """The members of ``numpy.random`` (NumPy's global legacy generator, as ``np.random.seed`` sets)."""
    return {name: getattr(np.random, name) for name in RANDOM}
