# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import numpy as np
import pytest

from thymio_road.sim.collision import overlapping_pairs, penetration, resolve
from thymio_road.sim.sensors import hulls_world


def test_penetration_depth_of_two_hulls_nose_to_tail():
    # Robot 1 ahead by 10 cm: its rear (x = -3 cm) overlaps robot 0's nose (x = +8 cm) by 1 cm.
    poses = np.array([[0.0, 0.0, 0.0], [0.10, 0.0, 0.0]])
    hulls = hulls_world(poses)
    depth, axis = penetration(hulls[0], hulls[1])
    assert depth == pytest.approx(0.01, abs=1e-9)
    assert axis == pytest.approx([1.0, 0.0])


def test_apart_hulls_have_no_penetration():
    poses = np.array([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0]])
    hulls = hulls_world(poses)
    assert penetration(hulls[0], hulls[1])[0] < 0


def test_resolve_separates_and_spares_static_robots():
    poses = np.array([[0.0, 0.0, 0.0], [0.10, 0.0, 0.0], [0.05, 0.06, 1.0]])
    movable = np.array([True, False, True])
    before = poses.copy()
    contacts = resolve(poses, movable, None)
    assert contacts
    assert overlapping_pairs(poses) == []
    assert np.all(poses[1] == before[1])


def test_resolve_keeps_robots_inside_walls():
    poses = np.array([[0.02, 0.5, np.pi]])
    resolve(poses, np.array([True]), (1.0, 1.0))
    assert hulls_world(poses)[0][:, 0].min() >= 0.0
