# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The oval scenario: `ros2 launch thymio_road oval.launch.py [robots:=N] [record:=true] [rviz:=true]`."""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration


def generate_launch_description():
    from thymio_road.ros.launch_plan import ARGUMENTS

    base = os.path.join(get_package_share_directory('thymio_road'), 'launch', 'road_network.launch.py')
    forwarded = [(name, default, description) for name, default, description in ARGUMENTS if name != 'scenario']
    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=default, description=description)
          for name, default, description in forwarded),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(base), launch_arguments={
            'scenario': 'oval', **{name: LaunchConfiguration(name) for name, _, _ in forwarded}}.items()),
    ])
