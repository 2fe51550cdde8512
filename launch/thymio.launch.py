# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""One robot: `ros2 launch thymio_road thymio.launch.py [real:=true] [rviz:=true]`.

Simulated (default): the world with the scenario's first robot and its controller. With
real:=true: a thymio_driver for a Thymio on the Thymio Device Manager, and its controller,
placed on the map where the scenario starts its first robot (so RViz shows it on the map).
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration


def generate_launch_description():
    from thymio_road.ros.launch_plan import ARGUMENTS

    base = os.path.join(get_package_share_directory('thymio_road'), 'launch', 'road_network.launch.py')
    declared = [(name, 'false' if name == 'real' else default,
                 'true: a real Thymio (thymio_driver), false: simulated' if name == 'real' else description)
                for name, default, description in ARGUMENTS if name != 'robots']
    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=default, description=description)
          for name, default, description in declared),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(base), launch_arguments={
            'robots': '1', **{name: LaunchConfiguration(name) for name, _, _ in declared}}.items()),
    ])
