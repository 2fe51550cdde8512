"""The launch file builds its nodes from node_specs (ROS 2 launch is not installed here).

launch / launch_ros are replaced by recording stand-ins, so what is checked is our wiring:
every Node action gets exactly the executable, name, namespace and parameters that the
embedded runtime instantiates.
"""
import importlib.util
import sys
import types
from pathlib import Path

import pytest

from thymio_road.scenario import load_scenario, node_specs

LAUNCH = Path(__file__).resolve().parent.parent / 'launch' / 'road_network.launch.py'


class Recorded:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class Config(Recorded):
    values = {}

    def perform(self, context):
        return self.values[self.args[0]]


@pytest.fixture
def launch_module(monkeypatch):
    fakes = {
        'launch': {'LaunchDescription': Recorded},
        'launch.actions': {'DeclareLaunchArgument': Recorded, 'ExecuteProcess': Recorded,
                           'OpaqueFunction': Recorded},
        'launch.substitutions': {'LaunchConfiguration': Config},
        'launch_ros': {},
        'launch_ros.actions': {'Node': Recorded},
    }
    for name, attrs in fakes.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location('road_network_launch', LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_launch_nodes_match_the_embedded_graph(launch_module):
    Config.values = {'scenario': 'oval', 'robots': '4', 'seed': '3', 'record': 'true', 'bag': 'out'}
    description = launch_module.generate_launch_description()
    declared = [a.args[0] for a in description.args[0] if 'default_value' in a.kwargs]
    assert declared == ['scenario', 'robots', 'seed', 'record', 'bag']
    opaque = description.args[0][-1]
    actions = opaque.kwargs['function'](context=None)
    nodes = [a.kwargs for a in actions if 'package' in a.kwargs]
    expected = node_specs(load_scenario('oval', robots=4, seed=3))
    assert [(n['executable'], n['name'], n['namespace'], n['parameters'][0]) for n in nodes] == \
        [(s.executable, s.name, s.namespace, s.parameters) for s in expected]
    record = [a.kwargs['cmd'] for a in actions if 'cmd' in a.kwargs]
    assert record == [['ros2', 'bag', 'record', '--all', '--storage', 'mcap', '--output', 'out']]
