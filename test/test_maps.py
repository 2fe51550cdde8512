# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Issue #4 acceptance: one robot, 30 simulated minutes on each shipped map, random decisions."""
import pytest

from thymio_road.experiments.passages import drive
from thymio_road.scenario import load_scenario


@pytest.mark.parametrize('name,kinds', [('simple', {'roundabout', 'location'}),
                                        ('final', {'roundabout', 'location', 'branching', 'crossroad'})])
def test_thirty_minutes_without_road_loss_and_on_the_chosen_branch(name, kinds):
    summary, score = drive(load_scenario(name, duration=1800))
    assert summary['road_losses'] == 0
    assert summary['time_on_road_s'] == pytest.approx(summary['time_s'])
    assert score.unmatched == 0
    assert len(score.passages) >= 20
    assert score.success_rate >= 0.99, score.as_dict()['failures']
    counts = score.counts()
    assert {key.split()[0] for key in counts} == kinds
    assert any(key.endswith('exit') for key in counts) and any(key.endswith('continue') for key in counts)
    if 'crossroad' in kinds:
        assert {key.split()[1] for key in counts if key.startswith('crossroad')} == {'right', 'straight', 'left'}


def test_delivery_missions_from_the_scenario_are_completed():
    """Three robots with missions given in the scenario each visit their locations in order."""
    import json

    from thymio_road.nodes import msgs
    from thymio_road.runtime.node import EmbeddedNode
    from thymio_road.runtime.run import Graph

    scenario = load_scenario('delivery', duration=800)
    graph = Graph(scenario)
    arrivals = {r.name: [] for r in scenario.robots}
    observer = EmbeddedNode(graph.executor, 'observer')
    for robot in scenario.robots:
        observer.create_subscription(msgs.String, f'/{robot.name}/controller/events',
                                     lambda m, name=robot.name: arrivals[name].append(json.loads(m.data)), 100)
    graph.run(scenario.duration)
    for robot in scenario.robots:
        wanted = [int(m) for m in robot.mission.split(',')]
        reached = [e['location'] for e in arrivals[robot.name] if e['kind'] == 'arrival' and e['target']]
        assert reached[:len(wanted)] == wanted, (robot.name, reached)
    assert graph.world_node.world.contacts.sum() == 0
