"""A node refused for a bad parameter exits with code 2 and one clear line, no traceback."""
import sys
import types

import pytest

from thymio_road.nodes import ros_main
from thymio_road.nodes.controller_node import ControllerNode
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode


@pytest.fixture
def fake_rclpy(monkeypatch):
    """rclpy's process functions around an embedded node that has the user's -p overrides."""
    state = {'logged': [], 'spun': False, 'shutdown': False, 'overrides': {}}

    def create_node(name):
        node = EmbeddedNode(Executor(), name, '/thymio1', state['overrides'])
        node.get_logger().fatal = state['logged'].append
        return node
    rclpy = types.ModuleType('rclpy')
    rclpy.init = lambda args=None: None
    rclpy.create_node = create_node
    rclpy.spin = lambda node: state.update(spun=True)
    rclpy.ok = lambda: not state['shutdown']
    rclpy.shutdown = lambda: state.update(shutdown=True)
    executors = types.ModuleType('rclpy.executors')
    executors.ExternalShutdownException = RuntimeError
    monkeypatch.setitem(sys.modules, 'rclpy', rclpy)
    monkeypatch.setitem(sys.modules, 'rclpy.executors', executors)
    return state


def test_bad_parameter_exits_2_with_the_message(fake_rclpy):
    fake_rclpy['overrides'] = {'speed': 'fast'}
    with pytest.raises(SystemExit) as exit_info:
        ros_main.spin('controller', ControllerNode, [])
    assert exit_info.value.code == 2
    assert fake_rclpy['logged'] == ["/thymio1/controller: parameter speed: must be an integer, got 'fast' (str)"]
    assert not fake_rclpy['spun'] and fake_rclpy['shutdown']


def test_good_parameters_spin(fake_rclpy):
    fake_rclpy['overrides'] = {'mission': 5}
    ros_main.spin('controller', ControllerNode, [])
    assert fake_rclpy['spun'] and fake_rclpy['shutdown'] and not fake_rclpy['logged']
