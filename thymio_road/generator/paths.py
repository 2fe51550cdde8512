# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Roads as the generator draws them: pieces from a pose, through waypoints, in local frames.

A generated road is written out with explicit pieces (the map format's straights and arcs), so
the generator knows where its straights are and can put barcodes and locations on them. Between
two waypoint poses it uses the shortest turn-straight-turn path of the loader (Dubins), cleaned
of the vanishing arcs that rounding leaves on an aligned pair (an arc of 1e-9 rad under a barcode
would make the loader refuse it as "on an arc").

Local frames: a hub side is described in a frame whose `a` axis points out of the side and whose
`l` axis points to its left, so that one gadget drawn for the east side serves every side (a
rotation keeps left turns left).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math

import numpy as np

from thymio_road.map.dubins import dubins
from thymio_road.map.geometry import Arc, Straight

Pose = tuple[float, float, float]

#: Arcs under this angle (rad) are rounding noise of an aligned Dubins pair, dropped.
TINY_ANGLE = 1e-7
#: A Dubins join turning more than this in all is a loop the gadget did not mean: its waypoints
#: are too close or out of order.
MAX_DUBINS_TURN = math.radians(200.0)


class GeometryError(ValueError):
    """A gadget's waypoints cannot be joined as designed (a candidate map is then drawn again)."""


@dataclass(frozen=True)
class Frame:
    """A proper rotation + translation: local (a, l, heading) → world (x, y, heading)."""

    x: float
    y: float
    angle: float

    def pose(self, a: float, b: float, heading: float = 0.0) -> Pose:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return (self.x + a * c - b * s, self.y + a * s + b * c, _wrap(self.angle + heading))

    def local(self, pose: Pose) -> Pose:
        dx, dy = pose[0] - self.x, pose[1] - self.y
        c, s = math.cos(self.angle), math.sin(self.angle)
        return (dx * c + dy * s, -dx * s + dy * c, _wrap(pose[2] - self.angle))


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def piece_length(p: dict) -> float:
    if 'straight' in p:
        return p['straight']
    return p['arc']['radius'] * math.radians(abs(p['arc']['angle_deg']))


def advance(pose: Pose, p: dict) -> Pose:
    x, y, h = pose
    piece = Straight(x, y, h, p['straight']) if 'straight' in p else \
        Arc(x, y, h, p['arc']['radius'], math.radians(p['arc']['angle_deg']))
    return piece.pose_at(piece.length)


@dataclass
class Path:
    """A road under construction: its start pose and pieces (map YAML form)."""

    start: Pose
    pieces: list[dict] = field(default_factory=list)

    @property
    def end(self) -> Pose:
        pose = self.start
        for p in self.pieces:
            pose = advance(pose, p)
        return pose

    @property
    def length(self) -> float:
        return sum(piece_length(p) for p in self.pieces)

    def straight(self, length: float) -> 'Path':
        if length < -1e-9:
            raise GeometryError(f'negative straight {length:.4f} m')
        if length > 1e-6:
            if self.pieces and 'straight' in self.pieces[-1]:
                self.pieces[-1] = {'straight': self.pieces[-1]['straight'] + length}
            else:
                self.pieces.append({'straight': length})
        return self

    def arc(self, radius: float, angle_deg: float) -> 'Path':
        self.pieces.append({'arc': {'radius': radius, 'angle_deg': angle_deg}})
        return self

    def to(self, pose: Pose, radius: float, max_turn: float = MAX_DUBINS_TURN) -> 'Path':
        """Join the current end to `pose` by the shortest turn-straight-turn path, turning at most
        `max_turn` (rad) in all.
        """
        here = self.end
        ahead = _straight_ahead(here, pose)
        if ahead is not None:
            return self.straight(ahead)
        try:
            pieces = dubins(here, pose, radius)
        except ValueError as exc:
            raise GeometryError(str(exc)) from None
        turn = sum(abs(math.radians(p['arc']['angle_deg'])) for p in pieces if 'arc' in p)
        if turn > max_turn:
            raise GeometryError(f'joining {_show(here)} to {_show(pose)} needs a loop of '
                                f'{math.degrees(turn):.0f}°')
        for p in pieces:
            if 'straight' in p:
                self.straight(p['straight'])
            elif abs(math.radians(p['arc']['angle_deg'])) >= TINY_ANGLE:
                self.arc(radius, p['arc']['angle_deg'])
        end = self.end
        if math.hypot(end[0] - pose[0], end[1] - pose[1]) > 1e-6:
            raise GeometryError(f'joining {_show(here)} to {_show(pose)} missed by '
                                f'{math.hypot(end[0] - pose[0], end[1] - pose[1]):.2e} m')
        return self

    def straights(self, min_length: float = 0.0) -> list[tuple[float, float]]:
        """Arc-length spans (s0, s1) of the straight pieces, in order."""
        out, s = [], 0.0
        for p in self.pieces:
            n = piece_length(p)
            if 'straight' in p and n >= min_length:
                out.append((s, s + n))
            s += n
        return out

    def pose_at(self, s: float) -> Pose:
        pose = self.start
        for p in self.pieces:
            n = piece_length(p)
            if s <= n + 1e-12:
                if 'straight' in p:
                    return (pose[0] + s * math.cos(pose[2]), pose[1] + s * math.sin(pose[2]), pose[2])
                return advance(pose, {'arc': {'radius': p['arc']['radius'],
                                              'angle_deg': p['arc']['angle_deg'] * s / n}})
            pose = advance(pose, p)
            s -= n
        return pose

    def sample(self, step: float = 0.01) -> list[Pose]:
        return [tuple(row[:3]) for row in self.samples(step)]

    def samples(self, step: float = 0.01) -> np.ndarray:
        """Rows (x, y, heading, arc length) along the road, at most `step` apart, both ends included."""
        rows = []
        pose, s0 = self.start, 0.0
        for p in self.pieces:
            n = piece_length(p)
            t = np.linspace(0.0, n, max(1, int(math.ceil(n / step))) + 1)[:-1]
            x, y, h = pose
            if 'straight' in p:
                xs, ys, hs = x + t * math.cos(h), y + t * math.sin(h), np.full_like(t, h)
            else:
                r, turn = p['arc']['radius'], math.copysign(1.0, p['arc']['angle_deg'])
                cx, cy = x - turn * r * math.sin(h), y + turn * r * math.cos(h)
                hs = h + turn * t / r
                xs, ys = cx + turn * r * np.sin(hs), cy - turn * r * np.cos(hs)
            rows.append(np.column_stack([xs, ys, hs, s0 + t]))
            pose, s0 = advance(pose, p), s0 + n
        rows.append(np.array([[pose[0], pose[1], pose[2], s0]]))
        return np.concatenate(rows)


def _straight_ahead(here: Pose, pose: Pose) -> float | None:
    """The length of the straight from `here` to `pose` if it lies dead ahead with the same heading."""
    if abs(_wrap(pose[2] - here[2])) > 1e-9:
        return None
    dx, dy = pose[0] - here[0], pose[1] - here[1]
    ahead = dx * math.cos(here[2]) + dy * math.sin(here[2])
    aside = -dx * math.sin(here[2]) + dy * math.cos(here[2])
    if abs(aside) > 1e-7 or ahead < -1e-7:
        return None
    return max(ahead, 0.0)


def _show(pose: Pose) -> str:
    return f'({pose[0]:.3f}, {pose[1]:.3f}, {math.degrees(pose[2]):.1f}°)'
