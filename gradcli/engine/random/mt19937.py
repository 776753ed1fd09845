"""The MT19937 engine behind PyTorch's CPU generator (``at::mt19937``, ATen's MT19937RNGEngine.h).

Seeding is the reference ``init_genrand``.  Regeneration (the twist) and tempering are the
reference mt19937 (N=624, M=397).  The state is torch's: the 624 words and ``left``/``next``
(``mt19937_data_pod``): a draw first does ``--left`` and regenerates when it reaches 0, then
reads ``words[next++]``.  Between calls ``left == 625 - next``, except right after seeding
(``left == 1, next == 0``) or in a restored state, which may hold any ``left``/``next``.

Two ways to twist, one stream.  A script typically draws a few small tensors, and
``numpy.random`` (whose ``MT19937`` runs the same twist in C) costs about 9 ms to import,
more than the whole rest of those draws; so the engine starts with a NumPy twist of its own
(four vectorised slices, ~20x slower per word than C).  Once a stream has drawn
``OWN_TWIST_WORDS`` words, it hands its state to ``numpy.random.MT19937`` (key = the words,
``pos == 624`` so that NumPy's next draw regenerates, as torch's does once the ``left - 1``
words still due are read: those are kept ``_pending``) and stays there.  So a script that draws
little never imports ``numpy.random``, and one that draws much pays at most a few ms before
switching.  The tests cross-check both against a plain transcription of torch's engine.
"""

from __future__ import annotations

import numpy as np

N = 624
_M = 397
_MASK32 = 0xFFFFFFFF
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)
_MATRIX_A = np.uint32(0x9908B0DF)
_ONE = np.uint32(1)
# Words a stream draws with its own twist before NumPy's C twist takes over (at ~40 us per 624
# words, about 3 ms of twisting: the price of importing numpy.random).
OWN_TWIST_WORDS = 64 * N


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


def twist(words: np.ndarray) -> None:
    """Regenerate the 624 uint32 ``words`` in place, as the reference's sequential loop does.

    Word i is made from words i and i+1 and word i+397 (mod 624).  The loop runs upwards, so
    word i+397 is still the old one for i < 227 and already the new one after; each slice
    below reads only words that the loop would have (or not yet have) rewritten likewise."""
    for start, stop, source in ((0, N - _M, _M), (N - _M, 2 * (N - _M), 0), (2 * (N - _M), N - 1, N - _M)):
        y = (words[start:stop] & _UPPER) | (words[start + 1:stop + 1] & _LOWER)
        words[start:stop] = words[source:source + stop - start] ^ (y >> _ONE) ^ ((y & _ONE) * _MATRIX_A)
    y = (words[N - 1] & _UPPER) | (words[0] & _LOWER)
    words[N - 1] = words[_M - 1] ^ (y >> _ONE) ^ ((y & _ONE) * _MATRIX_A)


class MT19937:
    """A stream of 32-bit words with torch's ``left``/``next`` state."""

    __slots__ = ("_words", "_seed32", "_left", "_next", "_drawn", "_bits", "_pending", "_pending_end")

    def __init__(self, seed32: int = 5489) -> None:
        self._bits = None  # numpy.random.MT19937 once the stream has drawn OWN_TWIST_WORDS
        self._drawn = 0
        self.seed(seed32)

    def seed(self, seed32: int) -> None:
        """Reseed from the low 32 bits of ``seed32``.

        On the engine's own twist the 624 words are made when first needed: a run seeds a
        generator two or three times (at start, then ``manual_seed``) before it draws."""
        if self._bits is None:
            self._words, self._seed32, self._left, self._next = None, seed32 & _MASK32, 1, 0
            return
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
        key = np.array(words, dtype=np.uint32)
        if key.shape != (N,):
            raise ValueError("mt19937 needs 624 words")
        if self._bits is None:
            self._words, self._left, self._next = key, left, next_
            return
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": N}}
        self._pending = temper(key[next_ : next_ + left - 1])
        self._pending_end = next_ + left - 1

    def get_state(self) -> tuple[np.ndarray, int, int]:
        """``(words, left, next)`` as torch would save them."""
        if self._bits is None:
            return self._seeded_words().copy(), self._left, self._next
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
        if self._bits is None:
            self._drawn += n
            if self._drawn <= OWN_TWIST_WORDS:
                return self._own_draw(n)
            self._to_numpy()
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

    def _own_draw(self, n: int) -> np.ndarray:
        """``n`` words by the NumPy twist: the ``left - 1`` still due, then whole regenerations."""
        words, left, next_ = self._seeded_words(), self._left, self._next
        due = min(n, left - 1)
        parts = [words[next_ : next_ + due]]
        left -= due
        next_ += due
        n -= due
        while n > 0:
            parts[-1] = parts[-1].copy()  # (the twist below rewrites the words in place)
            twist(words)
            take = min(n, N)
            parts.append(words[:take])
            left, next_ = N + 1 - take, take
            n -= take
        self._left, self._next = left, next_
        return temper(parts[0] if len(parts) == 1 else np.concatenate(parts))

    def _to_numpy(self) -> None:
        """From now on NumPy's C twist: the same state, in ``numpy.random.MT19937``."""
        words, left, next_ = self._seeded_words(), self._left, self._next
        self._bits = np.random.MT19937(0)
        del self._words, self._seed32, self._left, self._next
        self.set_state(words, left, next_)

    def _seeded_words(self) -> np.ndarray:
        if self._words is None:
            self._words = init_genrand(self._seed32)
        return self._words
