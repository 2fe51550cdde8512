# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Wrong-way driving: a robot moving along a lane against its direction (issue #13).

The report's one-sided recovery (§4) leaves a robot lost on the road's black side following the
lane's outer edge backwards; it drives on, the wrong way, until it meets someone head on. From
poses alone: a robot whose centre is on a lane (within `LANE_REACH`), whose heading is more than
120° from the lane's, and which moved forward is driving the wrong way. Brief matches (a robot
crossing an opposite lane blind at an intersection, turning on the spot) are not episodes: one
counts once it has lasted `MIN_TIME` and covered `MIN_DISTANCE`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any, Callable

import numpy as np

from thymio_road.analysis.lane_points import LanePoints

LANE_REACH = 0.02
MIN_TIME = 2.0
MIN_DISTANCE = 0.05
#: cos(120°): headings further apart than this are opposite.
OPPOSITE = -0.5


@dataclass
class WrongWayEpisode:
    robot: str
    start: float
    end: float
    distance: float
    where: str

    def as_dict(self) -> dict:
        return {'robot': self.robot, 'start_s': round(self.start, 2), 'end_s': round(self.end, 2),
                'distance_m': round(self.distance, 3), 'where': self.where}


@dataclass
class WrongWayMonitor:
    """Feed it every robot's pose every sample; it keeps the wrong-way episodes."""

    road_map: Any
    describe: Callable[[float, float], str] | None = None
    step: float = 0.01
    episodes: list[WrongWayEpisode] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.points = LanePoints(self.road_map, self.step, cell=LANE_REACH)
        self._last: dict[str, np.ndarray] = {}
        self._open: dict[str, WrongWayEpisode] = {}

    def update(self, t: float, names: list[str], poses: np.ndarray) -> None:
        for name, pose in zip(names, poses):
            last = self._last.get(name)
            self._last[name] = np.array(pose[:3], dtype=float)
            if last is None:
                continue
            moved = (pose[0] - last[0]) * math.cos(pose[2]) + (pose[1] - last[1]) * math.sin(pose[2])
            if moved <= 0.001 or not self._against_lane(pose):
                self._close(name)
                continue
            ep = self._open.get(name)
            if ep is None:
                ep = self._open[name] = WrongWayEpisode(name, t, t, 0.0, '')
            ep.end, ep.distance = t, ep.distance + moved
            if not ep.where and ep.end - ep.start >= MIN_TIME and ep.distance >= MIN_DISTANCE:
                ep.where = self.describe(float(pose[0]), float(pose[1])) if self.describe else 'on a lane'
                self.episodes.append(ep)

    def _against_lane(self, pose: np.ndarray) -> bool:
        p = self.points
        if math.isnan(pose[0]):
            return False
        k = p.near(float(pose[0]), float(pose[1]))
        d = np.hypot(p.x[k] - pose[0], p.y[k] - pose[1])
        near = k[d < LANE_REACH]
        if not len(near):
            return False
        # On a lane with the robot's direction nearby (an intersection's lanes cross), it is fine.
        cos = np.cos(p.heading[near] - pose[2])
        return bool(cos.max() < OPPOSITE)

    def _close(self, name: str) -> None:
        self._open.pop(name, None)

    def summary(self, limit: int = 50) -> dict:
        return {'episodes': len(self.episodes), 'distance_m': round(sum(e.distance for e in self.episodes), 3),
                'robots': sorted({e.robot for e in self.episodes}),
                'list': [e.as_dict() for e in self.episodes[:limit]]}
