# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A Foxglove / Lichtblick layout for the road network, as config/rviz holds the RViz config.

The shipped ``config/foxglove/thymio_road.json`` is :func:`layout_text` for the oval's robots
(``python -m thymio_road.ros.foxglove_layout [SCENARIO [ROBOTS]] > FILE`` writes another). It is
in the layout format both apps import and export (``configById`` + ``layout``: Layouts → Import
from file), and opens a live run (``thymio-road run --live``), a played bag or the bag itself:

- **3D** (top-down on the ``map`` frame): ``/map`` (the printed map), ``/world/markers`` (robots
  in their LED colour, traffic lights), ``/world/ir_links`` and the TF tree.
- **Speeds**: each robot's ground-truth forward speed (``ground_truth.twist.twist.linear.x``, m/s).
- **Proximity**: the first robot's seven ``sensor_msgs/Range`` readings (m). Neither app's 3D
  panel draws a Range message (Lichtblick's renderers and the SDK's layout schema have none), so
  the cones RViz draws are plotted here instead.
- **States**: each robot's ``controller/state`` as a state timeline.
- **Events**: the first robot's ``controller/events``, as raw messages.
"""
from __future__ import annotations

import json
from pathlib import Path
import sys
from typing import Any, Sequence

from thymio_road.scenario import config_dir, load_scenario
from thymio_road.sim import robot_model as rm

SHIPPED_SCENARIO = 'oval'
LAYOUT_FILE = 'thymio_road.json'
#: Topics the layout reads besides the per-robot ones.
WORLD_TOPICS = ('/map', '/world/markers', '/world/ir_links')


def _series(path: str, label: str) -> dict[str, Any]:
    return {'value': path, 'enabled': True, 'timestampMethod': 'receiveTime', 'label': label}


def layout(robots: Sequence[str], map_size: tuple[float, float]) -> dict[str, Any]:
    """The layout, a JSON document, for these robots on a map of `map_size` (m)."""
    width, height = map_size
    first = robots[0]
    three_d = {
        'cameraState': {'perspective': False, 'distance': round(1.3 * max(width, height), 3), 'phi': 0,
                        'thetaOffset': 0, 'target': [0, 0, 0],
                        'targetOffset': [round(width / 2, 3), round(height / 2, 3), 0],
                        'targetOrientation': [0, 0, 0, 1], 'fovy': 45, 'near': 0.01, 'far': 5000},
        'followMode': 'follow-none',
        'followTf': 'map',
        'scene': {'enableStats': False},
        'transforms': {'showLabel': False},
        'topics': {
            '/map': {'visible': True, 'colorMode': 'map', 'frameLocked': True},
            '/world/markers': {'visible': True},
            '/world/ir_links': {'visible': True},
        },
        'layers': {
            'grid': {'layerId': 'foxglove.Grid', 'visible': True, 'frameLocked': True, 'label': 'Grid',
                     'instanceId': 'grid', 'frameId': 'map', 'size': round(max(width, height) + 0.2, 1),
                     'divisions': int(round((max(width, height) + 0.2) / 0.1)), 'lineWidth': 0.5,
                     'color': '#a0a0a4', 'position': [round(width / 2, 3), round(height / 2, 3), -0.001],
                     'rotation': [0, 0, 0], 'order': 1},
        },
        'publish': {'type': 'point', 'poseTopic': '/move_base_simple/goal', 'pointTopic': '/clicked_point',
                    'poseEstimateTopic': '/initialpose', 'poseEstimateXDeviation': 0.5,
                    'poseEstimateYDeviation': 0.5, 'poseEstimateThetaDeviation': 0.26179939},
        'imageMode': {},
    }
    plot = {'showXAxisLabels': True, 'showYAxisLabels': True, 'showLegend': True, 'legendDisplay': 'floating',
            'showPlotValuesInLegend': True, 'isSynced': True, 'xAxisVal': 'timestamp',
            'sidebarDimension': 240, 'followingViewWidth': 30}
    speeds = {**plot, 'title': 'speed (m/s, ground truth)',
              'paths': [_series(f'/{r}/ground_truth.twist.twist.linear.x', r) for r in robots]}
    proximity = {**plot, 'title': f'{first} proximity (m)',
                 'paths': [_series(f'/{first}/proximity/{name}.range', name) for name in rm.PROX_NAMES]}
    states = {'isSynced': True,
              'paths': [{'value': f'/{r}/controller/state.data', 'timestampMethod': 'receiveTime', 'label': r}
                        for r in robots]}
    events = {'topicPath': f'/{first}/controller/events', 'diffEnabled': False, 'diffMethod': 'custom',
              'diffTopicPath': '', 'showFullMessageForDiff': False, 'expansion': 'all'}
    return {
        'configById': {
            '3D!thymio_road': three_d,
            'Plot!speeds': speeds,
            'Plot!proximity': proximity,
            'StateTransitions!states': states,
            'RawMessages!events': events,
        },
        'globalVariables': {},
        'userNodes': {},
        'playbackConfig': {'speed': 1},
        'layout': {
            'direction': 'row', 'splitPercentage': 55, 'first': '3D!thymio_road',
            'second': {
                'direction': 'column', 'splitPercentage': 30, 'first': 'Plot!speeds',
                'second': {
                    'direction': 'column', 'splitPercentage': 45, 'first': 'StateTransitions!states',
                    'second': {'direction': 'row', 'splitPercentage': 55, 'first': 'Plot!proximity',
                               'second': 'RawMessages!events'},
                },
            },
        },
    }


def topics(document: dict[str, Any]) -> set[str]:
    """The topics a layout reads (its 3D topics, plot and timeline paths, raw messages)."""
    found = set()
    for config in document['configById'].values():
        found |= set(config.get('topics', {}))
        for series in config.get('paths', []):
            found.add(series['value'].split('.', 1)[0])
        if 'topicPath' in config:
            found.add(config['topicPath'])
    return found


def layout_text(robots: Sequence[str], map_size: tuple[float, float]) -> str:
    return json.dumps(layout(robots, map_size), indent=2) + '\n'


def shipped_layout_path() -> Path:
    return config_dir() / 'foxglove' / LAYOUT_FILE


def layout_for(scenario_name: str = SHIPPED_SCENARIO, robots: int | None = None) -> str:
    scenario = load_scenario(scenario_name, robots=robots)
    names = [r.name for r in scenario.robots]
    return layout_text(names, (scenario.road_map.width, scenario.road_map.height))


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m thymio_road.ros.foxglove_layout [SCENARIO [ROBOTS]]``: the layout on stdout."""
    args = list(sys.argv[1:] if argv is None else argv)
    scenario = args[0] if args else SHIPPED_SCENARIO
    robots = int(args[1]) if len(args) > 1 else None
    sys.stdout.write(layout_for(scenario, robots))


if __name__ == '__main__':
    main()
