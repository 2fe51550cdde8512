# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The hubs of a generated map: roundabouts and crossroads at grid points, and their ports.

A hub has up to four sides (E, N, W, S). A side with a port pair has an out-port (where a road
leaves the hub, on the right looking out of the side) and an in-port (where a road enters it, on
the left): the poses the map format names `R1.exit.e` / `R1.entry.e` or `X1.out.w` / `X1.in.e`.
They come from the loader's own intersection builders, so a road drawn to a port meets it
exactly.

Roundabouts keep the shipped ring (65 cm: docs/intersections.md, "Why a 65 cm circle") and have
2, 3 or 4 arms, 360°/N apart; each arm serves the side it points nearest to. Crossroads keep the
final map's lanes (75 cm approach, 50 cm leave, lights 21 cm beside their stop line).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
import math

from thymio_road.generator.paths import Frame, Pose
from thymio_road.map.intersections import crossroad, roundabout

SIDES = ('E', 'N', 'W', 'S')
SIDE_ANGLE = {'E': 0.0, 'N': math.pi / 2, 'W': math.pi, 'S': -math.pi / 2}
#: Unit steps on the grid (column, row) of each side.
SIDE_STEP = {'E': (1, 0), 'N': (0, 1), 'W': (-1, 0), 'S': (0, -1)}
OPPOSITE = {'E': 'W', 'W': 'E', 'N': 'S', 'S': 'N'}
#: The next side clockwise (on a side's right when looking out of it) and counter-clockwise.
CW = {'E': 'S', 'S': 'W', 'W': 'N', 'N': 'E'}
CCW = {v: k for k, v in CW.items()}

#: The final map's crossroad geometry (config/maps/final.yaml, docs/intersections.md).
CROSS_APPROACH, CROSS_LEAVE, CROSS_LIGHT_OFFSET = 0.75, 0.5, 0.21
#: Crossroad arms named by the side their in-lane enters from, counter-clockwise from the west.
CROSS_ARMS = ('w', 's', 'e', 'n')
#: Side → (arm whose out-lane leaves by it, arm whose in-lane enters by it).
CROSS_PORTS = {'E': ('w', 'e'), 'N': ('s', 'n'), 'W': ('e', 'w'), 'S': ('n', 's')}
#: Three-arm roundabouts by heading: the sides their arms serve, in arm order.
T_SHAPES = {0: ('E', 'N', 'S'), 90: ('N', 'W', 'E'), 180: ('W', 'S', 'N'), 270: ('S', 'E', 'W')}


@dataclass(frozen=True)
class Port:
    name: str
    pose: Pose


@dataclass(frozen=True)
class Hub:
    """A roundabout or crossroad at `centre`; `sides` are those with a port pair."""

    id: str
    kind: str
    centre: tuple[float, float]
    sides: tuple[str, ...]
    #: Roundabouts: the heading of arm 0 (degrees); crossroads: 0.
    heading_deg: int = 0

    @property
    def arms(self) -> tuple[str, ...]:
        return CROSS_ARMS if self.kind == 'crossroad' else tuple(s.lower() for s in self.sides)

    def element(self) -> dict:
        """The map file's `intersections:` entry."""
        centre = [round(self.centre[0], 3), round(self.centre[1], 3)]
        if self.kind == 'crossroad':
            return {'crossroad': {'id': self.id, 'center': centre, 'arms': list(CROSS_ARMS), 'heading_deg': 0,
                                  'approach': CROSS_APPROACH, 'leave': CROSS_LEAVE,
                                  'light_offset': CROSS_LIGHT_OFFSET}}
        return {'roundabout': {'id': self.id, 'center': centre, 'arms': list(self.arms),
                               'heading_deg': self.heading_deg}}

    @cached_property
    def _built(self):
        if self.kind == 'crossroad':
            return crossroad(self.id, self.centre, list(CROSS_ARMS), 0.0, approach=CROSS_APPROACH,
                             leave=CROSS_LEAVE, light_offset=CROSS_LIGHT_OFFSET)
        return roundabout(self.id, self.centre, list(self.arms), math.radians(self.heading_deg))

    def frame(self, side: str) -> Frame:
        """The side's local frame: `a` along its arm out of the hub, `l` to its left, origin at
        the centre (a three-arm roundabout's arms are 120° apart, so two of them lean 30° off
        their side's axis).
        """
        return Frame(self.centre[0], self.centre[1], self.arm_angle(side))

    def axis_frame(self, side: str) -> Frame:
        """The frame of the grid axis out of `side` (the line to the neighbour on that side)."""
        return Frame(self.centre[0], self.centre[1], SIDE_ANGLE[side])

    def arm_angle(self, side: str) -> float:
        if self.kind == 'crossroad':
            return SIDE_ANGLE[side]
        k = self.sides.index(side)
        return math.radians(self.heading_deg) + 2 * math.pi * k / len(self.sides)

    def square(self, side: str) -> bool:
        """Whether the side's arm lies on its axis (gadgets that span two sides or two hubs need it)."""
        d = (self.arm_angle(side) - SIDE_ANGLE[side] + math.pi) % (2 * math.pi) - math.pi
        return abs(d) < 1e-9

    def out_port(self, side: str) -> Port:
        name = f'{self.id}.out.{CROSS_PORTS[side][0]}' if self.kind == 'crossroad' else f'{self.id}.exit.{side.lower()}'
        return Port(name, self._built.poses[name])

    def in_port(self, side: str) -> Port:
        name = f'{self.id}.in.{CROSS_PORTS[side][1]}' if self.kind == 'crossroad' else f'{self.id}.entry.{side.lower()}'
        return Port(name, self._built.poses[name])

    def in_lane(self, side: str) -> str | None:
        """The crossroad's generated in-lane entering by `side` (its code 5 goes on it)."""
        return f'{self.id}.in.{CROSS_PORTS[side][1]}' if self.kind == 'crossroad' else None

    @property
    def lights(self) -> list[Pose]:
        return list(self._built.intersections[0].extra.get('lights') or [])

    @property
    def reach(self) -> float:
        """How far from the centre the hub's own roads and ports reach, in m."""
        return 0.86 if self.kind == 'roundabout' else CROSS_APPROACH + 0.02


def roundabout_sides(count: int, heading: int) -> tuple[str, ...]:
    """The sides a roundabout of `count` arms with arm 0 at `heading` (a multiple of 90°) serves."""
    if count == 4:
        return tuple(SIDES[(heading // 90 + k) % 4] for k in range(4))
    if count == 3:
        return T_SHAPES[heading % 360]
    if count == 2:
        return (SIDES[heading // 90 % 4], SIDES[(heading // 90 + 2) % 4])
    raise ValueError(f'a generated roundabout has 2, 3 or 4 arms, got {count}')
