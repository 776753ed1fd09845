"""``gradcli plot EXPR``: f(x) evaluated by the language on N points, f'(x) by autograd.

EXPR is gradcli's language (the shorthand's bare ``sin``, ``torch.tanh``, several statements
``a = x*2; a**2`` ending in an expression; ``torch`` and ``math`` imported), run in a fresh
Session where the variable is
``torch.linspace(FROM, TO, N, requires_grad=True)``.  f' is the gradient of ``f.sum()`` with
respect to x: each point's f depends on that point's x only, so that gradient is f' pointwise
(``torch.autograd.grad(f, x, torch.ones_like(f))``).  A mistake in EXPR is reported as
``gradcli eval`` reports one, located in ``<expr>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

EXPR_FILENAME = "<expr>"


@dataclass
class Curve:
    x: np.ndarray
    f: np.ndarray
    df: np.ndarray

    def not_finite(self) -> tuple[int, int]:
        """How many points of f and of f' are nan or infinite (they are left out of the drawing)."""
        return int((~np.isfinite(self.f)).sum()), int((~np.isfinite(self.df)).sum())


class ExprProblem(Exception):
    """EXPR ran but does not give what a plot needs (said in one line, exit status 1)."""


def evaluate(session: Any, expr: str, var: str, start: float, stop: float, points: int) -> Optional[Curve]:
    """The curve, or None when EXPR failed (the session has reported the error)."""
    from gradcli.engine.errors import TorchError
    engine = session.engine
    try:
        x = engine.TORCH["linspace"](start, stop, points, requires_grad=True)
    except TorchError as error:   # (--max-elements below --points)
        session.reporter.error(error, None, filename=EXPR_FILENAME)
        return None
    for module in ("torch", "math"):   # as if EXPR began with `import torch, math`
        session.globals[module] = session.modules.import_module(module)
    session.globals[var] = x
    results: list[Any] = []
    session.context.echo = results.append     # the value of EXPR's last expression, not printed
    outcome = session.run_source(expr, EXPR_FILENAME, echo="last")
    if not outcome.ok:
        return None
    if not results:
        raise ExprProblem(f"EXPR must end with an expression in {var} (such as sin({var})**2), "
                          "not a statement")
    value = results[-1]
    shape = list(x.shape)
    if not isinstance(value, engine.Tensor):
        raise ExprProblem(f"EXPR gave {_kind(value)}, not a tensor of {var}'s shape {shape}; write it in {var} "
                          f"(as {var} * 0 + 1 for a constant)")
    if list(value.shape) != shape:
        raise ExprProblem(f"EXPR gave a tensor of shape {list(value.shape)}, not one of {var}'s shape {shape}: "
                          f"plot draws an elementwise function of {var} (no sum or mean over it)")
    if not value.is_floating_point():
        raise ExprProblem(f"EXPR gave a tensor of {value.dtype}: a derivative needs floating values")
    if not value.requires_grad:
        raise ExprProblem(f"EXPR does not depend on {var} through autograd (its value has no grad_fn), so "
                          f"there is no derivative to draw; leave out .detach() and torch.no_grad()")
    try:
        (derivative,) = engine.SUBMODULES["autograd"]["grad"](value, x, engine.TORCH["ones_like"](value),
                                                               allow_unused=True)
    except TorchError as error:
        session.reporter.error(error, None, filename=EXPR_FILENAME)
        return None
    if derivative is None:
        derivative = engine.TORCH["zeros_like"](x)
    return Curve(_floats(x), _floats(value), _floats(derivative))


def _floats(tensor: Any) -> np.ndarray:
    return np.asarray(tensor.detach()).astype(np.float64)


def _kind(value: Any) -> str:
    name = type(value).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"
