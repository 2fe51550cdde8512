# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Decision threshold from the model (eqs. 28-33) and the dynamic detector (eq. 36)."""
import numpy as np
import pytest
from scipy import special

from swarm_comm import detector
from swarm_comm.channel import ChannelParameters
from swarm_comm.detector import (decision_threshold, DetectorConfig, dynamic_threshold, estimate_threshold,
                                 PoseDistribution, s0_min_cdf)
from swarm_comm.geometry import epuck_geometry
import swarmcom_threshold_reference as reference


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


# --- the compiled estimator is the numpy one (issue #15) ------------------------------------

@pytest.mark.parametrize('layout,params,source', [
    ('webots-driver', ChannelParameters(), {'grid': (30, 24, 24)}),
    ('webots-driver', ChannelParameters(), {'samples': 70_000, 'seed': 3}),
    ('enki', ChannelParameters(noise_variance=0.25, emitter_exponent=4.5), {'samples': 20_000, 'seed': 4}),
    ('webots-proto', ChannelParameters(detector_exponent=0.0), {'grid': (12, 18, 18)}),
], ids=['grid', 'samples', 'enki-quiet-non-integer', 'proto-flat-detector'])
def test_compiled_estimator_equals_the_numpy_estimator(layout, params, source):
    """Same poses (the random stream is kept), same histograms, the same threshold, and P(M > m | s1)
    equal to rounding (the kernel's Φ and cos/exp differ from scipy's and numpy's in the last bits).
    """
    seed = source.pop('seed', None)
    rng = (lambda: np.random.default_rng(seed)) if seed is not None else (lambda: None)
    geometry = epuck_geometry(layout)
    new = estimate_threshold(geometry, params, **source, rng=rng())
    old = reference.estimate_threshold(geometry, params, **source, rng=rng())
    assert new.threshold == old.threshold and new.observations == old.observations
    np.testing.assert_array_equal(new.sensor_histogram, old.sensor_histogram)
    np.testing.assert_array_equal(new.min_histogram, old.min_histogram)
    np.testing.assert_allclose(new.s1_tail, old.s1_tail, rtol=1e-11, atol=1e-300)
    assert (new.s1_tail > 1e-6).sum() > 5   # the comparison covers values that matter


def test_chunks_do_not_change_the_estimate():
    a = estimate_threshold(grid=(10, 12, 12), chunk=7)
    b = estimate_threshold(grid=(10, 12, 12))
    np.testing.assert_allclose(a.s1_tail, b.s1_tail, rtol=1e-13)
    np.testing.assert_array_equal(a.min_histogram, b.min_histogram)
    with pytest.raises(ValueError, match='chunk'):
        estimate_threshold(grid=(2, 2, 2), chunk=0)


def test_normal_distribution_function_of_the_kernel():
    z = np.concatenate([np.linspace(-38.5, 9.5, 4001), np.random.default_rng(0).uniform(-20, 8, 4000)])
    mine = np.array([detector._ndtr(v, detector.PHI_TABLE) for v in z])
    exact = special.ndtr(z)
    assert np.all(np.abs(mine - exact) <= 1e-12 * exact + 1e-310)
    assert np.all(np.abs(mine - exact)[z > -10] <= 3e-14 * exact[z > -10])
    assert mine[z >= 8.5].min() == 1.0 and detector._ndtr(-39.5, detector.PHI_TABLE) == 0.0
