# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Node parameters keep their dataclass types whatever the scenario or the command line wrote."""
from pathlib import Path

import pytest
import yaml

from thymio_road.control.controller import ControllerParams
from thymio_road.nodes import msgs
from thymio_road.nodes.controller_node import ControllerNode
from thymio_road.nodes.params import convert, field_types, ParameterTypeError
from thymio_road.nodes.world_node import WorldNode
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario, node_specs, ScenarioError
from thymio_road.sim.world import WorldParams


def test_conversion_is_lossless_or_refused():
    assert convert(10, float, 'w') == 10.0 and isinstance(convert(10, float, 'w'), float)
    assert convert(5, str, 'w') == '5'
    assert convert(True, bool, 'w') is True
    with pytest.raises(ParameterTypeError, match=r'w: must be an integer, got 2.5 \(float\)'):
        convert(2.5, int, 'w')
    with pytest.raises(ParameterTypeError, match='must be a number'):
        convert(True, float, 'w')
    with pytest.raises(ParameterTypeError, match='must be a boolean'):
        convert(1, bool, 'w')


def test_an_integer_world_parameter_in_the_scenario_runs(tmp_path):
    """`world: {ground_noise: 10}` crashed the world node on rclpy (INTEGER against DOUBLE)."""
    (tmp_path / 'oval.yaml').write_text(Path(load_scenario('oval').road_map.source).read_text())
    path = tmp_path / 's.yaml'
    path.write_text(yaml.safe_dump({'map': 'oval.yaml', 'world': {'ground_noise': 10, 'prox_noise': 0},
                                    'robots': {'count': 1, 'road': 'loop'}}))
    scenario = load_scenario(path)
    graph = Graph(scenario)
    params = graph.world_node.world.params
    assert params.ground_noise == 10.0 and isinstance(params.ground_noise, float)
    assert isinstance(params.prox_noise, float)


def test_node_specs_emit_the_dataclass_types():
    types = {**field_types(WorldParams), **field_types(ControllerParams)}
    for spec in node_specs(load_scenario('final_traffic', robots=2)):
        for name, value in spec.parameters.items():
            if name in types:
                assert type(value) is types[name], (spec.name, name, value)


def _world_handle(**params):
    scenario = load_scenario('oval', robots=1)
    return EmbeddedNode(Executor(), 'world', '/', {'scenario_file': str(scenario.source), **params})


def test_user_values_of_another_type_are_converted_or_refused_clearly():
    world = WorldNode(_world_handle(ground_noise=10, robot_count=1))
    assert world.world.params.ground_noise == 10.0
    with pytest.raises(ParameterTypeError, match=r'/world: parameter physics_dt: must be a number, got '
                                                 r"'fast' \(str\)"):
        WorldNode(_world_handle(physics_dt='fast'))
    # `ros2 run thymio_road thymio_controller --ros-args -p mission:=5` gives an integer
    controller = ControllerNode(EmbeddedNode(Executor(), 'controller', '/thymio1',
                                             {'mission': 5, 'speed_factor': 1, 'map_file': ''}))
    assert controller._mission == '5' and controller.core.params.speed_factor == 1.0
    with pytest.raises(ParameterTypeError, match=r'/thymio1/controller: parameter speed: must be an integer, '
                                                 r'got 150.5'):
        ControllerNode(EmbeddedNode(Executor(), 'controller', '/thymio1', {'speed': 150.5}))


def test_map_is_published_at_map_resolution_and_sensors_keep_the_raster():
    """/map at 1 mm was 38 MB for the final map; at the default 5 mm it is under 2 MB."""
    scenario = load_scenario('final', robots=1)
    handle = EmbeddedNode(Executor(), 'world', '/', {'scenario_file': str(scenario.source), 'robot_count': 1})
    world = WorldNode(handle)
    got = []
    handle.create_subscription(msgs.OccupancyGrid, '/map', got.append, msgs.LATCHED)
    handle.executor.run_until(0)
    (grid,) = got
    assert grid.info.resolution == 0.005 and (grid.info.width, grid.info.height) == (1560, 980)
    assert len(grid.data) < 2_000_000
    assert world.world.ground.response.shape == scenario.road_map.shape  # sensors: 1 mm


def test_a_map_resolution_that_is_not_a_multiple_of_the_raster_is_refused(tmp_path):
    (tmp_path / 'oval.yaml').write_text(Path(load_scenario('oval').road_map.source).read_text())
    path = tmp_path / 's.yaml'
    path.write_text(yaml.safe_dump({'map': 'oval.yaml', 'world': {'map_resolution': 0.0025},
                                    'robots': {'count': 1, 'road': 'loop'}}))
    with pytest.raises(ScenarioError, match=r's.yaml: scenario.world.map_resolution: must be a whole multiple '
                                            r'of the map resolution 0.001 m, got 0.0025'):
        load_scenario(path)


def test_a_map_resolution_given_to_the_world_node_is_checked():
    with pytest.raises(ValueError, match=r'world: parameter map_resolution: must be a whole multiple of the '
                                         r'map resolution 0.001 m, got 0.0025'):
        WorldNode(_world_handle(map_resolution=0.0025))


class _DescribedNode(EmbeddedNode):
    """An embedded node that keeps the descriptor each parameter was declared with."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.descriptors = {}

    def declare_parameter(self, name, value=None, descriptor=None, ignore_override=False):
        self.descriptors[name] = descriptor
        return super().declare_parameter(name, value, descriptor, ignore_override)


def test_parameters_read_at_start_up_are_read_only():
    """Once, rclpy answered "Set parameter successful" to `ros2 param set /thymio1/controller speed 150`
    and nothing changed: a parameter the node reads only in its constructor is declared read-only
    (then rclpy refuses the set). Only the controller's mission takes effect at run time.
    """
    from thymio_road.nodes.driver_node import DriverNode
    from thymio_road.nodes.ir_medium_node import IrMediumNode
    from thymio_road.nodes.traffic_light_node import TrafficLightNode
    scenario = load_scenario('final_traffic', robots=2)
    light = scenario.lights[0].name
    handles = {
        WorldNode: _DescribedNode(Executor(), 'world', '/', {'scenario_file': str(scenario.source), 'robot_count': 2}),
        ControllerNode: _DescribedNode(Executor(), 'controller', '/thymio1'),
        IrMediumNode: _DescribedNode(Executor(), 'ir_medium', '/', {'scenario_file': str(scenario.source)}),
        TrafficLightNode: _DescribedNode(Executor(), 'traffic_light', f'/{light}',
                                         {'scenario_file': str(scenario.source), 'light': light}),
    }
    for node_class, handle in handles.items():
        node_class(handle)
    driver = _DescribedNode(Executor(), 'driver', '/thymio1')
    DriverNode(driver, link=object())   # no connection is made before its timer runs
    handles[DriverNode] = driver
    for node_class, handle in handles.items():
        assert handle.descriptors, node_class
        writable = {name for name, d in handle.descriptors.items() if not d.read_only}
        assert writable == ({'mission'} if node_class is ControllerNode else set()), (node_class, writable)
        assert all(d.dynamic_typing for d in handle.descriptors.values())


def test_a_world_started_bare_runs_the_oval_and_an_empty_scenario_is_refused_by_name():
    """`ros2 run thymio_road thymio_world` died with '.: cannot read: Is a directory'."""
    world = WorldNode(EmbeddedNode(Executor(), 'world', '/'))
    assert world.scenario.name == 'oval' and world.names == ['thymio1', 'thymio2', 'thymio3']
    with pytest.raises(ValueError, match="/world: parameter scenario_file: empty: give a shipped scenario's name"):
        WorldNode(EmbeddedNode(Executor(), 'world', '/', {'scenario_file': ' '}))
    with pytest.raises(ValueError, match='/world: parameter robot_count: must be 0'):
        WorldNode(EmbeddedNode(Executor(), 'world', '/', {'robot_count': -2}))
