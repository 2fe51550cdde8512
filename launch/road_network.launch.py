# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Launch a scenario's node graph as separate rclpy processes (ROS 2 Humble / Jazzy).

    ros2 launch thymio_road road_network.launch.py scenario:=oval robots:=3 record:=true rviz:=true
    ros2 launch thymio_road road_network.launch.py real:=thymio3 calibration:=my_robots.yaml

What runs comes from thymio_road.ros.launch_plan.plan: the simulated part is
thymio_road.scenario.node_specs, the same pure function the embedded runtime (`thymio-road run`)
uses; robots listed in `real` get a thymio_driver instead of being simulated.
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _graph(context, *args, **kwargs):
    from thymio_road.ros.launch_plan import ARGUMENTS, node_executable, plan

    # plan() refuses bad arguments and missing programs (rviz2, ros2) before anything starts.
    graph = plan({name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS})
    actions = []
    for spec in graph.nodes:
        package, executable = node_executable(spec.executable)
        actions.append(Node(package=package, executable=executable, name=spec.name,
                            namespace=spec.namespace, parameters=[spec.parameters],
                            remappings=list(spec.remappings), output='screen'))
    if graph.record is not None:
        actions.append(ExecuteProcess(cmd=list(graph.record.cmd), output='screen'))
    if graph.rviz is not None:
        actions.append(Node(package='rviz2', executable='rviz2', name='rviz2',
                            arguments=['-d', graph.rviz.config],
                            parameters=[{'use_sim_time': graph.rviz.use_sim_time}], output='screen'))
    return actions


def generate_launch_description():
    from thymio_road.ros.launch_plan import ARGUMENTS

    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=default, description=description)
          for name, default, description in ARGUMENTS),
        OpaqueFunction(function=_graph),
    ])
