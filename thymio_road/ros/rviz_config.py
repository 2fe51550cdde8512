# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""RViz configs for the road network: the map, markers, TF and each robot's proximity cones.

The shipped ``config/rviz/road_network.rviz`` is :func:`rviz_text` for the oval's robots; other
robots or maps get a generated file (``python -m thymio_road.ros.rviz_config SCENARIO [ROBOTS]``).
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path
import tempfile
from typing import Any, Sequence

import yaml

from thymio_road.nodes.world_node import MARKER_NAMESPACES
from thymio_road.scenario import config_dir, load_scenario, Scenario
from thymio_road.sim import robot_model as rm

#: The shipped config/rviz/road_network.rviz is rviz_text() for this scenario's robots and map.
SHIPPED_RVIZ_SCENARIO = 'oval'
RVIZ_FILE = 'road_network.rviz'
#: Marker namespaces on /world/markers are the world node's (robots, lights); drivers add
#: real_robots/<robot>. IR links are on /world/ir_links (the IR medium's).
IR_LINKS_TOPIC, IR_LINKS_NAMESPACE = '/world/ir_links', 'ir_links'
#: Colours of the proximity cones per robot (cycled).
_COLOURS = ('255; 85; 0', '0; 170; 255', '170; 0; 255', '0; 200; 100', '255; 200; 0', '255; 0; 127')


def _topic(name: str, *, depth: int = 10, reliable: bool = True, latched: bool = False) -> dict[str, Any]:
    return {'Value': name, 'Depth': depth, 'History Policy': 'Keep Last',
            'Reliability Policy': 'Reliable' if reliable else 'Best Effort',
            'Durability Policy': 'Transient Local' if latched else 'Volatile'}


def rviz_config(robots: Sequence[str], map_size: tuple[float, float]) -> dict[str, Any]:
    """An rviz2 config (the YAML document) showing the map, markers, TF and each robot's Range cones."""
    width, height = map_size
    robot_groups = []
    for k, robot in enumerate(robots):
        cones = [{'Class': 'rviz_default_plugins/Range', 'Name': name, 'Enabled': True,
                  'Alpha': 0.5, 'Buffer Length': 1, 'Color': _COLOURS[k % len(_COLOURS)],
                  'Topic': _topic(f'/{robot}/proximity/{name}'), 'Value': True}
                 for name in rm.PROX_NAMES]
        odom = {'Class': 'rviz_default_plugins/Odometry', 'Name': 'odom', 'Enabled': False,
                'Keep': 20, 'Position Tolerance': 0.01, 'Angle Tolerance': 0.1,
                'Topic': _topic(f'/{robot}/odom'), 'Value': False}
        robot_groups.append({'Class': 'rviz_common/Group', 'Name': robot, 'Enabled': True,
                             'Displays': [*cones, odom], 'Value': True})
    displays = [
        {'Class': 'rviz_default_plugins/Grid', 'Name': 'Grid', 'Enabled': True, 'Cell Size': 0.1,
         'Plane Cell Count': int(math.ceil(max(width, height) / 0.1)), 'Reference Frame': '<Fixed Frame>',
         'Color': '160; 160; 164', 'Alpha': 0.3,
         'Offset': {'X': round(width / 2, 3), 'Y': round(height / 2, 3), 'Z': 0}, 'Plane': 'XY', 'Value': True},
        {'Class': 'rviz_default_plugins/Map', 'Name': 'Printed map', 'Enabled': True, 'Alpha': 0.8,
         'Color Scheme': 'map', 'Draw Behind': True,
         'Topic': _topic('/map', depth=1, latched=True),
         'Update Topic': _topic('/map_updates', depth=1), 'Use Timestamp': False, 'Value': True},
        {'Class': 'rviz_default_plugins/MarkerArray', 'Name': 'World markers', 'Enabled': True,
         'Namespaces': {ns: True for ns in MARKER_NAMESPACES},
         'Topic': _topic('/world/markers'), 'Value': True},
        {'Class': 'rviz_default_plugins/MarkerArray', 'Name': 'IR links', 'Enabled': True,
         'Namespaces': {IR_LINKS_NAMESPACE: True}, 'Topic': _topic(IR_LINKS_TOPIC), 'Value': True},
        {'Class': 'rviz_default_plugins/TF', 'Name': 'TF', 'Enabled': True, 'Frame Timeout': 15,
         'Frames': {'All Enabled': False, 'map': {'Value': True},
                    **{f'{r}/base_link': {'Value': True} for r in robots}},
         'Marker Scale': 0.3, 'Show Arrows': False, 'Show Axes': True, 'Show Names': True,
         'Update Interval': 0, 'Value': True},
        *robot_groups,
    ]
    return {
        'Panels': [
            {'Class': 'rviz_common/Displays', 'Name': 'Displays', 'Help Height': 0,
             'Property Tree Widget': {'Expanded': ['/Global Options1'], 'Splitter Ratio': 0.5},
             'Tree Height': 600},
            {'Class': 'rviz_common/Time', 'Name': 'Time', 'Experimental': False,
             'SyncMode': 0, 'SyncSource': ''},
        ],
        'Visualization Manager': {
            'Class': '',
            'Displays': displays,
            'Enabled': True,
            'Global Options': {'Background Color': '48; 48; 48', 'Fixed Frame': 'map', 'Frame Rate': 30},
            'Name': 'root',
            'Tools': [{'Class': 'rviz_default_plugins/Interact', 'Hide Inactive Objects': True},
                      {'Class': 'rviz_default_plugins/MoveCamera'},
                      {'Class': 'rviz_default_plugins/Select'},
                      {'Class': 'rviz_default_plugins/FocusCamera'},
                      {'Class': 'rviz_default_plugins/Measure', 'Line color': '128; 128; 0'}],
            'Transformation': {'Current': {'Class': 'rviz_default_plugins/TF'}},
            'Value': True,
            'Views': {
                'Current': {'Class': 'rviz_default_plugins/TopDownOrtho', 'Name': 'Current View',
                            'Angle': 0, 'Scale': 600, 'Target Frame': '<Fixed Frame>',
                            'X': round(width / 2, 3), 'Y': round(height / 2, 3),
                            'Enable Stereo Rendering': {'Value': False}, 'Invert Z Axis': False,
                            'Near Clip Distance': 0.01, 'Value': 'TopDownOrtho (rviz_default_plugins)'},
                'Saved': None,
            },
        },
        'Window Geometry': {'Displays': {'collapsed': False}, 'Height': 900, 'Width': 1400,
                            'Hide Left Dock': False, 'Hide Right Dock': True, 'Time': {'collapsed': False}},
    }


def rviz_text(robots: Sequence[str], map_size: tuple[float, float]) -> str:
    header = ('# rviz2 config for thymio_road, generated by thymio_road.ros.rviz_config for '
              f"robots {', '.join(robots)}\n# on a {map_size[0]:g} x {map_size[1]:g} m map. Other robots or maps: "
              'python -m thymio_road.ros.rviz_config SCENARIO [ROBOTS] > FILE.rviz\n'
              '# (road_network.launch.py rviz:=true generates it by itself; see docs/ros2.md).\n')
    return header + yaml.safe_dump(rviz_config(robots, map_size), sort_keys=False, default_flow_style=False)


def shipped_rviz_path() -> Path:
    return config_dir() / 'rviz' / RVIZ_FILE


def rviz_for_scenario(scenario: Scenario) -> str:
    return rviz_text([r.name for r in scenario.robots], (scenario.road_map.width, scenario.road_map.height))


def rviz_config_path(robots: Sequence[str], map_size: tuple[float, float]) -> Path:
    """The shipped config when it is the one these robots and map need; otherwise one generated
    into the temp folder (named by its content, so launches share it).
    """
    text = rviz_text(robots, map_size)
    shipped = shipped_rviz_path()
    if shipped.is_file() and shipped.read_text() == text:
        return shipped
    digest = hashlib.sha1(text.encode()).hexdigest()[:10]
    path = Path(tempfile.gettempdir()) / f'thymio_road-{digest}.rviz'
    if not path.exists():
        from thymio_road.map import atomic
        atomic.write_text(path, text)  # whole or absent: a cut file here would be reused for ever
    return path


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m thymio_road.ros.rviz_config [SCENARIO] [ROBOTS]``: print the RViz config for them."""
    import sys
    args = list(sys.argv[1:] if argv is None else argv)
    scenario = load_scenario(args[0] if args else SHIPPED_RVIZ_SCENARIO,
                             robots=int(args[1]) if len(args) > 1 else None)
    sys.stdout.write(rviz_for_scenario(scenario))


if __name__ == '__main__':
    main()
