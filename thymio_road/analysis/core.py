# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Compute every metric a recording allows, and say which ones it does not allow and why.

The result is plain data (lists and dicts of numbers and strings): the report writer turns it
into HTML, CSV and JSON, and tests compare it with ground truth.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
import math
from typing import Any

import numpy as np

from thymio_road.analysis import metrics as m
from thymio_road.analysis import sampling
from thymio_road.analysis.bag import Poses, Recording
from thymio_road.analysis.contacts import CONTACT_GAP, ContactDetector, NEAR_MISS_GAP
from thymio_road.analysis.mapsource import MapSource
from thymio_road.analysis.passages import passage_score
from thymio_road.analysis.progress import ProgressDetector
from thymio_road.analysis.stalls import Places, STALL_TIME, StallDetector
from thymio_road.analysis.traffic import passage_times, throughput_windows, TrafficMeasures
from thymio_road.analysis.wrong_way import WrongWayMonitor
from thymio_road.sim import robot_model as rm

#: A read is matched to a barcode the reading sensor entered at most this long before it.
BARCODE_WINDOW = 8.0
#: The outcome of a decision is looked for until this long after it.
DECISION_HORIZON = 30.0
#: The robot must stay this long on a road for it to be the outcome of a decision.
OUTCOME_DWELL = 1.0


@dataclass
class Options:
    contact_gap: float = CONTACT_GAP
    near_miss_gap: float = NEAR_MISS_GAP
    #: A robot that moved less than 1 cm in this many seconds is stalled (analysis/stalls.py), one
    #: that did not advance along the roads is stuck (analysis/progress.py).
    stall_time: float = STALL_TIME


@dataclass
class Analysis:
    recording: dict[str, Any]
    map: dict[str, Any]
    robots: list[dict[str, Any]]
    episodes: list[dict[str, Any]] = field(default_factory=list)
    laps: list[dict[str, Any]] = field(default_factory=list)
    barcode_reads: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    waits: list[dict[str, Any]] = field(default_factory=list)
    ir: list[dict[str, Any]] = field(default_factory=list)
    network: dict[str, Any] = field(default_factory=dict)
    #: metric -> why it could not be computed from this recording.
    not_computed: dict[str, str] = field(default_factory=dict)
    #: robot -> state timeline [(start, end, state)], for pictures.
    timelines: dict[str, list[tuple[float, float, str]]] = field(default_factory=dict)
    #: Stalls and gridlock (the block summary.json has too).
    stalls: dict[str, Any] = field(default_factory=dict)
    #: Stuck and confined robots (summary.json's progress block).
    progress: dict[str, Any] = field(default_factory=dict)
    #: Wrong-way driving (summary.json's traffic.wrong_way).
    wrong_way: dict[str, Any] = field(default_factory=dict)
    #: Intersection passages: the controllers' `left` events, and decisions checked against the
    #: road taken (thymio-road passages' score).
    passages: dict[str, Any] = field(default_factory=dict)
    #: summary.json's traffic block, for a recording of several robots on a map with intersections.
    traffic: dict[str, Any] | None = None
    #: [(t, robots that moved at least 1 cm in the 10 s before t)], for the picture.
    moving: list[tuple[float, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop('timelines')
        out.pop('moving')
        return out


class _Clock:
    """Bag receive time → simulated (header) time, from a ground-truth stream.

    The embedded runtime records on simulated time, so this is the identity there; with
    ``ros2 bag record`` the bag times are wall-clock receive times.
    """

    def __init__(self, rec: Recording) -> None:
        self.bag, self.sim = None, None
        for poses in rec.truth.values():
            if poses.bag_t is not None and len(poses) > 1:
                self.bag, self.sim = poses.bag_t, poses.t
                break

    def __call__(self, t: float) -> float:
        if self.bag is None:
            return t
        return float(np.interp(t, self.bag, self.sim, left=self.sim[0] - (self.bag[0] - t),
                               right=self.sim[-1] + (t - self.bag[-1])))


def analyze(rec: Recording, source: MapSource, options: Options | None = None) -> Analysis:
    options = options or Options()
    clock = _Clock(rec)
    t0, t1 = clock(rec.start), clock(rec.end)
    result = Analysis(
        recording={'path': str(rec.path), 'storage': rec.storage, 'start_s': round(t0, 3),
                   'end_s': round(t1, 3), 'duration_s': round(t1 - t0, 3), 'robots': rec.robots,
                   'topics': len(rec.topics), 'messages': int(sum(rec.counts.values())),
                   'problems': list(rec.problems)},
        map={'source': source.description, 'name': source.road_map.name if source.road_map else None,
             'notes': list(source.notes)},
        robots=[])
    nc = result.not_computed
    if not rec.robots:
        nc['everything per robot'] = 'the recording has no per-robot topics (/<robot>/ground_truth, ...)'
        return result

    static = {r for r in rec.robots if r in rec.truth and m.is_static(rec.truth[r].x, rec.truth[r].y)
              and len(rec.truth[r].t) > 10 and not rec.has(r, 'controller/state')}
    movers = [r for r in rec.robots if r not in static]
    result.recording['traffic_lights'] = sorted(static, key=rec.robots.index)
    result.recording['robots'] = movers
    rows = {r: {'robot': r, 'traffic_light': r in static} for r in rec.robots}

    projections = _projections(rec, source, movers)
    _road_metrics(rec, source, movers, rows, nc)
    _state_metrics(rec, clock, movers, rows, result, t0, t1, nc)
    contacts = _proximity(rec, rows, result, options, t1, source, nc)
    _laps(rec, source, movers, projections, rows, result, nc)
    _barcodes(rec, source, movers, rows, result, nc)
    _decisions(rec, source, movers, projections, result, rows, nc)
    _waits(rec, movers, static, rows, result, nc)
    _ir(rec, rows, result, nc)
    _network(rec, source, movers, rows, result, t0, t1, nc)
    _every_second(rec, source, movers, result, t0, t1, options.stall_time, nc)
    _passages(rec, source, movers, rows, result, t1, nc)
    _traffic(rec, source, movers, result, t1, contacts, nc)
    result.robots = [rows[r] for r in rec.robots]
    return result


def _every_second(rec: Recording, source: MapSource, movers: list[str], result: Analysis, t0: float, t1: float,
                  stall_time: float, nc: dict) -> None:
    """Stalls, gridlock and the moving-robots timeline; stuck and confined robots; wrong-way
    driving: the live run's detectors on the same samples (each robot's last pose published before
    each second, what its controller said before it; analysis/sampling.py).
    """
    robots = [r for r in movers if r in rec.truth and len(rec.truth[r]) > 1]
    if not robots:
        nc['stalls'] = 'no ground truth (/<robot>/ground_truth) for any moving robot'
        return
    timelines = result.timelines or state_timelines(rec)
    grid = sampling.seconds(sampling.grid(t0, t1, sampling.HELD_PERIOD_NS))
    poses = np.stack([sampling.held(rec.truth[r].t, _pose_array(rec.truth[r]), grid) for r in robots], axis=1)
    held, states = [], []
    for r in robots:
        light = [(float(e['t']), e.get('command'))
                 for e in rec.events.get(r, []) if e.get('kind') == 'light' and 't' in e]
        held.append(['a traffic light' if c in ('stop', 'hold') else None
                     for c in sampling.value_before([t for t, _ in light], [c for _, c in light], grid)])
        intervals = timelines.get(r, [])
        states.append(sampling.value_before([a for a, _, _ in intervals], [state for _, _, state in intervals], grid))
    places = Places(source.road_map) if source.road_map else None
    detector = StallDetector(robots, places, stall_time)
    progress = ProgressDetector(robots, source.road_map, stall_time, places) if source.road_map else None
    wrong_way = WrongWayMonitor(source.road_map, places.describe) if places else None
    for k, t in enumerate(grid.tolist()):
        h, st = [x[k] for x in held], [x[k] for x in states]
        detector.update(t, poses[k], h, st)
        if progress is not None:
            progress.update(t, poses[k], h, st)
        if wrong_way is not None:
            wrong_way.update(t, robots, poses[k])
    result.stalls = detector.summary()
    result.moving = detector.timeline
    if progress is None:
        nc['progress (stuck and confined robots), wrong-way driving'] = \
            'the roads are not known as lines: give --map or --scenario'
        return
    result.progress = progress.summary()
    result.wrong_way = wrong_way.summary()


def _pose_array(p: Poses) -> np.ndarray:
    return np.column_stack([p.x, p.y, p.yaw])


def _passages(rec: Recording, source: MapSource, movers: list[str], rows: dict, result: Analysis, t1: float,
              nc: dict) -> None:
    """Passages (the controllers' `left` events) per robot and per robot-minute, the first and last
    10 minutes, and each decision checked against the road the robot took (ground truth).
    """
    if not any(rec.has(r, 'controller/events') for r in movers):
        nc['passages'] = 'no controller/events topic in the recording'
        return
    times = {r: passage_times(rec.events.get(r, [])) for r in movers}
    for r in movers:
        rows[r]['passages'] = len(times[r])
    total = sum(len(v) for v in times.values())
    minutes = round(len(movers) * t1 / 60.0, 2)  # as traffic.TrafficProbe's summary
    result.passages = {'passages': total, 'robot_minutes': minutes,
                       'throughput_per_robot_minute': round(total / minutes, 3) if minutes else None,
                       'throughput_windows': throughput_windows(sorted(t for v in times.values() for t in v), t1)}
    if source.road_map is None or not source.road_map.intersections:
        return
    if not rec.world_events:
        nc['passages checked against ground truth'] = 'no /world/events (barcode_enter) in the recording'
        return
    result.passages['checked'] = passage_score(source.road_map, movers, rec.world_events,
                                               {r: rec.events.get(r, []) for r in movers},
                                               {r: rec.truth[r] for r in movers if r in rec.truth}, t1)


def _traffic(rec: Recording, source: MapSource, movers: list[str], result: Analysis, t1: float,
             contacts: ContactDetector | None, nc: dict) -> None:
    """summary.json's traffic block, from the same samples and events as the live run's probe."""
    robots = [r for r in movers if r in rec.truth and len(rec.truth[r])]
    if len(robots) < 2 or source.road_map is None or not source.road_map.intersections or contacts is None:
        return
    measures = TrafficMeasures(source.road_map, robots)
    grid = sampling.seconds(sampling.grid(0.0, t1 - sampling.INTERPOLATED_PERIOD, sampling.INTERPOLATED_PERIOD_NS))
    xy = np.stack([sampling.interpolated(rec.truth[r].t, _pose_array(rec.truth[r]), grid)[:, :2] for r in robots],
                  axis=1)
    for k, t in enumerate(grid.tolist()):
        measures.sample(t, xy[k])
    events = sorted(((float(e['t']), n, e) for n, r in enumerate(robots) for e in rec.events.get(r, [])
                     if 't' in e), key=lambda x: (x[0], x[1]))
    for t, n, e in events:
        p = rec.truth[robots[n]]
        pose = sampling.at_or_before(p.t, _pose_array(p), t)
        measures.event(robots[n], e, None if pose is None else (float(pose[0]), float(pose[1])))
    for e in rec.world_events:
        measures.world_event(e)
    result.traffic = measures.summary(t1, contacts.summary(), result.wrong_way or None)


# --- per robot: distance and road keeping ---------------------------------------------------------

def _road_metrics(rec: Recording, source: MapSource, movers: list[str], rows: dict, nc: dict) -> None:
    missing = [r for r in movers if r not in rec.truth]
    for r in movers:
        row = rows[r]
        poses = rec.truth.get(r)
        if poses is not None and len(poses):
            row['samples'] = len(poses)
            row['distance_m'] = round(m.path_length(poses.x, poses.y, poses.t), 4)
            row['distance_source'] = 'ground_truth'
        elif r in rec.odom and len(rec.odom[r]):
            odom = rec.odom[r]
            row['distance_m'] = round(m.path_length(odom.x, odom.y, odom.t), 4)
            row['distance_source'] = 'odom (wheel odometry, drifts)'
        if poses is None or not len(poses) or source.on_road is None:
            continue
        period = m.sample_period(poses.t)
        sx, sy = m.sensor_points(poses.x, poses.y, poses.yaw)
        on = m.raster_lookup(source.on_road, source.resolution, source.origin, sx, sy)
        keeping = m.road_keeping(poses.t, on, period)
        row.update(m.road_keeping_figures(keeping.time_sensed, keeping.time_on_road, keeping.losses))
        row['road_loss_times'] = [[round(a, 3), round(b, 3)] for a, b in keeping.loss_spans]
    if missing:
        nc['distance and road keeping of ' + ', '.join(missing)] = \
            'no ground_truth topic for these robots' + \
            ('; distance from odom instead' if any(r in rec.odom for r in missing) else '')
    if source.on_road is None:
        nc['time on road, road losses'] = 'no map: the recording has neither /map nor a map ' \
                                          'description (give --map or --scenario)'


def _projections(rec: Recording, source: MapSource, movers: list[str]
                 ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    if source.road_map is None:
        return {}
    out = {}
    for r in movers:
        poses = rec.truth.get(r)
        if poses is not None and len(poses):
            road, s, _ = m.project_on_roads(source.road_map, poses.x, poses.y)
            out[r] = (poses.t, road, s)
    return out


# --- per robot: states ------------------------------------------------------------------------------

def robot_timeline(rec: Recording, clock: '_Clock', robot: str, t0: float, t1: float
                   ) -> tuple[list[tuple[float, float, str]], int] | None:
    """A robot's state intervals over [t0, t1] and its number of changes; None without state data.

    State events give the changes at the controller's own time stamps; the latched state topic
    gives the initial state (and the changes, when events were not recorded).
    """
    events = [e for e in rec.events.get(robot, []) if e.get('kind') == 'state' and 'to' in e]
    msgs = [(clock(t), s) for t, s in rec.state_msgs.get(robot, [])]
    if events:
        initial = events[0].get('from') or (msgs[0][1] if msgs else None)
        changes = [(float(e['t']), str(e['to'])) for e in events]
    elif msgs:
        initial, changes = msgs[0][1], msgs[1:]
    else:
        return None
    return m.state_timeline(initial, changes, t0, t1), len(changes)


def state_timelines(rec: Recording) -> dict[str, list[tuple[float, float, str]]]:
    """Every robot's state intervals over the whole recording (for pictures)."""
    clock = _Clock(rec)
    t0, t1 = clock(rec.start), clock(rec.end)
    out = {}
    for r in rec.robots:
        found = robot_timeline(rec, clock, r, t0, t1)
        if found is not None:
            out[r] = found[0]
    return out


def _state_metrics(rec: Recording, clock: _Clock, movers: list[str], rows: dict, result: Analysis,
                   t0: float, t1: float, nc: dict) -> None:
    without = []
    for r in movers:
        found = robot_timeline(rec, clock, r, t0, t1)
        if found is None:
            without.append(r)
            continue
        timeline, changes = found
        result.timelines[r] = timeline
        rows[r]['time_per_state_s'] = {k: round(v, 3) for k, v in m.time_per_state(timeline).items()}
        rows[r]['state_changes'] = changes
        rows[r]['final_state'] = timeline[-1][2] if timeline else None
    if without:
        nc['time per state of ' + ', '.join(without)] = \
            'neither controller/events nor controller/state was recorded for these robots'
    _mode_metrics(rec, movers, rows, t0, t1, nc)


def _mode_metrics(rec: Recording, movers: list[str], rows: dict, t0: float, t1: float, nc: dict) -> None:
    """Time per mode (what overrides the state's driving: making way, yielding, held by a light,
    …; docs/controller.md) from the controller's `mode` events. A recording made before the
    controller reported modes has none: then nothing is computed rather than all 'driving'.
    """
    modes = {r: [e for e in rec.events.get(r, []) if e.get('kind') == 'mode' and 'to' in e and 't' in e]
             for r in movers}
    if not any(modes.values()):
        nc['time per mode'] = 'no "mode" events in controller/events (recorded before modes were reported, ' \
                              'or not recorded)'
        return
    for r in movers:
        if not rec.has(r, 'controller/events'):
            continue
        changes = [(float(e['t']), str(e['to'])) for e in modes[r]]
        initial = str(modes[r][0].get('from', 'driving')) if modes[r] else 'driving'
        timeline = m.state_timeline(initial, changes, t0, t1)
        rows[r]['time_per_mode_s'] = {k: round(v, 3) for k, v in m.time_per_state(timeline).items()}


# --- robots against one another --------------------------------------------------------------------

def _proximity(rec: Recording, rows: dict, result: Analysis, options: Options, t1: float, source: MapSource,
               nc: dict) -> ContactDetector | None:
    """Contacts and near misses of every pair of Thymios (traffic lights too): the live run's
    detector (analysis/contacts.py) on the same samples, poses interpolated every 0.1 s.
    """
    names = [r for r in rec.robots if r in rec.truth and len(rec.truth[r]) > 0]
    if len(names) < 2:
        nc['collisions and near misses'] = 'needs the ground_truth of at least two robots'
        return None
    grid = sampling.seconds(sampling.grid(0.0, t1 - sampling.INTERPOLATED_PERIOD, sampling.INTERPOLATED_PERIOD_NS))
    poses = np.stack([sampling.interpolated(rec.truth[r].t, _pose_array(rec.truth[r]), grid) for r in names], axis=1)
    detector = ContactDetector(names, options.contact_gap, options.near_miss_gap,
                               describe=Places(source.road_map).describe if source.road_map else None)
    detector.run(grid, poses)
    result.episodes = [{k: v for k, v in e.as_dict().items() if k not in ('x', 'y', 'where')}
                       for e in detector.episodes]
    counts = detector.per_body()
    for r in rec.robots:
        got = counts.get(r, {'contacts': 0, 'near_misses': 0})
        rows[r]['contacts'] = got['contacts']
        rows[r]['collisions'] = got['contacts']   # the name before issue #27
        rows[r]['near_misses'] = got['near_misses']
    result.network['proximity_thresholds_mm'] = {'contact': options.contact_gap * 1000,
                                                 'near_miss': options.near_miss_gap * 1000}
    return detector


# --- laps, throughput ------------------------------------------------------------------------------

def _laps(rec: Recording, source: MapSource, movers: list[str], projections: dict, rows: dict,
          result: Analysis, nc: dict) -> None:
    if source.road_map is None:
        nc['laps, lap times, throughput'] = 'the roads are not known as lines (only a raster): ' \
                                            'give --map or --scenario'
        return
    roads = source.road_map.roads
    lengths = [road.length for road in roads]
    closed = [road.closed for road in roads]
    if not any(closed):
        nc['lap times'] = 'the map has no closed road'
    for r in movers:
        if r not in projections:
            continue
        t, road, s = projections[r]
        crossings = m.lap_crossings(t, road, s, lengths, closed)
        last: dict[int, float] = {}
        times = []
        for when, k in crossings:
            entry = {'robot': r, 'road': roads[k].id, 'crossed_start_s': round(when, 3),
                     'lap_time_s': None}
            if k in last:
                entry['lap_time_s'] = round(when - last[k], 3)
                times.append(when - last[k])
            last[k] = when
            result.laps.append(entry)
        rows[r]['start_line_crossings'] = len(crossings)
        rows[r]['laps_timed'] = len(times)
        rows[r]['mean_lap_time_s'] = round(float(np.mean(times)), 3) if times else None


# --- barcodes --------------------------------------------------------------------------------------

def _barcode_truth(rec: Recording, source: MapSource, movers: list[str]) -> dict[str, list[dict]] | None:
    """When each robot's reading sensor entered each barcode: from /world/events, or from the map."""
    if rec.world_events or '/world/events' in rec.topics:
        out: dict[str, list[dict]] = defaultdict(list)
        for e in rec.world_events:
            if e.get('kind') == 'barcode_enter' and e.get('robot'):
                out[e['robot']].append(e)
        return out
    road_map = source.road_map
    index = getattr(road_map, 'barcode_index', None) if road_map is not None else None
    if index is None or not getattr(road_map, 'barcodes', ()):
        return None
    out = defaultdict(list)
    for r in movers:
        p = rec.truth.get(r)
        if p is None or not len(p):
            continue
        sx, sy = m.sensor_points(p.x, p.y, p.yaw, rm.GROUND_SENSORS_TUPLE[1])
        under = m.raster_lookup(index, road_map.resolution, (0.0, 0.0), sx, sy)
        previous = np.concatenate([[-1], under[:-1]])
        for k in np.flatnonzero((under != previous) & (under >= 0)):
            bar = road_map.barcodes[int(under[k])]
            out[r].append({'t': float(p.t[k]), 'kind': 'barcode_enter', 'robot': r,
                           'barcode': bar.id, 'code': bar.code, 'bits': bar.bits})
    return out


def _barcodes(rec: Recording, source: MapSource, movers: list[str], rows: dict, result: Analysis,
              nc: dict) -> None:
    have_events = any(rec.has(r, 'controller/events') for r in movers)
    reads = {r: [e for e in rec.events.get(r, []) if e.get('kind') == 'barcode'] for r in movers}
    if not have_events:
        nc['barcode reads'] = 'no controller/events topic in the recording'
        return
    truth = _barcode_truth(rec, source, movers)
    if truth is None:
        nc['barcode errors'] = 'no ground truth for barcodes: the recording has no /world/events ' \
                               'and the map has no barcodes'
    for r in movers:
        triggers = sum(1 for e in rec.events.get(r, []) if e.get('kind') == 'trigger')
        rows[r]['barcode_triggers'] = triggers
        rows[r]['barcode_reads'] = len(reads[r])
        rows[r]['barcode_codes'] = dict(sorted(Counter(c for e in reads[r]
                                                       if (c := _int(e.get('code'))) is not None).items()))
        if truth is None:
            for e in reads[r]:
                result.barcode_reads.append({'robot': r, 't': e['t'], 'code': e.get('code'),
                                             'barcode': None, 'true_code': None, 'verdict': None})
            continue
        entered = [e for e in truth.get(r, []) if (_int(e.get('bits', 4)) or 0) > 1]
        used = [False] * len(entered)
        verdicts: Counter = Counter()
        for e in reads[r]:
            t = float(e['t'])
            match = None
            for k in range(len(entered) - 1, -1, -1):
                te = float(entered[k]['t'])
                if te <= t + 1e-6 and t - te <= BARCODE_WINDOW and not used[k]:
                    match = k
                    break
                if te < t - BARCODE_WINDOW:
                    break
            if match is None:
                verdict, bar = 'false trigger', None
            else:
                used[match] = True
                bar = entered[match]
                verdict = 'correct' if _int(bar.get('code')) == _int(e.get('code')) else 'misread'
            verdicts[verdict] += 1
            result.barcode_reads.append({'robot': r, 't': round(t, 3), 'code': e.get('code'),
                                         'barcode': bar['barcode'] if bar else None,
                                         'true_code': bar['code'] if bar else None, 'verdict': verdict})
        last_t = float(rec.truth[r].t[-1]) if r in rec.truth and len(rec.truth[r]) else math.inf
        missed = [entered[k] for k in range(len(entered))
                  if not used[k] and float(entered[k]['t']) + BARCODE_WINDOW <= last_t]
        for bar in missed:
            result.barcode_reads.append({'robot': r, 't': round(float(bar['t']), 3), 'code': None,
                                         'barcode': bar['barcode'], 'true_code': bar['code'],
                                         'verdict': 'missed'})
        rows[r]['barcodes_passed'] = len(entered)
        rows[r]['barcode_correct'] = verdicts['correct']
        rows[r]['barcode_errors'] = verdicts['misread'] + verdicts['false trigger'] + len(missed)
        rows[r]['barcode_misreads'] = verdicts['misread']
        rows[r]['barcode_false_triggers'] = verdicts['false trigger']
        rows[r]['barcode_missed'] = len(missed)
    result.barcode_reads.sort(key=lambda e: (e['t'], e['robot']))


def _int(value: Any) -> int | None:
    """An event field as an integer, None when it is not one (events are free-form JSON)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# --- intersections ---------------------------------------------------------------------------------

_LABEL_KEYS = ('intersection', 'node', 'type', 'action', 'at')
_CHOICE_KEYS = ('choice', 'direction', 'exit', 'turn', 'branch', 'decision')


def _decisions(rec: Recording, source: MapSource, movers: list[str], projections: dict,
               result: Analysis, rows: dict, nc: dict) -> None:
    found = False
    for r in movers:
        events = rec.events.get(r, [])
        decisions = [e for e in events if e.get('kind') == 'decision']
        rows[r]['decisions'] = len(decisions)
        if not decisions:
            continue
        found = True
        back_to_road = [float(e['t']) for e in events if e.get('kind') == 'state' and e.get('to') == 'ROAD']
        proj = projections.get(r)
        for e in decisions:
            t = float(e['t'])
            label = next((str(e[k]) for k in _LABEL_KEYS if k in e), '')
            choice = next((str(e[k]) for k in _CHOICE_KEYS if k in e), '')
            done = next((b for b in back_to_road if b > t), None)
            if done is not None and done - t > DECISION_HORIZON:
                done = None
            outcome = _outcome_road(proj, source, done if done is not None else t)
            result.decisions.append({
                'robot': r, 't': round(t, 3), 'intersection': label, 'choice': choice,
                'completed_s': round(done - t, 3) if done is not None else None,
                'outcome_road': outcome,
                'details': {k: v for k, v in e.items() if k not in ('t', 'kind')}})
    if not found:
        nc['intersection decisions and outcomes'] = 'no "decision" events in controller/events'
    elif source.road_map is None:
        nc['intersection outcomes'] = 'the roads are not known as lines: give --map or --scenario'


def _outcome_road(proj: Any, source: MapSource, t: float) -> str | None:
    """The first road the robot stays on for OUTCOME_DWELL after time t."""
    if proj is None or source.road_map is None:
        return None
    times, road, _ = proj
    k0 = int(np.searchsorted(times, t))
    k1 = int(np.searchsorted(times, t + DECISION_HORIZON))
    if k0 >= k1:
        return None
    starts, ends = m.runs(road[k0:k1] >= 0)
    seg_road = road[k0:k1]
    for a, b in zip(starts, ends):
        # split runs where the road index changes
        idx = np.arange(a, b)
        changes = np.flatnonzero(np.diff(seg_road[idx])) + 1
        for part in np.split(idx, changes):
            if times[k0 + part[-1]] - times[k0 + part[0]] >= OUTCOME_DWELL:
                return source.road_map.roads[int(seg_road[part[0]])].id
    return None


# --- waiting at traffic lights ---------------------------------------------------------------------

def _waits(rec: Recording, movers: list[str], static: set[str], rows: dict, result: Analysis,
           nc: dict) -> None:
    lights = sorted(static)
    if not lights:
        nc['waiting at traffic lights'] = 'no traffic lights in the recording (no robot that ' \
                                          'stands still all along and runs no road controller)'
    light_xy = np.array([(rec.truth[light].x[0], rec.truth[light].y[0]) for light in lights]).reshape(-1, 2)
    for r in movers:
        p = rec.truth.get(r)
        if p is None or not len(p):
            continue
        stops = m.stops(p.t, p.x, p.y)
        rows[r]['stops'] = len(stops)
        rows[r]['time_stopped_s'] = round(sum(b - a for a, b, _, _ in stops), 3)
        if not lights:
            continue
        count, total = 0, 0.0
        for a, b, x, y in stops:
            k, d = m.nearest(light_xy, x, y)
            if d <= m.LIGHT_RADIUS:
                count += 1
                total += b - a
                result.waits.append({'robot': r, 'light': lights[k], 'start_s': round(a, 3),
                                     'end_s': round(b, 3), 'wait_s': round(b - a, 3),
                                     'distance_m': round(d, 3)})
        rows[r]['waits_at_lights'] = count
        rows[r]['wait_at_lights_s'] = round(total, 3)


# --- infra-red messages ----------------------------------------------------------------------------

def _ir(rec: Recording, rows: dict, result: Analysis, nc: dict) -> None:
    if not rec.rx:
        nc['IR messages received'] = 'no comm/rx topic in the recording'
        return
    senders = {r: rec.tx[r] for r in rec.tx}
    for r in rec.robots:
        if r not in rec.rx:
            continue
        t, values = rec.rx[r]
        rx = values[:, 0] if values.size else np.zeros(0, dtype=np.int16)
        received = rx != 0
        rows[r]['ir_received'] = int(received.sum())
        counts = Counter(int(v) for v in rx[received])
        rows[r]['ir_values'] = dict(sorted(counts.items()))
        attributed: Counter = Counter()
        for when, value in zip(t[received], rx[received]):
            sender = ir_sender(senders, r, float(when), int(value), rec)
            if sender:
                attributed[sender] += 1
        rows[r]['ir_from'] = dict(sorted(attributed.items()))
        result.ir.append({'robot': r, 'received': int(received.sum()),
                          'values': dict(sorted(counts.items())), 'from': dict(attributed)})
    if not rec.tx:
        nc['IR senders'] = 'no comm/tx topic: received messages cannot be attributed to a sender'


def ir_sender(senders: dict, receiver: str, t: float, value: int, rec: Recording) -> str | None:
    """The nearest robot whose last comm/tx before t carried the received value."""
    best, best_d = None, math.inf
    here = _pose_at(rec.truth.get(receiver), t)
    for name, (tt, vals) in senders.items():
        if name == receiver:
            continue
        k = int(np.searchsorted(tt, t, side='right')) - 1
        if k < 0 or int(vals[k]) != value:
            continue
        there = _pose_at(rec.truth.get(name), t)
        d = math.hypot(here[0] - there[0], here[1] - there[1]) if here and there else 0.0
        if d < best_d:
            best, best_d = name, d
    return best


def _pose_at(p: Poses | None, t: float) -> tuple[float, float] | None:
    if p is None or not len(p):
        return None
    return float(np.interp(t, p.t, p.x)), float(np.interp(t, p.t, p.y))


# --- network ---------------------------------------------------------------------------------------

def _network(rec: Recording, source: MapSource, movers: list[str], rows: dict, result: Analysis,
             t0: float, t1: float, nc: dict) -> None:
    net = result.network
    duration = max(t1 - t0, 1e-9)
    distances = [rows[r].get('distance_m') for r in movers if rows[r].get('distance_m') is not None]
    net['robots'] = len(movers)
    net['total_distance_m'] = round(float(sum(distances)), 3)
    net['mean_speed_m_s'] = round(float(sum(distances)) / duration / max(len(distances), 1), 5)
    if result.laps:
        per_road: Counter = Counter(e['road'] for e in result.laps)
        net['throughput_per_min'] = {road: round(n * 60.0 / duration, 3) for road, n in per_road.items()}
        times = [e['lap_time_s'] for e in result.laps if e['lap_time_s'] is not None]
        if times:
            net['lap_time_s'] = {'count': len(times), 'mean': round(float(np.mean(times)), 3),
                                 'min': round(float(np.min(times)), 3),
                                 'max': round(float(np.max(times)), 3)}
    elif source.road_map is not None:
        nc['throughput'] = 'no robot crossed the start of a closed road'
    trips = []
    for r in movers:
        arrivals = [e for e in rec.events.get(r, []) if e.get('kind') == 'arrival']
        for a, b in zip(arrivals, arrivals[1:]):
            trips.append({'robot': r, 'from': a.get('location', a.get('node')),
                          'to': b.get('location', b.get('node')),
                          'travel_time_s': round(float(b['t']) - float(a['t']), 3)})
    if trips:
        net['trips'] = trips
        net['mean_trip_time_s'] = round(float(np.mean([t['travel_time_s'] for t in trips])), 3)
    else:
        nc['travel times between locations'] = 'no "arrival" events in controller/events ' \
                                               '(lap times stand in for travel times)'
