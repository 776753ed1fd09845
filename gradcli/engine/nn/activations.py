"""Activation functions of ``torch.nn.functional`` that PyTorch implements natively.

Each is one op with PyTorch's node name (``LeakyReluBackward0``,
``EluBackward0``, ...).  PyTorch gives some in-place forms a node of their
own (``leaky_relu_`` is ``LeakyReluBackward1``, its formula reads the
result), so those are separate ops here too.  Gradient formulas follow
PyTorch's backward kernels, including where they pass or block the gradient
at the awkward points: ``hardtanh`` blocks it at both bounds, ``leaky_relu``
uses the slope at 0, ``elu`` uses ``alpha`` at 0, and NaN inputs take the
branch PyTorch's comparisons give them.

Their gradients are PyTorch's ``*_backward`` ops (``activation_backward.py``),
so a gradient taken with ``create_graph=True`` has PyTorch's node and second
derivative.

The ``F.*`` wrappers (Python functions in PyTorch, with ``inplace=``) are in
``activation_functions.py``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..autograd import grad_mode
from ..autograd.formulas import d
from ..dispatch.forms import function_form
from ..dtypes import of_numpy, scalar_as
from ..dispatch.op import Op
from ..dispatch.op import POINTWISE
from ..dispatch.publish import Catalog
from ..dispatch.runner import run, run_inplace
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..ops import backward_ops
from ..ops.arithmetic import SUB, add_scalar
from ..tensor import Tensor
from . import activation_backward as G
from . import activation_kernels as K
from .activation_backward import call

CATALOG = Catalog(jvp=POINTWISE, vmap="pointwise")
defop = CATALOG.defop

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def floating(t: Tensor, kernel: str) -> np.ndarray:
    """``t``'s data, or PyTorch's "not implemented" error for integer and bool inputs."""
    if not t._dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{t._dtype.legacy_name}'")
    return t._data


def _scalar(a: np.ndarray, value: Any) -> Any:
    """A Python number in the array's dtype (PyTorch's ``Scalar.to<scalar_t>()``, its overflow refused)."""
    return scalar_as(value, of_numpy(a.dtype))


def entry(op: Op, sig: str, inplace: bool = False) -> Callable:
    """A function form of ``op`` parsed by ``sig`` (not installed anywhere by itself)."""
    parser = LazyParser(sig)

    def call(*args: Any, **kwargs: Any) -> Any:
        _, bound = parser.parse(args, kwargs)
        bound["self"] = bound.pop("input")
        return run_inplace(op, bound) if inplace else run(op, bound)
    call.__name__ = call.__qualname__ = parser.name
    call.op = op  # type: ignore[attr-defined]  (selu calls elu's op)
    return signed(parser)(call)


def pair(name: str, sig_args: str, forward: Callable, node: str, deriv: Any, inplace_node: str | None = None,
         inplace_deriv: Any = None, public: bool = False, method: bool = False,
         exposes: tuple[str, ...] = ()) -> tuple[Callable, Callable | None]:
    """The out-of-place op and (when PyTorch has one) its in-place op, as call forms; ``public``
    also makes them ``torch.<name>`` / ``torch.<name>_``, ``method`` a Tensor method; ``exposes``
    the options both nodes show as ``grad_fn._saved_<name>``."""
    kw = dict(function=public, method=method)
    op = defop(name, f"{name}({sig_args})", forward, node=node, derivs={"self": deriv}, exposes=exposes, **kw)
    if public:
        out_fn = function_form(op)
    else:
        out_fn = entry(op, f"{name}({sig_args})")
    if inplace_node is None:
        return out_fn, None
    iop = defop(f"_{name}_inplace", f"_{name}_inplace({sig_args})", forward, node=inplace_node,
                function=False, method=False, exposes=exposes, derivs={"self": inplace_deriv or deriv})
    in_fn = entry(iop, f"{name}_({sig_args})", inplace=True)
    if public:
        CATALOG.register(in_fn, name + "_", torch=True)
    return out_fn, in_fn


# -- relu6 / hardtanh ---------------------------------------------------------------------------

def _hardtanh_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype == np.bool_:
        raise TorchRuntimeError("Bool inputs not supported for hardtanh")
    lo, hi = _scalar(a, b["min_val"]), _scalar(a, b["max_val"])
    # PyTorch's clamp: x < lo ? lo : (x > hi ? hi : x), so NaN and -0.0 stay as they are
    return np.where(a < lo, lo, np.where(a > hi, hi, a))


def _hardtanh_grad(g: Tensor, s: Any) -> Tensor:
    # Blocked at both bounds and outside; NaN passes (both comparisons are false).
    return call(G.HARDTANH, g, self=s.self, min_val=s.min_val, max_val=s.max_val)


hardtanh, hardtanh_ = pair("hardtanh", "Tensor input, Scalar min_val=-1, Scalar max_val=1", _hardtanh_forward,
                           "HardtanhBackward0",
                           d("self", rule="where(self <= min_val or self >= max_val, 0, grad)")(_hardtanh_grad),
                           "HardtanhBackward0",
                           exposes=("min_val", "max_val"))


# -- leaky_relu ---------------------------------------------------------------------------------

def _leaky_relu_forward(b: dict) -> Any:
    a = floating(b["self"], "leaky_relu_cpu")
    return np.where(a > 0, a, a * _scalar(a, b["negative_slope"]))


def _leaky_relu_grad(g: Tensor, s: Any) -> Tensor:
    return call(G.LEAKY_RELU, g, self=s.self, negative_slope=s.negative_slope)


def _leaky_relu_result_grad(g: Tensor, s: Any) -> Tensor:
    if s.negative_slope < 0:
        raise TorchRuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
            "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
            "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
            "in-place leakRelu backward calculation with negative slope")
    return call(G.LEAKY_RELU, g, self=s.result, negative_slope=s.negative_slope)


leaky_relu, leaky_relu_ = pair("leaky_relu", "Tensor input, Scalar negative_slope=0.01", _leaky_relu_forward,
                               "LeakyReluBackward0",
                               d("self", rule="where(self > 0, grad, grad * negative_slope)")(_leaky_relu_grad),
                               "LeakyReluBackward1",
                               d("result", rule="where(result > 0, grad, grad * negative_slope)")(
                                   _leaky_relu_result_grad), exposes=("negative_slope",))


# -- elu / selu / celu -------------------------------------------------------------------------

def _elu_array(a: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    t = a.dtype.type
    return K.elu(a, t(alpha) * t(scale), scale, input_scale)


def _elu_forward(b: dict) -> Any:
    a = floating(b["self"], "elu_cpu")
    return _elu_array(a, b["alpha"], b["scale"], b["input_scale"])


def _elu_grad(alpha: float, scale: float, input_scale: float, g: Tensor, x: Tensor) -> Tensor:
    return call(G.ELU, g, self=x, alpha=alpha, scale=scale, input_scale=input_scale, is_result=False)


def _elu_result_grad(alpha: float, scale: float, input_scale: float, g: Tensor, y: Tensor) -> Tensor:
    if alpha < 0:
        raise TorchRuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is not supported. This is "
            "caused by calling in-place forward function with a negative slope, please call out-of-place version "
            "instead.")
    return call(G.ELU, g, self=y, alpha=alpha, scale=scale, input_scale=input_scale, is_result=True)


_ELU_SIG = "Tensor input, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1"
elu, elu_ = pair("elu", _ELU_SIG, _elu_forward, "EluBackward0",
                 d("self", rule="grad * where(self <= 0, input_scale * alpha * scale * exp(input_scale * self),"
                                " scale)")(lambda g, s: _elu_grad(s.alpha, s.scale, s.input_scale, g, s.self)),
                 "EluBackward1",
                 d("result", rule="grad * where(result <= 0, input_scale * (result + alpha * scale), scale)")(
                     lambda g, s: _elu_result_grad(s.alpha, s.scale, s.input_scale, g, s.result)),
                 exposes=("alpha", "scale", "input_scale"))


def _selu(inplace: bool) -> Callable:
    """``torch.selu`` / ``torch.selu_``: ATen's elu with SELU's constants (so the node saves them)."""
    parser = LazyParser("selu_(Tensor input)" if inplace else "selu(Tensor input)")
    op = (elu_ if inplace else elu).op

    def call(*args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse(args, kwargs)
        bound = {"self": b["input"], "alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1}
        return run_inplace(op, bound) if inplace else run(op, bound)
    call.__name__ = call.__qualname__ = parser.name
    return signed(parser)(call)


selu, selu_ = _selu(False), _selu(True)
CATALOG.register(selu, "selu", torch=True)
CATALOG.register(selu_, "selu_", torch=True)


def _celu_forward(b: dict) -> Any:
    alpha = b["alpha"]
    if alpha == 0:
        raise TorchRuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu_array(floating(b["self"], "elu_cpu"), alpha, 1.0, 1.0 / alpha)


celu, celu_ = pair("celu", "Tensor input, Scalar alpha=1.0", _celu_forward, "CeluBackward0",
                   d("self", rule="grad * where(self <= 0, exp(self / alpha), 1)")(
                       lambda g, s: _elu_grad(s.alpha, 1.0, 1.0 / s.alpha, g, s.self)), "CeluBackward1",
                   d("result", rule="grad * where(result <= 0, result / alpha + 1, 1)")(
                       lambda g, s: _elu_result_grad(s.alpha, 1.0, 1.0 / s.alpha, g, s.result)),
                   public=True, exposes=("alpha",))


# -- gelu ----------------------------------------------------------------------------------------



def _gelu_forward(b: dict) -> Any:
    a = floating(b["self"], "GeluKernelImpl")
    mode = b["approximate"]
    if mode not in ("none", "tanh"):
        raise TorchRuntimeError("approximate argument must be either none or tanh.")
    if mode == "tanh":
        return K.gelu_tanh(a)
    return K.gelu(a, contiguous=a.flags.c_contiguous)


# (approximate='tanh' takes the slope of its tanh formula instead)
GELU_RULE = "grad * (cdf(self) + self * pdf(self)), N(0, 1)'s cdf and pdf"


def _gelu_grad(g: Tensor, s: Any) -> Tensor:
    return call(G.GELU, g, self=s.self, approximate=s.approximate)


gelu, _ = pair("gelu", "Tensor input, *, str approximate='none'", _gelu_forward, "GeluBackward0",
               d("self", rule=GELU_RULE)(_gelu_grad), exposes=("approximate",))


# -- silu / mish / softplus / logsigmoid ---------------------------------------------------------

def _silu_forward(b: dict) -> Any:
    return K.silu(floating(b["self"], "silu_cpu"))


def _one_minus(t: Tensor) -> Tensor:
    # C++ ``1.0 - t``: SubBackward0 with a constant first operand
    return SUB(Tensor._make(np.array(1, dtype=t._data.dtype)), t)


def _silu_grad(g: Tensor, s: Any) -> Tensor:
    if not grad_mode._enabled and g._dtype is s.self._dtype and g._dtype.name in ("float32", "float64"):
        # no graph of the gradient: PyTorch's fused silu_backward kernel
        return Tensor._make(K.silu_backward(g._data, s.self._data))
    # with create_graph: PyTorch's infinitely_differentiable_silu_backward, node for node
    sig = s.self.sigmoid()
    return g * sig * add_scalar(s.self * _one_minus(sig), 1.0)


silu, silu_ = pair("silu", "Tensor input", _silu_forward, "SiluBackward0",
                   d("self", rule="grad * sigmoid(self) * (1 + self * (1 - sigmoid(self)))")(_silu_grad),
                   "SiluBackward0")


def _mish_forward(b: dict) -> Any:
    return K.mish(floating(b["self"], "mish_cpu"))


def _mish_grad(g: Tensor, s: Any) -> Tensor:
    # PyTorch's infinitely_differentiable_mish_backward, node for node
    x = s.self
    t = x.exp().log1p().tanh()
    return g * (t + x * x.sigmoid() * _one_minus(t * t))


mish, mish_ = pair("mish", "Tensor input", _mish_forward, "MishBackward0",
                   d("self", rule="grad * (t + self * sigmoid(self) * (1 - t^2)), t = tanh(softplus(self))")(
                       _mish_grad), "MishBackward0")


def _softplus_forward(b: dict) -> Any:
    a = floating(b["self"], "softplus_cpu")
    return K.softplus(a, b["beta"], b["threshold"])


def _softplus_grad(g: Tensor, s: Any) -> Tensor:
    # Linear above the threshold: the gradient there is exactly g.
    return call(G.SOFTPLUS, g, self=s.self, beta=s.beta, threshold=s.threshold)


softplus, _ = pair("softplus", "Tensor input, Scalar beta=1, Scalar threshold=20", _softplus_forward,
                   "SoftplusBackward0",
                   d("self", rule="where(beta * self > threshold, grad, grad * sigmoid(beta * self))")(_softplus_grad),
                   exposes=("beta", "threshold"))


def _log_sigmoid_forward(b: dict) -> Any:
    return K.log_sigmoid(floating(b["self"], "log_sigmoid_cpu"))


def _log_sigmoid_grad(g: Tensor, s: Any) -> Tensor:
    return call(G.LOG_SIGMOID, g, self=s.self)


log_sigmoid, _ = pair("log_sigmoid", "Tensor input", _log_sigmoid_forward, "LogSigmoidBackward0",
                      d("self", rule="grad * sigmoid(-self)")(_log_sigmoid_grad))


# -- hardsigmoid / hardswish ---------------------------------------------------------------------

def _hardsigmoid_forward(b: dict) -> Any:
    a = floating(b["self"], "hardsigmoid_cpu")
    t = a.dtype.type
    return np.minimum(np.maximum(a + t(3), t(0)), t(6)) / t(6)


def _hardsigmoid_grad(g: Tensor, s: Any) -> Tensor:
    return call(G.HARDSIGMOID, g, self=s.self)


hardsigmoid, hardsigmoid_ = pair("hardsigmoid", "Tensor input", _hardsigmoid_forward, "HardsigmoidBackward0",
                                 d("self", rule="where(-3 < self < 3, grad / 6, 0)")(_hardsigmoid_grad),
                                 "HardsigmoidBackward0")


def _hardswish_forward(b: dict) -> Any:
    a = floating(b["self"], "hardswish_cpu")
    t = a.dtype.type
    return a * np.minimum(np.maximum(a + t(3), t(0)), t(6)) / t(6)


def _hardswish_grad(g: Tensor, s: Any) -> Tensor:
    return call(G.HARDSWISH, g, self=s.self)


hardswish, hardswish_ = pair("hardswish", "Tensor input", _hardswish_forward, "HardswishBackward0",
                             d("self", rule="where(self <= -3, 0, where(self < 3, grad * (self / 3 + 0.5), grad))")(
                                 _hardswish_grad), "HardswishBackward0")


# -- threshold ----------------------------------------------------------------------------------

def _threshold_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype == np.bool_:
        raise TorchNotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return np.where(a <= _scalar(a, b["threshold"]), _scalar(a, b["value"]), a)


def _threshold_grad(g: Tensor, s: Any) -> Tensor:
    return call(backward_ops.THRESHOLD, g, self=s.self, threshold=s.threshold)


threshold, threshold_ = pair("threshold", "Tensor input, Scalar threshold, Scalar value", _threshold_forward,
                             "ThresholdBackward0", d("self", rule="where(self <= threshold, 0, grad)")(_threshold_grad),
                             "ThresholdBackward1",
                             public=True, exposes=("threshold",))


# -- hardshrink / softshrink ------------------------------------------------------------------------

def _hardshrink_forward(b: dict) -> Any:
    a = floating(b["self"], "hardshrink_cpu")
    lambd = _scalar(a, b["lambd"])
    return np.where((a >= -lambd) & (a <= lambd), a.dtype.type(0), a)


def _softshrink_forward(b: dict) -> Any:
    a = floating(b["self"], "softshrink_check")
    lambd = b["lambd"]
    if not 0 <= lambd <= np.finfo(a.dtype).max:
        raise TorchRuntimeError(f"lambda must be in range [0, {float(np.finfo(a.dtype).max):g}] for input dtype "
                                f"{b['self']._dtype.legacy_name}, but found {lambd:g}")
    lam = _scalar(a, lambd)
    # Inside the band PyTorch's scalar kernel gives x * 0 (-0.0 for negative x), its vector
    # kernel a plain 0: which one an element gets depends on where it sits in memory.
    return np.where(a > lam, a - lam, np.where(a < -lam, a + lam, K.softshrink_inside(a)))


def _shrink_grad(kind: str) -> Callable:
    return lambda g, s: call(G.SHRINK[kind], g, self=s.self, lambd=s.lambd)


hardshrink, _ = pair("hardshrink", "Tensor input, Scalar lambd=0.5", _hardshrink_forward, "HardshrinkBackward0",
                     d("self", rule="where(-lambd <= self <= lambd, 0, grad)")(_shrink_grad("hardshrink")),
                     public=True, method=True, exposes=("lambd",))
softshrink, _ = pair("softshrink", "Tensor input, Scalar lambd=0.5", _softshrink_forward, "SoftshrinkBackward0",
                     d("self", rule="where(-lambd <= self <= lambd, 0, grad)")(_shrink_grad("softshrink")),
                     exposes=("lambd",))


def relu_(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """``torch.relu_``: the in-place form the op table gives only as a method."""
    _, bound = _RELU_.parse((input,), {})
    return bound["input"].relu_()


_RELU_ = LazyParser("relu_(Tensor input)")
CATALOG.register(relu_, "relu_", torch=True)
