"""How many channels n_C a robot can open as the swarm gets denser (paper Sect. 6.2.6, Fig. 20a).

A transmitter sits at the centre; 1 … N static robots are placed at random, without overlap, with their
centres within the communication range (61 cm). A channel to a robot is established when its detector
statistic (minimum over its detectors) falls below the threshold m_t, bodies of the other robots
blocking the line of sight of each emitter–detector path. "Within a communication range of 61 cm" is
read as: the channel must carry at least the signal two facing robots receive 61 cm apart.

Placement: random sequential adsorption (rejection sampling) while it finds room; past that (it jams
near a covered fraction of 0.55) robots are drawn from a randomly rotated hexagonal lattice, as dense as
needed, each site jittered within its free margin. N = 272 then is the near-hexagonal packing the paper
describes, in which the centre sees its six touching neighbours (a 7 cm lattice has only 270 sites
within 61 cm, so there the disc grows by the few millimetres needed).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .channel import ChannelParameters, gains_from, link_gains, mean_measurement, received_intensity
from .geometry import EPuckGeometry


def _hex_lattice(spacing: float, radius: float, rotation: float) -> np.ndarray:
    """Lattice sites (excluding the origin) within ``radius`` of it."""
    n = int(np.ceil(radius / spacing)) + 2
    i, j = np.meshgrid(np.arange(-n, n + 1), np.arange(-n, n + 1), indexing='ij')
    x = spacing * (i + 0.5 * j)
    y = spacing * (np.sqrt(3.0) / 2.0 * j)
    c, s = np.cos(rotation), np.sin(rotation)
    sites = np.stack([c * x - s * y, s * x + c * y], axis=-1).reshape(-1, 2)
    r = np.hypot(sites[:, 0], sites[:, 1])
    return sites[(r <= radius) & (r > 1e-9)]


def place_robots(count: int, radius: float, rng: np.random.Generator, diameter: float = 7.0,
                 attempts: int = 4000) -> np.ndarray:
    """Centres (count + 1, 2) of a robot at the origin and ``count`` others within ``radius``, not overlapping."""
    if int(count) != count or count < 0:
        raise ValueError(f'count must be a non-negative integer, got {count!r}')
    if not np.isfinite(radius) or radius < diameter:
        raise ValueError(f'radius must be at least the robot diameter {diameter}, got {radius!r}')
    placed = [np.zeros(2)]
    batch = 256
    for _ in range(count):
        found = None
        for _ in range(0, attempts, batch):
            r = radius * np.sqrt(rng.random(batch))
            phi = rng.uniform(-np.pi, np.pi, batch)
            candidates = np.stack([r * np.cos(phi), r * np.sin(phi)], axis=-1)
            existing = np.asarray(placed)
            d2 = ((candidates[:, None, :] - existing[None, :, :]) ** 2).sum(-1)
            free = np.flatnonzero((d2 >= diameter * diameter).all(axis=1))
            if free.size:
                found = candidates[free[0]]
                break
        if found is None:
            return _lattice_placement(count, radius, rng, diameter)
        placed.append(found)
    return np.asarray(placed)


def _lattice_placement(count: int, radius: float, rng: np.random.Generator, diameter: float) -> np.ndarray:
    rotation = rng.uniform(0.0, np.pi / 3.0)
    spacing = diameter
    # a 7 cm lattice has 270 sites within 61 cm: the paper's 272 robots need the disc a little larger
    while _hex_lattice(diameter, radius, rotation).shape[0] < count:
        if radius > 2.0 * np.sqrt(count) * diameter:
            raise ValueError(f'{count} robots of diameter {diameter} do not fit within radius {radius}')
        radius += 0.1
    # the widest lattice that still has a site for every robot leaves the most room to jitter
    for candidate in np.linspace(2.0 * diameter, diameter, 200):
        if _hex_lattice(candidate, radius, rotation).shape[0] >= count:
            spacing = candidate
            break
    sites = _hex_lattice(spacing, radius, rotation)
    chosen = sites[rng.choice(sites.shape[0], count, replace=False)]
    margin = (spacing - diameter) / 2.0
    jitter_r = margin * np.sqrt(rng.random(count))
    jitter_phi = rng.uniform(-np.pi, np.pi, count)
    chosen = chosen + np.stack([jitter_r * np.cos(jitter_phi), jitter_r * np.sin(jitter_phi)], axis=-1)
    norms = np.hypot(chosen[:, 0], chosen[:, 1])
    chosen *= np.minimum(1.0, radius / np.maximum(norms, 1e-9))[:, None]
    return np.vstack([np.zeros((1, 2)), chosen])


def central_channel_count(positions: np.ndarray, headings: np.ndarray, geometry: EPuckGeometry,
                          params: ChannelParameters, threshold: float) -> int:
    """n_C: robots whose min-over-detectors measurement from robot 0's signal is below ``threshold``."""
    if positions.shape[0] < 2:
        return 0
    gains = gains_from(0, positions, headings, geometry, params)[1:]
    measured = mean_measurement(received_intensity(gains), params)
    return int((measured.min(axis=1) < threshold).sum())


@dataclass(frozen=True)
class ScalabilityPoint:
    """n_C statistics at one number of surrounding robots."""

    robots: int
    density: float
    """Robots per m², (robots + 1) / (π · range²)."""
    mean_channels: float
    std_channels: float
    trials: int


def range_threshold(radius: float, geometry: EPuckGeometry, params: ChannelParameters) -> float:
    """The detector level a channel must reach: what two facing robots ``radius`` cm apart measure.

    This ties "a communication range of 61 cm" to the model: a robot has a channel when it receives at
    least the signal of the range limit (at 310 bps, 61 cm is where the dynamic detector with
    m_t,r = 5 stops being reliable, P_e < 0.01; docs/swarmcom.md).
    """
    gains = link_gains(np.array([radius, 0.0]), np.array(np.pi), np.zeros(2), np.zeros(()), geometry, params)
    return float(mean_measurement(received_intensity(gains), params).min())


def simulate_scalability(counts: list[int], trials: int, rng: np.random.Generator, radius: float = 61.0,
                         threshold: float | None = None, geometry: EPuckGeometry | None = None,
                         params: ChannelParameters | None = None) -> list[ScalabilityPoint]:
    """n_C against density (Fig. 20a) for each number of surrounding robots in ``counts``.

    ``threshold`` defaults to :func:`range_threshold` of ``radius``; pass m_t (4075) to count every
    robot that can detect the carrier at all.
    """
    geometry = geometry or EPuckGeometry()
    params = params or ChannelParameters()
    if int(trials) != trials or trials < 1:
        raise ValueError(f'trials must be a positive integer, got {trials!r}')
    if threshold is None:
        threshold = range_threshold(radius, geometry, params)
    area_m2 = np.pi * (radius / 100.0) ** 2
    points = []
    for count in counts:
        channels = np.empty(trials)
        for trial in range(trials):
            positions = place_robots(count, radius, rng, diameter=2 * geometry.body_radius)
            headings = rng.uniform(-np.pi, np.pi, positions.shape[0])
            channels[trial] = central_channel_count(positions, headings, geometry, params, threshold)
        points.append(ScalabilityPoint(int(count), (count + 1) / area_m2, float(channels.mean()),
                                       float(channels.std()), int(trials)))
    return points
