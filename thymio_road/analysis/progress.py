# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Progress along the road network: robots that are stuck however much they move, and robots
confined to one intersection (issue #27).

A robot **advances** when it gains :data:`ADVANCE` (10 cm) of arc length along its lanes in their
driving direction, or when it **exits** an intersection. It is **stuck** once it has not
advanced for ``stall_time`` seconds (the stall detector's, 120 s by default), whether it stands,
creeps, dithers back and forth or drives in circles; the episode starts at its last advance and
ends at its next one. It is **confined** to an intersection once it has driven
:data:`CONFINE_LAPS` laps of one of the intersection's closed roads (a roundabout's ring, a
crossroad's circle) without leaving the intersection.

The definitions, on poses sampled every second (:mod:`.sampling`, "held"):

- *Where*: the robot's centre on the nearest lane point within :data:`LANE_REACH` whose heading
  is within 90° of the robot's: a lane driven the right way (a robot against every lane near it,
  or off them, is nowhere and gains nothing). Each road belongs to an intersection (its id starts
  with the intersection's: ``R2.ring``, ``X1.in.w``, ``L1.siding``) or is a plain road.
- *Arc length gained*: the robot keeps, per road, how far along it it has been (arc length,
  unwrapped on a closed road so that driving round a loop keeps gaining); it gains only beyond
  that, so backing up and driving the same stretch again gains nothing. On an intersection's
  closed road it gains at most one lap per visit: going once round a ring to an exit is
  progress, circling is not.
- *Exit*: the robot drives forward (its centre moves ahead, along its heading) from an
  intersection's road onto new ground outside it: a road it has no record of, one it last
  left driving forward (a balloon loop brings it back to the road it left), or one it meets
  more than REENTRY from where it last was on it. Backing out of an
  intersection and driving in again is no exit, and neither is a change of the nearest lane while
  standing. An exit forgets the records: the robot is on new ground.

The controllers' own ``left`` events are not used: a controller that believes it left an
intersection may be circling it (final_traffic, 15 robots, seed 12: thymio3 "left" X1 at 638 s and
drove its circle until the end of the hour).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any, Callable, Sequence

import numpy as np

from thymio_road.analysis.lane_points import LanePoints
from thymio_road.analysis.stalls import by_time, holder, Places, Stall, STALL_TIME

#: Arc length (m) a robot must gain to advance: more than the 3–6 cm that robots held for a
#: minute crept, less than a robot's spacing in a queue (17 cm).
ADVANCE = 0.10
#: A robot's centre is on a lane within this distance of its centre line (m): line following
#: keeps it 1.3–1.5 cm off it, up to 3.6 cm on the tightest arcs.
LANE_REACH = 0.05
#: A forward move (m, along the robot's heading) between two samples, below which a change of
#: road is the nearest lane changing, not the robot driving on.
MIN_FORWARD = 0.005
#: Net laps of an intersection's closed road that make a robot confined to the intersection.
CONFINE_LAPS = 2.0
#: Arc length (m) along one road between two samples (1 s apart) beyond which the robot has not
#: driven it but come back to it elsewhere (a balloon loop that leaves a ring and rejoins it): a
#: Thymio drives at most 0.2 m/s. Its record then goes on from the new place, neither gaining
#: the jump nor owing it (a record left metres ahead by an earlier pass would otherwise hold back
#: every gain until those metres were driven again).
REENTRY = 0.5


class Lanes:
    """The map's lanes (analysis/lane_points.py): where a robot is, and whose road it is."""

    def __init__(self, road_map: Any) -> None:
        ids = {inter.id: inter.kind for inter in road_map.intersections}
        self.roads = list(road_map.roads)
        self.kinds = ids
        self.length = [road.length for road in self.roads]
        self.closed = [road.closed for road in self.roads]
        #: per road: the intersection it belongs to, or None (a plain road)
        self.owner = [_owner(road.id, ids) for road in self.roads]
        self.points = LanePoints(road_map, cell=LANE_REACH)

    def project(self, poses: np.ndarray) -> list[tuple[int, float] | None]:
        """(road index, arc length) of each pose's lane, None when it is on none (n×3 poses)."""
        out: list[tuple[int, float] | None] = []
        p = self.points
        for x, y, h in np.asarray(poses, dtype=float)[:, :3].tolist():
            if math.isnan(x):
                out.append(None)
                continue
            k = p.near(x, y)
            d2 = (p.x[k] - x) ** 2 + (p.y[k] - y) ** 2
            ok = (d2 < LANE_REACH ** 2) & (p.cos[k] * math.cos(h) + p.sin[k] * math.sin(h) > 0.0)
            if not ok.any():
                out.append(None)
                continue
            best = int(k[ok][np.argmin(d2[ok])])
            out.append((int(p.road[best]), float(p.s[best])))
        return out

    def unit(self, road: int) -> str:
        """The intersection a road belongs to, or the plain road itself."""
        return self.owner[road] or self.roads[road].id

    def ring(self, road: int) -> bool:
        """A closed road of an intersection (a ring, a circle): one lap per visit gains."""
        return self.closed[road] and self.owner[road] is not None


def _owner(road_id: str, intersections: dict[str, str]) -> str | None:
    head = road_id.split('.', 1)[0]
    return head if head in intersections and head != road_id else None


@dataclass
class Stuck(Stall):
    """A stall by progress: `since` is its last advance, `until` its next (None: stuck at the end)."""

    #: The intersection it was confined to when found stuck, if any.
    confined_in: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), 'confined_in': self.confined_in}


@dataclass
class Confinement:
    robot: str
    intersection: str
    kind: str
    #: When it entered the intersection (s).
    since: float
    #: When its laps reached CONFINE_LAPS (s).
    flagged: float
    #: When it exited (s); None: still inside at the end.
    until: float | None
    laps: float
    where: str

    def as_dict(self) -> dict[str, Any]:
        return {'robot': self.robot, 'intersection': self.intersection, 'kind': self.kind,
                'since_s': round(self.since, 1), 'flagged_s': round(self.flagged, 1),
                'until_s': None if self.until is None else round(self.until, 1),
                'laps': round(self.laps, 2), 'where': self.where}


@dataclass
class _Record:
    """How far along one road a robot has been: last arc length, unwrapped position, high water."""

    last_s: float
    u: float = 0.0
    high: float = 0.0
    #: The robot last left this road driving forward.
    behind: bool = False


@dataclass
class _Robot:
    last_advance: float
    records: dict[int, _Record] = field(default_factory=dict)
    road: int | None = None
    xy: tuple[float, float] = (0.0, 0.0)
    visit: str | None = None
    visit_start: float = 0.0
    confinement: Confinement | None = None
    credit: float = 0.0
    mark: float = 0.0
    stuck: Stuck | None = None


class ProgressDetector:
    """Feed it every robot's pose every second (NaN rows: no pose); it keeps the stuck and the
    confined robots. `on_flag(text)` is told when a robot becomes stuck or confined.
    """

    def __init__(self, names: Sequence[str], road_map: Any, stall_time: float = STALL_TIME,
                 places: Places | None = None, on_flag: Callable[[str], None] | None = None) -> None:
        if not stall_time > 0:
            raise ValueError(f'stall_time must be a positive number of seconds, got {stall_time}')
        self.names = list(names)
        self.lanes = Lanes(road_map)
        self.places = places or Places(road_map)
        self.stall_time = stall_time
        self.on_flag = on_flag
        self.robots: list[_Robot | None] = [None] * len(self.names)
        self.stuck: list[Stuck] = []
        self.confined: list[Confinement] = []
        self.end = 0.0

    def update(self, t: float, poses: np.ndarray, held: Sequence[str | None] | None = None,
               states: Sequence[str | None] | None = None) -> None:
        poses = np.asarray(poses, dtype=float)
        self.end = t
        for i, where in enumerate(self.lanes.project(poses)):
            robot = self.robots[i]
            if robot is None:
                if math.isnan(poses[i, 0]):
                    continue
                robot = self.robots[i] = _Robot(t)
            if where is not None:
                self._step(i, robot, t, poses[i], *where)
            if robot.stuck is None and t - robot.last_advance >= self.stall_time - 1e-6:
                x, y = float(poses[i, 0]), float(poses[i, 1])
                robot.stuck = Stuck(self.names[i], robot.last_advance, None, x, y,
                                    self.places.describe(x, y) if not math.isnan(x) else 'no pose',
                                    holder(i, self.names, poses, held), states[i] if states else None,
                                    robot.visit if robot.confinement is not None else None)
                self.stuck.append(robot.stuck)
                self._tell(f'{self.names[i]} is stuck: no progress along the roads since '
                           f'{robot.last_advance:.0f} s ({robot.stuck.where}; held by {robot.stuck.held_by})')

    # --- one robot's sample ---------------------------------------------------------------------
    def _step(self, i: int, robot: _Robot, t: float, pose: np.ndarray, k: int, s: float) -> None:
        lanes = self.lanes
        x, y, h = (float(v) for v in pose[:3])
        gain, exited = 0.0, False
        rec = robot.records.get(k)
        if robot.road is None:
            robot.records[k] = _Record(s)
            if lanes.owner[k]:
                self._enter(robot, lanes.owner[k], t)
        elif k == robot.road or lanes.unit(k) == lanes.unit(robot.road):
            if rec is None:
                robot.records[k] = _Record(s)
            else:
                gain = self._along(robot, rec, k, s, t, i)
        else:
            forward = (x - robot.xy[0]) * math.cos(h) + (y - robot.xy[1]) * math.sin(h) > MIN_FORWARD
            left = robot.records.get(robot.road)
            if forward and left is not None:
                left.behind = True
            # From a plain road into an intersection the robot is inside, moving or not (the
            # nearest lane may change while it stands at a junction); driving forward there is
            # new ground even where it has records of the intersection's roads from an earlier
            # visit (a balloon brings it back to the ring it left). Otherwise it is never
            # inside, and its ring record, a lap ahead, owes a lap before anything counts.
            entering = lanes.owner[k] is not None and lanes.owner[robot.road] is None and robot.visit is None
            # A road it knows, met again far from where it last was on it, is new ground too: a
            # robot that stood at a ring's entry while its nearest lane changed never left the
            # balloon "driving forward", and meeting the balloon's start again from the ring's
            # exit would otherwise not end the visit (two visits would add up to a confinement).
            elsewhere = rec is not None and abs(self._jump(rec, k, s)) > REENTRY
            if forward and (rec is None or rec.behind or entering or elsewhere):  # new ground in another unit
                if robot.visit is not None and robot.visit != lanes.owner[k]:
                    exited = True
                    self._exit(robot, t)
                    robot.records.clear()
                elif entering or lanes.owner[k] is None and lanes.owner[robot.road] is None:
                    robot.records.clear()                    # into an intersection, or on to a plain road
                robot.records[k] = _Record(s)
                if lanes.owner[k] and robot.visit is None:
                    self._enter(robot, lanes.owner[k], t)
            elif rec is None:
                robot.records[k] = _Record(s)
            else:                                            # back on a road it knows
                rec.behind = False
                gain = self._along(robot, rec, k, s, t, i)
            if entering and robot.visit is None:
                self._enter(robot, lanes.owner[k], t)
        robot.road, robot.xy = k, (x, y)
        robot.credit += gain
        if exited or robot.credit - robot.mark >= ADVANCE - 1e-9:
            self._advance(robot, t)

    def _jump(self, rec: _Record, k: int, s: float) -> float:
        """Arc length from where the robot last was on road k to s (the short way on a closed road)."""
        ds = s - rec.last_s
        if self.lanes.closed[k]:
            length = self.lanes.length[k]
            ds = (ds + length / 2) % length - length / 2
        return ds

    def _along(self, robot: _Robot, rec: _Record, k: int, s: float, t: float, i: int) -> float:
        """Arc length gained on road k beyond how far the robot had been."""
        lanes = self.lanes
        length = lanes.length[k]
        ds = self._jump(rec, k, s)
        rec.last_s = s
        if abs(ds) > REENTRY:
            return 0.0
        rec.u += ds
        top = rec.u
        if lanes.ring(k):
            top = min(top, length)
            laps = rec.u / length
            if robot.confinement is not None:
                robot.confinement.laps = max(robot.confinement.laps, laps)
            elif robot.visit is not None and laps >= CONFINE_LAPS:
                inter = robot.visit
                robot.confinement = Confinement(self.names[i], inter, lanes.kinds.get(inter, ''),
                                                robot.visit_start, t, None, laps,
                                                f'intersection {inter} ({lanes.kinds.get(inter, "")}), road '
                                                f'{lanes.roads[k].id}')
                self.confined.append(robot.confinement)
                self._tell(f'{self.names[i]} is confined to {inter} ({lanes.kinds.get(inter, "")}): '
                           f'{laps:.0f} laps of {lanes.roads[k].id} without leaving it, inside since '
                           f'{robot.visit_start:.0f} s')
        gain = max(0.0, top - rec.high)
        rec.high = max(rec.high, top)
        return gain

    def _enter(self, robot: _Robot, intersection: str, t: float) -> None:
        robot.visit, robot.visit_start, robot.confinement = intersection, t, None

    def _exit(self, robot: _Robot, t: float) -> None:
        if robot.confinement is not None:
            robot.confinement.until = t
        robot.visit, robot.confinement = None, None

    def _advance(self, robot: _Robot, t: float) -> None:
        robot.mark, robot.last_advance = robot.credit, t
        if robot.stuck is not None:
            robot.stuck.until = t
            robot.stuck = None

    def _tell(self, text: str) -> None:
        if self.on_flag is not None:
            self.on_flag(text)

    # --- results ----------------------------------------------------------------------------------
    def summary(self, limit: int = 100) -> dict[str, Any]:
        """The ``progress`` block of summary.json and of the analysis."""
        def length(e: Any) -> float:
            return (e.until if e.until is not None else self.end) - e.since
        return {
            'stall_time_s': self.stall_time,
            'advance_m': ADVANCE,
            'confine_laps': CONFINE_LAPS,
            'stuck_count': len(self.stuck),
            'stuck_robots': _names(e.robot for e in self.stuck),
            'stuck_at_end': _names(e.robot for e in self.stuck if e.until is None),
            'longest_stuck_s': round(max((length(e) for e in self.stuck), default=0.0), 1),
            'stuck': by_time([e.as_dict() for e in self.stuck], 'since_s')[:limit],
            'confined_count': len(self.confined),
            'confined': by_time([e.as_dict() for e in self.confined], 'since_s')[:limit],
        }


def _names(robots: Any) -> list[str]:
    from thymio_road.analysis.bag import natural_key
    return sorted(set(robots), key=natural_key)


def report_lines(summary: dict[str, Any] | None, limit: int = 10) -> list[str]:
    """The console's lines about stuck and confined robots (none when there are none)."""
    if not summary or not (summary.get('stuck_count') or summary.get('confined_count')):
        return []
    lines = [f"stuck (no progress along the roads for {summary['stall_time_s']:g} s): "
             f"{summary['stuck_count']} episode{'s' if summary['stuck_count'] != 1 else ''} of "
             f"{', '.join(summary['stuck_robots']) or 'no robot'}; longest {summary['longest_stuck_s']:.0f} s"]
    for e in summary['stuck'][:limit]:
        until = 'the end' if e['until_s'] is None else f"{e['until_s']:.0f} s"
        confined = f", confined to {e['confined_in']}" if e.get('confined_in') else ''
        lines.append(f"  {e['robot']}: {e['since_s']:.0f} s to {until}, {e['where']}, held by {e['held_by']}{confined}")
    for e in summary['confined'][:limit]:
        until = 'the end' if e['until_s'] is None else f"{e['until_s']:.0f} s"
        lines.append(f"confined: {e['robot']} in {e['intersection']} ({e['kind']}) from {e['since_s']:.0f} s to "
                     f"{until}, {e['laps']:.1f} laps")
    return lines
