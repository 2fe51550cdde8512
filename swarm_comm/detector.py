"""The symbol detector: the decision threshold from the channel model (eqs. 28–33) and the dynamic rule (eq. 36).

The threshold m_t is computed, not assumed: the channel model is evaluated over the paper's distributions
of a transmitter's relative position and orientation (Sect. 4.2.1), giving P(M > m | s1); M given s0
is the ambient level with noise. Both use the detector's statistic, the minimum over the eight sensors
(Sect. 4.2.2). Noise is applied per sensor before the minimum, exactly (products of Gaussian tails),
rather than by convolving the minimum afterwards.

The distance D ~ Gamma(k = 0.045, φ = 2.5) is read as the clearance between the two robots' bodies in
metres (mean 11 cm): taken as a centre distance it would put most robots inside each other. The
threshold is insensitive to this choice (docs/swarmcom.md lists the alternatives).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .channel import ChannelParameters, link_gains, mean_measurement, received_intensity
from .geometry import EPuckGeometry


@dataclass(frozen=True)
class PoseDistribution:
    """Where a transmitter is relative to a receiver at the origin facing +x (Sect. 4.2.1)."""

    gamma_shape: float = 0.045
    """k of the gamma-distributed distance D."""
    gamma_scale: float = 2.5
    """φ of D, in metres."""
    contact_distance: float = 7.0
    """Centre distance of two touching e-pucks (cm); D is added to it."""

    def __post_init__(self) -> None:
        for name in ('gamma_shape', 'gamma_scale'):
            value = getattr(self, name)
            if not np.isfinite(value) or value <= 0:
                raise ValueError(f'{name} must be a positive finite number, got {value!r}')
        if not np.isfinite(self.contact_distance) or self.contact_distance < 0:
            raise ValueError(f'contact_distance must be a non-negative finite number, got {self.contact_distance!r}')

    def centre_distance(self, quantile: np.ndarray) -> np.ndarray:
        """Centre-to-centre distance (cm) at the given quantiles of D."""
        clearance_m = stats.gamma.ppf(quantile, self.gamma_shape, scale=self.gamma_scale)
        return self.contact_distance + 100.0 * clearance_m

    def sample(self, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``count`` random (distance cm, polar angle Θ, orientation O) triples."""
        distance = self.contact_distance + 100.0 * rng.gamma(self.gamma_shape, self.gamma_scale, count)
        polar = rng.uniform(-np.pi, np.pi, count)
        orientation = rng.uniform(-np.pi, np.pi, count)
        return distance, polar, orientation

    def quantile_grid(self, n_distance: int, n_polar: int, n_orientation: int,
                      chunk: int = 65536) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The product of mid-point quantiles of D, Θ and O, in chunks (paper: 1000 × 720 × 720)."""
        for name, value in (('n_distance', n_distance), ('n_polar', n_polar), ('n_orientation', n_orientation)):
            if int(value) != value or value < 1:
                raise ValueError(f'{name} must be a positive integer, got {value!r}')
        distance = self.centre_distance((np.arange(n_distance) + 0.5) / n_distance)
        polar = -np.pi + 2.0 * np.pi * (np.arange(n_polar) + 0.5) / n_polar
        orientation = -np.pi + 2.0 * np.pi * (np.arange(n_orientation) + 0.5) / n_orientation
        total = n_distance * n_polar * n_orientation
        for start in range(0, total, chunk):
            index = np.arange(start, min(total, start + chunk))
            i, j, k = np.unravel_index(index, (n_distance, n_polar, n_orientation))
            yield distance[i], polar[j], orientation[k]


def observe(distance: np.ndarray, polar: np.ndarray, orientation: np.ndarray,
            geometry: EPuckGeometry, params: ChannelParameters) -> np.ndarray:
    """Noise-free measurements (N, sensors) of a receiver at the origin for transmitters at the given poses."""
    position = np.stack([distance * np.cos(polar), distance * np.sin(polar)], axis=-1)
    gains = link_gains(position, orientation, np.zeros(2), np.zeros(()), geometry, params)
    return mean_measurement(received_intensity(gains), params)


def s0_min_cdf(m: np.ndarray, params: ChannelParameters, sensors: int = 8) -> np.ndarray:
    """P(min_j M_j ≤ m | s0): each M_j = ⌊m_max + n⌋, independent (Sect. 4.2.2)."""
    above = special.ndtr((params.m_max - (np.asarray(m, dtype=float) + 1.0)) / params.noise_sigma)
    return 1.0 - above ** sensors


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


@dataclass(frozen=True)
class ThresholdEstimate:
    """Outcome of the Monte-Carlo threshold computation (Fig. 9)."""

    threshold: int
    """m_t of eq. 32."""
    relative_threshold: float
    """m_t,r = m_max − m_t (eq. 33)."""
    observations: int
    m_values: np.ndarray
    s0_cdf: np.ndarray
    """P(M ≤ m | s0) over ``m_values``."""
    s1_tail: np.ndarray
    """P(M > m | s1) over ``m_values``."""
    sensor_histogram: np.ndarray
    """Counts of noise-free s1 measurements per sensor, (sensors, m_sup + 1) (Fig. 9a)."""
    min_histogram: np.ndarray
    """Counts of the noise-free s1 minimum over sensors, (m_sup + 1,) (Fig. 9a, dotted)."""


def decision_threshold(m_values: np.ndarray, s0_cdf: np.ndarray, s1_tail: np.ndarray) -> int:
    """m_t = max{m | P(M ≤ m | s0) ≤ P(M > m | s1)} (eq. 32)."""
    holds = s0_cdf <= s1_tail
    if not holds[0]:
        raise ValueError(f'eq. 32 fails already at m = {m_values[0]}: widen the search window')
    return int(m_values[np.flatnonzero(holds).max()])


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


def dynamic_threshold(default_threshold: np.ndarray | int, amplitude: np.ndarray | int) -> np.ndarray:
    """m_t,dyn = ⌊|m_t + A| / 2⌋: halfway between the default threshold and the prefix amplitude (eq. 36)."""
    return np.floor_divide(np.abs(np.asarray(default_threshold) + np.asarray(amplitude)), 2)


@dataclass(frozen=True)
class DetectorConfig:
    """A fixed (eq. 30) or dynamic (eq. 36) detector with relative default threshold m_t,r (eq. 33)."""

    relative_threshold: float = 5.0
    """m_t,r; 5 is the model's m_t = 4075 for m_max = 4080."""
    dynamic: bool = True
    m_max: float = 4080.0
    """Ambient level the relative threshold is measured from (estimated at start-up on the robot, Sect. 4.5)."""

    def __post_init__(self) -> None:
        if not np.isfinite(self.relative_threshold) or self.relative_threshold <= 0:
            raise ValueError(f'relative_threshold must be a positive number, got {self.relative_threshold!r}')
        if not np.isfinite(self.m_max) or self.m_max <= self.relative_threshold:
            raise ValueError(f'm_max must exceed relative_threshold, got m_max={self.m_max!r}')

    @property
    def threshold(self) -> float:
        """m_t = m_max − m_t,r."""
        return self.m_max - self.relative_threshold
