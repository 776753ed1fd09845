"""Sampling from tensors of probabilities: ``torch.bernoulli`` / ``bernoulli_`` and ``torch.multinomial``.

Part of the random family (its catalog is ``random_args.CATALOG``); the draws are
``gradcli.engine.random``'s, bit for bit PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.formulas import SAMPLED, d
from ..dispatch.limits import check_size
from ..dispatch.python_signature import signed
from ..dispatch.memory import write_into
from ..dispatch.runner import run
from ..dispatch.signature import ArgParser
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..lazy_random import rng
from ..tensor import Tensor
from .random_args import CATALOG, _g, _generator, _inplace_sampler, _like_array, _parser, defop

_GEN = "*, generator? generator=None"

_BERNOULLI_ = _parser(f"bernoulli_(Tensor self, Tensor p, {_GEN})",
                      f"bernoulli_(Tensor self, float p=0.5, {_GEN})", method=True)
_BERNOULLI = _parser(f"bernoulli(Tensor input, {_GEN}, Tensor? out=None)",
                     f"bernoulli(Tensor input, float p, {_GEN})")
_BERNOULLI_METHOD = _parser(f"bernoulli(Tensor self, {_GEN})", f"bernoulli(Tensor self, float p, {_GEN})",
                            method=True)


def _bernoulli_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    p = b["p"]
    if isinstance(p, Tensor):
        p = p.detach().expand(tuple(self.shape))  # (PyTorch expands p to self first: its errors)
        rng.bernoulli_(self._data, p._data, generator=generator)
        return
    if not 0 <= p <= 1:
        raise TorchRuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    rng.bernoulli_(self._data, float(p), generator=generator)


def _bernoulli_forward(b: dict) -> Any:
    p = b["input"]._data
    if not np.issubdtype(p.dtype, np.floating):
        raise TorchNotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{b['input']._dtype.legacy_name}'")
    if not ((p >= 0) & (p <= 1)).all():  # a NaN fails too
        raise TorchRuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)")
    return rng.bernoulli(p, generator=b.get("generator"))


BERNOULLI = defop("_bernoulli_tensor", "_bernoulli_tensor(Tensor input)", _bernoulli_forward,
                  node="BernoulliBackward0", inputs=("input",), function=False, method=False,
                  vmap="random_of_batch", derivs={"input": d(rule=SAMPLED)(lambda g, s: g * 0)})


def _bernoulli(parser: ArgParser, args: tuple, kwargs: dict) -> Tensor:
    overload, b = parser.parse(args, kwargs)
    x = b["input"] if "input" in b else b["self"]
    gen = _generator(b)
    if overload == 0:
        return run(BERNOULLI, {"input": x, "generator": gen, "out": b.get("out")})
    out = Tensor._make(_like_array(x, x._dtype), x._dtype)
    _bernoulli_fill(out, 1, {"p": b["p"]}, gen)
    return out


@signed(_BERNOULLI)
def bernoulli(*args: Any, **kwargs: Any) -> Tensor:
    return _bernoulli(_BERNOULLI, args, kwargs)


@signed(_BERNOULLI_METHOD, method=True)
def _bernoulli_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    return _bernoulli(_BERNOULLI_METHOD, (self, *args), kwargs)



# -- multinomial ------------------------------------------------------------------------------------

_MULTINOMIAL = _parser(f"multinomial(Tensor input, int num_samples, bool replacement=False, {_GEN}, "
                       "Tensor? out=None)")
_MULTINOMIAL_METHOD = _parser(f"multinomial(Tensor self, int num_samples, bool replacement=False, {_GEN})",
                              method=True)

# Since the indices are computed in float, the categories cannot exceed float32's consecutive integers.
_MAX_CATEGORIES = 2 ** 24
_INT64_MAX = 2 ** 63 - 1


def _multinomial(parser: ArgParser, args: tuple, kwargs: dict) -> Tensor:
    """``multinomial_out``'s checks in its order, then the engine's draws."""
    _, b = parser.parse(args, kwargs)
    x = b["input"] if "input" in b else b["self"]
    n, replacement, out = b["num_samples"], b["replacement"], b.get("out")
    if not 0 < x.ndim <= 2:
        raise TorchRuntimeError("prob_dist must be 1 or 2 dim")
    if not x._dtype.is_floating_point:
        raise TorchRuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {x._dtype.legacy_name}")
    if out is not None and out._dtype is not dtypes.int64:
        raise TorchRuntimeError(f"multinomial expects Long tensor out, got: {out._dtype.legacy_name}")
    if n <= 0:
        raise TorchRuntimeError("cannot sample n_sample <= 0 samples")
    categories = x.shape[-1]
    if not replacement and n > categories:
        raise TorchRuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if categories > _MAX_CATEGORIES:
        raise TorchRuntimeError("number of categories cannot exceed 2^24")
    shape = (*x.shape[:-1], n)
    if (x.shape[0] if x.ndim == 2 else 1) * n > _INT64_MAX:   # (the result's sizes are checked before it is allocated)
        raise TorchRuntimeError("numel: integer multiplication overflow")
    check_size(shape, 8)
    indices = rng.multinomial(x._data, n, replacement, generator=_generator(b))
    if out is None:
        return Tensor._make(indices, dtypes.int64)
    if out.shape != indices.shape:
        out._data = np.empty(indices.shape, dtype=np.int64)  # torch resizes out
    write_into(out, indices)
    return out


@signed(_MULTINOMIAL)
def multinomial(*args: Any, **kwargs: Any) -> Tensor:
    return _multinomial(_MULTINOMIAL, args, kwargs)


@signed(_MULTINOMIAL_METHOD, method=True)
def _multinomial_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    return _multinomial(_MULTINOMIAL_METHOD, (self, *args), kwargs)


for _name, _fn in (("bernoulli", bernoulli), ("multinomial", multinomial)):
    CATALOG.register(_fn, _name, torch=True)
for _name, _fn in (("bernoulli_", _inplace_sampler(_BERNOULLI_, _bernoulli_fill)), ("bernoulli", _bernoulli_method),
                   ("multinomial", _multinomial_method)):
    CATALOG.register(_fn, _name, method=True)
