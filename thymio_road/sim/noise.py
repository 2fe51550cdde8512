"""Gaussian noise drawn in blocks: one numpy call per few thousand samples, not per reading."""
from __future__ import annotations

import numpy as np

BLOCK = 4096


class NoiseStream:
    """Standard normal samples from a generator of its own, served from a buffer.

    Each noise source (ground, proximity, motors) owns a stream spawned from the world's seed,
    so the draws of one never shift another's and a run is reproducible.
    """

    def __init__(self, seed: np.random.SeedSequence) -> None:
        self.rng = np.random.default_rng(seed)
        self._buffer = self.rng.standard_normal(BLOCK)
        self._next = 0

    def take(self, k: int) -> np.ndarray:
        if self._next + k > len(self._buffer):
            self._buffer = self.rng.standard_normal(BLOCK)
            self._next = 0
        out = self._buffer[self._next:self._next + k]
        self._next += k
        return out

    def reserve(self, k: int) -> tuple[np.ndarray, int]:
        """The buffer and the position of the next k samples, for a kernel that may use them.

        Refills as :meth:`take` would; :meth:`advance` then marks them used. For a stream always
        read k at a time (the proximity noise, 7) this draws exactly what take(k) would.
        """
        if self._next + k > len(self._buffer):
            self._buffer = self.rng.standard_normal(BLOCK)
            self._next = 0
        return self._buffer, self._next

    def advance(self, k: int) -> None:
        self._next += k

    def pair(self) -> tuple[float, float]:
        """take(2) as two floats, without the slice (twice per robot event)."""
        k = self._next
        if k + 2 > len(self._buffer):
            self._buffer = self.rng.standard_normal(BLOCK)
            k = 0
        self._next = k + 2
        buffer = self._buffer
        return float(buffer[k]), float(buffer[k + 1])
