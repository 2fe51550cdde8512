# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Mobile e-pucks in a 72 × 72 cm arena exchanging messages by local broadcast or flooding (paper Sect. 6).

Robots random-walk (the paper's Algorithm 1 is not in its text; here: drive straight for a uniform
time in (0, t_m], t_m = 2 s, then turn on the spot by a uniform angle in (−π, π]); they do not avoid
each other (Sect. 6.2.1): walls stop them and overlapping bodies are pushed apart. e-puck top speeds
are Enki's: 12.8 cm/s, axle 5.1 cm. The world is sampled once per symbol: every sample, each robot's
detectors see the superposed light of all robots transmitting at that instant (eq. 11, so collisions
are modelled), with line-of-sight occlusion; the geometry is refreshed every ``geometry_period``
samples. Each message starts at a random robot; it is lost for a robot that has not decoded it 2 s
later (Sect. 6.1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .channel import ChannelParameters, gain_matrix
from .coding import BCHCode, CODES
from .detector import DetectorConfig
from .geometry import EPuckGeometry
from .mac import Csma
from .modem import frame_symbols, Receiver
from .network import blocks_to_packet, MODES, Packet, packet_to_blocks, Router

EPUCK_MAX_SPEED = 12.8   # cm/s (Enki)
EPUCK_AXLE = 5.1         # cm (Enki)


@dataclass(frozen=True)
class MobileConfig:
    """One configuration of the mobile experiments (Sects. 6.2.2–6.2.5)."""

    robots: int = 4
    mode: str = 'flooding'
    bit_rate: float = 310.0
    relative_threshold: float = 10.0
    """m_t,r; 10 gives the paper's 45 cm range (Sect. 6.2.2)."""
    speed_fraction: float = 1.0
    """1/3, 2/3 or 1 of the top linear and angular speeds (Sect. 6.2.3)."""
    arena: float = 72.0
    walk_period: float = 2.0
    """t_m of the random walk (s)."""
    timeout: float = 2.0
    max_payload_blocks: int = 4
    code: BCHCode = field(default_factory=lambda: CODES['15,15'])
    backoff_window: int = 32
    geometry_period: int = 32
    warmup: float = 30.0
    """Seconds the robots walk before the first message. Started uniformly spread, they drift to the walls
    (no obstacle avoidance, walls stop them), so without it short runs would sample the start, not the walk."""

    def __post_init__(self) -> None:
        if int(self.robots) != self.robots or not 2 <= self.robots <= 16:
            raise ValueError(f'robots must be an integer in 2..16 (4-bit origin), got {self.robots!r}')
        if self.mode not in MODES:
            raise ValueError(f'mode must be one of {MODES}, got {self.mode!r}')
        if not np.isfinite(self.warmup) or self.warmup < 0:
            raise ValueError(f'warmup must be a non-negative number, got {self.warmup!r}')
        for name in ('bit_rate', 'relative_threshold', 'arena', 'walk_period', 'timeout'):
            value = getattr(self, name)
            if not np.isfinite(value) or value <= 0:
                raise ValueError(f'{name} must be a positive number, got {value!r}')
        if not 0 <= self.speed_fraction <= 1:
            raise ValueError(f'speed_fraction must be in [0, 1], got {self.speed_fraction!r}')
        if self.arena < 7.0 * 2:
            raise ValueError(f'arena must hold two robots side by side (>= 14 cm), got {self.arena!r}')
        if int(self.geometry_period) != self.geometry_period or self.geometry_period < 1:
            raise ValueError(f'geometry_period must be a positive integer, got {self.geometry_period!r}')


class RandomWalk:
    """Positions and headings of robots doing the straight-then-turn random walk."""

    def __init__(self, count: int, arena: float, speed_fraction: float, walk_period: float,
                 rng: np.random.Generator, radius: float = 3.5) -> None:
        self.arena, self.radius, self.walk_period = arena, radius, walk_period
        self.speed = EPUCK_MAX_SPEED * speed_fraction
        self.turn_rate = 2.0 * EPUCK_MAX_SPEED / EPUCK_AXLE * speed_fraction
        self.positions = _scatter(count, arena, radius, rng)
        self.headings = rng.uniform(-np.pi, np.pi, count)
        self.turning = np.zeros(count, dtype=bool)
        self.remaining = rng.uniform(0.0, walk_period, count)
        self.turn_sign = np.ones(count)

    def step(self, dt: float, rng: np.random.Generator) -> None:
        ahead = np.stack([np.cos(self.headings), np.sin(self.headings)], axis=-1)
        moving = ~self.turning
        self.positions[moving] += ahead[moving] * self.speed * dt
        self.headings[self.turning] += self.turn_sign[self.turning] * self.turn_rate * dt
        self.remaining -= dt
        switch = self.remaining <= 0.0
        start_turn = switch & moving
        angle = rng.uniform(-np.pi, np.pi, int(start_turn.sum()))
        self.turn_sign[start_turn] = np.sign(angle) + (angle == 0)
        self.remaining[start_turn] = np.abs(angle) / max(self.turn_rate, 1e-9)
        start_drive = switch & self.turning
        self.remaining[start_drive] = rng.uniform(0.0, self.walk_period, int(start_drive.sum()))
        self.turning[start_turn] = True
        self.turning[start_drive] = False
        self._resolve_contacts()

    def _resolve_contacts(self) -> None:
        for _ in range(3):
            diff = self.positions[:, None, :] - self.positions[None, :, :]
            dist = np.hypot(diff[..., 0], diff[..., 1]) + np.eye(len(self.positions)) * 1e9
            overlap = np.maximum(0.0, 2 * self.radius - dist)
            push = (diff / np.maximum(dist, 1e-9)[..., None] * (overlap / 2.0)[..., None]).sum(axis=1)
            self.positions += push
            np.clip(self.positions, self.radius, self.arena - self.radius, out=self.positions)


def _scatter(count: int, arena: float, radius: float, rng: np.random.Generator) -> np.ndarray:
    placed: list[np.ndarray] = []
    while len(placed) < count:
        candidate = rng.uniform(radius, arena - radius, 2)
        if all(np.hypot(*(candidate - p)) >= 2 * radius for p in placed):
            placed.append(candidate)
    return np.asarray(placed)


@dataclass(frozen=True)
class MessageOutcome:
    """What became of one message."""

    origin: int
    reached: int
    """Robots other than the origin that decoded it before the timeout."""
    others: int
    bit_errors: int
    bits: int
    transmissions: int

    @property
    def p_l(self) -> float:
        """Message loss extended to a group: 0 when every robot bar the origin got it (Sect. 6.2.2)."""
        return 1.0 - self.reached / self.others

    @property
    def p_e(self) -> float:
        return self.bit_errors / self.bits if self.bits else float('nan')


def run_mobile(config: MobileConfig, messages: int, rng: np.random.Generator,
               geometry: EPuckGeometry | None = None, params: ChannelParameters | None = None,
               start: tuple[np.ndarray, np.ndarray] | None = None) -> list[MessageOutcome]:
    """Send ``messages`` messages, one after another, in a random-walking group.

    ``start`` optionally fixes the initial (positions (N, 2), headings (N,)) instead of random ones.
    """
    geometry = geometry or EPuckGeometry()
    params = params or ChannelParameters()
    if int(messages) != messages or messages < 1:
        raise ValueError(f'messages must be a positive integer, got {messages!r}')
    n, code = config.robots, config.code
    walk = RandomWalk(n, config.arena, config.speed_fraction, config.walk_period, rng)
    if start is not None:
        positions, headings = (np.asarray(a, dtype=float) for a in start)
        if positions.shape != (n, 2) or headings.shape != (n,):
            raise ValueError(
                f'start must be positions ({n}, 2) and headings ({n},), got {positions.shape}, {headings.shape}')
        walk.positions, walk.headings = positions.copy(), headings.copy()
    else:
        for _ in range(int(round(config.warmup / 0.1))):
            walk.step(0.1, rng)
    detector = DetectorConfig(config.relative_threshold, dynamic=True, m_max=params.m_max)
    dt = 1.0 / config.bit_rate
    timeout = int(round(config.timeout * config.bit_rate))
    outcomes = []
    gains = gain_matrix(walk.positions, walk.headings, geometry, params)
    for sequence in range(messages):
        receiver = Receiver(n, detector, max_blocks=64)
        csma = Csma(n, config.backoff_window)
        routers = [Router(config.mode) for _ in range(n)]
        origin = int(rng.integers(n))
        payload = rng.integers(0, 2, int(rng.integers(1, config.max_payload_blocks + 1)) * code.data_bits,
                               dtype=np.uint8)
        packet = Packet(origin, sequence % 2048, payload)
        routers[origin].originate(packet)
        queue: list[np.ndarray | None] = [None] * n
        queue[origin] = frame_symbols(packet_to_blocks(packet, code))
        csma.queued(np.array([origin]), rng)
        sending: list[np.ndarray | None] = [None] * n
        cursor = np.zeros(n, dtype=np.int64)
        reached = np.zeros(n, dtype=bool)
        bit_errors = bits = transmissions = 0
        for t in range(timeout):
            if t % config.geometry_period == 0 and t:
                walk.step(config.geometry_period * dt, rng)
                gains = gain_matrix(walk.positions, walk.headings, geometry, params)
            on = np.array([s is not None and s[cursor[r]] == 1 for r, s in enumerate(sending)], dtype=float)
            transmitting = np.array([s is not None for s in sending])
            light = np.minimum(1.0, np.einsum('t,trd->rd', on, gains))                       # eqs. 10, 11
            level = (params.m_max - params.m_min) * (1.0 - light) + params.m_min             # eq. 21
            sample = np.clip(np.floor(level + rng.normal(0.0, params.noise_sigma, level.shape)), 0, params.m_sup)
            statistic = sample.min(axis=1)
            for msg in receiver.step(statistic, listening=~transmitting):
                got = blocks_to_packet(msg.blocks, code, payload.size)
                if got is None or got.key != packet.key:
                    continue  # noise, or a header corrupted beyond recognition
                is_new, forward = routers[msg.receiver].receive(got)
                if not is_new:
                    continue
                reached[msg.receiver] = True
                common = min(payload.size, got.payload.size)   # a truncated message: missing bits are errors
                bit_errors += int((got.payload[:common] != payload[:common]).sum()) + payload.size - common
                bits += payload.size
                if forward:
                    queue[msg.receiver] = frame_symbols(packet_to_blocks(got, code))
                    csma.queued(np.array([msg.receiver]), rng)
            # advance transmitters, then let CSMA start waiting robots (half duplex)
            for r in np.flatnonzero(transmitting):
                cursor[r] += 1
                if cursor[r] >= sending[r].size:
                    sending[r] = None
            waiting = np.array([queue[r] is not None and sending[r] is None for r in range(n)])
            busy = receiver.busy | (statistic < detector.threshold)
            for r in np.flatnonzero(csma.step(waiting, busy, rng)):
                sending[r], queue[r], cursor[r] = queue[r], None, 0
                receiver.reset(np.arange(n) == r)
                transmissions += 1
            if (all(s is None for s in sending) and all(q is None for q in queue) and not receiver.busy.any()):
                break
        # the robots walk the samples since the last refresh, and the next message sees where they are now
        walk.step(dt * (t % config.geometry_period + 1), rng)
        gains = gain_matrix(walk.positions, walk.headings, geometry, params)
        reached[origin] = False
        outcomes.append(MessageOutcome(origin, int(reached.sum()), n - 1, bit_errors, bits, transmissions))
    return outcomes


@dataclass(frozen=True)
class ModeComparison:
    """Broadcast vs flooding P_l for one group size over independent repetitions (Fig. 16b).

    Messages of one run are sent back to back, so their outcomes are correlated (the geometry changes
    little from one message to the next); the confidence intervals are therefore taken over the runs'
    means (Student t, 95 %), each run starting from its own random placement, shared by both modes.
    """

    robots: int
    repetitions: int
    messages: int
    """Messages per run."""
    broadcast: float
    broadcast_ci: float
    flooding: float
    flooding_ci: float
    gain: float
    """Mean of broadcast P_l − flooding P_l over paired runs (> 0: flooding reaches more)."""
    gain_ci: float
    transmissions: float
    """Mean transmissions per message with flooding (1 with broadcast)."""


def _mean_ci(values: np.ndarray) -> tuple[float, float]:
    from scipy import stats
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float(values.mean()), float('nan')
    half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
    return float(values.mean()), float(half)


def compare_modes(robots: int, repetitions: int, messages: int, seed: int,
                  base: MobileConfig | None = None) -> ModeComparison:
    """Run both modes ``repetitions`` times with ``messages`` each; run r of both modes uses one seed."""
    base = base or MobileConfig()
    if int(repetitions) != repetitions or repetitions < 2:
        raise ValueError(f'repetitions must be an integer >= 2, got {repetitions!r}')
    means = {mode: np.empty(repetitions) for mode in MODES}
    transmissions = np.empty(repetitions)
    for r in range(repetitions):
        for mode in MODES:
            config = MobileConfig(**{**base.__dict__, 'robots': robots, 'mode': mode})
            outcomes = run_mobile(config, messages, np.random.default_rng([seed, robots, r]))
            means[mode][r] = np.mean([o.p_l for o in outcomes])
            if mode == 'flooding':
                transmissions[r] = np.mean([o.transmissions for o in outcomes])
    broadcast, broadcast_ci = _mean_ci(means['broadcast'])
    flooding, flooding_ci = _mean_ci(means['flooding'])
    gain, gain_ci = _mean_ci(means['broadcast'] - means['flooding'])
    return ModeComparison(int(robots), int(repetitions), int(messages), broadcast, broadcast_ci, flooding,
                          flooding_ci, gain, gain_ci, float(transmissions.mean()))
