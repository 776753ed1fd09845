"""``torch.autograd.gradcheck``: analytic gradients against central finite differences."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..autograd import grad_mode
from ..autograd.backward import grad
from ..callbacks import call
from ..errors import TorchRuntimeError, TorchValueError
from ..printing import tensor_repr
from ..tensor import Tensor
from ..warnings import warn
from .checks import check_callable, differentiable_outputs


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: Any = None) -> bool:
    ins = _as_tuple(inputs)
    diff = [i for i, t in enumerate(ins) if isinstance(t, Tensor) and t.requires_grad]
    for i in diff:
        if ins[i]._dtype.name != "float64":
            warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                 "This check will likely fail if all the inputs are not of double precision floating point "
                 "or complex. ")
    if not diff:
        raise TorchValueError("gradcheck expects at least one input tensor to require gradient, but none of "
                              "them have requires_grad=True.")
    check_callable(func)
    with grad_mode.enable_grad():
        out = call(func, *ins)
    outs = differentiable_outputs(out)
    for o_index, o in enumerate(outs):
        if not o.requires_grad:
            continue
        flat_out = o.reshape(-1)
        for i in diff:
            t = ins[i]
            numerical = np.zeros((t.numel(), o.numel()))
            # PyTorch perturbs the input's .data and calls func with grad mode on (gradgradcheck's
            # func takes a gradient itself); indices in place, also for a non-contiguous input.
            for k, index in enumerate(np.ndindex(t._data.shape)):
                orig = t._data[index]
                with grad_mode.enable_grad():
                    t._data[index] = orig + eps
                    plus = _as_tuple(func(*ins))[o_index]._data.reshape(-1).astype(np.float64)
                    t._data[index] = orig - eps
                    minus = _as_tuple(func(*ins))[o_index]._data.reshape(-1).astype(np.float64)
                    t._data[index] = orig
                numerical[k] = (plus - minus) / (2 * eps)
            analytical = np.zeros_like(numerical)
            with grad_mode.enable_grad():
                for j in range(o.numel()):
                    g = grad(flat_out[j], (t,), retain_graph=True, allow_unused=True)[0]
                    if g is not None:
                        analytical[:, j] = g._data.reshape(-1)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if raise_exception:
                    raise GradcheckError(
                        f"Jacobian mismatch for output {o_index} with respect to input {i},\n"
                        f"numerical:{_show(numerical)}\nanalytical:{_show(analytical)}\n")
                return False
    return True


def _show(a: np.ndarray) -> str:
    return tensor_repr(a, "float64", default_dtype="float32")


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, **kwargs: Any) -> bool:
    ins = _as_tuple(inputs)
    # PyTorch calls func once first and reads its outputs' (and grad_outputs') requires_grad
    check_callable(func)
    with grad_mode.enable_grad():
        differentiable_outputs(call(func, *ins))
    if grad_outputs is not None:
        differentiable_outputs(grad_outputs)

    def first_derivative(*args: Any) -> Any:
        out = call(func, *args)
        outs = differentiable_outputs(out)
        diff = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
        gos = [Tensor._make(np.ones_like(o._data), o._dtype) for o in outs]
        gs = grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivative, ins, **{k: v for k, v in kwargs.items() if k in ("eps", "atol", "rtol")})


class GradcheckError(TorchRuntimeError):
    pass


GradcheckError.__name__ = "GradcheckError"
