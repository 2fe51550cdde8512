# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Wrong-way driving from poses (analysis/wrong_way.py)."""
import math

import numpy as np

from thymio_road.analysis.wrong_way import WrongWayMonitor
from thymio_road.map.loader import load_map


def _drive(monitor: WrongWayMonitor, road, s0: float, s1: float, reverse: bool, offset: float = -0.0115) -> None:
    """A robot moving from s0 to s1 along `road` (1 s samples of 2 cm: the speed of 150 units),
    its centre `offset` to the left of the centre line, facing along or against the lane.
    """
    for k, s in enumerate(np.arange(s0, s1, 0.02 if s1 > s0 else -0.02)):
        x, y, h = road.pose_at(float(s))
        x, y = x - offset * math.sin(h), y + offset * math.cos(h)
        monitor.update(float(k), ['r'], np.array([[x, y, h + math.pi if reverse else h]]))


def test_a_robot_driving_a_lane_backwards_is_flagged_once_with_where():
    road_map = load_map('config/maps/oval.yaml')
    road = road_map.roads[0]
    monitor = WrongWayMonitor(road_map, lambda x, y: 'here')
    _drive(monitor, road, 0.3, 0.6, reverse=False)
    assert monitor.episodes == []
    monitor = WrongWayMonitor(road_map, lambda x, y: 'here')
    # Facing against the lane and moving forward: that is along the lane, backwards.
    _drive(monitor, road, 0.6, 0.3, reverse=True, offset=-0.0035)
    summary = monitor.summary()
    assert summary['episodes'] == 1 and summary['robots'] == ['r'] and summary['list'][0]['where'] == 'here'
    assert 0.25 < summary['distance_m'] < 0.32


def test_a_short_reversal_or_a_robot_off_the_lanes_is_no_episode():
    road_map = load_map('config/maps/oval.yaml')
    road = road_map.roads[0]
    monitor = WrongWayMonitor(road_map)
    _drive(monitor, road, 0.6, 0.56, reverse=True)  # 1 s: shorter than MIN_TIME
    _drive(monitor, road, 0.6, 0.3, reverse=True, offset=0.2)  # 20 cm off the lane
    assert monitor.episodes == []
