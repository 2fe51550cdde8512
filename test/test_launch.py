# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The launch files start what the embedded runtime runs (ROS 2 launch is not installed here).

launch / launch_ros / ament_index_python are replaced by recording stand-ins, so what is checked
is our wiring: every Node action gets exactly the executable, name, namespace, parameters and
remappings of thymio_road.ros.launch_plan.plan, whose simulated part is node_specs — the function
the embedded runtime instantiates (checked against a live embedded graph too).
"""
import importlib.util
import os
from pathlib import Path
import shutil
import sys
import types

import pytest
import yaml

from thymio_road.ros import launch_plan as lg
from thymio_road.scenario import load_scenario, node_specs, robot_specs

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = ROOT / 'launch'


class Recorded:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class Config(Recorded):
    """LaunchConfiguration: performs to the value the test gives, else the declared default."""

    values: dict = {}

    def perform(self, context):
        name = self.args[0]
        return self.values[name] if name in self.values else self.kwargs.get('default')


def installed_prefix(package):
    """ament_index_python's get_package_prefix, from AMENT_PREFIX_PATH as the real one reads it:
    a colcon install space when the tests run under `colcon test`, else usually nothing.
    """
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if prefix and (Path(prefix) / 'share/ament_index/resource_index/packages' / package).is_file():
            return prefix
    raise LookupError(f"package '{package}' not found")


@pytest.fixture
def load_launch(monkeypatch):
    fakes = {
        'launch': {'LaunchDescription': Recorded},
        'launch.actions': {'DeclareLaunchArgument': Recorded, 'ExecuteProcess': Recorded,
                           'OpaqueFunction': Recorded, 'IncludeLaunchDescription': Recorded},
        'launch.substitutions': {'LaunchConfiguration': Config},
        'launch.launch_description_sources': {'PythonLaunchDescriptionSource': Recorded},
        'launch_ros': {},
        'launch_ros.actions': {'Node': Recorded},
        'ament_index_python': {},
        'ament_index_python.packages': {'get_package_share_directory': lambda package: str(ROOT),
                                        'get_package_prefix': installed_prefix},
    }
    for name, attrs in fakes.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, module)

    def load(file_name):
        spec = importlib.util.spec_from_file_location(file_name.replace('.', '_'), LAUNCH / file_name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load


def declared(description):
    return {a.args[0]: a.kwargs['default_value'] for a in description.args[0] if 'default_value' in a.kwargs}


def run_road_network(load_launch, values):
    """Evaluate road_network.launch.py with launch arguments `values` → (nodes, other actions)."""
    description = load_launch('road_network.launch.py').generate_launch_description()
    Config.values = {**declared(description), **values}   # as launch does: given, else the default
    opaque = description.args[0][-1]
    actions = opaque.kwargs['function'](context=None)
    ours = [a.kwargs for a in actions if _ours(a)]
    return ours, [a for a in actions if not _ours(a)]


def _ours(action):
    """One of our nodes: by package (colcon install) or by the console script's path (pip install)."""
    kwargs = action.kwargs
    return kwargs.get('package') == 'thymio_road' or (
        kwargs.get('package') is None and Path(str(kwargs.get('executable', ''))).name.startswith('thymio_'))


def as_tuples(nodes):
    return [(Path(n['executable']).name, n['name'], n['namespace'], n['parameters'][0], tuple(n['remappings']))
            for n in nodes]


def spec_tuples(specs):
    return [(s.executable, s.name, s.namespace, s.parameters, tuple(s.remappings)) for s in specs]


@pytest.fixture
def ros_programs(monkeypatch):
    """ros2 and rviz2 on PATH and rosbag2 in the ament index, as on a ROS 2 machine."""
    real_which = shutil.which
    monkeypatch.setattr(shutil, 'which', lambda name: f'/opt/ros/jazzy/bin/{name}' if name in ('ros2', 'rviz2')
                        else real_which(name))
    monkeypatch.setattr(lg, 'ament_package_installed', lambda package: package in lg.RECORD_PACKAGES)


def test_launch_nodes_match_the_embedded_graph(load_launch, ros_programs):
    nodes, others = run_road_network(load_launch, {'scenario': 'oval', 'robots': '4', 'seed': '3',
                                                   'record': 'true', 'bag': 'out'})
    assert as_tuples(nodes) == spec_tuples(node_specs(load_scenario('oval', robots=4, seed=3)))
    assert [a.kwargs['cmd'] for a in others] == [['ros2', 'bag', 'record', '--all', '--storage', 'mcap',
                                                  '--output', 'out']]
    assert all(n['output'] == 'screen' for n in nodes)


def test_declared_arguments_and_defaults(load_launch):
    Config.values = {}
    args = declared(load_launch('road_network.launch.py').generate_launch_description())
    assert list(args) == [name for name, _, _ in lg.ARGUMENTS]
    assert {'scenario', 'robots', 'record', 'rviz', 'use_sim_time', 'real'} <= set(args)
    nodes, others = run_road_network(load_launch, {})          # every default
    assert as_tuples(nodes) == spec_tuples(node_specs(load_scenario('oval')))
    assert others == []                                        # no recording, no RViz by default


def test_embedded_runtime_instantiates_the_same_specs():
    """The embedded Graph builds one EmbeddedNode per spec with the spec's name, namespace, parameters."""
    from thymio_road.runtime.run import Graph
    scenario = load_scenario('oval', robots=2)
    graph = Graph(scenario)
    handles = [wrapper.node for wrapper in graph.nodes.values()]
    got = [(h.get_name(), h.get_namespace(), h._overrides, tuple(h._remappings.items())) for h in handles]
    assert got == [(s.name, s.namespace, s.parameters, tuple(s.remappings))
                   for s in lg.plan({'robots': '2'}).nodes]


def test_rviz_is_started_with_the_shipped_or_a_generated_config(load_launch, ros_programs):
    _, others = run_road_network(load_launch, {'rviz': 'true'})
    rviz = others[0].kwargs
    assert (rviz['package'], rviz['executable']) == ('rviz2', 'rviz2')
    assert rviz['arguments'] == ['-d', str(ROOT / 'config' / 'rviz' / 'road_network.rviz')]
    assert rviz['parameters'] == [{'use_sim_time': True}]
    _, others = run_road_network(load_launch, {'rviz': 'true', 'robots': '5'})
    config = Path(others[0].kwargs['arguments'][1])
    assert config.is_file() and config != ROOT / 'config' / 'rviz' / 'road_network.rviz'
    topics = str(yaml.safe_load(config.read_text()))
    assert '/thymio5/proximity/rear_right' in topics


def test_real_robots_get_a_driver_instead_of_the_simulation(load_launch, tmp_path):
    calibration = tmp_path / 'thymios.yaml'
    calibration.write_text('thymio3: {robot_name: "Thymio 12", speed_factor: 1.05, gain_right: 0.97, '
                           'grey_ref: 480}\nthymio9: {speed_factor: 0.9}\n')
    nodes, _ = run_road_network(load_launch, {'real': 'thymio3', 'calibration': str(calibration),
                                              'tdm_host': '192.0.2.1', 'tdm_port': '8596'})
    scenario = load_scenario('oval')
    expected = spec_tuples(lg.real_robot_specs(scenario, ['thymio3'], tdm_host='192.0.2.1', tdm_port=8596,
                                               calibration=lg.load_calibration(calibration)))
    assert as_tuples(nodes) == expected
    by_key = {(n['namespace'], Path(n['executable']).name): n['parameters'][0] for n in nodes}
    world = by_key[('/', 'thymio_world')]
    # The world keeps the scenario's robots (and their start poses) and leaves thymio3 out.
    assert world['robot_count'] == 3 and world['real_robots'] == 'thymio3'
    driver = by_key[('/thymio3', 'thymio_driver')]
    pose = next(s for s in robot_specs(scenario) if s.name == 'thymio3')
    assert (driver['initial_x'], driver['initial_y'], driver['initial_theta']) == (pose.x, pose.y, pose.theta)
    assert (driver['tdm_host'], driver['tdm_port'], driver['robot_name']) == ('192.0.2.1', 8596, 'Thymio 12')
    assert (driver['speed_factor'], driver['gain_left'], driver['gain_right']) == (1.05, 1.0, 0.97)
    assert by_key[('/thymio3', 'thymio_controller')]['grey_ref'] == 480
    assert by_key[('/thymio2', 'thymio_controller')]['grey_ref'] == 500
    # Everything but the real robot's nodes is node_specs, unchanged.
    sim = [s for s in spec_tuples(node_specs(scenario)) if s[2] != '/thymio3' and s[0] != 'thymio_world']
    assert [t for t in as_tuples(nodes) if t[2] != '/thymio3' and t[0] != 'thymio_world'] == sim


def test_all_real_robots_run_without_a_world_on_wall_time(load_launch):
    nodes, _ = run_road_network(load_launch, {'real': 'all', 'robots': '2'})
    assert [(Path(n['executable']).name, n['namespace']) for n in nodes] == [
        ('thymio_driver', '/thymio1'), ('thymio_controller', '/thymio1'),
        ('thymio_driver', '/thymio2'), ('thymio_controller', '/thymio2')]
    assert all(n['parameters'][0]['use_sim_time'] is False for n in nodes)


@pytest.mark.parametrize('arguments,message', [
    ({'robots': 'three'}, "robots:='three': expected an integer"),
    ({'robots': '-1'}, "robots:='-1': must be in 0..1000"),
    ({'record': 'maybe'}, "record:='maybe': expected true or false"),
    ({'scenario': 'nowhere'}, "scenario:='nowhere': no scenario named 'nowhere'"),
    ({'real': 'thymio7'}, "real:='thymio7': no robot thymio7 in scenario 'oval'"),
    ({'real': 'all', 'use_sim_time': 'true'}, "use_sim_time:='true': no world runs to publish /clock"),
    ({'tdm_port': '99999'}, "tdm_port:='99999': must be in 0..65535"),
    ({'calibration': '/no/such/file.yaml'}, "calibration:='/no/such/file.yaml': cannot read"),
    ({'rviz': 'true', 'rviz_config': '/no/such.rviz'}, "rviz_config:='/no/such.rviz': no such file"),
    ({'robts': '2'}, "unknown launch argument.*'robts'"),
])
def test_bad_launch_arguments_name_the_argument_and_value(arguments, message, ros_programs):
    with pytest.raises(lg.LaunchArgumentError, match=message):
        lg.plan(arguments)


@pytest.mark.parametrize('text,message', [
    ('thymio1: {speed_factor: 5.0}', 'thymio1: calibration speed_factor must be a number in'),
    ('thymio1: {gain: 1.0}', 'thymio1.gain: unknown field'),
    ('thymio1: {grey_ref: 2000}', 'thymio1.grey_ref: must be in 1..1022'),
    ('thymio1: {robot_name: 7}', 'thymio1.robot_name: must be str'),
    ('[1, 2]', 'must map robot names to calibrations'),
])
def test_bad_calibration_files_name_robot_and_field(tmp_path, text, message):
    path = tmp_path / 'cal.yaml'
    path.write_text(text)
    with pytest.raises(lg.LaunchArgumentError, match=message):
        lg.load_calibration(path)


def included_arguments(load_launch, file_name, values):
    """The launch arguments a wrapper launch file passes to road_network.launch.py, performed."""
    Config.values = dict(values)
    description = load_launch(file_name).generate_launch_description()
    defaults = declared(description)
    include = description.args[0][-1]
    source = include.args[0]
    assert Path(source.args[0]) == LAUNCH / 'road_network.launch.py'
    forwarded = {}
    for name, value in include.kwargs['launch_arguments']:
        if isinstance(value, Config):
            forwarded[name] = values.get(value.args[0], defaults.get(value.args[0]))
        else:
            forwarded[name] = value
    return forwarded


def test_single_robot_launch(load_launch):
    simulated = lg.plan(included_arguments(load_launch, 'thymio.launch.py', {}))
    assert [(s.executable, s.namespace) for s in simulated.nodes] == [
        ('thymio_world', '/'), ('thymio_controller', '/thymio1')]
    assert simulated.nodes == tuple(node_specs(load_scenario('oval', robots=1)))
    real = lg.plan(included_arguments(load_launch, 'thymio.launch.py', {'real': 'true', 'tdm_host': 'localhost'}))
    assert [(s.executable, s.namespace) for s in real.nodes] == [
        ('thymio_driver', '/thymio1'), ('thymio_controller', '/thymio1')]
    assert real.nodes[0].parameters['tdm_host'] == 'localhost'


def test_real_robots_and_oval_launch_forward_to_road_network(load_launch, ros_programs):
    real = lg.plan(included_arguments(load_launch, 'real_robots.launch.py', {'robots': '2', 'rviz': 'true'}))
    assert [s.executable for s in real.nodes] == ['thymio_driver', 'thymio_controller'] * 2
    assert real.rviz is not None and real.rviz.use_sim_time is False
    oval = lg.plan(included_arguments(load_launch, 'oval.launch.py', {'robots': '2', 'record': 'true'}))
    assert oval.nodes == tuple(node_specs(load_scenario('oval', robots=2)))
    assert oval.record.cmd == lg.record_command()


def test_future_nodes_of_node_specs_pass_through(monkeypatch):
    """ir_medium / traffic lights added to node_specs later are launched as they are (and simulators
    are told which robots are real).
    """
    from thymio_road.scenario import NodeSpec

    def with_medium(scenario):
        return [*node_specs(scenario), NodeSpec('thymio_ir_medium', 'ir_medium', '/', {'model': 'enki'}),
                NodeSpec('thymio_traffic_light', 'light', '/light1', {'node': 1}, (('in', 'out'),))]
    monkeypatch.setattr(lg, 'node_specs', with_medium)
    plain = lg.plan({})
    assert plain.nodes[-2:] == tuple(with_medium(load_scenario('oval'))[-2:])
    real = lg.plan({'real': 'thymio3'})
    medium = next(s for s in real.nodes if s.executable == 'thymio_ir_medium')
    assert medium.parameters == {'model': 'enki', 'real_robots': 'thymio3'}
    assert real.nodes[-1].remappings == (('in', 'out'),)


def test_once_the_world_skips_real_robots_any_subset_may_be_real(monkeypatch):
    monkeypatch.setattr(lg, 'WORLD_HONOURS_REAL_ROBOTS', True)
    nodes = lg.plan({'real': 'thymio1'}).nodes
    world = nodes[0].parameters
    assert (world['robot_count'], world['real_robots']) == (3, 'thymio1')   # the full scenario, minus thymio1
    assert [(s.executable, s.namespace) for s in nodes[1:3]] == [('thymio_driver', '/thymio1'),
                                                                 ('thymio_controller', '/thymio1')]


def test_any_robot_can_be_real():
    """The world and the IR medium leave out exactly the robots named real."""
    scenario = load_scenario('oval')
    specs = lg.real_robot_specs(scenario, ['thymio1'])
    world_params = next(s for s in specs if s.executable == 'thymio_world').parameters
    from thymio_road.nodes.world_node import WorldNode
    from thymio_road.runtime.executor import Executor
    from thymio_road.runtime.node import EmbeddedNode
    world = WorldNode(EmbeddedNode(Executor(), 'world', '/', world_params)).world
    assert [s.name for s in world.specs] == ['thymio2', 'thymio3']


@pytest.mark.parametrize('argument,program', [('record', 'ros2'), ('rviz', 'rviz2')])
def test_a_missing_program_refuses_the_launch_before_anything_starts(load_launch, monkeypatch, argument, program):
    """rviz:=true without rviz2 used to start the world and controllers and then fail, orphaning
    them; record:=true without ros2 logged an error and ran unrecorded.
    """
    real_which = shutil.which
    monkeypatch.setattr(shutil, 'which', lambda name: None if name == program else real_which(name))
    with pytest.raises(lg.LaunchArgumentError, match=f"{argument}:=true needs '{program}'"):
        run_road_network(load_launch, {argument: 'true'})


def test_record_without_rosbag2_refuses_the_launch(monkeypatch):
    """`ros2` on PATH is not enough: without rosbag2 `ros2 bag record` died at once ("invalid
    choice: 'bag'") and the graph ran on unrecorded.
    """
    which = lambda name: f'/opt/ros/jazzy/bin/{name}'  # noqa: E731
    with pytest.raises(lg.LaunchArgumentError, match="record:=true needs 'ros2 bag' with MCAP storage, but "
                       'ros2bag and rosbag2_storage_mcap are not installed'):
        lg.plan({'record': 'true'}, which=which, installed=lambda package: False)
    with pytest.raises(lg.LaunchArgumentError, match='but rosbag2_storage_mcap is not installed'):
        lg.plan({'record': 'true'}, which=which, installed=lambda package: package == 'ros2bag')
    assert lg.plan({'record': 'true'}, which=which, installed=lambda package: True).record is not None
    assert lg.plan({}, which=which, installed=lambda package: False).record is None   # not asked unless recording


def test_ament_package_installed_reads_the_index(tmp_path, monkeypatch):
    marker = tmp_path / 'share' / 'ament_index' / 'resource_index' / 'packages' / 'ros2bag'
    marker.parent.mkdir(parents=True)
    monkeypatch.setenv('AMENT_PREFIX_PATH', f'/nowhere{os.pathsep}{tmp_path}')
    assert not lg.ament_package_installed('ros2bag')
    marker.write_text('')
    assert lg.ament_package_installed('ros2bag') and not lg.ament_package_installed('rosbag2_storage_mcap')


def test_nodes_run_from_the_installed_scripts(load_launch):
    """Whichever install this is: colcon's (lib/thymio_road/ under the ament prefix: by package
    and name, as launch_ros finds them) or pip's (bin/, where launch_ros does not look: the
    script's absolute path and no package).
    """
    nodes, _ = run_road_network(load_launch, {'robots': '1'})
    for node in nodes:
        if node['package'] is None:
            assert Path(node['executable']).is_absolute() and Path(node['executable']).is_file()
        else:
            script = Path(installed_prefix('thymio_road')) / 'lib' / 'thymio_road' / node['executable']
            assert node['package'] == 'thymio_road' and script.is_file()


def test_node_executable_from_a_pip_install(tmp_path, monkeypatch):
    """Not in the ament index (a plain venv): the console script beside the interpreter, by path."""
    packages = types.ModuleType('ament_index_python.packages')
    packages.get_package_prefix = installed_prefix
    monkeypatch.setitem(sys.modules, 'ament_index_python', types.ModuleType('ament_index_python'))
    monkeypatch.setitem(sys.modules, 'ament_index_python.packages', packages)
    monkeypatch.delenv('AMENT_PREFIX_PATH', raising=False)
    (tmp_path / 'bin').mkdir()
    (tmp_path / 'bin' / 'thymio_world').write_text('#!/bin/sh\n')
    monkeypatch.setattr(sys, 'executable', str(tmp_path / 'bin' / 'python'))
    assert lg.node_executable('thymio_world') == (None, str(tmp_path / 'bin' / 'thymio_world'))


def test_node_executable_prefers_the_colcon_layout(tmp_path, monkeypatch):
    packages = types.ModuleType('ament_index_python.packages')
    packages.get_package_prefix = lambda package: str(tmp_path)
    monkeypatch.setitem(sys.modules, 'ament_index_python', types.ModuleType('ament_index_python'))
    monkeypatch.setitem(sys.modules, 'ament_index_python.packages', packages)
    (tmp_path / 'lib' / 'thymio_road').mkdir(parents=True)
    (tmp_path / 'lib' / 'thymio_road' / 'thymio_world').write_text('#!/bin/sh\n')
    assert lg.node_executable('thymio_world') == ('thymio_road', 'thymio_world')
    with pytest.raises(lg.LaunchArgumentError, match="'thymio_nothing' is neither in"):
        lg.node_executable('thymio_nothing')
