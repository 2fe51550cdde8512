# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""How many channels n_C a robot can open as the swarm gets denser (paper Sect. 6.2.6, Fig. 20a).

A transmitter sits at the centre; 1 … N static robots are placed at random, without overlap, with their
centres within the communication range (61 cm, the reliable range at 310 bps with the default
m_t,r = 5). The paper's channel: "a channel [is] established if a robot can distinguish between s0 and
s1. In other words, the received signal is below threshold m_t,dyn".

Channel rule. ``channel='range'`` (the default): the robot's noise-free detector statistic (minimum over
its detectors) of the central robot's signal is at least as strong as what two facing robots measure at
the communication range (61 cm), i.e. the robot receives the central robot as well as a robot that the
paper's robots decode reliably (P_e < 0.01). ``channel='detect'``: the statistic is merely below
m_t = m_max − m_t,r = 4075 (eq. 36 forms m_t,dyn = ⌊(m_t + A)/2⌋ only for a prefix amplitude A < m_t, and
A < m_t,dyn ⇔ A < m_t). 'detect' ignores the noise the paper's detector works against: it also counts
links whose level is that of facing robots ~100 cm apart, where the dynamic detector misreads a third of
the bits (docs/swarmcom.md), so such a robot cannot distinguish s0 from s1.

Sensor layout (``layout``, :data:`~swarm_comm.geometry.EPUCK_LAYOUTS`): 'webots-proto' (default), the
sensors of Cyberbotics' e-puck robot model, 3.1–3.35 cm from the centre inside the 7 cm body; with the
driver table's 3.5 cm ('webots-driver') the sensors sit on the body's rim and a touching pair has a
channel in only 3 of 4 orientations.

Occlusion: ``'paths'`` (default) drops every emitter–detector path that crosses a third robot's body,
the paper's channel model (Fig. 3: "due to occlusion, not all emitter–detector pairs are relevant");
``'centre'`` keeps all paths of a robot whose centre is in the central robot's line of sight (the
robot-level test of the paper's video analysis, Sects. 6.1, 6.2.1) and none of one whose centre is
hidden; ``'none'`` ignores third robots.

Placement: random sequential adsorption (rejection sampling) while it finds room; past that (it jams
near a covered fraction of 0.55) robots are drawn from a randomly rotated hexagonal lattice, as dense as
needed, each site jittered within its free margin. N = 272 then is the near-hexagonal packing the paper
describes, in which the centre has six touching neighbours (a 7 cm lattice has only 270 sites
within 61 cm, so there the disc grows by the few millimetres needed).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .channel import ChannelParameters, gains_from, link_gains, mean_measurement, received_intensity
from .geometry import epuck_geometry, EPUCK_LAYOUTS, EPuckGeometry

CHANNEL_RULES = ('detect', 'range')
OCCLUSION_MODELS = ('paths', 'centre', 'none')
LAYOUTS = tuple(EPUCK_LAYOUTS)
DEFAULT_LAYOUT = 'webots-proto'
DEFAULT_CHANNEL = 'range'


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


def centre_line_blocked(positions: np.ndarray, radius: float, tx: int = 0) -> np.ndarray:
    """Whether the centre-to-centre segment from robot ``tx`` to each robot touches a third body, (N,).

    A segment that only grazes a body (distance = radius, e.g. through the contact point of two touching
    robots) counts as blocked: there is no gap for light to pass.
    """
    positions = np.asarray(positions, dtype=float)
    start = positions[tx]
    seg = positions - start                                                  # (N, 2)
    seg_len2 = np.maximum((seg * seg).sum(-1), 1e-12)
    rel = positions[None, :, :] - start                                      # (1, K, 2) third-body centres
    t = np.clip((seg[:, None, :] * rel).sum(-1) / seg_len2[:, None], 0.0, 1.0)   # (N, K)
    closest = rel - t[..., None] * seg[:, None, :]
    hit = (closest * closest).sum(-1) <= radius * radius * (1.0 + 1e-9)
    index = np.arange(positions.shape[0])
    hit &= (index[None, :] != tx) & (index[None, :] != index[:, None])
    blocked = hit.any(axis=1)
    blocked[tx] = False
    return blocked


def central_channel_count(positions: np.ndarray, headings: np.ndarray, geometry: EPuckGeometry,
                          params: ChannelParameters, threshold: float, occlusion: str = 'paths') -> int:
    """n_C: robots whose min-over-detectors measurement from robot 0's signal is below ``threshold``."""
    if occlusion not in OCCLUSION_MODELS:
        raise ValueError(f'occlusion must be one of {OCCLUSION_MODELS}, got {occlusion!r}')
    if positions.shape[0] < 2:
        return 0
    gains = gains_from(0, positions, headings, geometry, params, occlusion=occlusion == 'paths')
    measured = mean_measurement(received_intensity(gains), params).min(axis=1)
    channel = measured < threshold
    if occlusion == 'centre':
        channel &= ~centre_line_blocked(positions, geometry.body_radius)
    return int(channel[1:].sum())


def channel_threshold(channel: str, radius: float, geometry: EPuckGeometry, params: ChannelParameters,
                      relative_threshold: float = 5.0) -> float:
    """The level a robot's detector statistic must be below to count as a channel (see the module doc)."""
    if channel == 'detect':
        # Imported here: the detector needs scipy.stats (0.8 s), and the CLI imports this module
        # for its option names on every start.
        from .detector import DetectorConfig
        return DetectorConfig(relative_threshold, m_max=params.m_max).threshold
    if channel == 'range':
        return range_threshold(radius, geometry, params)
    raise ValueError(f'channel must be one of {CHANNEL_RULES}, got {channel!r}')


@dataclass(frozen=True)
class ScalabilityPoint:
    """n_C statistics at one number of surrounding robots."""

    robots: int
    density: float
    """Robots per m², (robots + 1) / (π · range²)."""
    mean_channels: float
    std_channels: float
    trials: int

    @property
    def ci95(self) -> float:
        """Half-width of the normal 95 % confidence interval of the mean (trials are independent)."""
        return 1.96 * self.std_channels / np.sqrt(self.trials) if self.trials > 1 else float('nan')


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
                         params: ChannelParameters | None = None, channel: str = DEFAULT_CHANNEL,
                         occlusion: str = 'paths', layout: str = DEFAULT_LAYOUT) -> list[ScalabilityPoint]:
    """n_C against density (Fig. 20a) for each number of surrounding robots in ``counts``.

    ``threshold`` overrides the level given by ``channel`` ('detect': the paper's m_t = 4075;
    'range': the facing-robots signal at ``radius``). ``layout`` names the sensor layout
    (:data:`~swarm_comm.geometry.EPUCK_LAYOUTS`) unless ``geometry`` is given.
    """
    geometry = geometry or epuck_geometry(layout)
    params = params or ChannelParameters()
    if int(trials) != trials or trials < 1:
        raise ValueError(f'trials must be a positive integer, got {trials!r}')
    if occlusion not in OCCLUSION_MODELS:
        raise ValueError(f'occlusion must be one of {OCCLUSION_MODELS}, got {occlusion!r}')
    if threshold is None:
        threshold = channel_threshold(channel, radius, geometry, params)
    area_m2 = np.pi * (radius / 100.0) ** 2
    points = []
    for count in counts:
        channels = np.empty(trials)
        for trial in range(trials):
            positions = place_robots(count, radius, rng, diameter=2 * geometry.body_radius)
            headings = rng.uniform(-np.pi, np.pi, positions.shape[0])
            channels[trial] = central_channel_count(positions, headings, geometry, params, threshold, occlusion)
        points.append(ScalabilityPoint(int(count), (count + 1) / area_m2, float(channels.mean()),
                                       float(channels.std(ddof=1)) if trials > 1 else 0.0, int(trials)))
    return points
