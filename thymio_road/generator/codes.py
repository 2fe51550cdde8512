# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The barcodes of a generated map (Table 6), placed by rule on the roads' straights.

- Every way into a node is announced by its code, the last intersection code read before it:
  7 on the lead-in straight before a roundabout's entry (10 cm before it), 5 at the start of
  each crossroad in-lane (6 cm, as on the final map), 6 25 cm before a location's siding, 4
  before a branching's splits (links.py, where B1 has them).
- Barcodes stand on straights, at least 20 cm after the curve before them (docs/maps.md, design
  rules), and 10 cm clear of one another.
- Speed: on a straight with room for it, a medium-speed code (2) at its start and a low-speed
  code (1) at its end, so robots drive medium only on straights and reach every curve and every
  intersection code at low speed (the final map's `south_low`: "slow before the curve into X1's
  code"). High speed (3) is not used: the report's reading at 410 units is 91.7 % on straights
  (docs/maps.md), and a missed intersection code costs a wrong passage.
"""
from __future__ import annotations

import random

from thymio_road.generator.paths import GeometryError
from thymio_road.generator.plan import LocationPlan, MapPlan, RoadPlan
from thymio_road.map.barcode import BARCODE_BITS, BIT_LENGTH

CODE = BIT_LENGTH * BARCODE_BITS
#: Clear straight after a curve before a barcode, and between barcodes.
AFTER_CURVE, BETWEEN = 0.20, 0.10
#: A crossroad in-lane's code 5, as on the final map.
LANE_CODE_AT = 0.06
#: A location: its code 6 starts this far before the split; the siding rejoins 93.8 cm after it
#: (intersections.location's S-curves and 50 cm parallel), and 10 cm of straight follow.
LOCATION_CODE_BEFORE = 0.25
SIDING_LENGTH = 0.938
AFTER_MERGE = 0.10
#: A straight (its free part) long enough for a medium-speed stretch, and how often one is used.
MEDIUM_STRETCH = 1.2
MEDIUM_CHANCE = 0.7


def announce(plan: MapPlan) -> None:
    """The codes every way into a hub needs: 7 on the last straight with room for it on each road
    into a roundabout (nothing may follow it), 5 on every crossroad in-lane.
    """
    for road in plan.roads:
        if road.target.kind == 'roundabout':
            spans = [s for s in free_spans(road) if s[1] - s[0] >= CODE]
            if not spans:
                raise GeometryError(f"road '{road.id}' has no straight for the code 7 of {road.target.id}")
            at = spans[-1][1] - CODE
            road.barcodes.append((at, 7, f'{road.id}_{road.target.id.lower()}'))
            road.reserved.append((at - BETWEEN, road.path.length))
    for hub in plan.hubs:
        if hub.kind == 'crossroad':
            for side in ('E', 'N', 'W', 'S'):
                lane = hub.in_lane(side)
                plan.lane_codes.append((lane, LANE_CODE_AT, 5, f'{lane.replace(".", "_")}_code'))


def free_spans(road: RoadPlan) -> list[tuple[float, float]]:
    """Parts of the road's straights where another barcode or a location may start and end."""
    taken = sorted([(s0, s1) for s0, s1 in road.reserved] +
                   [(at - BETWEEN, at + CODE + BETWEEN) for at, _, _ in road.barcodes])
    out = []
    for s0, s1 in road.path.straights():
        lo, hi = s0 + AFTER_CURVE, s1 - 0.05   # a road starts at an exit's curve too
        for t0, t1 in taken:
            if t1 <= lo or t0 >= hi:
                continue
            if t0 - lo > 1e-9:
                out.append((lo, t0))
            lo = max(lo, t1)
        if hi - lo > 1e-9:
            out.append((lo, hi))
    return out


def place_location(road: RoadPlan, lid: str, number: int, where: float = 0.5) -> LocationPlan | None:
    """A location on the road's longest free straight, if it fits: `where` (0..1) places it
    from the straight's start to its end.
    """
    need = LOCATION_CODE_BEFORE + SIDING_LENGTH + AFTER_MERGE
    spans = [s for s in free_spans(road) if s[1] - s[0] >= need]
    if not spans:
        return None
    s0, s1 = max(spans, key=lambda s: (s[1] - s[0], -s[0]))
    at = round(s0 + LOCATION_CODE_BEFORE + (s1 - s0 - need) * where, 6)
    road.barcodes.append((at - LOCATION_CODE_BEFORE, 6, f'{road.id}_{lid.lower()}'))
    road.reserved.append((at - LOCATION_CODE_BEFORE - BETWEEN, at + SIDING_LENGTH + AFTER_MERGE + BETWEEN))
    return LocationPlan(lid, number, road.id, round(at, 6))


def speeds(plan: MapPlan, rng: random.Random) -> None:
    """Medium-speed stretches on long free straights, each closed by a low-speed code."""
    for road in plan.roads:
        for s0, s1 in free_spans(road):
            if s1 - s0 >= MEDIUM_STRETCH and rng.random() < MEDIUM_CHANCE:
                road.barcodes.append((s0, 2, f'{road.id}_medium_{len(road.barcodes)}'))
                road.barcodes.append((s1 - CODE, 1, f'{road.id}_low_{len(road.barcodes)}'))
        road.barcodes.sort()
