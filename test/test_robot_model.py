# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import math

import numpy as np
import pytest

from thymio_road.sim import robot_model as rm


def test_motor_law_is_the_reports_linear_fit_below_the_plateau():
    # Report eq. (1): 0.032 cm/s per unit; Table 5: 150 -> 4.8, 260 -> 8.32, 410 -> 13.12 cm/s
    assert rm.wheel_speed(150) == pytest.approx(0.048)
    assert rm.wheel_speed(260) == pytest.approx(0.0832)
    assert rm.wheel_speed(410) == pytest.approx(0.1312)
    assert rm.wheel_speed(-260) == pytest.approx(-0.0832)


def test_motor_plateau_near_15_cm_s():
    assert rm.wheel_speed(500) == pytest.approx(0.15)
    assert rm.wheel_speed(900) == pytest.approx(0.15)  # commands are clipped to ±500
    above = rm.wheel_speed(np.arange(450, 501))
    assert np.all(np.diff(above) > 0) and above[-1] - above[0] < 0.01


def test_scalar_and_vector_motor_laws_agree():
    for u in (-500, -451, -7, 0, 3, 260, 449, 450, 451, 499, 500):
        assert rm.wheel_speed_scalar(u) == pytest.approx(float(rm.wheel_speed(u)))


@pytest.mark.parametrize('left,right', [(150, 150), (260, 200), (-150, 150), (410, -3), (0, 0)])
def test_twist_round_trip_keeps_integer_commands(left, right):
    assert rm.twist_to_units(*rm.units_to_twist(left, right)) == (left, right)


def test_prox_response_matches_enki_formula_and_inverts():
    assert rm.prox_response(0.0) == pytest.approx(rm.PROX_M, rel=1e-4)
    d = np.array([0.01, 0.05, 0.1, 0.14])
    expected = 4505 * (73 - 0.03 ** 2) / ((d * 100) ** 2 - 2 * 0.03 * d * 100 + 73)
    assert rm.prox_response(d) == pytest.approx(expected)
    assert rm.prox_distance(rm.prox_response(d)) == pytest.approx(d)
    assert rm.prox_response(np.inf) == 0.0
    assert rm.prox_distance(0) == np.inf


def test_ground_response_black_and_white():
    assert rm.ground_response(0.0) == pytest.approx(77, abs=1)
    assert rm.ground_response(1.0) == pytest.approx(938, abs=1)


def test_hull_matches_enki_body():
    hull = rm.HULL
    assert hull[:, 0].max() == pytest.approx(0.08)
    assert hull[:, 0].min() == pytest.approx(-0.03)
    assert np.abs(hull[:, 1]).max() == pytest.approx(0.055, abs=1e-3)
    # counter-clockwise: positive signed area
    x, y = hull[:, 0], hull[:, 1]
    assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0
    assert math.hypot(*rm.HULL[0]) == pytest.approx(0.08)
