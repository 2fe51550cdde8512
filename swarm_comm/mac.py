# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Carrier-sense multiple access with random back-off (paper Sect. 4.4).

A robot with a frame to send listens first: if the channel is free it transmits, otherwise it waits a
random back-off and listens again. A first random back-off when a frame is queued keeps robots that
all heard the same message (and now all want to forward it) from starting together. Vectorised over
robots; time is counted in samples (symbols).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Csma:
    """Back-off counters of ``count`` robots; ``window`` is the largest back-off in samples."""

    count: int
    window: int = 32

    def __post_init__(self) -> None:
        if int(self.count) != self.count or self.count < 1:
            raise ValueError(f'count must be a positive integer, got {self.count!r}')
        if int(self.window) != self.window or self.window < 1:
            raise ValueError(f'window must be a positive integer number of samples, got {self.window!r}')
        self.backoff = np.zeros(self.count, dtype=np.int64)

    def queued(self, robots: np.ndarray, rng: np.random.Generator) -> None:
        """Robots that just queued a frame draw an initial back-off in 0 … window − 1."""
        robots = np.asarray(robots, dtype=np.int64)
        self.backoff[robots] = rng.integers(0, self.window, robots.size)

    def step(self, waiting: np.ndarray, busy: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Robots (mask) that start transmitting at this sample.

        ``waiting``: robots with a frame queued and not transmitting; ``busy``: robots that sense a
        carrier or are receiving a message.
        """
        waiting = np.asarray(waiting, dtype=bool)
        counting = waiting & (self.backoff > 0)
        self.backoff[counting] -= 1
        ready = waiting & ~counting
        blocked = ready & np.asarray(busy, dtype=bool)
        self.backoff[blocked] = rng.integers(1, self.window + 1, int(blocked.sum()))
        return ready & ~blocked
