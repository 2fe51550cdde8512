# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A node process: refused for a bad parameter with exit code 2 and one clear line, no traceback;
stopped by SIGINT/SIGTERM between callbacks, never by an exception raised inside rclpy.
"""
import os
import signal
import sys
import types

import pytest

from thymio_road.nodes import ros_main
from thymio_road.nodes.controller_node import ControllerNode
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode


class Stopped(Exception):
    """What SIGINT/SIGTERM raise in these tests if ros_main.spin leaves them to the previous handler."""


@pytest.fixture
def fake_rclpy(monkeypatch):
    """Stand-ins for rclpy's process functions around an embedded node that has the user's -p overrides.

    The executor's spin_once runs `state['on_spin']` (by default a Ctrl-C: a SIGINT to this process).
    SIGINT and SIGTERM raise Stopped here unless spin handles them, and are put back afterwards.
    """
    state = {'logged': [], 'spun': 0, 'shutdown': False, 'overrides': {}, 'init': None,
             'on_spin': lambda: os.kill(os.getpid(), signal.SIGINT)}

    def create_node(name):
        node = EmbeddedNode(Executor(), name, '/thymio1', state['overrides'])
        node.get_logger().fatal = state['logged'].append
        return node

    class SingleThreadedExecutor:
        def add_node(self, node):
            state['added'] = node

        def remove_node(self, node):
            state['removed'] = node

        def spin_once(self, timeout_sec=None):
            state['spun'] += 1
            state['on_spin']()

        def shutdown(self):
            pass

    def init(args=None, signal_handler_options=None):
        state['signal_handler_options'] = signal_handler_options
        if state['init']:
            state['init']()
    rclpy = types.ModuleType('rclpy')
    rclpy.init = init
    rclpy.create_node = create_node
    rclpy.ok = lambda: not state['shutdown']
    rclpy.shutdown = lambda: state.update(shutdown=True)
    executors = types.ModuleType('rclpy.executors')
    executors.SingleThreadedExecutor = SingleThreadedExecutor
    signals = types.ModuleType('rclpy.signals')
    signals.SignalHandlerOptions = types.SimpleNamespace(NO='no', ALL='all')
    monkeypatch.setitem(sys.modules, 'rclpy', rclpy)
    monkeypatch.setitem(sys.modules, 'rclpy.executors', executors)
    monkeypatch.setitem(sys.modules, 'rclpy.signals', signals)

    def raise_stopped(signum, frame):
        raise Stopped(signum)
    before = {sig: signal.getsignal(sig) for sig in ros_main.STOP_SIGNALS}
    for sig in before:
        signal.signal(sig, raise_stopped)
    yield state
    for sig, handler in before.items():
        signal.signal(sig, handler)


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


def test_a_stop_signal_ends_the_spin_between_callbacks(fake_rclpy):
    """SIGINT or SIGTERM during a callback does not raise there; the loop ends after it, the node is
    closed, rclpy's own handlers stay off and the handlers that were there before are put back.
    """
    before = {sig: signal.getsignal(sig) for sig in ros_main.STOP_SIGNALS}
    for sig in ros_main.STOP_SIGNALS:
        fake_rclpy.update(spun=0, shutdown=False, on_spin=lambda sig=sig: os.kill(os.getpid(), sig))
        ros_main.spin('controller', ControllerNode, [])
        assert fake_rclpy['spun'] == 1 and fake_rclpy['shutdown']
        assert fake_rclpy['removed'] is fake_rclpy['added']
    assert fake_rclpy['signal_handler_options'] == 'no'
    assert {sig: signal.getsignal(sig) for sig in before} == before


def test_spins_until_stopped(fake_rclpy):
    calls = []
    fake_rclpy['on_spin'] = lambda: calls.append(1) if len(calls) < 4 else os.kill(os.getpid(), signal.SIGTERM)
    ros_main.spin('controller', ControllerNode, [])
    assert fake_rclpy['spun'] == 5


def test_a_stop_signal_during_start_up_stops_without_spinning(fake_rclpy):
    fake_rclpy['init'] = lambda: os.kill(os.getpid(), signal.SIGTERM)
    ros_main.spin('controller', ControllerNode, [])
    assert fake_rclpy['spun'] == 0 and fake_rclpy['shutdown']
