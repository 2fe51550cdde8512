# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The symbol detector: the decision threshold from the channel model (eqs. 28–33) and the dynamic rule (eq. 36).

The threshold m_t is computed, not assumed: the channel model is evaluated over the paper's distributions
of a transmitter's relative position and orientation (Sect. 4.2.1), giving P(M > m | s1); M given s0
is the ambient level with noise. Both use the detector's statistic, the minimum over the eight sensors
(Sect. 4.2.2). Noise is applied per sensor before the minimum, exactly (products of Gaussian tails),
rather than by convolving the minimum afterwards. The observations are evaluated by compiled numba
kernels, 2,048 at a time (issue #15: the paper's 5.184·10^8 per sensor in about 8 min of one core).

The distance D ~ Gamma(k = 0.045, φ = 2.5) is read as the clearance between the two robots' bodies in
metres (mean 11 cm): taken as a centre distance it would put most robots inside each other. The
threshold is insensitive to this choice (docs/swarmcom.md lists the alternatives).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
import math

from numba import njit
import numpy as np
from scipy import special, stats

from .channel import ChannelParameters
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

    def quantile_axes(self, n_distance: int, n_polar: int,
                      n_orientation: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mid-point quantiles of D (cm), Θ and O: the axes of the paper's grid (1000 × 720 × 720)."""
        for name, value in (('n_distance', n_distance), ('n_polar', n_polar), ('n_orientation', n_orientation)):
            if int(value) != value or value < 1:
                raise ValueError(f'{name} must be a positive integer, got {value!r}')
        distance = self.centre_distance((np.arange(n_distance) + 0.5) / n_distance)
        polar = -np.pi + 2.0 * np.pi * (np.arange(n_polar) + 0.5) / n_polar
        orientation = -np.pi + 2.0 * np.pi * (np.arange(n_orientation) + 0.5) / n_orientation
        return distance, polar, orientation

    def quantile_grid(self, n_distance: int, n_polar: int, n_orientation: int,
                      chunk: int = 65536) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The product of the :meth:`quantile_axes`, in chunks, O fastest."""
        distance, polar, orientation = self.quantile_axes(n_distance, n_polar, n_orientation)
        total = n_distance * n_polar * n_orientation
        for start in range(0, total, chunk):
            index = np.arange(start, min(total, start + chunk))
            i, j, k = np.unravel_index(index, (n_distance, n_polar, n_orientation))
            yield distance[i], polar[j], orientation[k]


def s0_min_cdf(m: np.ndarray, params: ChannelParameters, sensors: int = 8) -> np.ndarray:
    """P(min_j M_j ≤ m | s0): each M_j = ⌊m_max + n⌋, independent (Sect. 4.2.2)."""
    above = special.ndtr((params.m_max - (np.asarray(m, dtype=float) + 1.0)) / params.noise_sigma)
    return 1.0 - above ** sensors


# --- the compiled Monte Carlo -------------------------------------------------------------------

#: Observations per compiled call. Small enough that a call's inputs stay in the cache and Ctrl-C
#: is answered between calls; large enough that the call overhead is negligible (issue #15).
CHUNK = 2048
#: Random poses are drawn in blocks of this many (the former chunk), so that a seed gives the poses
#: it gave before the estimator was compiled.
SAMPLE_BLOCK = 65536


@njit(cache=True)
def _lobe(c: float, exponent: float) -> float:
    """max(c, 0)^exponent (channel.cosine_lobe), by repeated squaring for small integer exponents."""
    if exponent == 0.0:
        return 1.0
    if c <= 0.0:
        return 0.0
    if exponent == int(exponent) and exponent <= 16:
        result, base, e = 1.0, c, int(exponent)
        while e:
            if e & 1:
                result *= base
            base *= base
            e >>= 1
        return result
    return c ** exponent


#: Φ and φ tabulated at z = PHI_LOW + k·PHI_STEP (k = 0 … PHI_NODES − 1): :func:`_ndtr` expands Φ
#: around the nearest node. Below PHI_LOW Φ is 0 in double precision, above PHI_HIGH it is 1.
PHI_LOW, PHI_HIGH, PHI_STEP = -39.0, 8.5, 1.0 / 128.0
_PHI_Z = PHI_LOW + PHI_STEP * np.arange(int(round((PHI_HIGH - PHI_LOW) / PHI_STEP)) + 1)
PHI_TABLE = np.stack([special.ndtr(_PHI_Z), np.exp(-0.5 * _PHI_Z ** 2) / math.sqrt(2.0 * math.pi)])


@njit(cache=True)
def _ndtr(z: float, table: np.ndarray) -> float:
    """Φ(z), the standard normal distribution function, from the table and its Taylor series.

    Around the nearest node z_k (|t| = |z − z_k| ≤ 1/256): Φ(z_k + t) = Φ(z_k) + φ(z_k) Σ_{n=1}^{8}
    (−1)^(n−1) He_(n−1)(z_k) t^n / n!, with He the Hermite polynomials. It differs from scipy's
    ndtr by less than 2e-14 of Φ for z > −10 and 1e-12 down to −39 (where Φ < 1e-330), and needs
    no branch, so that LLVM vectorises the loop over m (test_swarmcom_detector checks both).
    """
    z = min(max(z, PHI_LOW), PHI_HIGH)  # Φ is 0 at PHI_LOW and 1 at PHI_HIGH in the table: no branch
    k = int((z - PHI_LOW) * (1.0 / PHI_STEP) + 0.5)
    zk = PHI_LOW + k * PHI_STEP
    t = z - zk
    # Hermite polynomials He_0 … He_7 at z_k (He_(n+1) = z He_n − n He_(n−1)), then Horner in t.
    h0, h1 = 1.0, zk
    h2 = zk * h1 - 1.0
    h3 = zk * h2 - 2.0 * h1
    h4 = zk * h3 - 3.0 * h2
    h5 = zk * h4 - 4.0 * h3
    h6 = zk * h5 - 5.0 * h4
    h7 = zk * h6 - 6.0 * h5
    series = h7 * (-1.0 / 40320.0)
    series = h6 * (1.0 / 5040.0) + t * series
    series = h5 * (-1.0 / 720.0) + t * series
    series = h4 * (1.0 / 120.0) + t * series
    series = h3 * (-1.0 / 24.0) + t * series
    series = h2 * (1.0 / 6.0) + t * series
    series = h1 * -0.5 + t * series
    series = h0 + t * series
    return table[0, k] + table[1, k] * t * series


@njit(cache=True)
def _tally(px, py, co, so, model, phi, m_sup, m_values, ambient_powers, means, scratch_e, scratch_m, tail,
           sensor_hist, min_hist):
    """One observation: the noise-free measurements of the receiver at the origin for a transmitter at
    (px, py) with heading cos/sin (co, so) (detector.observe), then its share of the estimator.

    model rows: emitters' local x, y, cos, sin of their angles; detectors' local x, y, cos, sin;
    then (emitter exponent, detector exponent, o_m, k_m / 2, m_max − m_min, m_min, σ, cut) in row 8,
    the emitters' and the detectors' largest distance from their robot's centre in row 9.
    ``means``, ``scratch_e`` (6 × sensors) and ``scratch_m`` (as m_values) are work space.
    ``ambient_powers[k, i]`` is Φ((m_max − m_i − 1)/σ)^k, the tail of k sensors that see no light.
    """
    sensors = means.shape[0]
    e_exp, d_exp, gain, half_k = model[8, 0], model[8, 1], model[8, 2], model[8, 3]
    span, m_min, sigma, cut = model[8, 4], model[8, 5], model[8, 6], model[8, 7]
    inv_sigma = 1.0 / sigma
    reach_e, reach_d = model[9, 0], model[9, 1]  # the emitters' and the detectors' radius
    m_max = span + m_min
    # The emitters in the world, and which of them may light a detector at all (the detectors lie
    # within reach_d of the origin); likewise the detectors that may see an emitter. Both tests
    # only prune, and only where a lobe is 0 behind its sensor (exponent > 0).
    ex, ey, ux, uy = scratch_e[0], scratch_e[1], scratch_e[2], scratch_e[3]
    lit_e, lit_d = scratch_e[4], scratch_e[5]
    for e in range(sensors):
        lx, ly = model[0, e], model[1, e]
        ex[e] = co * lx - so * ly + px
        ey[e] = so * lx + co * ly + py
        ux[e] = co * model[2, e] - so * model[3, e]
        uy[e] = so * model[2, e] + co * model[3, e]
        lit_e[e] = e_exp == 0.0 or -(ex[e] * ux[e] + ey[e] * uy[e]) > -reach_d - 1e-9
    for d in range(sensors):
        lit_d[d] = d_exp == 0.0 or (px - model[4, d]) * model[6, d] + (py - model[5, d]) * model[7, d] > -reach_e - 1e-9
    for d in range(sensors):
        acc = 0.0
        if lit_d[d]:
            dx0, dy0, cd, sd = model[4, d], model[5, d], model[6, d], model[7, d]
            for e in range(sensors):
                if not lit_e[e]:
                    continue
                dx, dy = dx0 - ex[e], dy0 - ey[e]
                dot_e = ux[e] * dx + uy[e] * dy
                dot_d = -(cd * dx + sd * dy)
                if (dot_e <= 0.0 and e_exp != 0.0) or (dot_d <= 0.0 and d_exp != 0.0):
                    continue  # behind the emitter or the detector: no light
                squared = max(dx * dx + dy * dy, 1e-18)
                inverse = 1.0 / math.sqrt(squared)
                acc += (_lobe(dot_e * inverse, e_exp) * _lobe(dot_d * inverse, d_exp)
                        * min(1.0, gain * math.exp(half_k * math.log(squared))))
        means[d] = span * (1.0 - min(1.0, acc)) + m_min
    lowest = m_sup
    dark = 0
    for d in range(sensors):
        level = min(max(math.floor(means[d]), 0.0), float(m_sup))
        sensor_hist[d, int(level)] += 1
        lowest = min(lowest, int(level))
        if means[d] == m_max:
            dark += 1
    min_hist[lowest] += 1
    if means.min() <= cut:
        return  # far below every m: detected with certainty (contribution < Φ(−8))
    # P(min_j ⌊μ_j + n_j⌋ > m) = Π_j Φ((μ_j − m − 1)/σ): the dark sensors' factors come from the
    # table of powers, the lit ones are multiplied in one sensor at a time (a loop LLVM vectorises).
    prod = scratch_m
    for i in range(m_values.shape[0]):
        prod[i] = ambient_powers[dark, i]
    for d in range(sensors):
        if means[d] != m_max:
            for i in range(m_values.shape[0]):
                prod[i] *= _ndtr((means[d] - (m_values[i] + 1.0)) * inv_sigma, phi)
    for i in range(m_values.shape[0]):
        tail[i] += prod[i]


@njit(cache=True)
def _tally_grid(start, stop, n_polar, n_orientation, distance, cos_polar, sin_polar, cos_or, sin_or, model, phi, m_sup,
                m_values, ambient_powers, tail, sensor_hist, min_hist):
    """Observations start…stop−1 of the quantile grid (flat index over D × Θ × O, O fastest)."""
    means = np.empty(sensor_hist.shape[0])
    scratch_e = np.empty((6, sensor_hist.shape[0]))
    scratch_m = np.empty(m_values.shape[0])
    for index in range(start, stop):
        i = index // (n_polar * n_orientation)
        j = (index // n_orientation) % n_polar
        k = index % n_orientation
        _tally(distance[i] * cos_polar[j], distance[i] * sin_polar[j], cos_or[k], sin_or[k], model, phi, m_sup,
               m_values, ambient_powers, means, scratch_e, scratch_m, tail, sensor_hist, min_hist)


@njit(cache=True)
def _tally_poses(px, py, co, so, model, phi, m_sup, m_values, ambient_powers, tail, sensor_hist, min_hist):
    """The observations of transmitters at (px, py) with headings cos/sin (co, so)."""
    means = np.empty(sensor_hist.shape[0])
    scratch_e = np.empty((6, sensor_hist.shape[0]))
    scratch_m = np.empty(m_values.shape[0])
    for n in range(px.shape[0]):
        _tally(px[n], py[n], co[n], so[n], model, phi, m_sup, m_values, ambient_powers, means, scratch_e, scratch_m,
               tail, sensor_hist, min_hist)


def _model_table(geometry: EPuckGeometry, params: ChannelParameters, m_values: np.ndarray) -> np.ndarray:
    """The constants of :func:`_tally` as one array (rows documented there)."""
    sensors = geometry.sensor_count
    table = np.zeros((10, max(sensors, 8)))
    emitters, detectors = geometry.emitters_local(), geometry.detectors_local()
    angles = geometry.sensor_angles
    table[0, :sensors], table[1, :sensors] = emitters[:, 0], emitters[:, 1]
    table[2, :sensors], table[3, :sensors] = np.cos(angles), np.sin(angles)
    table[4, :sensors], table[5, :sensors] = detectors[:, 0], detectors[:, 1]
    table[6, :sensors], table[7, :sensors] = np.cos(angles), np.sin(angles)
    sigma = params.noise_sigma
    table[8, :8] = (params.emitter_exponent, params.detector_exponent, params.medium_gain,
                    0.5 * params.medium_exponent, params.m_max - params.m_min, params.m_min, sigma,
                    m_values.min() + 1.0 - 8.0 * sigma)
    table[9, :2] = np.hypot(*emitters.T).max(), np.hypot(*detectors.T).max()
    return table


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
                       chunk: int = CHUNK) -> ThresholdEstimate:
    """Compute m_t from the channel model (Sects. 4.2.2–4.2.3).

    Either over the quantile ``grid`` (n_D, n_Θ, n_O) — the paper used (1000, 720, 720), 5.184·10^8
    observations per sensor — or over ``samples`` random poses drawn with ``rng`` (in blocks of
    :data:`SAMPLE_BLOCK`). The observations are evaluated by compiled kernels, ``chunk`` at a time.
    """
    geometry = geometry or EPuckGeometry()
    params = params or ChannelParameters()
    poses = poses or PoseDistribution()
    if int(chunk) != chunk or chunk < 1:
        raise ValueError(f'chunk must be a positive integer, got {chunk!r}')
    low = int(np.floor(params.m_max - 10.0 * params.noise_sigma)) - 1
    m_values = np.arange(low, params.m_sup)
    sensors = geometry.sensor_count
    model = _model_table(geometry, params, m_values)
    ambient = special.ndtr((params.m_max - (m_values + 1.0)) / params.noise_sigma)
    ambient_powers = np.cumprod(np.vstack([np.ones_like(ambient)] + [ambient] * sensors), axis=0)
    m_float = m_values.astype(float)
    tail_sum = np.zeros(m_values.shape)
    tail = np.zeros(m_values.shape)
    sensor_hist = np.zeros((sensors, params.m_sup + 1), dtype=np.int64)
    min_hist = np.zeros(params.m_sup + 1, dtype=np.int64)
    fixed = (model, PHI_TABLE, int(params.m_sup), m_float, ambient_powers, tail, sensor_hist, min_hist)
    if grid is None:
        if int(samples) != samples or samples < 1:
            raise ValueError(f'samples must be a positive integer, got {samples!r}')
        if rng is None:
            raise ValueError('rng is required when sampling random poses (pass a numpy Generator)')
        for block in range(0, samples, SAMPLE_BLOCK):
            distance, polar, orientation = poses.sample(min(SAMPLE_BLOCK, samples - block), rng)
            for lo in range(0, len(distance), chunk):
                d, a, o = distance[lo:lo + chunk], polar[lo:lo + chunk], orientation[lo:lo + chunk]
                tail[:] = 0.0
                _tally_poses(d * np.cos(a), d * np.sin(a), np.cos(o), np.sin(o), *fixed)
                tail_sum += tail
        count = int(samples)
    else:
        distance, polar, orientation = poses.quantile_axes(*grid)
        count = len(distance) * len(polar) * len(orientation)
        for lo in range(0, count, chunk):
            tail[:] = 0.0
            _tally_grid(lo, min(count, lo + chunk), len(polar), len(orientation), distance, np.cos(polar),
                        np.sin(polar), np.cos(orientation), np.sin(orientation), *fixed)
            tail_sum += tail
    s1_tail = tail_sum / count
    s0_cdf = s0_min_cdf(m_values, params, sensors)
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
