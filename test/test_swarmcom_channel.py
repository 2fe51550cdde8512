# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Channel model: attenuation laws (eqs. 24, 25, 27), superposition (eqs. 10-14), measurement (eqs. 21-22)."""
import numpy as np
import pytest

from swarm_comm.channel import (ChannelParameters, detector_attenuation, emitter_attenuation, gain_matrix, gains_from,
                                link_gains, mean_measurement, measure, medium_attenuation, received_intensity)
from swarm_comm.geometry import EPuckGeometry

P = ChannelParameters()
G = EPuckGeometry()


def test_angular_attenuation_laws():
    angles = np.array([0.0, np.pi / 4, np.pi / 2 + 1e-9, np.pi])
    np.testing.assert_allclose(emitter_attenuation(angles, P), [1.0, np.cos(np.pi / 4) ** 7, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(detector_attenuation(angles, P), [1.0, np.cos(np.pi / 4) ** 3, 0.0, 0.0], atol=1e-12)


def test_medium_attenuation_is_one_up_to_the_knee_and_a_power_law_beyond():
    knee = P.medium_knee
    assert knee == pytest.approx(1.12202 ** (1 / 1.54557))
    np.testing.assert_allclose(medium_attenuation(np.array([0.0, knee * 0.5, knee]), P), 1.0)
    np.testing.assert_allclose(medium_attenuation(np.array([10.0, 50.0]), P),
                               1.12202 * np.array([10.0, 50.0]) ** -1.54557)


def facing(distance):
    return link_gains(np.array([distance, 0.0]), np.array(np.pi), np.zeros(2), np.zeros(()), G, P)


def test_facing_robots_receive_on_front_sensors_only_and_signal_falls_with_distance():
    near, far = facing(10.0), facing(40.0)
    assert near[[0, 7]].min() > near[[2, 3, 4, 5]].max()
    assert np.all(near[[2, 3, 4, 5]] < 1e-12)   # side and rear detectors face away
    assert np.all(far <= near)
    drops = [P.m_max - mean_measurement(received_intensity(facing(d)), P).min() for d in (21, 33, 45)]
    assert drops[0] > 75 > drops[1] > 25 > drops[2] > 10   # the paper's ranges for m_t,r = 75/25/10 (Sect. 6.2.4)


def test_superposition_saturates_at_one():
    assert received_intensity(np.array([0.4, 1.7]))[1] == 1.0
    np.testing.assert_allclose(mean_measurement(np.array([0.0, 1.0]), P), [4080.0, 150.0])


def test_measure_is_integer_bounded_and_seeded():
    y = np.full(1000, 0.5)
    a = measure(y, P, np.random.default_rng(3))
    b = measure(y, P, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    assert a.dtype.kind == 'i' and a.min() >= 0 and a.max() <= P.m_sup
    assert abs(a.mean() - (0.5 * 3930 + 150 - 0.5)) < 0.3   # floor lowers the mean by 0.5
    assert 1.2 < a.std() < 2.0                             # sigma = sqrt(2.5)


def test_a_third_robot_in_between_blocks_the_link():
    positions = np.array([[0.0, 0.0], [30.0, 0.0], [15.0, 0.0]])
    headings = np.array([0.0, np.pi, 0.5])
    blocked = gains_from(0, positions, headings, G, P)
    free = gains_from(0, positions, headings, G, P, occlusion=False)
    assert free[1].sum() > 1e-3 and blocked[1].sum() < 1e-12   # only grazing paths of ~0 gain remain
    assert blocked[0].sum() == 0   # no gain to itself


def test_gain_matrix_agrees_with_pairwise_link_gains():
    positions = np.array([[0.0, 0.0], [20.0, 3.0]])
    headings = np.array([0.3, 2.5])
    matrix = gain_matrix(positions, headings, G, P)
    np.testing.assert_allclose(matrix[0, 1], link_gains(positions[0], headings[0], positions[1], headings[1], G, P))
    np.testing.assert_allclose(matrix[1, 0], link_gains(positions[1], headings[1], positions[0], headings[0], G, P))


@pytest.mark.parametrize('kwargs,field', [({'noise_variance': -1}, 'noise_variance'),
                                          ({'medium_exponent': 0.5}, 'medium_exponent'),
                                          ({'m_min': 5000}, 'm_min')])
def test_bad_parameters_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        ChannelParameters(**kwargs)


def test_link_gains_with_occluders_matches_the_group_computation():
    positions = np.array([[0.0, 0.0], [25.0, 2.0], [12.0, 4.5]])
    headings = np.array([0.2, np.pi, 1.0])
    pair = link_gains(positions[0], headings[0], positions[1], headings[1], G, P, occluders=positions[2:])
    np.testing.assert_allclose(pair, gains_from(0, positions, headings, G, P)[1], atol=1e-15)
    assert pair.sum() < link_gains(positions[0], headings[0], positions[1], headings[1], G, P).sum()
