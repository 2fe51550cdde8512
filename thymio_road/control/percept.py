# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""What one "prox" event's sensors say, computed once per step: one definition of each reading."""
from __future__ import annotations

from typing import Sequence


class Percept:
    """The step's readings (a plain slotted class: one is built per robot and step)."""

    __slots__ = ('follow', 'read', 'prox', 'front', 'front_left')

    def __init__(self, ground: Sequence[int], prox: Sequence[int]) -> None:
        # A list is the world's (lists of int, as rclpy's int16[] fields give them): kept as it is.
        p = prox if type(prox) is list else [int(v) for v in prox]
        #: prox.ground.delta: the left sensor follows the gradient, the right one reads barcodes.
        self.follow, self.read = int(ground[0]), int(ground[1])
        #: prox.horizontal in Aseba order: 0-4 front (left to right), 5-6 rear.
        self.prox = p
        #: The three middle front sensors: what the report's avoidance looks at (§6).
        self.front = max(p[1], p[2], p[3])
        #: The front-left sensor: a robot beside, seen while merging from the right.
        self.front_left = p[0]

    @property
    def front_right(self) -> int:
        """The front-right sensor: a robot at the side the road turns to when entering a ring, or
        in a location's siding beside the road lane (rules/entry_watch, rules/keep_behind_at_merge).
        """
        return self.prox[4]

    @property
    def rear(self) -> int:
        """The two rear sensors (asked only when backing)."""
        return max(self.prox[5], self.prox[6])

    def front_right_only(self, threshold: int) -> bool:
        """Something at the front right only: the centre-right sensor beyond `threshold`, the
        centre and centre-left below it (a robot that came in from the right).
        """
        return max(self.prox[1], self.prox[2]) <= threshold < self.prox[3]
