"""Traffic measures: throughput, hull contacts, merge conflicts at location exits, crossroad
conflicts (docs/traffic.md).

- **Throughput**: intersection passages (the controller's ``left`` events: one per intersection
  left, whatever the way through) per robot-minute.
- **Hull contacts**: the world's contact count (pairs whose hulls had to be separated), from
  the run itself; from a bag, the analysis' contact episodes (``thymio-road analyze``).
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

Everything works on sampled poses (s, robot names, n×2 centres), so the same code serves the
embedded run (:class:`thymio_road.runtime.traffic_probe.TrafficProbe`) and a bag
(:func:`measures_from_bag`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from thymio_road.analysis.bag import read_recording

#: Length of each lane's end that makes the merge zone (m), and the lateral tolerance (m).
ZONE_LENGTH = 0.20
LANE_TOLERANCE = 0.04
SAMPLE_PERIOD = 0.1
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
    `intersection` extend its open episode (or open one); None closes it."""
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
    period: float = SAMPLE_PERIOD
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
    period: float = SAMPLE_PERIOD
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


@dataclass
class ContactEpisode:
    robots: tuple[str, str]
    start: float
    end: float
    x: float
    y: float
    where: str = ''

    def as_dict(self) -> dict:
        return {'robots': list(self.robots), 'start_s': round(self.start, 2), 'end_s': round(self.end, 2),
                'x': round(self.x, 3), 'y': round(self.y, 3), 'where': self.where}


@dataclass
class ContactMonitor:
    """Feed it, every sample, which robots' hulls touched since the last one; it pairs them by
    distance and keeps the episodes (a pair touching again within `gap` s extends its episode)."""

    describe: Any = None
    reach: float = 0.16
    gap: float = 1.0
    episodes: list[ContactEpisode] = field(default_factory=list)
    open_: dict[tuple[str, str], ContactEpisode] = field(default_factory=dict)

    def update(self, t: float, names: list[str], xy: np.ndarray, touched: np.ndarray) -> None:
        idx = np.flatnonzero(touched)
        for a_pos, a in enumerate(idx):
            for b in idx[a_pos + 1:]:
                if np.hypot(*(xy[a] - xy[b])) > self.reach:
                    continue
                key = (names[a], names[b])
                ep = self.open_.get(key)
                if ep is None or t - ep.end > self.gap:
                    x, y = (xy[a] + xy[b]) / 2
                    ep = ContactEpisode(key, t, t, float(x), float(y),
                                        self.describe(x, y) if self.describe else '')
                    self.open_[key] = ep
                    self.episodes.append(ep)
                ep.end = t


def throughput_windows(times: list[float], duration: float, window: float = 600.0) -> dict | None:
    """Passages in the first and in the last `window` s, and their ratio: a network that clogs
    carries less at the end (issue #13 asks for at least 90 %). None when the run is shorter than
    two windows."""
    if duration < 2 * window:
        return None
    first = sum(1 for t in times if t < window)
    last = sum(1 for t in times if t >= duration - window)
    return {'window_s': window, 'first': first, 'last': last,
            'ratio': round(last / first, 3) if first else None}


def summarise(passages: int, robots: int, duration: float, monitor: MergeMonitor, contacts: int | None,
              stops: list[dict], holds: list[float] | None = None,
              crossroads: CrossroadMonitor | None = None, contact_monitor: ContactMonitor | None = None) -> dict:
    """The traffic block of summary.json."""
    holds = holds or []
    crossroads = crossroads or CrossroadMonitor([])
    minutes = robots * duration / 60.0
    by_lane: dict[str, list[float]] = {}
    for s in stops:
        if s.get('distance_m') is not None:
            by_lane.setdefault(s['lane'], []).append(s['distance_m'])
    return {
        'passages': passages,
        'robot_minutes': round(minutes, 2),
        'throughput_per_robot_minute': round(passages / minutes, 3) if minutes else None,
        'hull_contacts': contacts,
        'contact_episodes': [e.as_dict() for e in contact_monitor.episodes[:50]] if contact_monitor else None,
        'merge_conflict_episodes': len(monitor.episodes),
        'merge_conflict_time_s': round(monitor.conflict_time, 1),
        'merge_conflicts': [e.as_dict() for e in monitor.episodes[:50]],
        'crossroad_conflict_episodes': len(crossroads.episodes),
        'crossroad_conflict_time_s': round(crossroads.conflict_time, 1),
        'crossroad_conflicts': [e.as_dict() for e in crossroads.episodes[:50]],
        'light_stops': len(stops),
        'light_hold_s': {'mean': round(float(np.mean(holds)), 2), 'max': round(float(np.max(holds)), 1),
                         'over_60s': int(sum(h > 60 for h in holds))} if holds else None,
        'light_stop_distance_m': {lane: {'count': len(v), 'mean': round(float(np.mean(v)), 3),
                                         'min': round(float(np.min(v)), 3)} for lane, v in sorted(by_lane.items())},
    }


def measures_from_bag(path: str, road_map: Any, lights: set[str] | None = None) -> dict:
    """The same measures from a recording (contacts: see ``thymio-road analyze``)."""
    rec = read_recording(path)
    robots = [r for r in rec.robots if r in rec.events and r in rec.truth and not (lights and r in lights)]
    monitor = MergeMonitor(merge_zones(road_map))
    crossroads = CrossroadMonitor(crossroad_zones(road_map))
    if robots:
        t0 = max(float(rec.truth[r].t[0]) for r in robots)
        t1 = min(float(rec.truth[r].t[-1]) for r in robots)
        grid = np.arange(t0, t1, SAMPLE_PERIOD)
        xy = np.stack([np.column_stack([np.interp(grid, rec.truth[r].t, rec.truth[r].x),
                                        np.interp(grid, rec.truth[r].t, rec.truth[r].y)]) for r in robots], axis=1)
        for k, t in enumerate(grid):
            monitor.update(float(t), robots, xy[k])
            crossroads.update(float(t), robots, xy[k])
        duration = t1 - t0
    else:
        duration = 0.0
    passages = sum(1 for r in robots for e in rec.events[r] if e.get('kind') == 'left')
    stops = []
    zones = monitor.zones
    for r in robots:
        for e in rec.events[r]:
            if e.get('kind') == 'light' and e.get('command') == 'stop':
                t = float(e['t'])
                tr = rec.truth[r]
                x, y = float(np.interp(t, tr.t, tr.x)), float(np.interp(t, tr.t, tr.y))
                d = stop_distance(e.get('lane'), (x, y), zones, crossroad_centres(road_map))
                stops.append({'robot': r, 't': t, 'lane': e.get('lane'), 'distance_m': d})
    holds = hold_times({r: rec.events[r] for r in robots}, rec.end)
    return summarise(passages, len(robots), duration, monitor, None, stops, holds, crossroads)
