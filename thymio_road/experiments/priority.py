# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""How much does traffic delay a priority vehicle? (issue #13; report §8 and §11: "priority
vehicles such as ambulance ... the other users of the road ... avoid them")

The `priority` scenario's thymio1 is of kind `priority`: it announces itself by IR with the
highest role (control/right_of_way.py), so robots about to enter yield to it and robots blocking
it make way, and it passes red lights. Its trip is the time from the start to its arrival at the
last location of its mission. The experiment drives it alone (the lights still run), then with
the scenario's other robots, seed by seed, and reports the ratio; issue #13 asks for at most 1.2.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from thymio_road.experiments import sweep
from thymio_road.nodes.traffic_light_node import TrafficLightNode
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario

PRIORITY_ROBOT = 'thymio1'


class _Arrived(Exception):
    pass


@dataclass(frozen=True)
class Trip:
    seed: int
    robots: int
    #: Simulated seconds to the mission's last arrival; None when it did not arrive in time.
    time: float | None
    #: Times the lights changed their order for it (control/traffic_light.py; a crossroad's
    #: signal group, whose members change it together, counts once).
    preemptions: int = 0


def trip(scenario: str, robots: int, seed: int, limit: float) -> Trip:
    """Run the scenario until the priority robot has completed its mission (or `limit` s)."""
    sc = load_scenario(scenario, robots=robots, seed=seed, duration=limit)
    graph = Graph(sc)
    nav = graph.controller(PRIORITY_ROBOT).navigator
    if nav is None or not nav.mission:
        raise ValueError(f'scenario {scenario!r}: {PRIORITY_ROBOT} has no mission to time')
    goal = len(nav.mission)
    arrived: list[float] = []

    def check(now_ns: int) -> None:
        if len(nav.arrivals) >= goal:
            arrived.append(now_ns / 1e9)
            raise _Arrived

    try:
        graph.run(limit, check=check)
    except _Arrived:
        pass
    preemptions = {node.core.place.intersection: node.core.preemptions
                   for node in graph.nodes.values() if isinstance(node, TrafficLightNode)}
    return Trip(seed, len(sc.robots), arrived[0] if arrived else None, sum(preemptions.values()))


@dataclass(frozen=True)
class TripJob:
    """One trip to time: plain data, so that a worker process or machine can run it."""

    scenario: str
    robots: int
    seed: int
    limit: float


def trip_job(job: TripJob) -> Trip:
    return trip(job.scenario, job.robots, job.seed, job.limit)


def experiment(scenario: str = 'priority', seeds: tuple[int, ...] = (1, 2, 3, 4, 5), robots: int | None = None,
               limit: float = 1200.0, on_trip: Callable[[Trip], None] | None = None, *,
               workers: int | None = 1, scheduler: str | None = None, progress: bool = False) -> list[dict]:
    """One row per seed: the trip alone, with traffic, and their ratio.

    The trips are independent jobs (experiments/sweep.py: `workers`, `scheduler`); the rows are
    the same whatever runs them. A trip that raised leaves its times empty and the row names it
    in `error`.
    """
    if Path(scenario).exists():  # a file: the same one for workers whatever their folder
        scenario = str(Path(scenario).resolve())
    busy = robots or len(load_scenario(scenario).robots)
    jobs = [TripJob(scenario, count, seed, limit) for seed in seeds for count in (1, busy)]

    def finished(outcome: sweep.Outcome) -> str:
        job = outcome.job
        if not outcome.ok:
            return f'seed {job.seed}, {job.robots} robots: ERROR: {outcome.error}'
        if on_trip:
            on_trip(outcome.value)
        t = outcome.value.time
        return f"seed {job.seed}, {outcome.value.robots} robots: {'not arrived' if t is None else f'{t:.1f} s'}"

    outcomes = sweep.run(trip_job, jobs, workers=workers, scheduler=scheduler, describe=finished,
                         progress=progress, unit='trip')
    rows = []
    for alone, crowd in zip(outcomes[::2], outcomes[1::2]):
        a, b = alone.value if alone.ok else None, crowd.value if crowd.ok else None
        ratio = b.time / a.time if a and b and a.time and b.time else None
        row = {'seed': crowd.job.seed, 'robots': b.robots if b else crowd.job.robots,
               'alone_s': a.time if a else None, 'traffic_s': b.time if b else None,
               'ratio': None if ratio is None else round(ratio, 3), 'preemptions': b.preemptions if b else None}
        errors = [f'{o.job.robots} robot{"" if o.job.robots == 1 else "s"}: {o.error}'
                  for o in (alone, crowd) if not o.ok]
        if errors:
            row['error'] = '; '.join(errors)
        rows.append(row)
    return rows
