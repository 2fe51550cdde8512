# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The numpy threshold Monte Carlo that `swarm_comm.detector` replaced with compiled kernels: the tests' reference.

Kept as it was (issue #15): the channel model over chunks of poses (:func:`observe`), the exact
noise tails of the minimum (:func:`s1_min_tail_sum`) and the estimator (:func:`estimate_threshold`),
with its default chunk of 65,536 observations. ``test/test_swarmcom_detector.py`` compares the
compiled estimator with it and ``benchmarks/bench_swarmcom_montecarlo.py`` times both. Not used
in production.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from swarm_comm.channel import ChannelParameters, link_gains, mean_measurement, received_intensity
from swarm_comm.detector import decision_threshold, PoseDistribution, s0_min_cdf, ThresholdEstimate
from swarm_comm.geometry import EPuckGeometry


def observe(distance: np.ndarray, polar: np.ndarray, orientation: np.ndarray,
            geometry: EPuckGeometry, params: ChannelParameters) -> np.ndarray:
    """Noise-free measurements (N, sensors) of a receiver at the origin for transmitters at the given poses."""
    position = np.stack([distance * np.cos(polar), distance * np.sin(polar)], axis=-1)
    gains = link_gains(position, orientation, np.zeros(2), np.zeros(()), geometry, params)
    return mean_measurement(received_intensity(gains), params)


def s1_min_tail_sum(means: np.ndarray, m: np.ndarray, params: ChannelParameters) -> np.ndarray:
    """Σ over observations of P(min_j ⌊μ_j + n_j⌋ > m), for each m; ``means`` is (N, sensors)."""
    m = np.asarray(m, dtype=float)
    sigma = params.noise_sigma
    # observations far below every m are detected with certainty (contribution < Φ(−8)): skip them
    candidates = means[means.min(axis=1) > m.min() + 1.0 - 8.0 * sigma]
    if candidates.shape[0] == 0:
        return np.zeros(m.shape)
    z = (candidates[:, :, None] - (m + 1.0)) / sigma           # P(μ + n ≥ m + 1) = Φ((μ − m − 1)/σ)
    return special.ndtr(z).prod(axis=1).sum(axis=0)


def estimate_threshold(geometry: EPuckGeometry | None = None, params: ChannelParameters | None = None,
                       poses: PoseDistribution | None = None, *, grid: tuple[int, int, int] | None = None,
                       samples: int = 200_000, rng: np.random.Generator | None = None,
                       chunk: int = 65536) -> ThresholdEstimate:
    """Compute m_t from the channel model (Sects. 4.2.2–4.2.3).

    Either over the quantile ``grid`` (n_D, n_Θ, n_O) — the paper used (1000, 720, 720), 5.184·10^8
    observations per sensor — or over ``samples`` random poses drawn with ``rng``.
    """
    geometry = geometry or EPuckGeometry()
    params = params or ChannelParameters()
    poses = poses or PoseDistribution()
    if grid is None:
        if int(samples) != samples or samples < 1:
            raise ValueError(f'samples must be a positive integer, got {samples!r}')
        if rng is None:
            raise ValueError('rng is required when sampling random poses (pass a numpy Generator)')
        chunks = (poses.sample(min(chunk, samples - s), rng) for s in range(0, samples, chunk))
    else:
        chunks = poses.quantile_grid(*grid, chunk=chunk)
    low = int(np.floor(params.m_max - 10.0 * params.noise_sigma)) - 1
    m_values = np.arange(low, params.m_sup)
    tail_sum = np.zeros(m_values.shape)
    sensor_hist = np.zeros((geometry.sensor_count, params.m_sup + 1), dtype=np.int64)
    min_hist = np.zeros(params.m_sup + 1, dtype=np.int64)
    count = 0
    for distance, polar, orientation in chunks:
        means = observe(distance, polar, orientation, geometry, params)
        count += means.shape[0]
        tail_sum += s1_min_tail_sum(means, m_values, params)
        levels = np.clip(np.floor(means), 0, params.m_sup).astype(np.int64)
        offsets = levels + np.arange(geometry.sensor_count)[None, :] * (params.m_sup + 1)
        sensor_hist += np.bincount(offsets.ravel(), minlength=sensor_hist.size).reshape(sensor_hist.shape)
        min_hist += np.bincount(levels.min(axis=1), minlength=params.m_sup + 1)
    s1_tail = tail_sum / count
    s0_cdf = s0_min_cdf(m_values, params, geometry.sensor_count)
    threshold = decision_threshold(m_values, s0_cdf, s1_tail)
    return ThresholdEstimate(threshold, params.m_max - threshold, count, m_values, s0_cdf, s1_tail,
                             sensor_hist, min_hist)
