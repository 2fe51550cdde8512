# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Real Thymios on a printed map: `ros2 launch thymio_road real_robots.launch.py real:=all`.

    ros2 launch thymio_road real_robots.launch.py scenario:=oval robots:=2 real:=all \
        calibration:=$HOME/thymios.yaml tdm_host:=127.0.0.1 rviz:=true record:=true

The listed robots (default: all of the scenario's) get a thymio_driver (tdmclient, via the
Thymio Device Manager) and keep their controller; the others stay simulated. Every argument
of road_network.launch.py is forwarded.
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
    defaults = {name: default for name, default, _ in ARGUMENTS}
    defaults['real'] = 'all'
    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=defaults[name], description=description)
          for name, _, description in ARGUMENTS),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(base), launch_arguments={
            name: LaunchConfiguration(name) for name, _, _ in ARGUMENTS}.items()),
    ])
