# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The e-puck infra-red channel model of SwarmCom (paper Sect. 3).

Three stages: emitter-to-detector attenuation h_c = h_e(α)·h_m(d)·h_d(β) (eqs. 3–7, identified in
eqs. 24, 25, 27); robot-to-robot superposition over all emitters with saturation at 1 (eqs. 8–14); and
the measurement model mapping received light to ADC values in [m_min, m_max] with Gaussian noise
(eqs. 15–22). Links are blocked by third robots' bodies (line-of-sight, Sect. 6.2.6). Lengths in cm.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .geometry import EPuckGeometry, to_world


@dataclass(frozen=True)
class ChannelParameters:
    """Table 1 of the paper: the identified model parameters."""

    emitter_exponent: float = 7.0
    """h_e(α) = |cos(α)^7| (eq. 27)."""
    detector_exponent: float = 3.0
    """h_d(β) = |cos(β)^3| (eq. 24)."""
    medium_gain: float = 1.12202
    """o_m of eq. 25."""
    medium_exponent: float = -1.54557
    """k_m of eq. 25."""
    m_max: float = 4080.0
    """Ambient-light measurement, no signal (Sect. 3.4.1)."""
    m_min: float = 150.0
    """Saturation measurement (Sect. 3.4.2)."""
    m_sup: int = 4095
    """Largest value of the 12-bit ADC, 2^12 − 1 (Sect. 3.3)."""
    noise_variance: float = 2.5
    """Variance of the measurement noise n_m(t) ~ N(0, 2.5) (Sect. 3.4.1)."""

    def __post_init__(self) -> None:
        for name in ('emitter_exponent', 'detector_exponent', 'medium_gain', 'noise_variance'):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise ValueError(f'{name} must be a non-negative finite number, got {value!r}')
        if not self.medium_exponent < 0:
            raise ValueError(
                f'medium_exponent must be negative (light fades with distance), got {self.medium_exponent!r}')
        if not 0 <= self.m_min < self.m_max <= self.m_sup:
            raise ValueError(
                f'need 0 <= m_min < m_max <= m_sup, '
                f'got m_min={self.m_min!r}, m_max={self.m_max!r}, m_sup={self.m_sup!r}')

    @property
    def noise_sigma(self) -> float:
        return float(np.sqrt(self.noise_variance))

    @property
    def medium_knee(self) -> float:
        """Distance o_m^(−1/k_m) below which the medium does not attenuate (eq. 25)."""
        return float(self.medium_gain ** (-1.0 / self.medium_exponent))


def cosine_lobe(cosine: np.ndarray, exponent: float) -> np.ndarray:
    """max(cos, 0)^exponent, by repeated multiplication for integer exponents (much faster than pow)."""
    c = np.maximum(cosine, 0.0)
    if float(exponent).is_integer() and 0 <= exponent <= 16:
        result, base, e = np.ones_like(c), c, int(exponent)
        while e:
            if e & 1:
                result = result * base
            base = base * base
            e >>= 1
        return result
    return c ** exponent


def emitter_attenuation(alpha: np.ndarray, params: ChannelParameters) -> np.ndarray:
    """h_e(α): |cos α|^7 inside the emitter's half-space, 0 behind it (eq. 27, Sect. 3.1)."""
    return cosine_lobe(np.cos(alpha), params.emitter_exponent)


def detector_attenuation(beta: np.ndarray, params: ChannelParameters) -> np.ndarray:
    """h_d(β): |cos β|^3 inside the detector's half-space, 0 behind it (eq. 24, Sect. 3.1)."""
    return cosine_lobe(np.cos(beta), params.detector_exponent)


def medium_attenuation(distance: np.ndarray, params: ChannelParameters) -> np.ndarray:
    """h_m(d) = 1 up to the knee, o_m·d^k_m beyond (eq. 25)."""
    d = np.maximum(np.asarray(distance, dtype=float), params.medium_knee)
    return params.medium_gain * d ** params.medium_exponent


def _segment_blocked(start: np.ndarray, end: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """Whether each segment start→end passes through any disc; start/end (..., 2), centres (K, 2)."""
    if centres.shape[0] == 0:
        return np.zeros(start.shape[:-1], dtype=bool)
    seg = end - start
    seg_len2 = np.maximum(np.einsum('...i,...i->...', seg, seg), 1e-12)
    blocked = np.zeros(start.shape[:-1], dtype=bool)
    for centre in centres:  # K is small per call; each step is vectorised over all segments
        rel = centre - start
        t = np.clip(np.einsum('...i,...i->...', rel, seg) / seg_len2, 0.0, 1.0)
        closest = start + t[..., None] * seg - centre
        blocked |= np.einsum('...i,...i->...', closest, closest) < radius * radius
    return blocked


def link_gains(tx_position: np.ndarray, tx_heading: np.ndarray, rx_position: np.ndarray,
               rx_heading: np.ndarray, geometry: EPuckGeometry, params: ChannelParameters,
               occluders: np.ndarray | None = None) -> np.ndarray:
    """Channel attenuation h_c summed over the transmitter's emitters, per receiving detector (eq. 11).

    Poses broadcast together over leading axes (``...``); the result is (..., detectors). With
    ``occluders`` (K, 2 robot centres, a single configuration only), emitter–detector paths crossing
    another robot's body are removed.
    """
    emitters = to_world(geometry.emitters_local(), tx_position, tx_heading)     # (..., E, 2)
    detectors = to_world(geometry.detectors_local(), rx_position, rx_heading)   # (..., D, 2)
    theta_e = np.asarray(tx_heading, dtype=float)[..., None] + geometry.sensor_angles  # (..., E)
    theta_d = np.asarray(rx_heading, dtype=float)[..., None] + geometry.sensor_angles  # (..., D)
    diff = detectors[..., None, :, :] - emitters[..., :, None, :]                  # (..., E, D, 2)
    dx, dy = diff[..., 0], diff[..., 1]
    squared = np.maximum(dx * dx + dy * dy, 1e-18)
    inverse = 1.0 / np.sqrt(squared)                                                # 1 / d_ij (eq. 13)
    # cos α (eq. 12) and cos β (eq. 14) as dot products with the sensors' facing directions
    cos_alpha = (np.cos(theta_e)[..., :, None] * dx + np.sin(theta_e)[..., :, None] * dy) * inverse
    cos_beta = -(np.cos(theta_d)[..., None, :] * dx + np.sin(theta_d)[..., None, :] * dy) * inverse
    # h_m = min(1, o_m d^k_m) equals eq. 25, as o_m d^k_m is decreasing and 1 at the knee
    medium = np.minimum(1.0, params.medium_gain * np.exp((0.5 * params.medium_exponent) * np.log(squared)))
    gain = (cosine_lobe(cos_alpha, params.emitter_exponent) * cosine_lobe(cos_beta, params.detector_exponent)
            * medium)                                                              # eq. 7
    if occluders is not None and len(occluders):
        start = np.broadcast_to(emitters[..., :, None, :], diff.shape)
        end = np.broadcast_to(detectors[..., None, :, :], diff.shape)
        live = gain > 0.0
        blocked = np.zeros(gain.shape, dtype=bool)
        if np.any(live):
            blocked[live] = _segment_blocked(start[live], end[live], np.asarray(occluders, float),
                                             geometry.body_radius)
        gain = np.where(blocked, 0.0, gain)
    return gain.sum(axis=-2)


def gains_from(tx: int, positions: np.ndarray, headings: np.ndarray, geometry: EPuckGeometry,
               params: ChannelParameters, occlusion: bool = True) -> np.ndarray:
    """h_c from robot ``tx`` to every detector of every robot of a group, (N, detectors); row ``tx`` is 0.

    With ``occlusion``, each emitter–detector path crossing the body of a third robot is dropped.
    """
    positions = np.asarray(positions, dtype=float)
    headings = np.asarray(headings, dtype=float)
    emitters = to_world(geometry.emitters_local(), positions[tx], headings[tx])            # (E, 2)
    detectors = to_world(geometry.detectors_local(), positions, headings)                  # (N, D, 2)
    gains = _pair_gains(positions[tx], headings[tx], positions, headings, geometry, params)  # (N, E, D)
    gains[tx] = 0.0
    if occlusion and positions.shape[0] > 2:
        live = np.argwhere(gains > 0.0)                                                   # rows: rx, e, d
        if live.size:
            blocked = _blocked(emitters[live[:, 1]], detectors[live[:, 0], live[:, 2]], positions,
                               tx, live[:, 0], geometry.body_radius)
            gains[tuple(live[blocked].T)] = 0.0
    return gains.sum(axis=1)


def gain_matrix(positions: np.ndarray, headings: np.ndarray, geometry: EPuckGeometry,
                params: ChannelParameters, occlusion: bool = True) -> np.ndarray:
    """h_c of every transmitter → receiver detector in a group, (N_tx, N_rx, detectors); diagonal 0."""
    count = np.asarray(positions).shape[0]
    return np.stack([gains_from(tx, positions, headings, geometry, params, occlusion) for tx in range(count)])


def _pair_gains(tx_position: np.ndarray, tx_heading: float, rx_positions: np.ndarray, rx_headings: np.ndarray,
                geometry: EPuckGeometry, params: ChannelParameters) -> np.ndarray:
    """Per emitter–detector gains h_e·h_m·h_d (N, E, D): the terms of eq. 11 before summing."""
    emitters = to_world(geometry.emitters_local(), tx_position, tx_heading)              # (E, 2)
    detectors = to_world(geometry.detectors_local(), rx_positions, rx_headings)          # (N, D, 2)
    theta_e = tx_heading + geometry.sensor_angles                                         # (E,)
    theta_d = rx_headings[:, None] + geometry.sensor_angles[None, :]                      # (N, D)
    dx = detectors[:, None, :, 0] - emitters[None, :, None, 0]                            # (N, E, D)
    dy = detectors[:, None, :, 1] - emitters[None, :, None, 1]
    squared = np.maximum(dx * dx + dy * dy, 1e-18)
    inverse = 1.0 / np.sqrt(squared)
    cos_alpha = (np.cos(theta_e)[None, :, None] * dx + np.sin(theta_e)[None, :, None] * dy) * inverse
    cos_beta = -(np.cos(theta_d)[:, None, :] * dx + np.sin(theta_d)[:, None, :] * dy) * inverse
    return (cosine_lobe(cos_alpha, params.emitter_exponent) * cosine_lobe(cos_beta, params.detector_exponent)
            * medium_attenuation(np.sqrt(squared), params))


def _blocked(start: np.ndarray, end: np.ndarray, centres: np.ndarray, transmitter: int, receiver: np.ndarray,
             radius: float, chunk: int = 2048) -> np.ndarray:
    """Whether each segment crosses the body of a robot other than its transmitter and its receiver."""
    out = np.zeros(start.shape[0], dtype=bool)
    index = np.arange(centres.shape[0])
    for lo in range(0, start.shape[0], chunk):
        s, e = start[lo:lo + chunk], end[lo:lo + chunk]
        seg = e - s
        seg_len2 = np.maximum((seg * seg).sum(-1), 1e-12)
        rel = centres[None, :, :] - s[:, None, :]                                        # (S, K, 2)
        t = np.clip((rel * seg[:, None, :]).sum(-1) / seg_len2[:, None], 0.0, 1.0)
        closest = rel - t[..., None] * seg[:, None, :]
        hit = (closest * closest).sum(-1) < radius * radius
        hit &= (index[None, :] != transmitter) & (index[None, :] != receiver[lo:lo + chunk, None])
        out[lo:lo + chunk] = hit.any(axis=1)
    return out


def received_intensity(gain: np.ndarray) -> np.ndarray:
    """y_j = min(1, Σ h_c): superposed light saturates the detector (eq. 10, noise-free)."""
    return np.minimum(1.0, gain)


def mean_measurement(intensity: np.ndarray, params: ChannelParameters,
                     m_max: float | np.ndarray | None = None) -> np.ndarray:
    """Noise-free ADC value (m_max − m_min)(1 − y) + m_min, before flooring (eq. 21)."""
    top = params.m_max if m_max is None else m_max
    return (top - params.m_min) * (1.0 - np.asarray(intensity)) + params.m_min


def measure(intensity: np.ndarray, params: ChannelParameters, rng: np.random.Generator,
            m_max: float | np.ndarray | None = None) -> np.ndarray:
    """Noisy integer ADC samples ⌊(m_max − m_min)(1 − y) + m_min + n_m⌋ in [0, m_sup] (eq. 22)."""
    mean = mean_measurement(intensity, params, m_max)
    noisy = mean + rng.normal(0.0, params.noise_sigma, size=np.shape(mean))
    return np.clip(np.floor(noisy), 0, params.m_sup).astype(np.int32)
