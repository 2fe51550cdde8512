# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Run a launch file through the real launch.LaunchService for a fixed time, as `ros2 launch` would.

Usage: python run_launch.py LAUNCH_FILE SECONDS [name:=value ...]
"""
import sys

import launch
from launch.actions import IncludeLaunchDescription, Shutdown, TimerAction
from launch.launch_description_sources import PythonLaunchDescriptionSource


def main() -> int:
    path, seconds, args = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    service = launch.LaunchService(argv=args)
    service.include_launch_description(launch.LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(path),
                                 launch_arguments=[tuple(a.split(':=', 1)) for a in args]),
        TimerAction(period=seconds, actions=[Shutdown(reason='test time limit')]),
    ]))
    return service.run()


if __name__ == '__main__':
    sys.exit(main())
