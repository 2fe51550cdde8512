# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""``thymio-road ros``: start a scenario's node graph as real rclpy processes, without ``ros2 launch``."""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
import sys
import tempfile


def register(sub: argparse._SubParsersAction) -> None:
    from thymio_road.ros.launch_plan import ARGUMENTS
    names = ', '.join(name for name, _, _ in ARGUMENTS)
    ros = sub.add_parser(
        'ros', help='run a scenario as ROS 2 processes (rclpy; no ros2 launch needed)',
        description='Start the nodes road_network.launch.py would start, as separate rclpy processes '
                    "with launch_ros-style parameter files. Arguments are the launch file's, as name:=value "
                    f'({names}). Needs rclpy (pip install ".[ros]"). Stop with Ctrl-C.')
    ros.add_argument('scenario', nargs='?', help='shipped scenario name or file (same as scenario:=...)')
    ros.add_argument('arguments', nargs='*', metavar='NAME:=VALUE', help='launch arguments')
    ros.add_argument('--duration', type=float, help='stop after this many wall-clock seconds')
    ros.set_defaults(func=cmd_ros)


def cmd_ros(args: argparse.Namespace) -> int:
    from thymio_road.ros import process_graph
    from thymio_road.ros.launch_plan import LaunchArgumentError, plan
    arguments = {}
    given = list(args.arguments)
    if args.scenario and ':=' in args.scenario:
        given.insert(0, args.scenario)
    elif args.scenario:
        arguments['scenario'] = args.scenario
    for text in given:
        name, sep, value = text.partition(':=')
        if not sep or not name:
            print(f'error: argument {text!r}: expected NAME:=VALUE (for example robots:=3)', file=sys.stderr)
            return 2
        arguments[name] = value
    if args.duration is not None and not args.duration > 0:
        print(f'error: --duration must be a positive number of seconds, got {args.duration}', file=sys.stderr)
        return 2
    if importlib.util.find_spec('rclpy') is None:
        print("error: 'thymio-road ros' runs the nodes on rclpy, which is not installed: pip install '.[ros]' "
              "(ROS 2 Jazzy wheels) or source a ROS 2 install; 'thymio-road run' needs no ROS", file=sys.stderr)
        return 2
    try:
        graph = plan(arguments)
        folder = Path(tempfile.mkdtemp(prefix='thymio_road-ros-'))
        procs = process_graph.processes(graph, folder)
    except LaunchArgumentError as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 2
    print(f'{graph.scenario.name}: {len(graph.nodes)} nodes, parameter files in {folder}', file=sys.stderr)
    return process_graph.run(procs, args.duration, log=lambda text: print(text, file=sys.stderr))
