"""``torch.autograd.gradcheck``: analytic gradients against central finite differences."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..autograd import forward_ad, grad_mode
from ..autograd.backward import grad
from ..callbacks import call
from ..errors import TorchAssertionError, TorchRuntimeError, TorchValueError
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
    if not (check_forward_ad or check_backward_ad):
        raise TorchAssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    with grad_mode.enable_grad():
        out = call(func, *ins)
    outs = differentiable_outputs(out)
    numerical = {(o_index, i): _numerical(func, ins, o_index, i, eps)
                 for o_index, o in enumerate(outs) if o.requires_grad for i in diff}
    # PyTorch checks every backward-mode Jacobian first, then the forward-mode ones
    modes = (["backward"] if check_backward_ad else []) + (["forward"] if check_forward_ad else [])
    for mode in modes:
        for (o_index, i), expected in numerical.items():
            if mode == "backward":
                analytical = _backward_jacobian(outs[o_index], ins[i])
            else:
                analytical = _forward_jacobian(func, ins, o_index, i)
            if not np.allclose(analytical, expected, rtol=rtol, atol=atol):
                if raise_exception:
                    how = "computed with forward mode " if mode == "forward" else ""
                    raise GradcheckError(
                        f"Jacobian {how}mismatch for output {o_index} with respect to input {i},\n"
                        f"numerical:{_show(expected)}\nanalytical:{_show(analytical)}\n")
                return False
    return True


def _numerical(func: Callable, ins: tuple, o_index: int, i: int, eps: float) -> np.ndarray:
    """Central differences: row k is d(output)/d(input element k)."""
    t = ins[i]
    rows = []
    # PyTorch perturbs the input's .data and calls func with grad mode on (gradgradcheck's
    # func takes a gradient itself); indices in place, also for a non-contiguous input.
    for index in np.ndindex(t._data.shape):
        orig = t._data[index]
        with grad_mode.enable_grad():
            t._data[index] = orig + eps
            plus = _as_tuple(func(*ins))[o_index]._data.reshape(-1).astype(np.float64)
            t._data[index] = orig - eps
            minus = _as_tuple(func(*ins))[o_index]._data.reshape(-1).astype(np.float64)
            t._data[index] = orig
        rows.append((plus - minus) / (2 * eps))
    return np.array(rows).reshape(t.numel(), -1)


def _backward_jacobian(o: Tensor, t: Tensor) -> np.ndarray:
    analytical = np.zeros((t.numel(), o.numel()))
    flat_out = o.reshape(-1)
    with grad_mode.enable_grad():
        for j in range(o.numel()):
            g = grad(flat_out[j], (t,), retain_graph=True, allow_unused=True)[0]
            if g is not None:
                analytical[:, j] = g._data.reshape(-1)
    return analytical


def _forward_jacobian(func: Callable, ins: tuple, o_index: int, i: int) -> np.ndarray:
    """Row k: the output's tangent when input ``i`` is dual with the k-th unit tangent."""
    from .dual_tensors import make_dual
    t = ins[i]
    rows = []
    for k in range(t.numel()):
        unit = np.zeros(t._data.shape, dtype=t._data.dtype)
        unit.reshape(-1)[k] = 1
        with forward_ad.dual_level():
            dual = make_dual(t, Tensor._make(unit, t._dtype))
            out = _as_tuple(call(func, *ins[:i], dual, *ins[i + 1:]))[o_index]
            tangent = forward_ad.tangent_of(out)
            rows.append(np.zeros(out.numel()) if tangent is None else
                        tangent._data.reshape(-1).astype(np.float64))
    return np.array(rows).reshape(t.numel(), -1)


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
