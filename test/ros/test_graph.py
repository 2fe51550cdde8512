# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The node graph as separate rclpy processes over DDS, started by ``thymio-road ros``, observed as a
ROS user would: robots drive on the road, cmd_vel flows, /clock ticks, a late subscriber gets /map,
the buttons answer.
"""
from __future__ import annotations

import math
import subprocess
import sys
import time

import pytest

from conftest import console_script, distance_to_road
from thymio_road.scenario import load_scenario


def _xy(msg):
    p = msg.pose.pose.position
    return p.x, p.y


def test_the_oval_runs_as_processes(processes, observer, tmp_path):
    from geometry_msgs.msg import Twist
    from nav_msgs.msg import OccupancyGrid, Odometry
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from std_srvs.srv import Trigger

    for robot in ('thymio1', 'thymio2'):
        observer.subscribe(Odometry, f'/{robot}/ground_truth')
        observer.subscribe(Twist, f'/{robot}/cmd_vel')
    observer.subscribe(Clock, '/clock')
    graph = processes.start('graph', [console_script('thymio-road'), 'ros', 'oval', 'robots:=2'])

    truth = observer.messages['/thymio1/ground_truth']
    assert observer.spin_until(lambda: len(truth) > 80, 60), (
        f'no ground truth from the world process:\n{processes.output("graph")[-3000:]}')
    observer.spin_for(4.0)
    assert graph.poll() is None, processes.output('graph')

    # Robots drive along the road, at the commanded speed.
    road_map = load_scenario('oval').road_map
    for robot in ('thymio1', 'thymio2'):
        poses = [_xy(m) for _, m in observer.messages[f'/{robot}/ground_truth']]
        travelled = sum(math.dist(a, b) for a, b in zip(poses, poses[1:]))
        assert travelled > 0.3, f'{robot} moved only {travelled:.3f} m'
        worst = max(distance_to_road(road_map, x, y) for x, y in poses[::5])
        assert worst < 0.03, f'{robot} left the road: {worst * 100:.1f} cm from the centre line'
        commands = observer.messages[f'/{robot}/cmd_vel']
        assert commands and any(m.linear.x > 0.05 for _, m in commands)
    # /clock ticks forward.
    clock = [m.clock.sec + m.clock.nanosec * 1e-9 for _, m in observer.messages['/clock']]
    assert len(clock) > 100 and clock[-1] > clock[0] + 3 and all(b >= a for a, b in zip(clock, clock[1:]))

    # A late subscriber still gets the latched /map.
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
    observer.subscribe(OccupancyGrid, '/map', latched)
    assert observer.spin_until(lambda: observer.messages['/map'], 15), 'a late subscriber got no /map'
    grid = observer.messages['/map'][0][1]
    assert grid.info.width * grid.info.resolution == pytest.approx(road_map.width, abs=0.01)
    assert grid.info.height * grid.info.resolution == pytest.approx(road_map.height, abs=0.01)

    # The buttons are services: centre stops the robot, forward starts it again.
    stop = observer.call(Trigger, '/thymio1/button/center')
    assert stop.success and stop.message == 'STOP'
    observer.spin_for(2.0)
    before = _xy(truth[-1][1])
    observer.spin_for(2.0)
    assert math.dist(before, _xy(truth[-1][1])) < 0.005, 'thymio1 still moves after button/center'
    start = observer.call(Trigger, '/thymio1/button/forward')
    assert start.success and start.message == 'ROAD'
    observer.spin_for(3.0)
    assert math.dist(before, _xy(truth[-1][1])) > 0.05, 'thymio1 did not drive on after button/forward'

    codes = processes.stop()
    assert codes['graph'] == 130, processes.output('graph')
    assert 'Traceback' not in processes.output('graph'), processes.output('graph')


def test_ros_command_refuses_bad_arguments_before_starting(ros_env):
    result = subprocess.run([sys.executable, '-m', 'thymio_road.cli', 'ros', 'oval', 'robots:=zero'],
                            env=ros_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "robots:='zero': expected an integer" in result.stderr
    assert 'started' not in result.stderr


def test_integer_world_parameter_in_a_scenario_runs(processes, observer, tmp_path):
    """`world: {ground_noise: 10}` (an int where WorldParams has a float) crashed the world node with
    InvalidParameterTypeException on real rclpy.
    """
    from nav_msgs.msg import Odometry
    scenario = tmp_path / 'int_world.yaml'
    scenario.write_text('name: int_world\nmap: oval\nduration: 60\nseed: 1\n'
                        'world: {ground_noise: 10, physics_dt: 0.01}\nrobots: {count: 1, road: loop, start: 0.1}\n')
    observer.subscribe(Odometry, '/thymio1/ground_truth')
    graph = processes.start('graph', [console_script('thymio-road'), 'ros', str(scenario)])
    ok = observer.spin_until(lambda: len(observer.messages['/thymio1/ground_truth']) > 20, 60)
    assert ok and graph.poll() is None, processes.output('graph')
    time.sleep(0.5)
    assert 'InvalidParameterTypeException' not in processes.output('graph')


def test_without_tf2_msgs_the_graph_runs_and_skips_tf(processes, observer, tmp_path):
    """Plain pip rclpy has no tf2_msgs: every node used to die at `import thymio_road.msgs`."""
    from nav_msgs.msg import Odometry
    hidden = tmp_path / 'hide' / 'tf2_msgs'
    hidden.mkdir(parents=True)
    (hidden / '__init__.py').write_text("raise ImportError('tf2_msgs hidden by the test')\n")
    processes.env = dict(processes.env, PYTHONPATH=str(tmp_path / 'hide'))
    observer.subscribe(Odometry, '/thymio1/ground_truth')
    graph = processes.start('graph', [console_script('thymio-road'), 'ros', 'oval', 'robots:=1'])
    truth = observer.messages['/thymio1/ground_truth']
    assert observer.spin_until(lambda: len(truth) > 30, 60) and graph.poll() is None, processes.output('graph')
    processes.stop()
    log = processes.output('graph')
    assert log.count('tf2_msgs is not installed: TF (/tf, /tf_static) is not published') == 1, log
    assert 'Traceback' not in log, log
