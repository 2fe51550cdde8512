# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Geometry of the printed pieces: straights and arcs, shared by the map model and the
intersection builders (which is why it has a module of its own: both import it, neither the other).
"""
from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np


def wrap_angle(a: np.ndarray | float) -> np.ndarray | float:
    """Angle in [-π, π)."""
    return (np.asarray(a) + math.pi) % (2 * math.pi) - math.pi


@dataclass(frozen=True)
class Straight:
    """A straight piece of road starting at (x, y) with a heading."""

    x: float
    y: float
    heading: float
    length: float

    def pose_at(self, s: float) -> tuple[float, float, float]:
        return (self.x + s * math.cos(self.heading), self.y + s * math.sin(self.heading), self.heading)

    def poses(self, s: np.ndarray) -> np.ndarray:
        """:meth:`pose_at` at each of `s` (n×3), the same values."""
        return np.column_stack([self.x + s * math.cos(self.heading), self.y + s * math.sin(self.heading),
                                np.full(len(s), self.heading)])

    def local(self, px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Arc length along the piece and lateral offset (positive left) of points."""
        dx, dy = px - self.x, py - self.y
        c, s = math.cos(self.heading), math.sin(self.heading)
        return dx * c + dy * s, -dx * s + dy * c


@dataclass(frozen=True)
class Arc:
    """A circular piece; a positive sweep turns left (counter-clockwise)."""

    x: float
    y: float
    heading: float
    radius: float
    sweep: float

    @property
    def length(self) -> float:
        return self.radius * abs(self.sweep)

    @property
    def turn(self) -> float:
        return 1.0 if self.sweep > 0 else -1.0

    @property
    def center(self) -> tuple[float, float]:
        k = self.turn * self.radius
        return (self.x - k * math.sin(self.heading), self.y + k * math.cos(self.heading))

    @property
    def start_angle(self) -> float:
        return self.heading - self.turn * math.pi / 2

    def pose_at(self, s: float) -> tuple[float, float, float]:
        cx, cy = self.center
        a = self.start_angle + self.turn * s / self.radius
        return (cx + self.radius * math.cos(a), cy + self.radius * math.sin(a),
                self.heading + self.turn * s / self.radius)

    def poses(self, s: np.ndarray) -> np.ndarray:
        """:meth:`pose_at` at each of `s` (n×3), the same values: the angles by numpy's arithmetic
        (the same IEEE operations), their cos and sin by :mod:`math`'s.
        """
        cx, cy = self.center
        a = self.start_angle + self.turn * s / self.radius
        cos = np.fromiter(map(math.cos, a.tolist()), float, len(a))
        sin = np.fromiter(map(math.sin, a.tolist()), float, len(a))
        return np.column_stack([cx + self.radius * cos, cy + self.radius * sin,
                                self.heading + self.turn * s / self.radius])

    def local(self, px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cx, cy = self.center
        r = np.hypot(px - cx, py - cy)
        phi = np.mod(self.turn * (np.arctan2(py - cy, px - cx) - self.start_angle), 2 * math.pi)
        # Points just before the start wrap to ~2π; map them to small negative arc lengths.
        phi = np.where(phi > math.pi + abs(self.sweep) / 2, phi - 2 * math.pi, phi)
        return self.radius * phi, self.turn * (self.radius - r)


Piece = Straight | Arc
