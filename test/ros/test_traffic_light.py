# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A traffic-light Thymio stops a robot and lets it go, with world, controllers, IR medium and the
light as separate rclpy processes: the light's codes travel over the IR medium node.
"""
from __future__ import annotations

import json
import math

import yaml

from conftest import console_script
from thymio_road.scenario import config_dir


def test_a_light_stops_and_releases_a_robot(processes, observer, tmp_path):
    """The location exit of test_traffic.py: thymio1 enters the siding, thymio2 follows on the road
    and is stopped by L1's light while the siding has green, then let go.
    """
    from nav_msgs.msg import Odometry
    from std_msgs.msg import String
    scenario = tmp_path / 'exit.yaml'
    scenario.write_text(yaml.safe_dump({
        'name': 'exit', 'map': str(config_dir() / 'maps' / 'simple.yaml'), 'duration': 55.0, 'seed': 1,
        'controller': {'speed': 150, 'trigger_security': 'strict'},
        'robots': {'count': 2, 'road': 'outer', 'start': 2.0, 'missions': {'thymio1': [1]},
                   'positions': {'thymio2': 1.8}, 'overrides': {'thymio2': {'seed': 2}}},
        'ir': {}, 'lights': {'green': 8.0, 'clearance': 5.0, 'offset': 11.0}}))
    observer.subscribe(String, '/thymio2/controller/events', _reliable())
    observer.subscribe(Odometry, '/thymio2/ground_truth')
    graph = processes.start('graph', [console_script('thymio-road'), 'ros', str(scenario)])

    def light_events():
        return [json.loads(m.data) for _, m in observer.messages['/thymio2/controller/events']
                if json.loads(m.data).get('kind') == 'light']

    def released():
        commands = [e['command'] for e in light_events()]
        return 'stop' in commands and 'go' in commands[commands.index('stop'):]

    assert observer.spin_until(released, 150), (
        f'light events of thymio2: {light_events()}\n{processes.output("graph")[-3000:]}')
    assert graph.poll() is None, processes.output('graph')
    events = light_events()
    stop = next(e for e in events if e['command'] == 'stop')
    go = next(e for e in events if e['command'] == 'go' and e['t'] > stop['t'])
    assert stop['lane'] == 'road' and go['lane'] == 'road'
    assert go['t'] - stop['t'] > 1.0, events
    # It stood still while told to stop (ground truth between the two events, by simulated time).
    truth = [(m.header.stamp.sec + m.header.stamp.nanosec * 1e-9, m.pose.pose.position)
             for _, m in observer.messages['/thymio2/ground_truth']]
    held = [(p.x, p.y) for t, p in truth if stop['t'] + 0.5 <= t <= go['t']]
    assert held, 'no ground truth while stopped'
    assert max(math.dist(held[0], p) for p in held) < 0.01
    observer.spin_for(3.0)
    after = [(p.x, p.y) for t, p in truth if t > go['t']] + [
        (m.pose.pose.position.x, m.pose.pose.position.y) for _, m in observer.messages['/thymio2/ground_truth'][-1:]]
    assert math.dist(held[-1], after[-1]) > 0.05, 'thymio2 did not drive on after the go'
    processes.stop()
    assert 'Traceback' not in processes.output('graph'), processes.output('graph')


def _reliable():
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    return QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
