# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Traffic measures: throughput, hull contacts, merge conflicts at location exits, crossroad
conflicts (docs/traffic.md).

- **Throughput**: intersection passages (the controller's ``left`` events: one per intersection
  left, whatever the way through) per robot-minute.
- **Passages**: the controllers' ``left`` events (:func:`passage_times`).
- **Hull contacts**: contact episodes of :mod:`.contacts` (hull gaps on the published poses).
- **Merge conflicts** at a location exit: two robots in the *merge zone* at once, one on each
  lane. The zone is the last :data:`ZONE_LENGTH` of each lane before the siding rejoins the road
  (robot centres within :data:`LANE_TOLERANCE` of the lane's centre line). There the lanes are
  less than a Thymio's width apart, so two robots from different lanes in it touch or must
  swerve. A robot keeps the lane it entered the zone by until it leaves it (near the merge point
  the two lanes are within a centimetre of each other).
- **Crossroad conflicts**: two robots at once inside a crossroad's square (the first rectangle of
  its ``extra['blind']``: the square the in-lanes' ends, the central circle and the out-lanes'
  starts enclose, where robots drive blind or on the circle), having entered from arms of
  different light phases (arm k opens in phase k % 2, as in ``traffic.py``). Paths from arms of
  different phases cross in the square; paths of one phase (opposite arms) do not, since the
  central circle is driven counter-clockwise by both. Robot centres are used: the right turns
  stay outside the square (their middle is 19 cm from the centre along each axis, the square's
  half side 14.8 cm), so a robot turning right is never counted. A robot's arm is the in-lane it
  was on (centre within :data:`LANE_TOLERANCE` of its last :data:`APPROACH_TRACK`) when it
  entered the square; it keeps it until it leaves the square.

Everything works on the interpolated samples of :mod:`.sampling` (every 0.1 s) and on the
controllers' events, gathered by :class:`TrafficMeasures`, which the embedded run
(:class:`thymio_road.runtime.traffic_probe.TrafficProbe`) and ``thymio-road analyze``
(:mod:`.core`) both feed: the two give the same block.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any

import numpy as np

from thymio_road.analysis.misreads import MisreadMonitor
from thymio_road.analysis.sampling import INTERPOLATED_PERIOD

#: Length of each lane's end that makes the merge zone (m), and the lateral tolerance (m).
ZONE_LENGTH = 0.20
LANE_TOLERANCE = 0.04
#: Length of each crossroad in-lane's end on which a robot is assigned to that arm (m).
APPROACH_TRACK = 0.40


@dataclass
class MergeZone:
    """The end of a location's two lanes before they merge."""

    intersection: str
    merge: tuple[float, float]
    #: lane name → centre-line points (k×2) of the zone part of that lane
    lanes: dict[str, np.ndarray]


def merge_zones(road_map: Any, length: float = ZONE_LENGTH) -> list[MergeZone]:
    zones = []
    for inter in road_map.intersections:
        if inter.kind != 'location':
            continue
        road = road_map.road(inter.extra['road'])
        out = road_map.road(inter.extra['siding'][1])
        m = inter.extra['merge_at']
        s_road = np.linspace(m - length, m, 41) % road.length if road.closed else np.linspace(m - length, m, 41)
        s_sid = np.linspace(max(out.length - length, 0.0), out.length, 41)
        lanes = {'road': np.array([road.pose_at(float(s))[:2] for s in s_road]),
                 'siding': np.array([out.pose_at(float(s))[:2] for s in s_sid])}
        mx, my, _ = road.pose_at(m % road.length if road.closed else m)
        zones.append(MergeZone(inter.id, (mx, my), lanes))
    return zones


def crossroad_centres(road_map: Any) -> list[tuple[float, float]]:
    """Each crossroad's centre: the centre of its square (its first 'blind' rectangle)."""
    return [tuple(inter.extra['blind'][0][:2]) for inter in road_map.intersections
            if inter.kind == 'crossroad' and inter.extra.get('blind')]


def stop_distance(lane: str | None, xy: tuple[float, float], zones: list[MergeZone],
                  centres: list[tuple[float, float]]) -> float | None:
    """Where a light stopped a robot: metres to the merge point (locations) or to the crossroad's centre."""
    points = centres if lane == 'crossroad' else [z.merge for z in zones]
    return round(min(math.dist(p, xy) for p in points), 3) if points else None


@dataclass
class ConflictEpisode:
    intersection: str
    start: float
    end: float
    robots: tuple[str, ...]

    def as_dict(self) -> dict:
        return {'intersection': self.intersection, 'start_s': round(self.start, 2), 'end_s': round(self.end, 2),
                'robots': list(self.robots)}


def _track_episode(monitor: Any, intersection: str, t: float, robots: set[str] | None) -> None:
    """One sample of a monitor (MergeMonitor, CrossroadMonitor): `robots` in conflict at
    `intersection` extend its open episode (or open one); None closes it.
    """
    if robots is None:
        monitor.open_.pop(intersection, None)
        return
    monitor.conflict_time += monitor.period
    ep = monitor.open_.get(intersection)
    if ep is None:
        ep = monitor.open_[intersection] = ConflictEpisode(intersection, t, t, tuple(sorted(robots)))
        monitor.episodes.append(ep)
    ep.end = t
    ep.robots = tuple(sorted(set(ep.robots) | robots))


@dataclass
class MergeMonitor:
    """Feed it samples (t, names, centres); it keeps the merge conflict episodes."""

    zones: list[MergeZone]
    period: float = INTERPOLATED_PERIOD
    lane_of: dict[tuple[str, str], str] = field(default_factory=dict)
    open_: dict[str, ConflictEpisode] = field(default_factory=dict)
    episodes: list[ConflictEpisode] = field(default_factory=list)
    conflict_time: float = 0.0
    samples: int = 0

    def update(self, t: float, names: list[str], xy: np.ndarray) -> None:
        self.samples += 1
        for zone in self.zones:
            present: dict[str, set[str]] = {'road': set(), 'siding': set()}
            near = np.hypot(xy[:, 0] - zone.merge[0], xy[:, 1] - zone.merge[1]) < ZONE_LENGTH + 0.1
            for i in np.flatnonzero(near):
                name = names[i]
                d = {lane: float(np.hypot(*(pts - xy[i]).T).min()) for lane, pts in zone.lanes.items()}
                key = (zone.intersection, name)
                inside = [lane for lane, dist in d.items() if dist < LANE_TOLERANCE]
                if not inside:
                    self.lane_of.pop(key, None)
                    continue
                lane = self.lane_of.get(key) or min(inside, key=d.get)
                self.lane_of[key] = lane
                present[lane].add(name)
            for key in [k for k in self.lane_of if k[0] == zone.intersection and k[1] not in
                        {names[i] for i in np.flatnonzero(near)}]:
                self.lane_of.pop(key)
            conflict = present['road'] | present['siding'] if present['road'] and present['siding'] else None
            _track_episode(self, zone.intersection, t, conflict)


@dataclass
class CrossroadZone:
    """A crossroad's square and the ends of its in-lanes, with the phase of each arm."""

    intersection: str
    centre: tuple[float, float]
    heading: float
    half: tuple[float, float]
    #: arm → centre-line points (k×2) of the in-lane's last APPROACH_TRACK
    approaches: dict[str, np.ndarray]
    phase: dict[str, int]

    def inside(self, xy: np.ndarray) -> np.ndarray:
        """Boolean per row of xy (n×2): centre inside the square."""
        d = xy - np.asarray(self.centre)
        c, s = math.cos(self.heading), math.sin(self.heading)
        along, across = d[:, 0] * c + d[:, 1] * s, -d[:, 0] * s + d[:, 1] * c
        return (np.abs(along) <= self.half[0]) & (np.abs(across) <= self.half[1])


def crossroad_zones(road_map: Any, margin: float = 0.0) -> list[CrossroadZone]:
    zones = []
    for inter in road_map.intersections:
        if inter.kind != 'crossroad' or not inter.extra.get('blind'):
            continue
        cx, cy, h, a, b = inter.extra['blind'][0]
        approaches = {}
        for arm, road_id in inter.extra['in'].items():
            road = road_map.road(road_id)
            s = np.linspace(max(road.length - APPROACH_TRACK, 0.0), road.length, 41)
            approaches[arm] = np.array([road.pose_at(float(x))[:2] for x in s])
        phase = {arm: k % 2 for k, arm in enumerate(inter.extra['arms'])}
        zones.append(CrossroadZone(inter.id, (cx, cy), h, (a + margin, b + margin), approaches, phase))
    return zones


@dataclass
class CrossroadMonitor:
    """Feed it samples (t, names, centres); it keeps the crossroad conflict episodes."""

    zones: list[CrossroadZone]
    period: float = INTERPOLATED_PERIOD
    arm_of: dict[tuple[str, str], str] = field(default_factory=dict)
    open_: dict[str, ConflictEpisode] = field(default_factory=dict)
    episodes: list[ConflictEpisode] = field(default_factory=list)
    conflict_time: float = 0.0

    def update(self, t: float, names: list[str], xy: np.ndarray) -> None:
        for zone in self.zones:
            reach = max(zone.half) + APPROACH_TRACK + 0.1
            near = np.flatnonzero(np.hypot(xy[:, 0] - zone.centre[0], xy[:, 1] - zone.centre[1]) < reach)
            inside = zone.inside(xy[near]) if len(near) else np.zeros(0, bool)
            phases: dict[int, set[str]] = {}
            near_names = set()
            for i, within in zip(near, inside):
                key = (zone.intersection, names[i])
                near_names.add(names[i])
                if within:
                    arm = self.arm_of.get(key)
                    if arm is not None:
                        phases.setdefault(zone.phase[arm], set()).add(names[i])
                    continue
                d = {arm: float(np.hypot(*(pts - xy[i]).T).min()) for arm, pts in zone.approaches.items()}
                arm = min(d, key=d.get)
                if d[arm] < LANE_TOLERANCE:
                    self.arm_of[key] = arm
                else:
                    self.arm_of.pop(key, None)
            for key in [k for k in self.arm_of if k[0] == zone.intersection and k[1] not in near_names]:
                self.arm_of.pop(key)
            _track_episode(self, zone.intersection, t, set().union(*phases.values()) if len(phases) > 1 else None)


def hold_times(events: dict[str, list[dict]], end: float) -> list[float]:
    """Seconds each light stop lasted (until the go or timeout; still held: until `end`)."""
    holds = []
    for evs in events.values():
        since = None
        for e in evs:
            if e.get('kind') != 'light' or e.get('command') == 'hold':
                continue
            if e.get('command') == 'stop':
                since = float(e['t'])
            elif since is not None and e.get('to') is not None:
                holds.append(float(e['t']) - since)
                since = None
        if since is not None:
            holds.append(end - since)
    return holds


def throughput_windows(times: list[float], duration: float, window: float = 600.0) -> dict | None:
    """Passages in the first and in the last `window` s, and their ratio: a network that clogs
    carries less at the end (issue #13 asks for at least 90 %). None when the run is shorter than
    two windows.
    """
    if duration < 2 * window:
        return None
    first = sum(1 for t in times if t < window)
    last = sum(1 for t in times if t >= duration - window)
    return {'window_s': window, 'first': first, 'last': last,
            'ratio': round(last / first, 3) if first else None}


def passage_times(events: list[dict]) -> list[float]:
    """A robot's intersection passages: the times of its controller's ``left`` events (one per
    intersection left, whatever the way through). What the robots report; the progress detector
    (:mod:`.progress`) judges exits from ground truth instead.
    """
    return [float(e['t']) for e in events if e.get('kind') == 'left' and 't' in e]


#: Controller event kinds counted as manoeuvres, and their names in the traffic block.
MANOEUVRES = {'yield': 'yields', 'make_way': 'made_way', 'wrong_way': 'turned_back'}


class TrafficMeasures:
    """The traffic block of summary.json, fed the same way by the run and from a bag: the movers'
    centres at each interpolated sample, and each controller event with the robot's pose then.
    """

    def __init__(self, road_map: Any, robots: list[str]) -> None:
        self.robots = list(robots)
        self.merge = MergeMonitor(merge_zones(road_map))
        self.crossroads = CrossroadMonitor(crossroad_zones(road_map))
        self.centres = crossroad_centres(road_map)
        self.passages: list[float] = []
        self.manoeuvres = {name: 0 for name in MANOEUVRES.values()}
        self.stops: list[dict] = []
        self.light_events: dict[str, list[dict]] = {}
        self.misreads = MisreadMonitor()

    def world_event(self, event: dict) -> None:
        """A /world/events message (ground truth: barcode entries)."""
        self.misreads.world_event(event)

    def sample(self, t: float, xy: np.ndarray) -> None:
        """The movers' centres (n×2, `robots` order; NaN: no pose) at an interpolated sample."""
        self.merge.update(t, self.robots, xy)
        self.crossroads.update(t, self.robots, xy)

    def event(self, robot: str, event: dict, xy: tuple[float, float] | None) -> None:
        """A controller event; `xy`: the robot's last published position at its time."""
        kind = event.get('kind')
        if kind in MANOEUVRES:
            self.manoeuvres[MANOEUVRES[kind]] += 1
        if kind == 'left' and 't' in event:
            self.passages.append(float(event['t']))
        if kind == 'barcode' and 't' in event and event.get('code') is not None:
            self.misreads.read(robot, float(event['t']), int(event['code']))
        if kind == 'light':
            self.light_events.setdefault(robot, []).append(event)
            if event.get('command') == 'stop':
                d = None if xy is None else stop_distance(event.get('lane'), xy, self.merge.zones, self.centres)
                self.stops.append({'robot': robot, 't': event.get('t'), 'lane': event.get('lane'),
                                   'distance_m': None if d is None else round(d, 3)})

    def summary(self, duration: float, contacts: dict, wrong_way: dict | None) -> dict:
        """The block; `contacts` and `wrong_way`: the summaries of ContactDetector and WrongWayMonitor."""
        holds = hold_times(self.light_events, duration)
        # Rounded first, so that a run's summary (its duration) and `analyze` (the recording's
        # last stamp, a tick off) give the same throughput even where it lies on a rounding edge.
        minutes = round(len(self.robots) * duration / 60.0, 2)
        by_lane: dict[str, list[float]] = {}
        for s in self.stops:
            if s.get('distance_m') is not None:
                by_lane.setdefault(s['lane'], []).append(s['distance_m'])
        merge, crossroads = self.merge, self.crossroads
        return {
            'passages': len(self.passages),
            'robot_minutes': minutes,
            'throughput_per_robot_minute': round(len(self.passages) / minutes, 3) if minutes else None,
            **contacts,
            'merge_conflict_episodes': len(merge.episodes),
            'merge_conflict_time_s': round(merge.conflict_time, 1),
            'merge_conflicts': [e.as_dict() for e in merge.episodes[:50]],
            'crossroad_conflict_episodes': len(crossroads.episodes),
            'crossroad_conflict_time_s': round(crossroads.conflict_time, 1),
            'crossroad_conflicts': [e.as_dict() for e in crossroads.episodes[:50]],
            'light_stops': len(self.stops),
            'light_hold_s': {'mean': round(float(np.mean(holds)), 2), 'max': round(float(np.max(holds)), 1),
                             'over_60s': int(sum(h > 60 for h in holds))} if holds else None,
            'light_stop_distance_m': {lane: {'count': len(v), 'mean': round(float(np.mean(v)), 3),
                                             'min': round(float(np.min(v)), 3)} for lane, v in sorted(by_lane.items())},
            'throughput_windows': throughput_windows(sorted(self.passages), duration),
            'wrong_way': wrong_way,
            'misreads': self.misreads.summary(),
            'manoeuvres': dict(self.manoeuvres),
        }
