# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Roads that join two neighbouring hubs: a two-way edge, or two loops joined by a branching.

A **branching** (report §7.3) joins two roads that run side by side in opposite directions, the
second on the first's right. Two neighbours' loops give exactly that when each rises from its
hub's side into the margin: the first hub's loop climbs beside the second's, which comes down
30 cm to its right. The branching's neighbourhood copies the final map's B1 (which is measured:
docs/intersections.md): both roads bend away from each other in 40° S-bends of 65 cm radius
where the links leave, the second road's bend starts 25.8 cm further along, the links split 3
and 2 cm into the bends, 30 cm apart, and the codes 4 stand where B1's do.
"""
from __future__ import annotations

import math

from thymio_road.generator.hubs import Hub, OPPOSITE
from thymio_road.generator.paths import GeometryError, Path
from thymio_road.generator.plan import BranchingPlan, RoadPlan
from thymio_road.generator.shapes import finish, lead_in_pose, LEAD_OUT, LOCATION_STRAIGHT, TIGHT_TURN, TURN

#: B1's geometry (config/maps/final.yaml): the roads' spacing, their S-bends, where the second
#: road's bend starts, where each link splits off and the gap between the two links.
SPACING = 0.30
BEND_RADIUS, BEND_DEG = 0.65, 40.0
BEND_SHIFT = 2 * BEND_RADIUS * (1 - math.cos(math.radians(BEND_DEG)))
BEND_ALONG = 2 * BEND_RADIUS * math.sin(math.radians(BEND_DEG))
B_BEND_AHEAD = 0.258
A_SPLIT_IN_BEND, B_MERGE_IN_BEND, GAP = 0.03, 0.32, 0.30
#: Codes 4 before the splits, as B1's: 28 cm before a's split and 41.5 cm before b's.
A_CODE_BEFORE, B_CODE_BEFORE = 0.28, 0.415
#: The loops' U-turns: the first road's legs 40 cm apart; the second's 60 cm, so that its bend
#: (30 cm towards its other leg) still leaves 30 cm.
A_U, B_U = 0.20, 0.30
#: An edge's lanes run this far either side of the axis between two hubs (m), from this far
#: past the out-port (layout.py spaces the hubs for the rest of the way).
EDGE_LANE, EDGE_ONTO_LANE = 0.25, 0.45
#: Where a's climb starts (local l) and how far below the bend its code 4 needs.
CLIMB_START = 0.10
BEFORE_BEND = 0.50


def edge(a: Hub, side: str, b: Hub) -> list[RoadPlan]:
    """A road each way between `a`'s `side` and `b`'s opposite side."""
    back = OPPOSITE[side]
    group = f'{a.id}_{b.id}'
    return [_connect(a, side, b, back, group), _connect(b, back, a, side, group)]


def _connect(a: Hub, side: str, b: Hub, back: str, group: str) -> RoadPlan:
    """Out of `a`, onto a lane 25 cm right of the hubs' axis (two crossroads' lanes are already in
    line: 10.8 cm), and into `b`: the two ways run parallel, 50 cm apart, between the hubs.
    """
    out, inp = a.out_port(side), b.in_port(back)
    path = Path(out.pose).straight(LEAD_OUT)
    if a.kind != 'crossroad' or b.kind != 'crossroad':
        f = a.axis_frame(side)
        path.to(f.pose(f.local(out.pose)[0] + EDGE_ONTO_LANE, -EDGE_LANE, 0.0), TURN)
    finish(path, inp, b)
    return RoadPlan(f'{a.id}_{b.id}', out.name, path, b, inp.name, group)


def branching_width(first: Hub, second: Hub) -> float:
    """Centre-to-centre distance the two hubs need for the branching's loops between them (m)."""
    return _a_leg(first) + SPACING + max(2 * B_U + TIGHT_TURN + 0.15 + _reach_out(second),
                                         BEND_SHIFT + TIGHT_TURN + 0.1 + _reach_in(second))


def _reach_in(hub: Hub) -> float:
    """How far out of a side a road must come down to turn into the lead-in of its in-port."""
    return 0.75 + 0.20 if hub.kind == 'crossroad' else 1.15


def _reach_out(hub: Hub) -> float:
    return 0.50 + LEAD_OUT if hub.kind == 'crossroad' else 0.90


def _a_leg(hub: Hub) -> float:
    """Where the first road climbs (local a): its way back down, a U-turn and the bend inside it."""
    return _reach_in(hub) + TIGHT_TURN + 0.05 + BEND_SHIFT + 2 * A_U


def branching(bid: str, first: Hub, side: str, second: Hub, location: bool, room: float
              ) -> tuple[list[RoadPlan], BranchingPlan]:
    """Loops from `first`'s `side` and `second`'s opposite side, rising to the left of `side`,
    joined by the branching `bid`. `room`: how far they may rise (m); a location on the first
    loop's way down is dropped if it does not fit.
    """
    f = first.frame(side)
    back = OPPOSITE[side]
    x_a = _a_leg(first)
    x_b = x_a + SPACING
    # The second road's way home after its bend holds the code 7 of a roundabout (codes.py).
    home = f.local(lead_in_pose(second.in_port(back), second))[1] + TIGHT_TURN + 0.05
    after_bend = 0.05 if second.kind == 'crossroad' else 0.45
    ys = max(CLIMB_START + BEFORE_BEND, home + after_bend + BEND_ALONG - B_BEND_AHEAD)
    # The second loop: up on its outer leg, a U-turn, down past the branching, then home.
    o2 = second.out_port(back)
    up_from = f.local(o2.pose)[1] + TIGHT_TURN + 0.10
    top_b = max(ys + B_BEND_AHEAD - 0.02 + B_CODE_BEFORE + 0.20, up_from + 0.2)
    pb = Path(o2.pose).straight(LEAD_OUT).to(f.pose(x_b + 2 * B_U, up_from, math.pi / 2), TIGHT_TURN)
    pb.straight(top_b - up_from).arc(B_U, 180.0)
    pb.straight(top_b - (ys + B_BEND_AHEAD))
    bend_b = pb.length
    pb.arc(BEND_RADIUS, BEND_DEG).arc(BEND_RADIUS, -BEND_DEG)
    pb.to(f.pose(x_b + BEND_SHIFT, home, -math.pi / 2), TIGHT_TURN)
    finish(pb, second.in_port(back), second, TIGHT_TURN)
    # The first loop: up past the branching, its S-bend, a U-turn, down and home.
    o1, i1 = first.out_port(side), first.in_port(side)
    down_end = f.local(lead_in_pose(i1, first))[1] + TIGHT_TURN + 0.05
    post = 0.10
    top_a = ys + BEND_ALONG + post
    if max(top_a + A_U, top_b + B_U) > room + 1e-9:
        raise GeometryError(f'{bid} loops rise {max(top_a + A_U, top_b + B_U):.2f} m, room {room:.2f} m')
    if location and down_end + LOCATION_STRAIGHT + 0.05 + A_U <= room:
        post += max(0.0, down_end + LOCATION_STRAIGHT + 0.05 - top_a)
    else:
        location = False
    pa = Path(o1.pose).straight(LEAD_OUT).to(f.pose(x_a, CLIMB_START, math.pi / 2), TIGHT_TURN)
    pa.straight(ys - CLIMB_START)
    bend_a = pa.length
    pa.arc(BEND_RADIUS, BEND_DEG).arc(BEND_RADIUS, -BEND_DEG).straight(post).arc(A_U, 180.0)
    pa.to(f.pose(x_a - BEND_SHIFT - 2 * A_U, down_end, -math.pi / 2), TIGHT_TURN)
    finish(pa, i1, first, TIGHT_TURN)
    group = bid
    road_a = RoadPlan(f'{first.id}_{side.lower()}_loop', o1.name, pa, first, i1.name, group,
                      wants_location=location)
    road_b = RoadPlan(f'{second.id}_{back.lower()}_loop', o2.name, pb, second, second.in_port(back).name, group)
    at_a = bend_a + A_SPLIT_IN_BEND
    at_b = bend_b + B_MERGE_IN_BEND
    road_a.barcodes.append((at_a - A_CODE_BEFORE, 4, f'{road_a.id}_{bid.lower()}'))
    road_b.barcodes.append((at_b - GAP - B_CODE_BEFORE, 4, f'{road_b.id}_{bid.lower()}'))
    # Nothing else between a code 4 and the end of its branching (the last link's merge).
    road_a.reserved.append((at_a - A_CODE_BEFORE - 0.15, at_a + GAP + 0.15))
    road_b.reserved.append((at_b - GAP - B_CODE_BEFORE - 0.15, at_b + 0.15))
    return [road_a, road_b], BranchingPlan(bid, road_a.id, round(at_a, 6), road_b.id, round(at_b, 6), GAP)
