# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Gaussian noise drawn in blocks: one numpy call per few thousand samples, not per reading."""
from __future__ import annotations

import numpy as np

BLOCK = 4096


class NoiseStream:
    """Standard normal samples from a generator of its own, served from a buffer.

    Each noise source (ground, proximity, motors) owns a stream spawned from the world's seed,
    so the draws of one never shift another's and a run is reproducible. The position of the
    next sample is kept in a one-element array (:attr:`cursor`), and a refill overwrites the
    buffer in place (the same samples as a new array), so that a compiled kernel given both once
    can draw from the stream itself (the world's fused event, sim/tick.py). A slice that
    take() returned is valid until the next refill.
    """

    def __init__(self, seed: np.random.SeedSequence) -> None:
        self.rng = np.random.default_rng(seed)
        self.buffer = self.rng.standard_normal(BLOCK)
        self.cursor = np.zeros(1, dtype=np.int64)

    @property
    def _next(self) -> int:
        return int(self.cursor[0])

    @_next.setter
    def _next(self, value: int) -> None:
        self.cursor[0] = value

    def ensure(self, k: int) -> None:
        """Refill the buffer when fewer than k samples are left, as take(k) would (the kernels
        that draw from the buffer ask for this before they run).
        """
        if self.cursor[0] + k > len(self.buffer):
            self.rng.standard_normal(out=self.buffer)
            self.cursor[0] = 0

    def take(self, k: int) -> np.ndarray:
        self.ensure(k)
        at = int(self.cursor[0])
        self.cursor[0] = at + k
        return self.buffer[at:at + k]

    def reserve(self, k: int) -> tuple[np.ndarray, int]:
        """The buffer and the position of the next k samples, for a kernel that may use them.

        Refills as :meth:`take` would; :meth:`advance` then marks them used. For a stream always
        read k at a time (the proximity noise, 7) this draws exactly what take(k) would.
        """
        self.ensure(k)
        return self.buffer, int(self.cursor[0])

    def advance(self, k: int) -> None:
        self.cursor[0] += k

    def pair(self) -> tuple[float, float]:
        """take(2) as two floats, without the slice."""
        self.ensure(2)
        k = int(self.cursor[0])
        self.cursor[0] = k + 2
        buffer = self.buffer
        return float(buffer[k]), float(buffer[k + 1])
