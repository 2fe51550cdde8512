"""n_C against density: placement and channel counting."""
import numpy as np
import pytest

from swarm_comm.channel import ChannelParameters
from swarm_comm.geometry import EPuckGeometry
from swarm_comm.scalability import central_channel_count, place_robots, range_threshold, simulate_scalability

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
