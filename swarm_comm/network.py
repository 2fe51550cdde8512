# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Local broadcast and flooding (paper Sect. 6): message identity, headers and duplicate suppression.

Every message starts with a 15-bit header, origin (4 bits) and sequence number (11 bits), carried by
the same code as the payload. In local broadcast only the neighbours of the origin hear it; in flooding
every robot that receives a message for the first time sends it on once, and drops later copies.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .coding import BCHCode, bits_to_int, int_to_bits
from .modem import decode_blocks, encode_message

ORIGIN_BITS = 4
SEQUENCE_BITS = 11
HEADER_BITS = ORIGIN_BITS + SEQUENCE_BITS
MODES = ('broadcast', 'flooding')


@dataclass(frozen=True)
class Packet:
    """A message as the network layer sees it."""

    origin: int
    sequence: int
    payload: np.ndarray = field(compare=False)
    """Payload bits (0/1)."""

    def __post_init__(self) -> None:
        if not 0 <= self.origin < 1 << ORIGIN_BITS:
            raise ValueError(f'origin must be in 0..{(1 << ORIGIN_BITS) - 1}, got {self.origin!r}')
        if not 0 <= self.sequence < 1 << SEQUENCE_BITS:
            raise ValueError(f'sequence must be in 0..{(1 << SEQUENCE_BITS) - 1}, got {self.sequence!r}')

    @property
    def key(self) -> tuple[int, int]:
        return self.origin, self.sequence


def header_blocks(code: BCHCode) -> int:
    """Number of 15-bit blocks the header takes with ``code``."""
    return -(-HEADER_BITS // code.data_bits)


def packet_to_blocks(packet: Packet, code: BCHCode) -> np.ndarray:
    """Coded blocks (b, 15): header words then payload words."""
    header = np.concatenate([int_to_bits(np.array(packet.origin), ORIGIN_BITS),
                             int_to_bits(np.array(packet.sequence), SEQUENCE_BITS)])
    pad = header_blocks(code) * code.data_bits - HEADER_BITS
    bits = np.concatenate([header, np.zeros(pad, np.uint8), np.asarray(packet.payload, np.uint8).ravel()])
    return encode_message(bits, code)


def blocks_to_packet(blocks: np.ndarray, code: BCHCode, payload_bits: int | None = None) -> Packet | None:
    """The packet in received blocks, or None when they are too short to hold a header."""
    if blocks.shape[0] <= header_blocks(code) - 1:
        return None
    bits, _ = decode_blocks(blocks, code)
    origin = int(bits_to_int(bits[:ORIGIN_BITS]))
    sequence = int(bits_to_int(bits[ORIGIN_BITS:HEADER_BITS]))
    payload = bits[header_blocks(code) * code.data_bits:]
    if payload_bits is not None:
        payload = payload[:payload_bits]
    return Packet(origin, sequence, payload)


@dataclass
class Router:
    """Per-robot duplicate suppression and the forwarding decision."""

    mode: str = 'flooding'
    seen: set[tuple[int, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f'mode must be one of {MODES}, got {self.mode!r}')

    def originate(self, packet: Packet) -> None:
        self.seen.add(packet.key)

    def receive(self, packet: Packet) -> tuple[bool, bool]:
        """(is new, forward it): new packets are delivered once; flooding forwards each new one once."""
        if packet.key in self.seen:
            return False, False
        self.seen.add(packet.key)
        return True, self.mode == 'flooding'
