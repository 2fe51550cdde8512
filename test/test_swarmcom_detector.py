"""Decision threshold from the model (eqs. 28-33) and the dynamic detector (eq. 36)."""
import numpy as np
import pytest

from swarm_comm.channel import ChannelParameters
from swarm_comm.detector import (DetectorConfig, PoseDistribution, decision_threshold, dynamic_threshold,
                                 estimate_threshold, s0_min_cdf)


def test_model_threshold_is_the_papers_4075_from_random_poses():
    estimate = estimate_threshold(samples=60_000, rng=np.random.default_rng(5))
    assert abs(estimate.threshold - 4075) <= 2
    assert estimate.relative_threshold == 4080 - estimate.threshold
    assert estimate.min_histogram.sum() == estimate.observations == 60_000


def test_model_threshold_from_a_quantile_grid():
    estimate = estimate_threshold(grid=(40, 36, 36))
    assert abs(estimate.threshold - 4075) <= 2
    assert estimate.observations == 40 * 36 * 36


def test_threshold_follows_the_noise():
    quiet = estimate_threshold(params=ChannelParameters(noise_variance=0.25), samples=30_000,
                               rng=np.random.default_rng(1))
    assert quiet.threshold > 4075   # less noise: the detector can sit closer to the ambient level


def test_s0_cdf_of_the_minimum_of_eight():
    p = ChannelParameters()
    assert s0_min_cdf(np.array([4079.0]), p)[0] == pytest.approx(1 - 0.5 ** 8)
    assert s0_min_cdf(np.array([4000.0]), p)[0] < 1e-12


def test_decision_rule_picks_the_last_crossing():
    m = np.arange(5)
    assert decision_threshold(m, np.array([0, .1, .2, .6, .9]), np.array([.9, .5, .3, .2, 0])) == 2
    with pytest.raises(ValueError, match='widen'):
        decision_threshold(m, np.ones(5), np.zeros(5))


def test_dynamic_threshold_is_halfway():
    assert dynamic_threshold(4075, 1000) == 2537
    np.testing.assert_array_equal(dynamic_threshold(4075, np.array([4071, 150])), [4073, 2112])


def test_pose_distribution_is_touching_or_further():
    d, polar, orientation = PoseDistribution().sample(1000, np.random.default_rng(0))
    assert d.min() >= 7.0 and np.median(d) < 7.1 and d.max() > 20
    assert np.all(np.abs(polar) <= np.pi)


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match='relative_threshold'):
        DetectorConfig(relative_threshold=0)
    with pytest.raises(ValueError, match='gamma_shape'):
        PoseDistribution(gamma_shape=-1)
    with pytest.raises(ValueError, match='rng'):
        estimate_threshold(samples=10)
    with pytest.raises(ValueError, match='n_polar'):
        next(PoseDistribution().quantile_grid(2, 0, 2))
