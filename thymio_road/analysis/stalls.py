# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Stalls and gridlock: robots that stop moving, where, what holds them, and when the network stops.

A robot is *stalled* once it has moved less than :data:`STALL_DISTANCE` (1 cm) for ``stall_time``
seconds (a parameter, :data:`STALL_TIME` by default); the stall starts when it last moved and ends
when it moves 1 cm away from where it stood. The *network stops* (gridlock) when every robot is
stalled at once. A traffic light's red phase is shorter than any sensible ``stall_time``, so a
robot held by a light that works is not stalled; one held for good is, and says so.

Each stall records where the robot stands (the road and arc length, or the intersection whose road
it is on), and what holds it: a light (the controller was stopped by a light code), the robot in
front of it (the nearest one within :data:`AHEAD_DISTANCE`, 25 cm, and ±:data:`AHEAD_ANGLE` of its
heading), or neither (its state says the rest). The same detector serves the embedded run
(``summary.json``) and a bag (``thymio-road analyze``): both feed it poses sampled every
:data:`SAMPLE_PERIOD` of simulated time.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any, Sequence

import numpy as np

from thymio_road.sim import robot_model as rm

STALL_DISTANCE = 0.01
#: The default stall time (s), also the progress detector's (analysis/progress.py): issue #27
#: judges "no stuck robot" at 120 s, longer than any light's cycle in the shipped scenarios but
#: the priority scenario's pre-empted one (126 s), so that a robot waiting out a red is not stuck.
STALL_TIME = 120.0
SAMPLE_PERIOD = 1.0
#: A robot counts as moving on the timeline if it moved this far in the last MOVING_WINDOW seconds.
MOVING_WINDOW = 10.0
#: A robot this close in front (centre to centre, m) and within this angle of the heading holds it:
#: the reach of the front sensors (the centre one 7.95 cm ahead, 14 cm range) plus the tail of the
#: robot ahead (3 cm), as in the scenario's start spacing.
AHEAD_DISTANCE = round(float(rm.PROX_SENSORS[2][0]) + rm.PROX_RANGE - rm.HULL_REAR_X, 3)
AHEAD_ANGLE = math.radians(50.0)


@dataclass
class Stall:
    robot: str
    #: When it last moved (s): the stall's start.
    since: float
    #: When it moved again (s); None: still stalled at the end.
    until: float | None
    x: float
    y: float
    where: str
    held_by: str
    state: str | None

    def as_dict(self) -> dict[str, Any]:
        return {'robot': self.robot, 'since_s': round(self.since, 1),
                'until_s': None if self.until is None else round(self.until, 1),
                'x': round(self.x, 3), 'y': round(self.y, 3), 'where': self.where, 'held_by': self.held_by,
                'state': self.state}


class Places:
    """Names a point of the map: the road under it and the arc length there, or the intersection."""

    def __init__(self, road_map: Any, step: float = 0.01) -> None:
        self.roads = [(road.id, road.sample(step)) for road in road_map.roads]
        self.step = step
        self.kinds = {inter.id: inter.kind for inter in road_map.intersections}

    def describe(self, x: float, y: float) -> str:
        best = (math.inf, '', 0.0)
        for road_id, pts in self.roads:
            d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
            k = int(np.argmin(d))
            if d[k] < best[0]:
                best = (float(d[k]), road_id, k * self.step)
        distance, road_id, s = best
        if distance > 0.1:
            return f'off the roads ({distance * 100:.0f} cm from road {road_id})'
        owner = road_id.split('.', 1)[0]
        if owner in self.kinds and owner != road_id:
            return f'intersection {owner} ({self.kinds[owner]}), road {road_id} at {s:.2f} m'
        return f'road {road_id} at {s:.2f} m'


def holder(i: int, names: Sequence[str], poses: np.ndarray, held: Sequence[str | None] | None) -> str:
    """What holds robot i: what its controller says (a traffic light), else the nearest robot
    ahead, else 'nothing in front'. Shared by the stall and the progress detectors.
    """
    if held and held[i]:
        return held[i]
    x, y, heading = (float(v) for v in poses[i][:3])
    best = None
    for j in range(len(names)):
        if j == i:
            continue
        dx, dy = float(poses[j][0]) - x, float(poses[j][1]) - y
        d = math.hypot(dx, dy)
        if not d <= AHEAD_DISTANCE:   # NaN (no pose) included
            continue
        off = abs((math.atan2(dy, dx) - heading + math.pi) % (2 * math.pi) - math.pi)
        if off <= AHEAD_ANGLE and (best is None or d < best[0]):
            best = (d, names[j])
    return f'robot {best[1]} ahead ({best[0] * 100:.0f} cm)' if best else 'nothing in front'


def by_time(items: Sequence[dict], key: str) -> list[dict]:
    """Episodes in time order, then by robot (thymio2 before thymio10): the run and a bag may
    list robots in different orders.
    """
    from thymio_road.analysis.bag import natural_key
    return sorted(items, key=lambda e: (e[key], natural_key(e['robot'])))


class StallDetector:
    """Feed it poses every sample; it keeps the stalls, the gridlock and the moving-robots timeline."""

    def __init__(self, names: Sequence[str], places: Places | None = None, stall_time: float = STALL_TIME,
                 distance: float = STALL_DISTANCE) -> None:
        if not stall_time > 0:
            raise ValueError(f'stall_time must be a positive number of seconds, got {stall_time}')
        self.names = list(names)
        self.places, self.stall_time, self.distance = places, stall_time, distance
        self.anchor: np.ndarray | None = None
        self.anchor_t = np.zeros(len(self.names))
        self.open: dict[int, Stall] = {}
        self.stalls: list[Stall] = []
        self.gridlock_at: float | None = None
        self.timeline: list[tuple[float, int]] = []
        self._history: list[tuple[float, np.ndarray]] = []
        self.end = 0.0

    def update(self, t: float, poses: np.ndarray, held: Sequence[str | None] | None = None,
               states: Sequence[str | None] | None = None) -> None:
        """poses: n×3 (x, y, heading) in `names` order; held/states: what each controller says."""
        xy = np.asarray(poses, dtype=float)[:, :2]
        self.end = t
        if self.anchor is None:
            self.anchor = np.full_like(xy, np.nan)
        fresh = np.isnan(self.anchor[:, 0]) & ~np.isnan(xy[:, 0])   # a robot's first pose
        self.anchor[fresh] = xy[fresh]
        self.anchor_t[fresh] = t
        with np.errstate(invalid='ignore'):
            moved = np.hypot(*(xy - self.anchor).T) >= self.distance
        for i in np.nonzero(moved)[0]:
            self.anchor[i] = xy[i]
            self.anchor_t[i] = t
            stall = self.open.pop(int(i), None)
            if stall is not None:
                stall.until = t
        for i in range(len(self.names)):
            if i not in self.open and not np.isnan(self.anchor[i, 0]) \
                    and t - self.anchor_t[i] >= self.stall_time - 1e-6:
                stall = Stall(self.names[i], float(self.anchor_t[i]), None, float(xy[i, 0]), float(xy[i, 1]),
                              self.places.describe(*xy[i]) if self.places else '',
                              holder(i, self.names, poses, held), states[i] if states else None)
                self.open[i] = stall
                self.stalls.append(stall)
        if self.gridlock_at is None and self.names and len(self.open) == len(self.names):
            self.gridlock_at = t
        self._history.append((t, xy.copy()))
        while self._history and self._history[0][0] < t - MOVING_WINDOW - 1e-9:
            self._history.pop(0)
        then = self._history[0][1]
        with np.errstate(invalid='ignore'):
            self.timeline.append((t, int(np.sum(np.hypot(*(xy - then).T) >= self.distance))
                                  if t - self._history[0][0] >= MOVING_WINDOW - 1e-9 else len(self.names)))

    @property
    def first_stall(self) -> float | None:
        return min((s.since for s in self.stalls), default=None)

    def summary(self, limit: int = 100) -> dict[str, Any]:
        """The block of summary.json (and of the analysis): stalls, gridlock, first stall."""
        return {
            'stall_time_s': self.stall_time,
            'gridlock': self.gridlock_at is not None,
            'gridlock_at_s': None if self.gridlock_at is None else round(self.gridlock_at, 1),
            'first_stall_s': None if self.first_stall is None else round(self.first_stall, 1),
            'stalled_at_end': sorted(s.robot for s in self.open.values()),
            'stall_count': len(self.stalls),
            'longest_stall_s': round(max(((s.until if s.until is not None else self.end) - s.since
                                          for s in self.stalls), default=0.0), 1),
            'stalls': by_time([s.as_dict() for s in self.stalls], 'since_s')[:limit],
        }


def warning(summary: dict[str, Any], robots: int) -> str | None:
    """The console's warning when the network stopped, else None."""
    if not summary.get('gridlock'):
        return None
    held = {s['robot']: s['held_by'] for s in summary['stalls'] if s['until_s'] is None}
    reasons = '; '.join(f'{r}: {h}' for r, h in sorted(held.items())[:6])
    return (f"warning: the network stopped at {summary['gridlock_at_s']:.0f} s: all {robots} robots stood "
            f"still for {summary['stall_time_s']:g} s ({reasons}{'; ...' if len(held) > 6 else ''})")


def end_warning(summary: dict[str, Any], robots: int) -> str | None:
    """A warning when most of the network stands still at the end without a full gridlock (one
    robot circling alone does not keep the network moving), else None.
    """
    stalled = summary.get('stalled_at_end') or []
    if summary.get('gridlock') or not stalled or 2 * len(stalled) < robots:
        return None
    return (f"warning: {len(stalled)} of {robots} robots stood still at the end (for {summary['stall_time_s']:g} s "
            f"or more): {', '.join(stalled)}")
