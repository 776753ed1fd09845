"""PyTorch's ``*_backward`` functions as ops of their own.

The gradient of ``relu`` is not composed from ``where``/``mul`` in PyTorch: it is
``threshold_backward(grad, result, 0)``, an op with a node of its own.  So a
gradient taken with ``create_graph=True`` prints ``grad_fn=<ThresholdBackwardBackward0>``,
and its derivatives are PyTorch's double-backward formulas (derivatives.yaml),
which differ from the derivative of a composite formula at kinks (``elu``'s
second derivative is 0 at 0) and in rounding.

Each op's value is its gradient formula evaluated without recording; its
derivative with respect to ``grad_output`` is the op itself again (a gradient
is linear in the incoming gradient), the one with respect to the input is the
double-backward formula.  This module holds the helper and the backward ops of
the core ops (relu, sigmoid, tanh, softmax); ``gradcli.engine.nn`` defines
those of the activations and losses with it.
"""

from __future__ import annotations

from typing import Any, Callable

from ..autograd import grad_mode
from ..autograd.formulas import Deriv, d
from ..dispatch.op import Op, defop
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..kernels import sleef
from ..tensor import Tensor
from .comparison import WHERE

CATALOG = Catalog(vmap="pointwise")


class _Values:
    """Bound arguments as attributes (the way formulas read saved values)."""

    def __init__(self, bound: dict) -> None:
        self.__dict__.update(bound)


def grad_op(catalog: Catalog, name: str, node: str, value: Callable[[Any], Tensor], input_deriv: Deriv,
            inputs: tuple[str, ...] = ("grad_output", "self"), extra: dict[str, Deriv] | None = None,
            linear_rule: str = "", vmap: Any = None) -> Op:
    """The op ``name`` (node ``node``) in ``catalog``: ``value(args)`` computes it; ``input_deriv``
    is its derivative with respect to ``self`` (the tensor the first derivative was taken at),
    ``extra`` overrides or adds derivatives (``target``, or ``grad_output`` when it is not the op
    itself).  The op is linear in ``grad_output``, so its derivative there is the op itself with
    ``grad`` for ``grad_output``: ``linear_rule`` says that in words.  ``vmap``: its batch rule
    (Op.vmap), the catalog's when not given."""
    def forward(b: dict) -> Any:
        with grad_mode.no_grad():
            return value(_Values(b))._data

    op: Op

    def again(g: Tensor, s: Any) -> Tensor:
        return run(op, {**s.__dict__, "grad_output": g})
    # what the value reads besides grad_output (weight is no graph input, but is read)
    needs = tuple(k for k in ("self", "target", "weight") if k in inputs or k == "weight")
    derivs = {"self": input_deriv, **(extra or {})}
    if "grad_output" in inputs:
        derivs.setdefault("grad_output", d(*needs, rule=linear_rule)(again))
    op = catalog.add(defop(name, f"{name}(Tensor grad_output, Tensor input)", forward, node=node, inputs=inputs,
                           function=False, method=False, derivs=derivs, vmap=vmap or catalog.vmap))
    return op


def call(op: Op, grad_output: Tensor, **args: Any) -> Tensor:
    return run(op, {"grad_output": grad_output, **args})


def where(cond: Tensor, a: Any, b: Any) -> Tensor:
    return WHERE(cond, a, b)


def zeros(g: Tensor, s: Any) -> Tensor:
    return g * 0


# The rule of ``zeros``: the derivative of a piecewise-linear activation's slope.
FLAT = "0 (the slope is piecewise constant)"


# relu's: the second derivative is 0
THRESHOLD = grad_op(CATALOG, "threshold_backward", "ThresholdBackwardBackward0",
                    lambda b: where(b.self <= b.threshold, 0.0, b.grad_output), d(rule=FLAT)(zeros),
                    linear_rule="where(self <= threshold, 0, grad)")

# sigmoid and tanh take their result: sigmoid_backward(grad, result), tanh_backward(grad, result)
SIGMOID = grad_op(CATALOG, "sigmoid_backward", "SigmoidBackwardBackward0",
                  lambda b: b.grad_output * (1 - b.self) * b.self,
                  d("grad_output", "self", rule="grad * grad_output * (1 - 2 * self)")(
                      lambda gg, s: gg * s.grad_output * (-2 * s.self + 1)),
                  linear_rule="grad * (1 - self) * self")
TANH = grad_op(CATALOG, "tanh_backward", "TanhBackwardBackward0",
               lambda b: b.grad_output * (1 - b.self * b.self),
               d("grad_output", "self", rule="grad * grad_output * -2 * self")(
                   lambda gg, s: gg * s.grad_output * -2 * s.self),
               linear_rule="grad * (1 - self^2)")


# -- softmax / log_softmax (of the result) -----------------------------------------------------------

def _lastdim_kernel(b: Any) -> bool:
    # PyTorch's float32 kernel over the last dim, reproduced bit for bit by kernels.sleef
    out, g = b.self, b.grad_output
    return (out._dtype.name == "float32" and g._dtype.name == "float32" and out.ndim > 0
            and tuple(out.shape) == tuple(g.shape) and b.dim in (-1, out.ndim - 1)
            and 0 < out.numel() <= sleef.EXACT_LIMIT)


def _softmax_backward_value(b: Any, log: bool) -> Tensor:
    if _lastdim_kernel(b):
        return Tensor._make(sleef.softmax_backward_lastdim(b.grad_output._data, b.self._data, log))
    if log:
        return b.grad_output - b.self.exp() * b.grad_output.sum(b.dim, keepdim=True)
    return (b.grad_output - (b.grad_output * b.self).sum(b.dim, keepdim=True)) * b.self


SOFTMAX = grad_op(
    CATALOG, "_softmax_backward_data", "SoftmaxBackwardDataBackward0",
    lambda b: _softmax_backward_value(b, log=False),
    d("grad_output", "self", rule="grad * (grad_output - sum(self * grad_output, dim))"
                                   " - grad_output * sum(self * grad, dim)")(
        lambda gg, s: s.grad_output * gg - (s.self * s.grad_output).sum(s.dim, keepdim=True) * gg
        - s.grad_output * (s.self * gg).sum(s.dim, keepdim=True)),
    linear_rule="(grad - sum(grad * self, dim)) * self", vmap="dims")
LOG_SOFTMAX = grad_op(
    CATALOG, "_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0",
    lambda b: _softmax_backward_value(b, log=True),
    d("grad_output", "self", rule="-grad * exp(self) * sum(grad_output, dim)")(
        lambda gg, s: -gg * s.self.exp() * s.grad_output.sum(s.dim, keepdim=True)),
    # linear in grad_output but not self-adjoint (I - exp(self) 1^T): its transpose, not itself
    extra={"grad_output": d("self", rule="grad - sum(grad * exp(self), dim)")(
        lambda gg, s: gg - (gg * s.self.exp()).sum(s.dim, keepdim=True))}, vmap="dims")
