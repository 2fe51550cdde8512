# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Turns a robot can follow: the smallest arc radius at the speed a robot has on it.

The limits are measured (`thymio-road turns`, docs/maps.md): one calibrated robot drives a square
of four 90° turns, or a circle, of the radius for 10 laps, seeds 1-3, and the limit is the
smallest radius without a single road loss. Left turns are the hard ones: the outer (right) wheel's command grows with
the speed and the
curvature until it meets the motors' plateau (report Fig. 1), and the follower loses the road's
black edge on the outside. Right turns keep the following sensor on the inside of the turn.

The speed on a road is the report's (Table 6 codes 1-3, Table 3 speeds): the last speed barcode
before the arc on the same road, or, before the road's first one, the fastest speed any of the
map's barcodes sets (a robot may arrive from anywhere). Intersections are driven at the lowest
speed (Appendix A), so their own roads are checked at it.
"""
from __future__ import annotations

import math

from thymio_road.map.geometry import Arc
from thymio_road.map.road_map import MapError, RoadMap

#: Table 6 speed codes → the speed names and Table 3's command speeds (the controller's defaults).
SPEED_CODES = {1: ('low', 150), 2: ('medium', 260), 3: ('high', 410)}
LOW = 1
#: Smallest left-turn radius at the centre line per speed code [m], for arcs of up to 90° and
#: for longer ones (measured: 90° turns lose the road at 4, 10 and 20 cm; full circles at 8, 13
#: and 20 cm). A short turn ends before the follower's lag has carried it off the edge.
MIN_LEFT_RADIUS = {1: 0.05, 2: 0.12, 3: 0.25}
MIN_LEFT_RADIUS_LONG = {1: 0.09, 2: 0.14, 3: 0.25}
#: Smallest right-turn radius at any speed up to the motors' 500, for arcs of more than 90° [m]
#: (full circles lose the road at 6 cm; 90° turns were followed down to 3 cm, below the loader's
#: own 2 cm limit, so shorter right turns have no limit of their own).
MIN_RIGHT_RADIUS_LONG = 0.07
#: Longest arc measured with the 90° limits [rad].
SHORT_TURN = math.pi / 2 + 1e-9


def check_turns(road_map: RoadMap, owners: dict[str, str]) -> None:
    """Refuse an arc tighter than a robot can follow at its speed there (raises MapError)."""
    codes: dict[str, list[tuple[float, int]]] = {}
    for barcode in road_map.barcodes:
        # Inside an intersection a code means something else (a location's number, Table 6).
        if barcode.bits > 1 and barcode.code in SPEED_CODES and barcode.road not in owners:
            codes.setdefault(barcode.road, []).append((barcode.at, barcode.code))
    fastest = max((c for marks in codes.values() for _, c in marks), default=LOW)
    for road in road_map.roads:
        marks = sorted(codes.get(road.id, []))
        for j, (piece, offset) in enumerate(zip(road.pieces, road.offsets)):
            if not isinstance(piece, Arc):
                continue
            if road.id in owners:
                code, why = LOW, f'inside {owners[road.id]}, driven at low speed'
            else:
                before = [(at, c) for at, c in marks if at < offset]
                if before:
                    code, why = before[-1][1], f'after the speed barcode at {before[-1][0]:g} m'
                else:
                    code, why = fastest, ("the fastest speed the map's barcodes set "
                                          '(no speed barcode before it on this road)')
            left, short = piece.turn > 0, abs(piece.sweep) <= SHORT_TURN
            if left:
                limit = (MIN_LEFT_RADIUS if short else MIN_LEFT_RADIUS_LONG)[code]
            else:
                limit = 0.0 if short else MIN_RIGHT_RADIUS_LONG
            if piece.radius < limit - 1e-9:
                name, speed = SPEED_CODES[code]
                advice = ', or slow robots down before it with a speed barcode' if left and code > LOW else ''
                raise MapError(
                    f"{road_map.source}: road '{road.id}' pieces[{j}]: a {math.degrees(abs(piece.sweep)):.0f}° "
                    f"{'left' if left else 'right'} turn of radius {piece.radius:g} m at {offset:.3f} m is "
                    f'tighter than a robot follows at {name} speed ({speed} units; {why}): the radius must '
                    f'be at least {limit:g} m (docs/maps.md, "Turns"); widen it{advice}')
