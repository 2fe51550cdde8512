# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Two static robots facing each other: bit-error and message-loss probabilities against distance (paper Sect. 5).

Each trial sends one message of 1–5 random blocks (Sect. 5.1) after an idle lead-in of one block
(16 samples, during which a too sensitive detector may fire on noise), then idles again. The receiver
decodes the sample stream; a message it assembled that overlaps the frame means received, none means
lost (eq. 35). If noise fired the detector just before the real prefix, the real message is swallowed
(misframed) and reported apart. P_e is the Hamming distance between sent and received raw blocks of the
correctly framed messages over their sent bits, missing (truncated) blocks counting as errors. Block errors after
decoding are counted for the chosen code, and
P_f of eq. 34 is predicted from P_e for c = 0, 1, 7.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .channel import ChannelParameters, link_gains, mean_measurement, received_intensity
from .coding import BCHCode, BLOCK_LENGTH
from .detector import DetectorConfig
from .geometry import EPuckGeometry
from .modem import frame_symbols, ReceivedMessage, Receiver, SYMBOLS_PER_BLOCK

LEAD_IN = SYMBOLS_PER_BLOCK


def facing_pair_means(distance: float, geometry: EPuckGeometry, params: ChannelParameters) -> np.ndarray:
    """Noise-free measurements per detector of a receiver facing a transmitter at ``distance`` cm (centres)."""
    gains = link_gains(np.array([distance, 0.0]), np.array(np.pi), np.zeros(2), np.zeros(()), geometry, params)
    return mean_measurement(received_intensity(gains), params)


@dataclass(frozen=True)
class LinkStatistics:
    """What one batch of messages at one distance measured."""

    distance: float
    messages: int
    received: int
    """Messages for which the receiver assembled something overlapping the frame (not lost, eq. 35)."""
    framed: int
    """Received messages whose first prefix was the real one (P_e is measured over these)."""
    bit_errors: int
    bits: int
    block_errors: int
    blocks: int
    longest_loss_run: int

    @property
    def p_e(self) -> float:
        """Bit-error probability over received messages (Sect. 5.1); NaN when none arrived."""
        return self.bit_errors / self.bits if self.bits else float('nan')

    @property
    def p_l(self) -> float:
        """Message-loss probability N_l / N (eq. 35)."""
        return 1.0 - self.received / self.messages

    @property
    def p_misframed(self) -> float:
        """Fraction of received messages misframed by a prefix detected in the noise before the real one."""
        return 1.0 - self.framed / self.received if self.received else float('nan')

    @property
    def block_error_rate(self) -> float:
        """Fraction of received blocks whose decoded data differ from the sent data."""
        return self.block_errors / self.blocks if self.blocks else float('nan')


def error_free_probability(p_e: np.ndarray, correctable: int, n: int = BLOCK_LENGTH) -> np.ndarray:
    """P_f(c) = Σ_{i≤c} C(n, i) P_e^i (1 − P_e)^(n−i): at most c of n bits wrong (eq. 34)."""
    return stats.binom.cdf(correctable, n, np.asarray(p_e, dtype=float))


def simulate_link(distance: float, detectors: Sequence[DetectorConfig], code: BCHCode, messages: int,
                  rng: np.random.Generator, geometry: EPuckGeometry | None = None,
                  params: ChannelParameters | None = None, max_blocks: int = 5, bit_rate: float = 310.0,
                  time_constant: float = 0.0) -> list[LinkStatistics]:
    """Send ``messages`` messages between two facing robots ``distance`` cm apart (centres).

    Every detector decodes the very same sample streams (common random numbers), so their statistics
    differ only by how they decide, not by luck. ``time_constant`` (s) makes the measuring circuit a
    first-order low-pass sampled at ``bit_rate`` (one sample per symbol): the inter-symbol interference
    the paper suspects at short distances and high bit rates (Sect. 5.2); 0 is the ideal circuit.
    """
    if not np.isfinite(bit_rate) or bit_rate <= 0:
        raise ValueError(f'bit_rate must be a positive number of symbols per second, got {bit_rate!r}')
    if not np.isfinite(time_constant) or time_constant < 0:
        raise ValueError(f'time_constant must be a non-negative number of seconds, got {time_constant!r}')
    carry = float(np.exp(-1.0 / (bit_rate * time_constant))) if time_constant > 0 else 0.0
    geometry = geometry or EPuckGeometry()
    params = params or ChannelParameters()
    if not np.isfinite(distance) or distance < 2 * geometry.body_radius:
        raise ValueError(
            f'distance must be at least the robot diameter {2 * geometry.body_radius} cm, got {distance!r}')
    if int(messages) != messages or messages < 1:
        raise ValueError(f'messages must be a positive integer, got {messages!r}')
    means = facing_pair_means(distance, geometry, params)                   # (D,)
    block_counts = rng.integers(1, max_blocks + 1, messages)
    data = rng.integers(0, 2, (messages, max_blocks, code.data_bits), dtype=np.uint8)
    sent = code.encode(data)                                                # (N, B, 15)
    length = LEAD_IN + SYMBOLS_PER_BLOCK * max_blocks + 2 * SYMBOLS_PER_BLOCK
    symbols = np.zeros((messages, length), dtype=np.uint8)
    for i, b in enumerate(block_counts):
        frame = frame_symbols(sent[i, :b])
        symbols[i, LEAD_IN:LEAD_IN + frame.size] = frame

    if not detectors:
        raise ValueError('detectors must name at least one detector')
    receivers = [Receiver(messages, detector, max_blocks=max_blocks + 1) for detector in detectors]
    received: list[list[list[ReceivedMessage]]] = [[[] for _ in range(messages)] for _ in detectors]
    sigma = params.noise_sigma
    level = np.full((messages, means.size), params.m_max)
    for t in range(length):
        target = np.where(symbols[:, t, None] == 1, means[None, :], params.m_max)     # eq. 21
        level = target + (level - target) * carry                                     # circuit low-pass
        noisy = np.floor(level + rng.normal(0.0, sigma, level.shape))                 # eq. 22
        statistic = np.clip(noisy, 0, params.m_sup).min(axis=1)                       # min over sensors (Sect. 4.2.2)
        for receiver, inbox in zip(receivers, received):
            for msg in receiver.step(statistic):
                inbox[msg.receiver].append(msg)
    for receiver, inbox in zip(receivers, received):
        for msg in receiver.flush():
            inbox[msg.receiver].append(msg)
    return [_score(distance, inbox, block_counts, sent, data, code) for inbox in received]


def _score(distance: float, received: list[list[ReceivedMessage]], block_counts: np.ndarray, sent: np.ndarray,
           data: np.ndarray, code: BCHCode) -> LinkStatistics:
    messages = len(received)
    got = np.zeros(messages, dtype=bool)
    framed = np.zeros(messages, dtype=bool)
    bit_errors = bits = block_errors = blocks = 0
    for i, b in enumerate(block_counts):
        frame_end = LEAD_IN + SYMBOLS_PER_BLOCK * b
        overlapping = [m for m in received[i]
                       if m.start_sample < frame_end and m.start_sample + SYMBOLS_PER_BLOCK * len(m.blocks) > LEAD_IN]
        if not overlapping:
            continue
        got[i] = True
        aligned = [m for m in overlapping if m.start_sample == LEAD_IN]
        if not aligned:  # a noise-triggered prefix swallowed the real one: received, but misframed
            continue
        framed[i] = True
        msg = aligned[0]
        rx = np.ones((b, BLOCK_LENGTH), dtype=np.uint8) ^ sent[i, :b]   # missing blocks count as all wrong
        usable = min(b, len(msg.blocks))
        rx[:usable] = msg.blocks[:usable]
        bit_errors += int((rx != sent[i, :b]).sum())
        bits += b * BLOCK_LENGTH
        decoded, _ = code.decode(rx)
        block_errors += int(np.any(decoded != data[i, :b], axis=1).sum())
        blocks += b
    return LinkStatistics(float(distance), int(messages), int(got.sum()), int(framed.sum()), bit_errors, bits,
                          block_errors, blocks, _longest_run(~got))


def _longest_run(flags: np.ndarray) -> int:
    longest = current = 0
    for flag in flags:
        current = current + 1 if flag else 0
        longest = max(longest, current)
    return longest


def reliable_range(stats_by_distance: list[LinkStatistics], max_error: float = 0.01) -> float:
    """Furthest distance up to which every distance had messages received with P_e < ``max_error`` (Fig. 12b)."""
    reached = float('nan')
    for s in sorted(stats_by_distance, key=lambda s: s.distance):
        if not s.received or not s.p_e < max_error:
            break
        reached = s.distance
    return reached


def communication_range(stats_by_distance: list[LinkStatistics], abort_run: int = 10) -> float:
    """Furthest distance reached before the first one with ``abort_run`` consecutive losses (Sect. 5.1)."""
    reached = float('nan')
    for s in sorted(stats_by_distance, key=lambda s: s.distance):
        if s.longest_loss_run >= abort_run:
            break
        reached = s.distance
    return reached
