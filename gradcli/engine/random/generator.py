"""PyTorch's CPU generator: seed bookkeeping, MT19937, the normal caches.

Mirrors ``at::CPUGeneratorImpl`` (ATen's CPUGeneratorImpl.cpp).  The sampling
functions live in their own modules and take a ``Generator``; this class only
hands out raw 32/64-bit draws and the uniform floats every sampler builds on.
"""

from __future__ import annotations

import operator
import os
import struct

import numpy as np

from ..batching import state as vmap_state

from ..errors import TorchRuntimeError, TorchValueError
from .mt19937 import N, MT19937

#: Seed of a newly constructed ``torch.Generator()``.
DEFAULT_SEED = 67280421310721

STATE_SIZE = 5056
# CPUGeneratorImplState, little-endian: the_initial_seed, left, seeded, next,
# state[624] (u64 each), normal_x, normal_y, normal_rho, normal_is_valid,
# padding, next_float_normal_sample, is_next_float_normal_sample_valid, padding.
_LAYOUT = struct.Struct(f"<QiiQ{N}Qdddi4xf?3x")
assert _LAYOUT.size == STATE_SIZE

_U64 = np.uint64
_MASK24 = _U64(0xFFFFFF)
_MASK53_HI = _U64((1 << 21) - 1)  # the low 21 bits of the first of two draws


class Generator:
    """A PyTorch CPU generator.

    ``Generator()`` starts from seed 67280421310721 like ``torch.Generator()``;
    ``default_generator`` (in ``gradcli.engine.random``) is reseeded randomly
    at import, like torch's in a fresh process.  Scripts never hold one: their
    ``torch.Generator`` is a handle on it (``ops/generators.py``) whose
    ``get_state`` is a tensor; here the state is bytes.

    Attributes the samplers use (not for the torch-API layer):
    ``cached_normal`` holds the double cache of the per-element normal path
    (None when empty); ``cached_float_normal`` is torch's float cache, which
    no kernel sets but which a saved state carries.
    """

    __slots__ = ("_initial_seed", "_mt", "cached_normal", "cached_float_normal")

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self._mt = MT19937()
        self._initial_seed = 0
        self.cached_normal: float | None = None
        self.cached_float_normal: float | None = None
        self.manual_seed(seed)

    # -- seeding -------------------------------------------------------------
    def manual_seed(self, seed: int) -> Generator:
        """``torch.manual_seed(seed)`` / ``Generator.manual_seed``; returns self.

        ``seed`` must be an int in ``[-2**63, 2**64 - 1]``, else
        ``ValueError: Overflow when unpacking long long`` (torch's message).
        Negative seeds wrap to ``seed + 2**64``; only the low 32 bits seed
        MT19937, so 5 and 2**32 + 5 give one stream but different
        ``initial_seed()``.  Both normal caches are cleared.
        """
        try:
            if isinstance(seed, bool):
                raise TypeError
            seed = operator.index(seed)
        except TypeError:
            raise TorchRuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}") from None
        if not -(2**63) <= seed < 2**64:
            raise TorchValueError("Overflow when unpacking long long")
        self._initial_seed = seed % 2**64
        self._mt.seed(self._initial_seed & 0xFFFFFFFF)
        self.cached_normal = None
        self.cached_float_normal = None
        return self

    def seed(self) -> int:
        """Reseed from ``os.urandom`` (like ``torch.seed()``); returns the seed."""
        new = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        """The last seed set (0 .. 2**64-1); drawing does not change it."""
        return self._initial_seed

    # -- saved state ---------------------------------------------------------
    def get_state(self) -> bytes:
        """``torch.get_rng_state()`` as 5056 bytes (``CPUGeneratorImpl::get_state``'s layout)."""
        words, left, next_ = self._mt.get_state()
        normal = self.cached_normal
        fnormal = self.cached_float_normal
        return _LAYOUT.pack(
            self._initial_seed,
            left,
            1,
            next_,
            *words.tolist(),
            0.0,
            0.0 if normal is None else normal,
            0.0,
            normal is not None,
            0.0 if fnormal is None else fnormal,
            fnormal is not None,
        )

    def set_state(self, state: bytes) -> None:
        """``torch.set_rng_state`` from the bytes of a uint8 tensor.

        Errors, worded as torch's (the caller checks the tensor is uint8):

        - wrong length: ``RuntimeError: Expected a CPUGeneratorImplState of
          size 5056 but found the input RNG state size to be {len}``
        - ``seeded == 0``, ``left`` outside 1..624 or ``next > 624``:
          ``RuntimeError: Invalid mt19937 state``.  We also refuse
          ``next + left - 1 > 624`` (torch would read past its array).
        """
        if len(state) != STATE_SIZE:
            raise TorchRuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found "
                f"the input RNG state size to be {len(state)}"
            )
        fields = _LAYOUT.unpack(bytes(state))
        seed, left, seeded, next_ = fields[:4]
        words = np.array(fields[4 : 4 + N], dtype=np.uint64).astype(np.uint32)
        _x, normal_y, _rho, normal_valid, fnormal, fnormal_valid = fields[4 + N :]
        next_ &= 0xFFFFFFFF  # torch narrows next to uint32 before its check
        if not (seeded and 0 < left <= N and next_ <= N and next_ + left - 1 <= N):
            raise TorchRuntimeError("Invalid mt19937 state")
        self._mt.set_state(words, left, next_)
        self._initial_seed = seed
        self.cached_normal = normal_y if normal_valid else None
        self.cached_float_normal = fnormal if fnormal_valid else None

    # -- raw draws -----------------------------------------------------------
    def random_u32(self, n: int) -> np.ndarray:
        """``n`` draws of ``random()`` (uint64 array, values < 2**32)."""
        return self._mt.random_u32(n)

    def random_u64(self, n: int) -> np.ndarray:
        """``n`` draws of ``random64()`` (two 32-bit draws each, first high)."""
        return self._mt.random_u64(n)

    def uniform_f32(self, n: int) -> np.ndarray:
        """``n`` float32 uniforms in [0, 1): low 24 bits of one draw * 2**-24."""
        raw = self._mt.random_u32(n)
        raw &= _MASK24
        out = raw.astype(np.float32)
        out *= np.float32(2.0**-24)
        return out

    def uniform_f64(self, n: int) -> np.ndarray:
        """``n`` float64 uniforms in [0, 1): low 53 bits of ``random64()`` * 2**-53."""
        raw = self._mt.random_u32(2 * n)
        k = raw[0::2] & _MASK53_HI
        k <<= _U64(32)
        k |= raw[1::2]
        out = k.astype(np.float64)
        out *= 2.0**-53
        return out


#: The process-wide generator behind ``torch.manual_seed`` and every sampler
#: called without ``generator=``.  Seeded from os.urandom, like torch 2.13's.
default_generator = Generator()
default_generator.seed()



def resolve(generator: Generator | None) -> Generator:
    """The generator a sampler should draw from (every sampler asks here first, so vmap's
    randomness= is checked here)."""
    if vmap_state.depth:
        _check_vmap_randomness()
    return default_generator if generator is None else generator


def _check_vmap_randomness() -> None:
    from ..batching.randomness import RANDOM_ERROR
    from ..errors import TorchNotImplementedError, TorchRuntimeError
    mode = vmap_state.randomness[-1]
    if mode == "error":
        raise TorchRuntimeError(RANDOM_ERROR)
    if mode == "different" and not vmap_state.batched_draws:
        raise TorchNotImplementedError("gradcli does not support this random operation under vmap(randomness="
                                       "'different') yet (rand, randn, randint, rand_like, randn_like and dropout "
                                       "draw a batch)")
