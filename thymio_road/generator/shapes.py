# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Shared measures of generated roads: turn radii, the straights that lead into hubs, and the
straight a location needs.

Every arc a generated road draws itself has a radius of at least 15 cm. The loader judges an arc
before a road's first speed barcode at the fastest speed the map's barcodes set (docs/maps.md,
"Turns"); generated maps set medium at most, whose limits are 12 cm (up to 90°) and 14 cm
(longer): so no turn needs a low-speed barcode before it, by construction.
"""
from __future__ import annotations

import math

from thymio_road.generator.hubs import Hub, Port
from thymio_road.generator.paths import Path, Pose

#: Turns of the roads between hubs (Dubins radius).
TURN = 0.20
#: Tighter turns where a gadget needs room (the branching's loops).
TIGHT_TURN = 0.15
#: A short straight out of every out-port before the first turn.
LEAD_OUT = 0.05
#: The straight before an in-port, so that robots arrive aligned: a crossroad's code 5 lies 6 cm
#: into its in-lane, so 20 cm of straight before the lane keep it 26 cm after the curve before
#: (docs/maps.md: barcodes on straights, away from the ends of turns). A roundabout's code 7
#: goes on the last straight with room for it (codes.py).
LEAD_IN = {'roundabout': 0.15, 'crossroad': 0.20}
#: A location (siding 94 cm along the road) with its code 6, 25 cm before the siding, 20 cm after
#: the curve before, and 10 cm of straight after the merge (codes.py places it).
LOCATION_STRAIGHT = 1.55


def lead_in_pose(port: Port, hub: Hub) -> Pose:
    x, y, h = port.pose
    lead = LEAD_IN[hub.kind]
    return (x - lead * math.cos(h), y - lead * math.sin(h), h)


def finish(path: Path, port: Port, hub: Hub, radius: float = TURN, max_turn: float = math.radians(200.0)) -> Path:
    """Turn onto the port's lead-in straight and drive it to the port."""
    return path.to(lead_in_pose(port, hub), radius, max_turn).straight(LEAD_IN[hub.kind])
