"""The symbolic forms of torch.nn.functional's losses (mean, sum or none reduction)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from . import symbolic_functions as fn
from .symbolic_base import Args, each, number, obj, reduce_axes

gt, ge = fn.greater, fn.at_least   # [a > b], [a ≥ b]


def _reduced(b: Args, losses: np.ndarray) -> np.ndarray:
    reduction = b.get("reduction", 1)
    if reduction == 0:
        return losses
    total = reduce_axes(lambda x, y: x + y, losses, None, False)
    return total if reduction == 2 else obj(total / max(losses.size, 1))


def _mse(b: Args) -> np.ndarray:
    return _reduced(b, each(lambda x, t: (x - t) ** 2, b["self"], b["target"]))


def _smooth_l1(b: Args, key: str, huber: bool) -> np.ndarray:
    beta = number(b.get(key, 1.0))
    if beta == 0:
        return _reduced(b, each(lambda x, t: fn.absolute(x - t), b["self"], b["target"]))
    if huber:
        loss = lambda x, t: (gt(beta, fn.absolute(x - t)) * (x - t) ** 2 / 2  # noqa: E731
                             + ge(fn.absolute(x - t), beta) * beta * (fn.absolute(x - t) - beta / 2))
    else:
        loss = lambda x, t: (gt(beta, fn.absolute(x - t)) * (x - t) ** 2 / (2 * beta)  # noqa: E731
                             + ge(fn.absolute(x - t), beta) * (fn.absolute(x - t) - beta / 2))
    return _reduced(b, each(loss, b["self"], b["target"]))


def _bce(b: Args) -> np.ndarray:
    losses = each(lambda x, t: -(t * sp.log(x) + (1 - t) * sp.log(1 - x)), b["self"], b["target"])
    if b.get("weight") is not None:
        losses = obj(losses * b["weight"])
    return _reduced(b, losses)


def _bce_logits(b: Args) -> np.ndarray:
    pos = b.get("pos_weight")
    if pos is None:
        losses = each(lambda x, t: (1 - t) * x + sp.log(1 + sp.exp(-x)), b["self"], b["target"])
    else:
        losses = each(lambda x, t, p: (1 - t) * x + (1 + (p - 1) * t) * sp.log(1 + sp.exp(-x)),
                      b["self"], b["target"], pos)
    if b.get("weight") is not None:
        losses = obj(losses * b["weight"])
    return _reduced(b, losses)


def _nll(b: Args) -> np.ndarray:
    x, target = b["self"], np.asarray(b["target"]).astype(np.int64)
    weight, ignore = b.get("weight"), b.get("ignore_index", -100)
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    targets = target.reshape(-1)
    losses, weights = [], []
    for i, t in enumerate(targets):
        w = sp.Integer(0) if t == ignore else (sp.Integer(1) if weight is None else weight[int(t)])
        losses.append(-w * rows[i, int(t)] if t != ignore else sp.Integer(0))
        weights.append(w)
    reduction = b.get("reduction", 1)
    if reduction == 0:
        return obj(np.array(losses, dtype=object).reshape(target.shape))
    total = sum(losses, sp.Integer(0))
    return obj(total if reduction == 2 else total / sum(weights, sp.Integer(0)))


def _embedding(b: Args) -> np.ndarray:
    return obj(b["weight"][np.asarray(b["indices"]).astype(np.int64)])
