"""The MT19937 engine behind PyTorch's CPU generator (``at::mt19937``, ATen's MT19937RNGEngine.h).

Seeding is the reference ``init_genrand``.  Regeneration and tempering are the
reference mt19937 (N=624, M=397), which is exactly what
``numpy.random.MT19937`` runs in C: with its key set to our words and
``pos == 624`` its ``random_raw`` yields torch's stream (torch keeps ``left_``/``next_`` beside the words; the tests
cross-check it against a plain transcription of the twist).  Delegating the
twist keeps bulk draws at C speed; a NumPy twist works in 227-word slices and
costs about 20x more per value.

Position bookkeeping is torch's ``mt19937_data_pod``: a draw first does
``--left`` and regenerates when it reaches 0, then reads ``words[next++]``.
Between calls ``left == 625 - next``, except right after seeding
(``left == 1, next == 0``).  A restored state may hold any ``left``/``next``;
we emit the ``left - 1`` words it will read before regenerating ourselves
(``_pending``) and leave the rest to NumPy's generator.
"""

from __future__ import annotations

import numpy as np

N = 624
_MASK32 = 0xFFFFFFFF


def init_genrand(seed32: int) -> np.ndarray:
    """The 624 seeded words for a 32-bit seed (reference ``init_genrand``)."""
    words = [seed32 & _MASK32]
    prev = words[0]
    for i in range(1, N):
        prev = (1812433253 * (prev ^ (prev >> 30)) + i) & _MASK32
        words.append(prev)
    return np.array(words, dtype=np.uint32)


def temper(words: np.ndarray) -> np.ndarray:
    """MT19937 output tempering, vectorised; returns uint64 values < 2**32."""
    y = words.astype(np.uint64)
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y


class MT19937:
    """A stream of 32-bit words with torch's ``left``/``next`` state."""

    __slots__ = ("_bits", "_pending", "_pending_end")

    def __init__(self, seed32: int = 5489) -> None:
        self._bits = np.random.MT19937(0)
        self._pending: np.ndarray | None = None
        self._pending_end = 0
        self.seed(seed32)

    def seed(self, seed32: int) -> None:
        """Reseed from the low 32 bits of ``seed32``."""
        self.set_state(init_genrand(seed32), left=1, next_=0)

    # -- state ---------------------------------------------------------------
    def set_state(self, words: np.ndarray, left: int, next_: int) -> None:
        """Restore torch's ``(state_, left_, next_)``.

        Requires ``1 <= left <= 624``, ``0 <= next_ <= 624`` (torch's own
        check) and ``next_ + left - 1 <= 624`` (beyond that torch would read
        past its array: undefined behaviour, refused here).
        """
        if not (1 <= left <= N and 0 <= next_ <= N and next_ + left - 1 <= N):
            raise ValueError("invalid mt19937 position")
        key = np.ascontiguousarray(words, dtype=np.uint32)
        if key.shape != (N,):
            raise ValueError("mt19937 needs 624 words")
        # pos == 624: NumPy's next draw regenerates, as torch's does once the
        # left - 1 pending words are read.
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": N}}
        self._pending = temper(key[next_ : next_ + left - 1])
        self._pending_end = next_ + left - 1

    def get_state(self) -> tuple[np.ndarray, int, int]:
        """``(words, left, next)`` as torch would save them."""
        st = self._bits.state["state"]
        words = np.array(st["key"], dtype=np.uint32)
        if self._pending is not None:
            rest = len(self._pending)
            return words, rest + 1, self._pending_end - rest
        pos = int(st["pos"])
        return words, N + 1 - pos, pos

    # -- draws ---------------------------------------------------------------
    def random_u32(self, n: int) -> np.ndarray:
        """The next ``n`` outputs of ``random()``, as uint64 (values < 2**32).

        uint64 because every consumer widens anyway (masks, 64-bit joins).
        """
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        pending = self._pending
        if pending is None:
            return self._bits.random_raw(n)
        if n <= len(pending):
            # An exhausted pending block still fixes ``next`` until NumPy draws.
            self._pending = pending[n:]
            return pending[:n].copy()
        self._pending = None
        return np.concatenate((pending, self._bits.random_raw(n - len(pending))))

    def random_u64(self, n: int) -> np.ndarray:
        """``n`` values of ``random64()``: ``(first << 32) | second``."""
        raw = self.random_u32(2 * n)
        hi = raw[0::2] << np.uint64(32)
        hi |= raw[1::2]
        return hi
