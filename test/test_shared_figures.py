# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road run` and `thymio-road analyze` agree on every figure they share (issue #27).

A short final_traffic run is recorded with a contact and a wrong-way drive made on purpose; every
figure summary.json has and the analysis of its bag has too must be the same number
(docs/analysis.md, "Figures run and analyze share").
"""
from __future__ import annotations

import dataclasses
import math

import pytest

from thymio_road.analysis import analyze_bag
from thymio_road.runtime import run as run_module
from thymio_road.scenario import load_scenario

DURATION = 240.0
STALL_TIME = 30.0


class _Incidents(run_module.Graph):
    """The scenario's graph, and two incidents: at 40 s thymio2 is put 1 mm behind thymio3 with its
    avoidance off (it pushes); at 80 s thymio4 is turned round where it stands.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.script = [(40.0, self._push), (80.0, self._turn)]
        self.executor.add_timer(100_000_000, self._tick)

    def _tick(self) -> None:
        while self.script and self.script[0][0] <= self.executor.now_ns / 1e9 + 1e-9:
            self.script.pop(0)[1]()

    def _push(self) -> None:
        world = self.world_node.world
        a, b = world.index['thymio2'], world.index['thymio3']
        x, y, th = world.poses[b]
        back = 0.111   # the rear (3 cm behind the centre) to the front arc (8 cm ahead), and 1 mm
        world.poses[a] = (x - back * math.cos(th), y - back * math.sin(th), th)
        core = self.controller('thymio2').core
        core.params = dataclasses.replace(core.params, avoidance='off')

    def _turn(self) -> None:
        world = self.world_node.world
        i = world.index['thymio4']
        world.poses[i, 2] = (world.poses[i, 2] + 2 * math.pi) % (2 * math.pi) - math.pi


@pytest.fixture(scope='module')
def figures(tmp_path_factory):
    folder = tmp_path_factory.mktemp('shared')
    scenario = load_scenario('final_traffic', robots=4, seed=1, duration=DURATION)
    patch = pytest.MonkeyPatch()
    patch.setattr(run_module, 'Graph', _Incidents)
    try:
        result = run_module.run_scenario(scenario, folder / 'run', record='analysis', progress=False,
                                         picture=False, stall_time=STALL_TIME)
    finally:
        patch.undo()
    from thymio_road.analysis import Options
    analysis, _ = analyze_bag(folder / 'run' / 'bag', options=Options(stall_time=STALL_TIME))
    return result.summary, analysis


@pytest.mark.slow
def test_the_incidents_happened(figures):
    summary, _ = figures
    traffic = summary['traffic']
    assert traffic['hull_contacts'] >= 1 and traffic['contact_samples'] >= 1
    assert traffic['wrong_way']['episodes'] >= 1
    assert {row['robot']: row['contacts'] for row in summary['robots']}['thymio2'] >= 1


@pytest.mark.slow
def test_robots_are_robots_and_lights_are_not(figures):
    summary, analysis = figures
    assert analysis.recording['robots'] == [row['robot'] for row in summary['robots']]
    assert summary['robots_count'] == len(analysis.recording['robots']) == 4
    assert len(analysis.recording['traffic_lights']) == 9


@pytest.mark.slow
def test_every_per_robot_figure_is_the_same(figures):
    summary, analysis = figures
    rows = {row['robot']: row for row in analysis.robots}
    for row in summary['robots']:
        for key in ('distance_m', 'time_s', 'time_on_road_s', 'on_road_fraction', 'road_losses', 'contacts'):
            assert rows[row['robot']][key] == row[key], (row['robot'], key)


@pytest.mark.slow
def test_every_block_is_the_same(figures):
    summary, analysis = figures
    assert analysis.stalls == summary['stalls']
    assert analysis.progress == summary['progress']
    assert analysis.traffic == summary['traffic']
    assert analysis.wrong_way == summary['traffic']['wrong_way']
    for key in ('passages', 'throughput_per_robot_minute', 'throughput_windows', 'robot_minutes'):
        assert analysis.passages[key] == summary['traffic'][key], key
    assert sum(row.get('passages', 0) for row in analysis.robots) == summary['traffic']['passages']
