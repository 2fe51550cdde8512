# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import math
import random

import pytest

from thymio_road.map.dubins import dubins
from thymio_road.map.intersections import advance


def test_dubins_roads_end_exactly_at_the_target_pose():
    rng = random.Random(3)
    for _ in range(200):
        a = (rng.uniform(0, 3), rng.uniform(0, 3), rng.uniform(-3, 3))
        b = (rng.uniform(0, 3), rng.uniform(0, 3), rng.uniform(-3, 3))
        if math.dist(a[:2], b[:2]) < 0.6:
            continue
        x, y, h = advance(a, dubins(a, b, 0.15))
        assert (x, y) == pytest.approx(b[:2], abs=1e-6)
        assert math.remainder(h - b[2], 2 * math.pi) == pytest.approx(0, abs=1e-6)


def test_a_straight_ahead_target_is_one_straight():
    assert dubins((0, 0, 0), (1, 0, 0), 0.2) == [{'straight': 1.0}]


def test_turns_respect_the_radius():
    pieces = dubins((0, 0, 0), (0, 1, math.pi), 0.2)
    assert all(p['arc']['radius'] == 0.2 for p in pieces if 'arc' in p)
