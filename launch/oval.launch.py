"""The oval scenario: `ros2 launch thymio_road oval.launch.py [robots:=N] [record:=true]`."""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration


def generate_launch_description():
    base = os.path.join(get_package_share_directory('thymio_road'), 'launch', 'road_network.launch.py')
    forwarded = {name: LaunchConfiguration(name, default=default)
                 for name, default in (('robots', '0'), ('seed', '-1'), ('record', 'false'), ('bag', ''))}
    return LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(base),
                                 launch_arguments={'scenario': 'oval', **forwarded}.items()),
    ])
