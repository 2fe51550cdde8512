# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""On–off keying modem: message framing, one decision per ADC sample, fixed or dynamic threshold (Sects. 4.1, 4.2, 5.3).

Framing. Data are cut into k-bit words, each encoded into a 15-bit BCH block (Sect. 4.3). Every block
is sent after an s1 prefix symbol (Sect. 4.1), so a frame of b blocks is 16·b symbols; the idle channel
sends s0, so a missing prefix where the next one would be ends the message. The paper does not say how
its receiver learns a message's length: a prefix per block is our choice and costs 1/16 of the rate.

Sampling. The robot treats every ADC sample as one symbol (Sect. 5.5), so the bit rate is the sampling
rate; the detector statistic is the minimum over the eight detectors (Sect. 4.2.2).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .coding import BCHCode, bits_to_words, BLOCK_LENGTH
from .detector import DetectorConfig, dynamic_threshold

SYMBOLS_PER_BLOCK = BLOCK_LENGTH + 1  # s1 prefix + 15 code bits


def encode_message(data_bits: np.ndarray, code: BCHCode) -> np.ndarray:
    """15-bit blocks (b, 15) carrying ``data_bits`` (zero-padded to a multiple of k)."""
    data_bits = np.asarray(data_bits, dtype=np.uint8).ravel()
    if data_bits.size == 0:
        raise ValueError('data_bits must not be empty')
    return code.encode(bits_to_words(data_bits, code.data_bits))


def decode_blocks(blocks: np.ndarray, code: BCHCode) -> tuple[np.ndarray, int]:
    """Data bits (b·k,) and the total number of corrected bits of received blocks (b, 15)."""
    data, corrected = code.decode(np.asarray(blocks, dtype=np.uint8).reshape(-1, BLOCK_LENGTH))
    return data.ravel(), int(corrected.sum())


def frame_symbols(blocks: np.ndarray) -> np.ndarray:
    """OOK symbol sequence (16·b,) of 0 (s0) and 1 (s1): each block after an s1 prefix (Sect. 4.1)."""
    blocks = np.asarray(blocks, dtype=np.uint8).reshape(-1, BLOCK_LENGTH)
    prefix = np.ones((blocks.shape[0], 1), dtype=np.uint8)
    return np.concatenate([prefix, blocks], axis=1).ravel()


@dataclass
class ReceivedMessage:
    """A message one receiver assembled: its raw 15-bit blocks and when its first prefix arrived."""

    receiver: int
    start_sample: int
    blocks: np.ndarray
    """(b, 15) raw (still coded) bits."""


_IDLE, _BITS, _GAP = 0, 1, 2


@dataclass
class Receiver:
    """Sample-by-sample OOK demodulators for ``count`` independent receivers, vectorised over them.

    Idle: a sample below the default threshold m_t is a prefix; a dynamic detector then sets its
    threshold from this amplitude A (eq. 36). Next 15 samples are bits (below threshold = s1, eq. 30).
    Then a prefix continues the message with another block; anything else ends it, and the threshold
    returns to m_t.
    """

    count: int
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    max_blocks: int = 16

    def __post_init__(self) -> None:
        if int(self.count) != self.count or self.count < 1:
            raise ValueError(f'count must be a positive integer, got {self.count!r}')
        if int(self.max_blocks) != self.max_blocks or self.max_blocks < 1:
            raise ValueError(f'max_blocks must be a positive integer, got {self.max_blocks!r}')
        n = self.count
        self.default = float(self.detector.threshold)
        self.state = np.full(n, _IDLE, dtype=np.int8)
        self.threshold = np.full(n, self.default)
        self.bit_index = np.zeros(n, dtype=np.int64)
        self.block_index = np.zeros(n, dtype=np.int64)
        self.start = np.zeros(n, dtype=np.int64)
        self.buffer = np.zeros((n, self.max_blocks, BLOCK_LENGTH), dtype=np.uint8)
        self.sample = 0

    @property
    def busy(self) -> np.ndarray:
        """Receivers in the middle of a message (carrier sensed, for CSMA)."""
        return self.state != _IDLE

    def reset(self, mask: np.ndarray) -> None:
        """Drop partial messages of the masked receivers (e.g. when they start transmitting)."""
        self.state[mask] = _IDLE
        self.threshold[mask] = self.default

    def step(self, measurement: np.ndarray, listening: np.ndarray | None = None) -> list[ReceivedMessage]:
        """Consume one sample (min over detectors) per receiver; return the messages completed now."""
        m = np.asarray(measurement, dtype=float)
        listening = np.ones(self.count, dtype=bool) if listening is None else np.asarray(listening, dtype=bool)
        done: list[ReceivedMessage] = []
        below = m < self.threshold
        state = self.state.copy()

        # GAP: a prefix continues the message, anything else (or a full buffer) delivers it
        gap = (state == _GAP) & listening
        more = gap & below & (self.block_index < self.max_blocks)
        finished = gap & ~more
        for r in np.flatnonzero(finished):
            done.append(ReceivedMessage(int(r), int(self.start[r]), self.buffer[r, :self.block_index[r]].copy()))
        self.state[more] = _BITS
        self.bit_index[more] = 0
        self.state[finished] = _IDLE
        self.threshold[finished] = self.default

        # BITS: store one symbol, after 15 of them wait for the next prefix
        bits = (state == _BITS) & listening
        rows = np.flatnonzero(bits)
        self.buffer[rows, self.block_index[rows], self.bit_index[rows]] = below[rows]
        self.bit_index[rows] += 1
        full = bits & (self.bit_index == BLOCK_LENGTH)
        self.block_index[full] += 1
        self.state[full] = _GAP

        # IDLE: a prefix starts a message (eq. 30); the dynamic detector adapts its threshold (eq. 36)
        idle = (state == _IDLE) & listening
        start = idle & (m < self.default)
        self.state[start] = _BITS
        self.bit_index[start] = 0
        self.block_index[start] = 0
        self.start[start] = self.sample
        if self.detector.dynamic:
            self.threshold[start] = dynamic_threshold(self.default, m[start])
        self.sample += 1
        return done

    def flush(self) -> list[ReceivedMessage]:
        """Deliver messages whose last block is complete (end of a simulation)."""
        done = []
        for r in np.flatnonzero(self.state == _GAP):
            done.append(ReceivedMessage(int(r), int(self.start[r]), self.buffer[r, :self.block_index[r]].copy()))
        self.reset(self.state == _GAP)
        return done
