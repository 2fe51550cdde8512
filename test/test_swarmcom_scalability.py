# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""n_C against density: placement and channel counting."""
import numpy as np
import pytest

from swarm_comm.channel import ChannelParameters, link_gains, mean_measurement, received_intensity
from swarm_comm.geometry import EPuckGeometry
from swarm_comm.scalability import (central_channel_count, centre_line_blocked, channel_threshold, place_robots,
                                    range_threshold, simulate_scalability)

G, P = EPuckGeometry(), ChannelParameters()


def min_gap(positions):
    d = np.hypot(*(positions[:, None] - positions[None]).transpose(2, 0, 1)) + np.eye(len(positions)) * 1e3
    return d.min()


@pytest.mark.parametrize('count', [10, 120, 272])
def test_placement_does_not_overlap_and_stays_in_range(count):
    positions = place_robots(count, 61.0, np.random.default_rng(count))
    assert positions.shape == (count + 1, 2)
    assert min_gap(positions) >= 7.0 - 1e-9
    assert np.hypot(*positions.T).max() <= 61.6


def test_a_facing_robot_at_the_range_limit_is_a_channel_a_turned_away_one_is_not():
    threshold = range_threshold(61.0, G, P)
    positions = np.array([[0.0, 0.0], [50.0, 0.0]])
    assert central_channel_count(positions, np.array([0.0, np.pi]), G, P, threshold) == 1
    assert central_channel_count(positions, np.array([np.pi, 0.0]), G, P, threshold) == 0


def test_channels_are_few_when_packed_and_more_at_moderate_density():
    rng = np.random.default_rng(0)
    sparse, moderate, dense = simulate_scalability([5, 60, 272], 4, rng)
    assert sparse.mean_channels <= 5
    assert moderate.mean_channels > dense.mean_channels
    assert dense.mean_channels <= 8
    assert dense.density == pytest.approx(273 / (np.pi * 0.61 ** 2))


def test_bad_input():
    with pytest.raises(ValueError, match='count'):
        place_robots(-1, 61.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match='trials'):
        simulate_scalability([1], 0, np.random.default_rng(0))


def test_the_papers_channel_is_a_detectable_prefix_below_m_t():
    # "the received signal is below threshold m_t,dyn" = ⌊(m_t + A)/2⌋, which holds for A exactly when A < m_t
    assert channel_threshold('detect', 61.0, G, P) == 4075
    assert channel_threshold('range', 61.0, G, P) == pytest.approx(range_threshold(61.0, G, P))
    assert range_threshold(61.0, G, P) < 4075
    with pytest.raises(ValueError, match='channel'):
        channel_threshold('x', 61.0, G, P)


def test_centre_line_of_sight_is_blocked_by_a_body_and_by_the_contact_of_two_touching_ones():
    positions = np.array([[0.0, 0.0], [10.0, 0.0], [20.0, 0.0], [0.0, 20.0]])
    assert centre_line_blocked(positions, 3.5).tolist() == [False, False, True, False]
    # second ring of a touching hexagonal packing: the line passes through the contact of two neighbours
    ring = np.array([[0.0, 0.0], [7.0, 0.0], [3.5, 7.0 * np.sqrt(3) / 2], [10.5, 7.0 * np.sqrt(3) / 2]])
    assert centre_line_blocked(ring, 3.5).tolist() == [False, False, False, True]
    headings = np.array([0.0, np.pi, np.pi, np.pi])
    assert central_channel_count(positions, headings, G, P, 4075, occlusion='centre') <= 2
    with pytest.raises(ValueError, match='occlusion'):
        central_channel_count(positions, headings, G, P, 4075, occlusion='x')


def test_a_touching_neighbour_is_missed_in_a_quarter_of_random_orientations_even_unoccluded():
    # with the driver table's layout (sensors on the rim, the default EPuckGeometry) the densest packing
    # gives about 4 rather than 6 channels: at contact a path needs an emitter and a detector on the same
    # side of the contact point, facing each other within their half-spaces (h_e, h_d = 0 beyond ±90°)
    rng = np.random.default_rng(7)
    h = rng.uniform(-np.pi, np.pi, (4000, 2))
    gains = link_gains(np.zeros(2), h[:, 0], np.array([7.0, 0.0]), h[:, 1], G, P)
    reached = (mean_measurement(received_intensity(gains), P).min(axis=1) < 4075).mean()
    assert 0.68 < reached < 0.80
    far = link_gains(np.zeros(2), h[:, 0], np.array([10.0, 0.0]), h[:, 1], G, P)
    assert (mean_measurement(received_intensity(far), P).min(axis=1) < 4075).all()


def test_scalability_points_carry_a_confidence_interval():
    point = simulate_scalability([272], 4, np.random.default_rng(3), occlusion='centre')[0]
    assert 2 <= point.mean_channels <= 6.5
    assert 0 < point.ci95 == pytest.approx(1.96 * point.std_channels / np.sqrt(4))


def _hex_neighbourhood(rings: int = 2) -> np.ndarray:
    from swarm_comm.scalability import _hex_lattice
    return np.vstack([np.zeros((1, 2)), _hex_lattice(7.0, 7.0 * rings + 0.1, 0.0)])


def test_in_a_touching_hexagonal_packing_the_robot_models_layout_reaches_about_all_six_neighbours():
    # Fig. 20a settles at n_C = 6: with the sensors where Cyberbotics' e-puck model puts them (inside the
    # 7 cm body) most touching neighbours are reached; with the driver table's sensors on the rim, half
    from swarm_comm.geometry import epuck_geometry
    sites = _hex_neighbourhood()
    counts = {}
    for layout in ('webots-proto', 'webots-driver'):
        g = epuck_geometry(layout)
        threshold = range_threshold(61.0, g, P)
        rng = np.random.default_rng(11)
        counts[layout] = np.mean([central_channel_count(sites, rng.uniform(-np.pi, np.pi, len(sites)), g, P, threshold)
                                  for _ in range(60)])
    assert 4.6 < counts['webots-proto'] <= 6.0
    assert counts['webots-driver'] < 4.0


def test_a_touching_neighbour_is_reached_in_nine_of_ten_orientations_with_the_robot_models_layout():
    from swarm_comm.geometry import epuck_geometry
    g = epuck_geometry('webots-proto')
    h = np.random.default_rng(7).uniform(-np.pi, np.pi, (4000, 2))
    gains = link_gains(np.zeros(2), h[:, 0], np.array([7.0, 0.0]), h[:, 1], g, P)
    assert 0.86 < (mean_measurement(received_intensity(gains), P).min(axis=1) < 4075).mean() < 0.94


def test_default_reading_peaks_near_the_papers_15_and_the_detect_rule_well_above():
    # measured with 100+ placements: 17.9 ± 0.4 (range, default) and 23.6 ± 0.6 (detect) at 60 robots
    default = simulate_scalability([60], 30, np.random.default_rng(3))[0]
    detect = simulate_scalability([60], 30, np.random.default_rng(3), channel='detect')[0]
    assert 15.5 < default.mean_channels < 20.0
    assert detect.mean_channels > default.mean_channels + 3.0
