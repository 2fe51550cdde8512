# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The world node starts simulated time only once every robot's controller is connected."""
from __future__ import annotations

from thymio_road.nodes import msgs
from thymio_road.nodes.world_node import WorldNode
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.scenario import load_scenario


def _world(executor, **params):
    scenario = load_scenario('oval', robots=2)
    return WorldNode(EmbeddedNode(executor, 'world', '/', {'scenario_file': str(scenario.source),
                                                           'robot_count': 2, **params}))


def test_time_waits_for_every_controller():
    """Over DDS a controller can connect seconds after the world: its robot used to stand while
    the others drove (a 25 cm difference from the embedded run in the parity test).
    """
    executor = Executor()
    world = _world(executor)
    for _ in range(5):
        world._on_tick()
    assert world.tick == 0
    controller = EmbeddedNode(executor, 'controller', '/thymio1', {})
    controller.create_publisher(msgs.Twist, 'cmd_vel', msgs.DEFAULT)
    world._on_tick()
    assert world.tick == 0                 # thymio2's controller is still missing
    EmbeddedNode(executor, 'controller', '/thymio2', {}).create_publisher(msgs.Twist, 'cmd_vel', msgs.DEFAULT)
    world._on_tick()
    world._on_tick()
    assert world.tick == 2


def test_without_controllers_time_starts_after_the_timeout(caplog):
    world = _world(Executor(), start_timeout=0.0)
    with caplog.at_level('WARNING'):
        world._on_tick()
    assert world.tick == 1
    assert 'starting without controllers for thymio1, thymio2' in caplog.text


def test_the_range_table_is_prox_distance_for_every_raw_value():
    """The proximity Range's range comes from a table (world_node._PROX_DISTANCES): the same
    floats as robot_model.prox_distance, value by value.
    """
    from thymio_road.nodes import world_node
    from thymio_road.sim import robot_model as rm
    table = world_node._PROX_DISTANCES
    assert len(table) == int(rm.PROX_M) + 1
    assert all(table[v] == float(rm.prox_distance(v)) for v in range(len(table)))
