# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road passages`: one robot with random decisions, each intersection passage checked
against ground truth (the scoring is analysis/passages.py's, which `thymio-road analyze` uses too).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from thymio_road.analysis.passages import PassageScore, score_passages

if TYPE_CHECKING:
    from thymio_road.scenario import Scenario


def drive(scenario: 'Scenario', robot: str = 'thymio1', tail: float = 0.0) -> tuple[dict, PassageScore]:
    """Run a scenario in the embedded runtime and score one robot's intersection passages, leaving
    out the decisions of the last `tail` seconds (a passage still under way at the end would count
    as unmatched).
    """
    import bisect
    import json

    from thymio_road.nodes import msgs
    from thymio_road.runtime.node import EmbeddedNode
    from thymio_road.runtime.run import Graph

    graph = Graph(scenario)
    world = graph.world_node.world
    i = world.index[robot]
    robot_events: list[dict] = []
    world_events: list[dict] = []
    roads: list[tuple[float, str | None]] = []
    observer = EmbeddedNode(graph.executor, 'passages')
    observer.create_subscription(msgs.String, f'/{robot}/controller/events',
                                 lambda m: robot_events.append(json.loads(m.data)), 100)
    observer.create_subscription(msgs.String, '/world/events', lambda m: world_events.append(json.loads(m.data)), 100)
    observer.create_timer(0.1, lambda: roads.append((graph.executor.now_ns / 1e9, world.road_under(i))))
    graph.run(scenario.duration)
    times = [t for t, _ in roads]

    def road_at(t: float) -> str | None:
        k = bisect.bisect_right(times, t) - 1
        return roads[k][1] if k >= 0 else None

    decided = [e for e in robot_events if e.get('kind') != 'decision' or e['t'] <= scenario.duration - tail]
    score = score_passages(scenario.road_map, robot, world_events, decided, road_at, until=scenario.duration)
    summary = next(row for row in world.summary() if row['robot'] == robot)
    return summary, score
