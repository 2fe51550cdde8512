# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""SwarmCom framing and BCH codes over Thymio proximity communication (10-bit payloads, one per 0.1 s).

A Thymio sends one payload value every 0.1 s (11 bits; we keep to 10). A multi-word message is coded
as in SwarmCom (k-bit words → 15-bit BCH blocks) and the coded bit stream is cut into 7-bit fragments:

    payload = start (bit 9) | counter (bits 7–8) | 7 data bits (bits 0–6)

The first payload has the start flag, counter 0 and the number of 15-bit blocks as data; the following
ones carry the stream with counter 1, 2, 3, 1, 2, … . A payload is therefore never 0, the Thymio's
"nothing received". The receiver drops a repeated payload (same value as the previous one: the
receiver polled twice within one sending period), detects a lost payload by a counter jump (and then
waits for the next start), and drops a whole message identical to the last one delivered within a
short window (the sender may repeat a message to beat losses). Pure functions, no timing: feed one
received value (or None) per period.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .coding import BCHCode, bits_to_int, BLOCK_LENGTH, CODES, int_to_bits
from .modem import decode_blocks, encode_message

PAYLOAD_BITS = 10
DATA_BITS = 7
START_FLAG = 1 << 9
COUNTER_SHIFT = 7
MAX_BLOCKS = (1 << DATA_BITS) - 1
PERIOD = 0.1  # s between two payloads of a Thymio


def words_to_bits(words: Sequence[int], word_bits: int) -> np.ndarray:
    """Concatenated little-endian bits of ``words``, each ``word_bits`` wide."""
    if int(word_bits) != word_bits or word_bits < 1:
        raise ValueError(f'word_bits must be a positive integer, got {word_bits!r}')
    return int_to_bits(np.asarray(list(words), dtype=np.int64), word_bits).ravel()


def bits_to_words(bits: np.ndarray, word_bits: int) -> list[int]:
    """Whole ``word_bits`` words in ``bits`` (padding that does not fill a word is dropped)."""
    usable = (len(bits) // word_bits) * word_bits
    return [int(v) for v in bits_to_int(np.asarray(bits[:usable]).reshape(-1, word_bits))]


@dataclass(frozen=True)
class ThymioLinkEncoder:
    """Turns a message into the payloads to send, one per 0.1 s period."""

    code: BCHCode = field(default_factory=lambda: CODES['15,11'])
    repeats: int = 1
    """How many times the whole message is sent back to back."""

    def __post_init__(self) -> None:
        if int(self.repeats) != self.repeats or self.repeats < 1:
            raise ValueError(f'repeats must be a positive integer, got {self.repeats!r}')

    def encode(self, data_bits: np.ndarray) -> list[int]:
        """Payloads (10-bit ints) carrying ``data_bits``."""
        blocks = encode_message(data_bits, self.code)
        if blocks.shape[0] > MAX_BLOCKS:
            raise ValueError(f'message needs {blocks.shape[0]} blocks, more than the {MAX_BLOCKS} a header can count')
        stream = blocks.ravel()
        stream = np.concatenate([stream, np.zeros(-stream.size % DATA_BITS, np.uint8)])
        fragments = bits_to_int(stream.reshape(-1, DATA_BITS))
        payloads = [START_FLAG | blocks.shape[0]]
        for i, fragment in enumerate(fragments):
            counter = i % 3 + 1
            payloads.append((counter << COUNTER_SHIFT) | int(fragment))
        return payloads * self.repeats

    def encode_words(self, words: Sequence[int], word_bits: int) -> list[int]:
        """Payloads carrying integer ``words`` of ``word_bits`` bits each."""
        return self.encode(words_to_bits(words, word_bits))


@dataclass(frozen=True)
class ThymioMessage:
    """A message the decoder assembled."""

    data_bits: np.ndarray
    """Decoded data bits (b·k, including the encoder's zero padding)."""
    corrected: int
    """Bits the BCH code corrected."""
    period: int
    """Index of the period in which its last payload arrived."""

    def words(self, word_bits: int) -> list[int]:
        return bits_to_words(self.data_bits, word_bits)


@dataclass
class ThymioLinkDecoder:
    """Consumes received payloads (one per period, None when nothing arrived) and yields messages."""

    code: BCHCode = field(default_factory=lambda: CODES['15,11'])
    duplicate_window: int = 50
    """Periods during which a message identical to the last one delivered is a repeat, not news."""
    period: int = 0
    broken: int = 0
    """Messages abandoned because a payload was lost."""
    duplicates: int = 0
    """Payloads and messages dropped as repeats."""
    _expected_blocks: int = 0
    _fragments: list[int] = field(default_factory=list)
    _last_payload: int | None = None
    _last_message: tuple[bytes, int] | None = None

    def __post_init__(self) -> None:
        if int(self.duplicate_window) != self.duplicate_window or self.duplicate_window < 0:
            raise ValueError(f'duplicate_window must be a non-negative integer, got {self.duplicate_window!r}')

    def _needed(self) -> int:
        return -(-self._expected_blocks * BLOCK_LENGTH // DATA_BITS)

    def feed(self, payload: int | None) -> ThymioMessage | None:
        """Take the value received in this period; return a message when one completes."""
        self.period += 1
        if payload is None or payload == 0:
            self._last_payload = None
            return None
        if not 0 < payload < 1 << PAYLOAD_BITS:
            raise ValueError(f'payload must be a {PAYLOAD_BITS}-bit value, got {payload!r}')
        if payload == self._last_payload:
            self.duplicates += 1
            return None
        self._last_payload = payload
        counter = (payload >> COUNTER_SHIFT) & 0b11
        data = payload & ((1 << DATA_BITS) - 1)
        if payload & START_FLAG:
            if self._expected_blocks:
                self.broken += 1
            self._expected_blocks = data if data > 0 else 0
            self._fragments = []
            return None
        if not self._expected_blocks:
            return None  # in the middle of a message whose start we missed
        if counter != len(self._fragments) % 3 + 1:
            self.broken += 1
            self._expected_blocks = 0
            return None
        self._fragments.append(data)
        if len(self._fragments) < self._needed():
            return None
        stream = int_to_bits(np.array(self._fragments), DATA_BITS).ravel()[:self._expected_blocks * BLOCK_LENGTH]
        self._expected_blocks = 0
        bits, corrected = decode_blocks(stream.reshape(-1, BLOCK_LENGTH), self.code)
        key = bits.tobytes()
        if (self._last_message is not None and self._last_message[0] == key
                and self.period - self._last_message[1] <= self.duplicate_window):
            self.duplicates += 1
            self._last_message = (key, self.period)
            return None
        self._last_message = (key, self.period)
        return ThymioMessage(bits, corrected, self.period)

    def feed_all(self, payloads: Sequence[int | None]) -> list[ThymioMessage]:
        """Feed several periods at once; the messages completed, in order."""
        return [m for m in (self.feed(p) for p in payloads) if m is not None]
