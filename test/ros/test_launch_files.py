# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Each launch file through the real ``launch.LaunchService`` (as ``ros2 launch`` runs it), from a pip
install (console scripts in bin/, not lib/thymio_road/), observed over DDS.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
import shutil
import socket
import sys

import pytest

from conftest import run_launch_cmd, share_dir


def _moved(observer, topic):
    poses = [(m.pose.pose.position.x, m.pose.pose.position.y) for _, m in observer.messages[topic]]
    return sum(math.dist(a, b) for a, b in zip(poses, poses[1:]))


@pytest.mark.parametrize('launch_file,arguments,robots', [
    ('road_network.launch.py', ['scenario:=oval', 'robots:=1'], ['thymio1']),
    ('oval.launch.py', ['robots:=2'], ['thymio1', 'thymio2']),
    ('thymio.launch.py', [], ['thymio1']),
])
def test_simulated_launch_files_drive_robots(processes, observer, launch_file, arguments, robots):
    from nav_msgs.msg import Odometry
    for robot in robots:
        observer.subscribe(Odometry, f'/{robot}/ground_truth')
    launch = processes.start('launch', run_launch_cmd(share_dir() / 'launch' / launch_file, 14, *arguments))
    topics = [f'/{robot}/ground_truth' for robot in robots]
    observer.spin_until(lambda: all(_moved(observer, t) > 0.15 for t in topics), 40)
    for topic in topics:
        assert _moved(observer, topic) > 0.15, f'{topic}: robot did not drive\n{processes.output("launch")[-3000:]}'
    assert launch.wait(timeout=60) == 0, processes.output('launch')
    log = processes.output('launch')
    started = log.count('process started')
    assert started == 1 + len(robots), log
    assert log.count('process has finished cleanly') == started, log
    assert 'Traceback' not in log, log


def test_real_robot_without_a_device_manager_backs_off_and_exits_cleanly(processes):
    """thymio_driver with no Thymio Device Manager listening: it retries with growing delays, and
    stops cleanly when the launch shuts down.
    """
    with socket.socket() as s:      # a loopback port with nobody listening
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    launch = processes.start('launch', run_launch_cmd(share_dir() / 'launch' / 'real_robots.launch.py', 12,
                                                      'robots:=1', 'tdm_host:=127.0.0.1', f'tdm_port:={port}'))
    assert launch.wait(timeout=60) == 0, processes.output('launch')
    log = processes.output('launch')
    attempts = [line for line in log.splitlines() if 'cannot connect to the Thymio' in line]
    assert len(attempts) >= 2, log
    delays = [float(line.rsplit('next attempt in ', 1)[1].split(' s')[0]) for line in attempts]
    assert delays == sorted(delays) and delays[-1] > delays[0], f'no back-off: {delays}'
    assert 'thymio_driver' in log and log.count('process has finished cleanly') == 2, log
    assert 'Traceback' not in log, log


@pytest.mark.parametrize('argument,expected', [('rviz:=true', "needs 'rviz2'"), ('record:=true', "needs 'ros2'"),
                                               ('record:=true, ros2 on PATH', "needs 'ros2 bag'")])
def test_missing_rviz2_or_ros2_refuses_before_any_node_starts(processes, argument, expected, ros_env, tmp_path):
    """Without rviz2 the launch used to start the world and controllers, then fail and leave them
    orphaned (parent 1), still publishing; without ros2, or with a ros2 that has no `bag` verb (the
    kit's), it carried on unrecorded.
    """
    if 'ros2 on PATH' not in argument:
        processes.env = dict(ros_env, PATH=str(tmp_path))      # neither rviz2 nor ros2 on PATH
    else:   # the kit's ros2, beside this interpreter, has no `bag` verb
        ros2 = shutil.which('ros2', path=os.pathsep.join([str(Path(sys.executable).parent), ros_env.get('PATH', '')]))
        if ros2 is None:
            pytest.skip('no ros2 beside this interpreter or on PATH')
        processes.env = dict(ros_env, PATH=os.pathsep.join([str(Path(ros2).parent), ros_env.get('PATH', '')]))
    launch = processes.start('launch', run_launch_cmd(share_dir() / 'launch' / 'oval.launch.py', 10,
                                                      'robots:=1', argument.split(',')[0]))
    code = launch.wait(timeout=60)
    log = processes.output('launch')
    assert code != 0, log
    assert expected in log, log
    assert 'process started' not in log, log
