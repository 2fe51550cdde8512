# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""What a generated map is made of before it is written out: roads with their barcodes, the
locations and branchings placed on them, and the hubs they join.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from thymio_road.generator.hubs import Hub
from thymio_road.generator.paths import Path


@dataclass
class RoadPlan:
    """A road from a hub's out-port to a hub's in-port (explicit pieces, `from:` the port)."""

    id: str
    origin: str
    path: Path
    #: The hub it enters, and the port it ends at (a check: the loader joins it there).
    target: Hub
    target_port: str
    #: Roads drawn together (an edge's two ways, a loop pair, a branching's loops) share a group:
    #: their spacing is designed, other groups must keep clear of them.
    group: str
    #: (arc length, code, id) of barcodes on the road.
    barcodes: list[tuple[float, int, str]] = field(default_factory=list)
    #: Arc-length spans that nothing more may overlap (a branching's links, a lead-in's code).
    reserved: list[tuple[float, float]] = field(default_factory=list)
    #: A location is wanted on this road (the gadget made a straight long enough for it), or
    #: needed (a crossroad's light addressing: topology.py).
    wants_location: bool = False
    needs_location: bool = False


@dataclass
class LocationPlan:
    id: str
    number: int
    road: str
    at: float
    light: bool = False


@dataclass
class BranchingPlan:
    id: str
    road_a: str
    at_a: float
    road_b: str
    at_b: float
    gap: float


@dataclass
class MapPlan:
    hubs: list[Hub]
    roads: list[RoadPlan]
    branchings: list[BranchingPlan] = field(default_factory=list)
    locations: list[LocationPlan] = field(default_factory=list)
    #: Extra barcodes on roads the loader generates (a crossroad's in-lanes: code 5).
    lane_codes: list[tuple[str, float, int, str]] = field(default_factory=list)

    def road(self, road_id: str) -> RoadPlan:
        return next(r for r in self.roads if r.id == road_id)
