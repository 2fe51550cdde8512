"""Launch a scenario's node graph as separate rclpy processes (ROS 2 Humble / Jazzy).

    ros2 launch thymio_road road_network.launch.py scenario:=oval robots:=3 record:=true

The nodes, names, namespaces and parameters come from thymio_road.scenario.node_specs, the
same pure function the embedded runtime (`thymio-road run`) uses.
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _graph(context, *args, **kwargs):
    from thymio_road.scenario import load_scenario, node_specs

    robots = int(LaunchConfiguration('robots').perform(context))
    seed = int(LaunchConfiguration('seed').perform(context))
    scenario = load_scenario(LaunchConfiguration('scenario').perform(context),
                             robots=robots or None, seed=None if seed < 0 else seed)
    actions = [
        Node(package='thymio_road', executable=spec.executable, name=spec.name,
             namespace=spec.namespace, parameters=[spec.parameters],
             remappings=list(spec.remappings), output='screen')
        for spec in node_specs(scenario)
    ]
    if LaunchConfiguration('record').perform(context).lower() in ('true', '1', 'yes'):
        cmd = ['ros2', 'bag', 'record', '--all', '--storage', 'mcap']
        out = LaunchConfiguration('bag').perform(context)
        if out:
            cmd += ['--output', out]
        actions.append(ExecuteProcess(cmd=cmd, output='screen'))
    return actions


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument('scenario', default_value='oval',
                              description='shipped scenario name or path to a scenario file'),
        DeclareLaunchArgument('robots', default_value='0', description='robot count (0: the scenario\'s)'),
        DeclareLaunchArgument('seed', default_value='-1', description='random seed (-1: the scenario\'s)'),
        DeclareLaunchArgument('record', default_value='false', description='run ros2 bag record -a'),
        DeclareLaunchArgument('bag', default_value='', description='bag output folder'),
        OpaqueFunction(function=_graph),
    ])
