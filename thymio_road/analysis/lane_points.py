# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The map's lanes as points (x, y, heading, road, arc length) every centimetre, bucketed in square
cells so that the points near a robot are found without measuring the whole network (the
progress and wrong-way detectors ask for every robot every second).
"""
from __future__ import annotations

from typing import Any

import numpy as np


class LanePoints:
    """Points of every road's centre line; :meth:`near` returns the indices within `cell` of a point."""

    def __init__(self, road_map: Any, step: float = 0.01, cell: float = 0.05) -> None:
        pts, road_of, s_of = [], [], []
        for k, road in enumerate(road_map.roads):
            p = road.sample(step)
            pts.append(p)
            road_of.append(np.full(len(p), k))
            s_of.append(np.linspace(0.0, road.length, len(p)))
        points = np.concatenate(pts)
        self.x, self.y, self.heading = points[:, 0].copy(), points[:, 1].copy(), points[:, 2].copy()
        self.cos, self.sin = np.cos(self.heading), np.sin(self.heading)
        self.road = np.concatenate(road_of)
        self.s = np.concatenate(s_of)
        self.cell = cell
        cx, cy = np.floor(self.x / cell).astype(np.int64), np.floor(self.y / cell).astype(np.int64)
        self._cells: dict[tuple[int, int], np.ndarray] = {}
        order = np.lexsort((cy, cx))
        keys = np.column_stack([cx[order], cy[order]])
        starts = np.flatnonzero(np.r_[True, (np.diff(keys, axis=0) != 0).any(axis=1)])
        for a, b in zip(starts, np.r_[starts[1:], len(order)]):
            self._cells[(int(keys[a, 0]), int(keys[a, 1]))] = np.sort(order[a:b])
        self._empty = np.zeros(0, dtype=np.int64)

    def near(self, x: float, y: float) -> np.ndarray:
        """Indices (ascending) of the points in the 3×3 cells around (x, y): every point within
        `cell` of it, and some further.
        """
        cx, cy = int(np.floor(x / self.cell)), int(np.floor(y / self.cell))
        found = [self._cells.get((cx + i, cy + j), self._empty) for i in (-1, 0, 1) for j in (-1, 0, 1)]
        return np.sort(np.concatenate(found))
