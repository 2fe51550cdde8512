# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Does a lost robot find the road again, in the driving direction? (issue #13; report §4)

"If the robot ends up on the left side of the road (light side of the gradient) it will behave
correctly ... if it ends up on the other side ... it will drive on it in the wrong direction"
(§4). One robot is put down lost near a lane, at random (seeded) places along it, on straights
and arcs alike, from four sides (the map's roads, not the lanes inside intersections):

- ``white``: left of the lane (its white side), 2.5–6 cm off, heading along it ±30°;
- ``black``: right of the lane, beyond its black edge, 2.5–6 cm off, heading along it ±30°;
- ``across_white``: on the white side, 2.5–5 cm off, pointing across the road (−90° ±30°);
- ``across_black``: on the black side, 2.5–5 cm off, pointing across the road (+90° ±30°).

Starts leave the lane `duration` s of driving before its end (closed lanes: anywhere). A trial
succeeds when, within `duration` s, the robot is seen driving a lane in its direction: on it
(centre within 2.5 cm) at both ends of a 5 s window, heading with it (within 45°), 10 cm further
along it — directly, or after it drove a lane backwards and turned back ('turned back'). The controller
drives with barcode actions off, so that only line following and recovery are measured.
"""
from __future__ import annotations

from dataclasses import dataclass
import functools
import math
from pathlib import Path
import random

import numpy as np

from thymio_road.control.controller import ControllerParams, RoadController
from thymio_road.experiments import sweep
from thymio_road.map.road_map import RoadMap
from thymio_road.sim.world import RobotSpec, World, WorldParams

SIDES = ('white', 'black', 'across_white', 'across_black')
EVENT = 0.1
ON_LANE = 0.025
ALONG = math.radians(45)
PROGRESS = 0.10
PROGRESS_WINDOW = 5.0
#: The lowest speed (150 units, 4.8 cm/s): how far a trial can take the robot along its lane.
SPEED = 0.048


@dataclass(frozen=True)
class Trial:
    side: str
    road: str
    s: float
    offset: float
    heading_error_deg: float
    ok: bool
    #: What the robot did (see judge): 'rejoined', 'turned back', 'wrong way' or 'lost'.
    outcome: str
    #: Simulated s when it was seen driving its lane the right way (None: never).
    rejoined_at: float | None


def _start(road_map: RoadMap, side: str, rng: random.Random, ahead: float) -> tuple[str, float, float, float, tuple]:
    """A start near a lane with `ahead` m of it left to drive (closed lanes: anywhere), so that
    the trial measures recovery, not what lies beyond the lane's end (barcode actions are off).
    """
    # The map's own roads; an intersection's lanes ('R2.ring', 'X1.circle') lie among others.
    roads = [r for r in road_map.roads if '.' not in r.id and (r.closed or r.length > ahead + 0.3)]
    road = rng.choice(roads)
    s = rng.uniform(0.1, road.length - (0.1 if road.closed else ahead))
    x, y, h = road.pose_at(s)
    left = side in ('white', 'across_white')
    offset = rng.uniform(0.025, 0.06 if side in ('white', 'black') else 0.05) * (1 if left else -1)
    turn = {'white': 0.0, 'black': 0.0, 'across_white': -90.0, 'across_black': 90.0}[side]
    heading = h + math.radians(turn + rng.uniform(-30, 30))
    pose = (x - offset * math.sin(h), y + offset * math.cos(h), heading)
    return road.id, s, offset, heading, pose


class _Lanes:
    """Every lane's centre-line points, with their road and heading, to judge where a robot is."""

    def __init__(self, road_map: RoadMap, step: float = 0.005) -> None:
        samples = [r.sample(step) for r in road_map.roads]
        self.points = np.concatenate(samples)
        self.s = np.concatenate([np.arange(len(p)) * step for p in samples])
        self.road = np.concatenate([np.full(len(p), k) for k, p in enumerate(samples)])
        self.lengths = [r.length for r in road_map.roads]
        self.closed = [r.closed for r in road_map.roads]

    def nearest(self, x: float, y: float) -> int:
        return int(np.argmin(np.hypot(self.points[:, 0] - x, self.points[:, 1] - y)))


def trial(road_map: RoadMap, side: str, seed: int, recovery: str, duration: float = 60.0,
          lanes: _Lanes | None = None) -> Trial:
    rng = random.Random(f'{seed}:{side}')
    road_id, s, offset, heading, pose = _start(road_map, side, rng, duration * SPEED + 0.1)
    world = World(road_map, [RobotSpec('r', *pose)], WorldParams(), seed)
    controller = RoadController(ControllerParams(barcode_actions=False, recovery=recovery, seed=seed))
    lanes = lanes or _Lanes(road_map)
    track: list[tuple[float, float, float, float]] = []
    t = 0.0
    for _ in range(int(round(duration / EVENT))):
        t += EVENT
        world.sync(0, t)
        left, right = controller.step(world.read_ground(0), [0] * 7)
        world.command(0, left, right, at=t)
        x, y, h = world.poses[0][:3]
        track.append((t, float(x), float(y), float(h)))
    outcome, when = judge(track, lanes)
    return Trial(side, road_id, round(s, 3), round(offset, 3),
                 round(math.degrees(heading - road_map.road(road_id).pose_at(s)[2]), 1),
                 outcome in ('rejoined', 'turned back'), outcome, when)


def judge(track: list[tuple[float, float, float, float]], lanes: _Lanes) -> tuple[str, float | None]:
    """The outcome of a track (t, x, y, heading) and when it was settled: 'rejoined' (driving a
    lane in its direction, `PROGRESS` m in `PROGRESS_WINDOW` s, on it at both ends), 'turned
    back' (rejoined after a wrong-way drive), 'wrong way' (drove a lane backwards and had not
    turned back by the end), 'lost' (neither).
    """
    samples = track[::5]
    wrong = False
    for (t0, x0, y0, h0), (t1, x1, y1, h1) in zip(samples, samples[int(PROGRESS_WINDOW / (5 * EVENT)):]):
        k0, k1 = lanes.nearest(x0, y0), lanes.nearest(x1, y1)
        if lanes.road[k0] != lanes.road[k1]:
            continue
        if max(math.hypot(x0 - lanes.points[k0, 0], y0 - lanes.points[k0, 1]),
               math.hypot(x1 - lanes.points[k1, 0], y1 - lanes.points[k1, 1])) > ON_LANE:
            continue
        road = lanes.road[k1]
        progress = lanes.s[k1] - lanes.s[k0]
        if lanes.closed[road]:
            length = lanes.lengths[road]
            progress = (progress + length / 2) % length - length / 2
        along = math.cos(h1 - lanes.points[k1, 2]) > math.cos(ALONG)
        if along and progress >= PROGRESS:
            return ('turned back' if wrong else 'rejoined'), round(t1, 1)
        if math.cos(h1 - lanes.points[k1, 2]) < -math.cos(ALONG) and progress <= -PROGRESS:
            wrong = True
    return ('wrong way' if wrong else 'lost'), None


def experiment(road_map: RoadMap, trials: int = 20, seed: int = 1, recovery: str = 'both',
               sides: tuple[str, ...] = SIDES, duration: float = 60.0) -> dict[str, list[Trial]]:
    """`trials` trials per side (seeds seed, seed+1, …): side → trials."""
    lanes = _Lanes(road_map)
    return {side: [trial(road_map, side, seed + k, recovery, duration, lanes) for k in range(trials)]
            for side in sides}


@dataclass(frozen=True)
class TrialJob:
    """One trial: plain data (the map by name or path), so that a worker process or machine can
    run it; the worker loads the map once for all its trials.
    """

    map: str
    side: str
    seed: int
    recovery: str
    duration: float


@functools.lru_cache(maxsize=4)
def _map_and_lanes(name: str) -> tuple[RoadMap, _Lanes]:
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
    road_map = load_map(find_config('maps', name))
    return road_map, _Lanes(road_map)


def trial_job(job: TrialJob) -> Trial:
    road_map, lanes = _map_and_lanes(job.map)
    return trial(road_map, job.side, job.seed, job.recovery, job.duration, lanes)


def sweep_trials(map_name: str, trials: int = 20, seed: int = 1, settings: tuple[str, ...] = ('both',),
                 sides: tuple[str, ...] = SIDES, duration: float = 60.0, *, workers: int | None = 1,
                 scheduler: str | None = None, progress: bool = False
                 ) -> tuple[dict[str, dict[str, list[Trial]]], list[sweep.Outcome]]:
    """:func:`experiment` for each recovery setting, its trials as independent jobs
    (experiments/sweep.py): setting → side → trials, the same whatever runs them, and the
    outcomes of the trials that raised (left out of the trials).
    """
    if Path(map_name).exists():  # a file: the same one for workers whatever their folder
        map_name = str(Path(map_name).resolve())
    jobs = [TrialJob(map_name, side, seed + k, setting, duration)
            for setting in settings for side in sides for k in range(trials)]

    def finished(outcome: sweep.Outcome) -> str:
        job = outcome.job
        what = outcome.value.outcome if outcome.ok else f'ERROR: {outcome.error}'
        return f'{job.recovery}, {job.side}, seed {job.seed}: {what}'

    outcomes = sweep.run(trial_job, jobs, workers=workers, scheduler=scheduler, describe=finished,
                         progress=progress, unit='trial')
    results: dict[str, dict[str, list[Trial]]] = {s: {side: [] for side in sides} for s in settings}
    for outcome in outcomes:
        if outcome.ok:
            results[outcome.job.recovery][outcome.job.side].append(outcome.value)
    return results, [o for o in outcomes if not o.ok]


def table(results: dict[str, list[Trial]]) -> list[dict]:
    rows = []
    for side, trials in results.items():
        outcomes = {o: sum(t.outcome == o for t in trials) for o in ('rejoined', 'turned back', 'wrong way', 'lost')}
        times = sorted(t.rejoined_at for t in trials if t.rejoined_at is not None)
        rows.append({'side': side, 'trials': len(trials), **outcomes,
                     'success_rate': round(sum(t.ok for t in trials) / len(trials), 3) if trials else None,
                     'median_time_s': times[len(times) // 2] if times else None})
    return rows
