# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Barcodes printed on the right of the road (report §5, Fig. 6, Table 6).

A barcode is 4 bits of 2.7 cm along the road: the first is always black (it triggers the
reading and synchronises it), the next three carry the code, least significant bit first,
black meaning 1. Intersections also use single black bits ("marks", report §7), which are
barcodes of one bit.

Lateral geometry (a deviation the report could not make): the report designed for ground
sensors "slightly more than 3 cm" apart; the real robot and Enki have them 2.3 cm apart. While
the left sensor follows the grey reference (about 1.8 mm right of the road's centre line), the
right sensor runs 24.8 mm right of the centre, i.e. 9.8 mm beyond the road's 1.5 cm half
width. The bits therefore span 17–35 mm right of the centre line: a 2 mm white gap after the
road's black edge (so the edge and a black bit never merge under the sensor's 2×2 cm patch) and
18 mm of bit, which keeps the right sensor on the bits through the ±5 mm weave of the READ
state's line following.
"""
from __future__ import annotations

from dataclasses import dataclass

#: Report §5: "a length of 2.7 cm per bit", 4 bits "measuring 10.8 cm".
BIT_LENGTH = 0.027
BARCODE_BITS = 4
#: White gap between the road's right edge and the bits, and the bits' width across the road.
DEFAULT_GAP = 0.002
DEFAULT_WIDTH = 0.018
#: Where the right ground sensor runs, right of the centre line, when the left one is on the
#: grey reference (GREY_REF 500 ↔ grey 0.44 ↔ 1.8 mm right of centre; sensors 23 mm apart).
RIGHT_SENSOR_OFFSET = 0.0018 + 0.023

#: Smallest radius of an arc a barcode (not a one-bit mark) may lie on, at its centre line: on
#: tighter arcs the right sensor sweeps across the bits, or leaves them, while it reads (the
#: report printed its barcodes on straights). Measured by `thymio-road barcodes on-arc`
#: (docs/barcodes.md); a map may lower it with `barcode_min_arc_radius` to measure below it.
BARCODE_MIN_ARC_RADIUS = 0.5

#: Table 6: meaning of a code read on the road.
ROAD_CODES = {1: 'low speed', 2: 'medium speed', 3: 'high speed', 4: 'branching',
              5: 'crossroad', 6: 'location', 7: 'roundabout'}


@dataclass(frozen=True)
class Barcode:
    """A barcode (4 bits) or a mark (1 bit) on a road, starting at arc length `at`."""

    id: str
    road: str
    at: float
    code: int
    bits: int = BARCODE_BITS
    gap: float = DEFAULT_GAP
    width: float = DEFAULT_WIDTH

    @property
    def length(self) -> float:
        return self.bits * BIT_LENGTH

    @property
    def end(self) -> float:
        return self.at + self.length

    @property
    def bit_values(self) -> tuple[int, ...]:
        """Printed bits in driving order: the black trigger, then the code LSB first."""
        return (1,) + tuple((self.code >> k) & 1 for k in range(self.bits - 1))

    def lateral_span(self, road_width: float) -> tuple[float, float]:
        """Offsets right of the centre line (positive metres) covered by the bits."""
        inner = road_width / 2 + self.gap
        return inner, inner + self.width


def encode(code: int) -> tuple[int, ...]:
    """The 4 printed bits of a code (trigger first)."""
    return Barcode('', '', 0.0, code).bit_values


def decode(bits: tuple[int, int, int]) -> int:
    """The code of three value bits read LSB first."""
    return bits[0] + 2 * bits[1] + 4 * bits[2]


#: The ground sensor reads black only this far inside printed black: its 2×2 cm patch (σ 4 mm)
#: must see about 61 % black to fall below GREY_THRESH 400 (Enki model; docs/design.md: Thymio facts).
BLACK_MARGIN_CM = 0.11


def predicted_samples(code: int, offset_cm: float, step_cm: float, count: int) -> list[bool]:
    """Black/white the reading sensor sees at `count` events, the first `offset_cm` into the barcode."""
    bits = encode(code)
    runs, start = [], None
    for k, bit in enumerate(bits + (0,)):
        if bit and start is None:
            start = k
        elif not bit and start is not None:
            runs.append((start * BIT_LENGTH * 100 + BLACK_MARGIN_CM, k * BIT_LENGTH * 100 - BLACK_MARGIN_CM))
            start = None
    out = []
    for j in range(count):
        p = offset_cm + j * step_cm
        out.append(any(lo <= p <= hi for lo, hi in runs))
    return out


def decode_matched(samples: list[bool], step_cm: float, grid: int = 24) -> int:
    """The code whose printed bits best explain every sample of a pass (an improvement on §5).

    The report samples each bit once at a fixed count; at even intervals the integer counts land
    at the very start of the bits (Appendix A). Here the sensor samples at every event and the
    code is the one that, for some position of the trigger within the first event's travel,
    predicts the fewest wrong samples (ties: the one consistent over more positions).
    """
    best = (10 ** 9, 0, 0)
    for code in range(1, 8):
        errors = []
        for g in range(grid):
            offset = BLACK_MARGIN_CM + step_cm * (g + 0.5) / grid
            predicted = predicted_samples(code, offset, step_cm, len(samples))
            errors.append(sum(p != s for p, s in zip(predicted, samples)))
        least = min(errors)
        key = (least, -errors.count(least), code)
        if key < best:
            best = key
    return best[2]
