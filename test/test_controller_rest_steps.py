# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""End to end: a traffic run with the controllers' rest steps is the run without them, robot by
robot, bit for bit (what they skip is proven to change nothing; see RoadController._rest_params).
"""
import numpy as np
import pytest

from controller_situations import fingerprint
from thymio_road.control.controller import RoadController
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario

#: The rest step itself (the tests count its calls through a wrapper).
REST_STEP = RoadController._rest_step


def _run(name, robots, seconds, rest_steps, monkeypatch):
    """Final poses, every event of every robot in order, the controllers' states, rest steps taken."""
    monkeypatch.setattr(RoadController, 'rest_steps', rest_steps)
    graph = Graph(load_scenario(name, robots=robots, seed=4), None)
    events = []
    robots = [robot for robot in graph.world_node.names if graph.nodes.get(f'/{robot}/controller') is not None]
    for robot in robots:
        graph.controller(robot).core.drain_events = _recording(graph.controller(robot).core.drain_events, robot, events)
    rest = []
    monkeypatch.setattr(RoadController, '_rest_step', _counting(REST_STEP, rest))
    graph.run(seconds)
    cores = {robot: fingerprint(graph.controller(robot).core) for robot in robots}
    return graph.world_node.world.poses.copy(), events, cores, len(rest)


def _recording(drain, robot, events):
    def drained():
        got = drain()
        events.extend((robot, e.kind, repr(sorted(e.data.items(), key=str))) for e in got)
        return got
    return drained


def _counting(rest_step, counts):
    def counted(self, *args):
        counts.append(1)
        return rest_step(self, *args)
    return counted


@pytest.mark.parametrize('name,robots,seconds', [('final_traffic', 10, 300.0), ('priority', None, 200.0)])
def test_a_run_with_rest_steps_is_the_run_without(name, robots, seconds, monkeypatch):
    poses, events, cores, rest = _run(name, robots, seconds, True, monkeypatch)
    poses_whole, events_whole, cores_whole, rest_whole = _run(name, robots, seconds, False, monkeypatch)
    assert rest > 1000 and rest_whole == 0
    assert np.array_equal(poses, poses_whole)
    assert events == events_whole and len(events) > 100
    assert cores == cores_whole
