# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import numpy as np
import pytest

from thymio_road.map.loader import parse_map
from thymio_road.sim import robot_model as rm
from thymio_road.sim.noise import NoiseStream
from thymio_road.sim.sensors import GroundSensing, ProxSensing, ray_distances, sheet_walls

QUIET = NoiseStream(np.random.SeedSequence(0))


def road_map(walls=False):
    return parse_map({'size': [1.0, 0.5], 'walls': walls,
                      'roads': [{'id': 'r', 'start': [0.1, 0.25, 0], 'pieces': [{'straight': 0.8}]}]},
                     'inline')


def test_ground_sensor_reads_white_paper_and_the_gradient_across_the_road():
    sensing = GroundSensing(road_map(), noise=0.0)
    white = sensing.read(np.array([[0.5, 0.40]]), QUIET)[0]
    centre = sensing.read(np.array([[0.5, 0.25]]), QUIET)[0]
    across = sensing.read(np.column_stack([np.full(31, 0.5), 0.25 + np.linspace(-0.015, 0.015, 31)]),
                          QUIET)
    assert white == pytest.approx(938, abs=2)
    assert 590 < centre < 650  # grey 0.5 -> 884*sigmoid(0.54)+60 = 619
    # Darker towards the right of the driving direction, over the part the controller uses ...
    assert np.all(np.diff(across[8:]) > 0)
    # ... but the 2 x 2 cm Gaussian patch (sigma 4 mm) mixes in the white paper beyond the black
    # edge: the darkest reading on the road is about 1 cm right of the centre, and not black.
    assert 4 <= int(np.argmin(across)) <= 8
    assert 150 < across.min() < 300


def test_ground_reference_500_sits_right_of_the_centre_line():
    """GREY_REF 500 is v ~ 0.44: about 1.8 mm right of the centre (the start pose relies on it)."""
    sensing = GroundSensing(road_map(), noise=0.0)
    y = 0.25 - 0.0018
    assert sensing.read(np.array([[0.5, y]]), QUIET)[0] == pytest.approx(500, abs=25)


def test_ground_noise_has_the_enki_sigma():
    sensing = GroundSensing(road_map(), noise=10.0)
    noise = NoiseStream(np.random.SeedSequence(3))
    values = sensing.read(np.full((4000, 2), [0.5, 0.40]), noise)
    assert values.std() == pytest.approx(10.0, rel=0.1)


def test_ray_distance_to_a_segment():
    d = ray_distances(np.array([[0.0, 0.0], [0.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]),
                      np.array([[0.1, -1.0]]), np.array([[0.1, 1.0]]), 0.14)
    assert d[0] == pytest.approx(0.1)
    assert d[1] == np.inf


def test_front_sensor_sees_a_wall_at_the_enki_response():
    prox = ProxSensing(sheet_walls(1.0, 0.5), noise=0.0, box=(1.0, 0.5))
    gap = 0.05
    # Centre sensor at x = 7.95 cm ahead of the axle: put the wall `gap` in front of it.
    pose = np.array([[1.0 - gap - 0.0795, 0.25, 0.0]])
    values = prox.read(0, pose, QUIET)
    # A flat wall: the slanted rays cancel the correction term, the value is F(gap).
    assert values[2] == pytest.approx(rm.prox_response(gap), abs=2)
    assert values[5] == 0 and values[6] == 0


def test_rear_sensors_see_a_robot_behind():
    prox = ProxSensing(None, noise=0.0)
    poses = np.array([[0.5, 0.25, 0.0], [0.5 - 0.03 - 0.05 - 0.08, 0.25, 0.0]])
    values = prox.read(0, poses, QUIET)
    assert values[5] > 0 and values[6] > 0
    assert np.all(values[:5] == 0)
    # the robot in front of the other one sees nothing behind but is seen by its front sensors
    other = prox.read(1, poses, QUIET)
    assert other[2] > 1000


def test_nothing_in_range_reads_zero():
    prox = ProxSensing(None, noise=2.87)
    poses = np.array([[0.5, 0.25, 0.0], [0.9, 0.25, 0.0]])
    assert np.all(prox.read(0, poses, QUIET) == 0)


def test_tiled_response_is_the_whole_sheet_blur():
    """The response is computed on inked tiles only; it must be the whole sheet's, bit for bit."""
    from scipy.ndimage import gaussian_filter

    from thymio_road.scenario import load_scenario
    from thymio_road.sim.sensors import noiseless_response
    road_map = load_scenario('simple').road_map
    sigma_px = rm.GROUND_SIGMA / road_map.resolution
    whole = gaussian_filter(road_map.grey, sigma_px, mode='nearest',
                            truncate=rm.GROUND_PATCH / 2 / road_map.resolution / sigma_px)
    assert np.array_equal(noiseless_response(road_map), rm.ground_response(whole).astype(np.float32))
