# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The embedded runtime's rclpy subset: ordering, latching, names, timers, services."""
import pytest

from thymio_road.nodes import msgs
from thymio_road.runtime.executor import Executor, TopicTypeError
from thymio_road.runtime.node import (EmbeddedNode, InvalidParameterTypeError, ParameterAlreadyDeclaredError,
                                      resolve_name)


def test_name_resolution_follows_ros2():
    assert resolve_name('cmd_vel', '/thymio1', 'controller') == '/thymio1/cmd_vel'
    assert resolve_name('/map', '/thymio1', 'controller') == '/map'
    assert resolve_name('~/state', '/thymio1', 'controller') == '/thymio1/controller/state'
    assert resolve_name('cmd_vel', '/', 'world') == '/cmd_vel'


def test_timers_fire_in_time_then_creation_order_and_messages_after_the_callback():
    ex = Executor()
    a, b = EmbeddedNode(ex, 'a'), EmbeddedNode(ex, 'b')
    log = []
    pub = a.create_publisher(msgs.String, '/t', msgs.DEFAULT)
    b.create_subscription(msgs.String, '/t', lambda m: log.append(('rx', m.data, ex.now_ns)), msgs.DEFAULT)

    def tick_a():
        pub.publish(msgs.String(data='x'))
        log.append(('a', ex.now_ns))
    a.create_timer(0.1, tick_a)
    b.create_timer(0.05, lambda: log.append(('b', ex.now_ns)))
    ex.run_until(int(0.2e9))
    assert log == [('b', 50_000_000), ('a', 100_000_000), ('rx', 'x', 100_000_000),
                   ('b', 100_000_000), ('b', 150_000_000), ('a', 200_000_000), ('rx', 'x', 200_000_000),
                   ('b', 200_000_000)]


def test_latched_topics_reach_late_subscribers():
    ex = Executor()
    node = EmbeddedNode(ex, 'n')
    pub = node.create_publisher(msgs.String, '/latched', msgs.LATCHED)
    pub.publish(msgs.String(data='first'))
    pub.publish(msgs.String(data='last'))
    got = []
    node.create_subscription(msgs.String, '/latched', lambda m: got.append(m.data), msgs.DEFAULT)
    ex.run_until(0)
    assert got == ['last']  # depth 1


def test_subscription_count_sees_subscribers():
    ex = Executor()
    node = EmbeddedNode(ex, 'n', '/r')
    pub = node.create_publisher(msgs.Int16, 'x', msgs.DEFAULT)
    assert pub.get_subscription_count() == 0
    node.create_subscription(msgs.Int16, '/r/x', lambda m: None, msgs.DEFAULT)
    assert pub.get_subscription_count() == 1


def test_a_topic_has_one_type():
    ex = Executor()
    node = EmbeddedNode(ex, 'n')
    node.create_publisher(msgs.Int16, '/x', msgs.DEFAULT)
    with pytest.raises(TopicTypeError, match='/x'):
        node.create_subscription(msgs.String, '/x', lambda m: None, msgs.DEFAULT)


def test_parameters_take_overrides_and_defaults():
    node = EmbeddedNode(Executor(), 'n', parameters={'speed': 410})
    assert node.declare_parameter('speed', 150).value == 410
    assert node.declare_parameter('grey_ref', 500).value == 500
    assert node.get_parameter('grey_ref').value == 500


def test_parameters_are_typed_by_their_default_as_in_rclpy():
    """As rclpy does, the runtime refuses an override whose type is not the default's (an int for a double too)."""
    node = EmbeddedNode(Executor(), 'n', parameters={'noise': 10, 'mission': 5, 'flag': 1, 'gain': 2.0})
    with pytest.raises(InvalidParameterTypeError, match="'noise'.*'INTEGER', expecting type 'DOUBLE'"):
        node.declare_parameter('noise', 10.0)
    with pytest.raises(InvalidParameterTypeError, match="expecting type 'STRING'"):
        node.declare_parameter('mission', '')
    with pytest.raises(InvalidParameterTypeError, match="expecting type 'BOOL'"):
        node.declare_parameter('flag', True)
    assert node.declare_parameter('gain', 1.0).value == 2.0
    with pytest.raises(ParameterAlreadyDeclaredError):
        node.declare_parameter('gain', 1.0)
    # dynamic typing takes any type, as rclpy does
    assert node.declare_parameter('mission', '', msgs.ParameterDescriptor(dynamic_typing=True)).value == 5


def test_services_are_called_synchronously():
    ex = Executor()
    node = EmbeddedNode(ex, 'c', '/thymio1')

    def handler(request, response):
        response.success, response.message = True, 'done'
        return response
    node.create_service(msgs.Trigger, 'button/center', handler)
    assert ex.call('/thymio1/button/center').message == 'done'
    with pytest.raises(KeyError, match='no service /nope'):
        ex.call('/nope')


def test_message_factories_build_full_default_messages():
    odom = msgs.Odometry()
    assert odom.pose.pose.orientation.w == 1.0  # the .msg default, not zero
    assert odom.pose.covariance.shape == (36,)
    arr = msgs.Int16MultiArray(data=msgs.int16_array([1, -2]))
    assert arr.data.dtype.name == 'int16'
    with pytest.raises(TypeError, match='no field'):
        msgs.Twist(speed=1.0)
    assert msgs.Range.INFRARED == 1
