"""PyTorch 2.13's CPU random numbers, bit for bit, on NumPy arrays.

Follows PyTorch's CPU kernels (AVX2/AVX512 dispatch) draw for draw.  Knows nothing of
tensors or autograd: samplers return or fill ``np.ndarray`` s.  Every sampler
takes ``generator=`` (a ``Generator``; None means ``default_generator``).

How torch calls map here (``size`` is a tuple, dtypes are NumPy dtypes):

==========================================  =====================================
torch                                       gradcli.engine.random
==========================================  =====================================
manual_seed(s) / seed() / initial_seed()    default_generator.manual_seed(s) / .seed()
                                            / .initial_seed()
get_rng_state() / set_rng_state(t)          default_generator.get_state() -> bytes
                                            / .set_state(bytes)
torch.Generator()                           Generator()  (seed 67280421310721)
rand(size, dtype)                           uniform(size, dtype)
t.uniform_(a, b)                            uniform_(t, a, b)
rand_like(x)                                uniform_(empty_like(x))
randn(size, dtype)                          normal(size, dtype)
normal(m: float, s: float, size)            normal(size, dtype, m, s)
normal(m, s) with a tensor m and/or s       normal_tensor(m, s)
t.normal_(m, s)                             normal_(t, m, s)
randn_like(x)                               normal_(empty_like(x))
randint(low, high, size, dtype=int64)       randint(low, high, size, dtype)
randint_like(x, low, high)                  randint_(empty_like(x), low, high)
t.random_(low, high) / t.random_()          randint_(t, low, high) / random_(t)
randperm(n, dtype=int64)                    randperm(n, dtype)
bernoulli(p) / t.bernoulli_(p)              bernoulli(p) / bernoulli_(t, p)
bernoulli(x, p=0.3)                         bernoulli_(empty_like(x), 0.3)
F.dropout(x, p, training=True)              x * dropout_noise(x, p)  (None: x)
t.exponential_(lambd)                       exponential_(t, lambd)
t.cauchy_(m, s) / t.geometric_(p)           cauchy_(t, m, s) / geometric_(t, p)
t.log_normal_(m, s)                         log_normal_(t, m, s)
poisson(rates)                              poisson(rates)
multinomial(p, n, replacement)              multinomial(p, n, replacement)
==========================================  =====================================

Fill order is memory order (``draw_order``), so pass arrays with torch's strides.
float32/float64 are the sampled float dtypes; others raise ``TypeError``.
Only a few errors are raised here (``gradcli.engine.errors``): manual_seed's
overflow, set_state's checks, randint's float-bound crossing and multinomial's
checks of the probabilities (made where torch makes them, between draws);
every other torch message is quoted in the docstrings for the caller to raise.
"""

from __future__ import annotations

import importlib
from typing import Any


# Each name and the module defining it.  The samplers load on first use (PEP 562), so that a
# script drawing only normals never imports the Bernoulli, integer, serial or multinomial code.
_HOMES = {
    "bernoulli": "bernoulli_sampling", "bernoulli_": "bernoulli_sampling", "dropout_noise": "bernoulli_sampling",
    "DEFAULT_SEED": "generator", "STATE_SIZE": "generator", "Generator": "generator",
    "default_generator": "generator",
    "adjust_float_bounds": "integer_sampling", "randint": "integer_sampling", "randint_": "integer_sampling",
    "random_": "integer_sampling", "randperm": "integer_sampling",
    "empty_like": "draw_order",
    "cauchy_": "serial_sampling", "exponential_": "serial_sampling", "geometric_": "serial_sampling",
    "log_normal_": "serial_sampling", "poisson": "serial_sampling",
    "multinomial": "multinomial_sampling",
    "normal": "normal_sampling", "normal_": "normal_sampling", "normal_tensor": "normal_sampling",
    "uniform": "uniform_sampling", "uniform_": "uniform_sampling",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later reads find it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "DEFAULT_SEED",
    "STATE_SIZE",
    "Generator",
    "adjust_float_bounds",
    "bernoulli",
    "bernoulli_",
    "cauchy_",
    "default_generator",
    "dropout_noise",
    "empty_like",
    "exponential_",
    "geometric_",
    "log_normal_",
    "multinomial",
    "normal",
    "normal_",
    "normal_tensor",
    "poisson",
    "randint",
    "randint_",
    "random_",
    "randperm",
    "uniform",
    "uniform_",
]
