# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Roads that close a hub's free sides: balloons and loop pairs (a road from an exit of a hub back
into an entry of the same hub).

Each is drawn in the side's local frame (`a` along the arm out of the hub, `l` to its left): a
hub's out-port is on the right of its side and its in-port on the left, so a road that leaves
and comes back turns left overall (counter-clockwise), like the final map's balloon and east loop.

- deep balloon: out, a jog to the right, straight out, a left U-turn, straight back in. A
  location goes on the way back: its siding on the outside, its light inside, between the legs.
- flat balloon: out, right turn, along the border, left U-turn, back along the border, left turn
  in. Its location is on the outer leg (the way back), siding outside.
- loop pair (sides S and T, T the next side clockwise): an inner loop from S's exit round the
  corner into T's entry, turning right (like the final map's north loop), and an outer loop from
  T's exit round the inner one into S's entry, turning left; a location goes on its bottom leg.

`room` arguments say how far from the hub's centre a closure may reach (the margin the sheet
has for it). A wished-for location that does not fit is left out; a needed one (`must`) that
does not fit, or a closure that does not fit even without one, raises GeometryError.
"""
from __future__ import annotations

import math

from thymio_road.generator.hubs import CW, Hub
from thymio_road.generator.paths import GeometryError, Path
from thymio_road.generator.plan import RoadPlan
from thymio_road.generator.shapes import finish, lead_in_pose, LEAD_OUT, LOCATION_STRAIGHT, TURN

#: U-turn radii: the legs of a deep balloon are 44 cm apart, those of a flat one 60 cm (a
#: location's light stands 17 cm inside the leg it serves, so 27-43 cm from the other leg).
DEEP_U, FLAT_U = 0.22, 0.30
#: The outer loop of a pair keeps this far outside the inner one.
PAIR_CLEARANCE = 0.40
PAIR_TURN = 0.25
#: Shortest way back of a balloon into a roundabout: room for its code 7 after the U-turn.
CODE_STRAIGHT = 0.40
#: A closure's `stretch` (0..1) lengthens its long leg by up to this share of the room it has
#: left, and by this much at most (m).
STRETCH_SHARE, STRETCH_MAX = 0.6, 0.8


def _extra(stretch: float, room: float, reach: float) -> float:
    """How much longer a closure reaching `reach` runs, given its `stretch` and `room`."""
    return round(min(STRETCH_MAX, STRETCH_SHARE * max(0.0, room - reach)) * stretch, 3)


def _fits(location: bool, must: bool, reach_with: float, reach_without: float, room: float, what: str) -> bool:
    """Whether the location goes in; raises GeometryError if what is needed does not fit."""
    if reach_without > room + 1e-9:
        raise GeometryError(f'{what} reaches {reach_without:.2f} m from its hub, room {room:.2f} m')
    if location and reach_with <= room + 1e-9:
        return True
    if must:
        raise GeometryError(f'{what} needs a location, which reaches {reach_with:.2f} m, room {room:.2f} m')
    return False


def deep_balloon(hub: Hub, side: str, location: bool, must: bool, room: float, stretch: float = 0.0) -> RoadPlan:
    f = hub.frame(side)
    out, inp = hub.out_port(side), hub.in_port(side)
    o, i = f.local(out.pose), f.local(inp.pose)
    crossroad = hub.kind == 'crossroad'
    l_back = i[1] if crossroad else 0.30
    l_out = l_back - 2 * DEEP_U
    # Far enough out for the jog to the right (a crossroad's out-lane ends 25 cm short of its in-lane).
    a0 = o[0] + (0.50 if crossroad else 0.38)
    # The way back runs from the U-turn to the lead-in (a crossroad's is on its line, so the way
    # back runs on to the port; a roundabout's leans, so the way back ends a turn before it).
    back_end = f.local(lead_in_pose(inp, hub))[0] + (0.0 if crossroad else 0.3)
    straight_end = i[0] if crossroad else back_end
    short = max(0.25, straight_end + (0.0 if crossroad else CODE_STRAIGHT) - a0)
    long = max(short, straight_end + LOCATION_STRAIGHT + 0.05 - a0)
    location = _fits(location, must, a0 + long + DEEP_U, a0 + short + DEEP_U, room, f'{hub.id} {side} balloon')
    leg = long if location else short
    leg += _extra(stretch, room, a0 + leg + DEEP_U)
    path = Path(out.pose).straight(LEAD_OUT).to(f.pose(a0, l_out), TURN).straight(leg).arc(DEEP_U, 180.0)
    path.to(f.pose(back_end, l_back, math.pi), TURN)
    finish(path, inp, hub)
    return RoadPlan(f'{hub.id}_{side.lower()}_balloon', out.name, path, hub, inp.name,
                    f'{hub.id}_{side}', wants_location=location, needs_location=must)


def flat_balloon(hub: Hub, side: str, location: bool, must: bool, room: float, width: float,
                 stretch: float = 0.0) -> RoadPlan:
    """`width`: how far to the right of the side's axis the balloon may run."""
    f = hub.frame(side)
    out, inp = hub.out_port(side), hub.in_port(side)
    o, i = f.local(out.pose), f.local(inp.pose)
    a1 = max(o[0], i[0]) + 0.25
    l1 = o[1] - 0.30
    # The way back ends where it turns towards the in-port, a turn radius short of its line.
    back_end = (i[1] if hub.kind == 'crossroad' else f.local(lead_in_pose(inp, hub))[1]) - TURN - 0.05
    short = 0.5
    long = max(short, LOCATION_STRAIGHT + 0.05 - (back_end - l1))
    depth = a1 + 2 * FLAT_U
    if depth > room + 1e-9:
        raise GeometryError(f'{hub.id} {side} flat balloon reaches {depth:.2f} m from its hub, room {room:.2f} m')
    location = _fits(location, must, -(l1 - long - FLAT_U), -(l1 - short - FLAT_U), width,
                     f'{hub.id} {side} flat balloon')
    leg = long if location else short
    leg += _extra(stretch, width, -(l1 - leg - FLAT_U))
    path = Path(out.pose).straight(LEAD_OUT).to(f.pose(a1, l1, -math.pi / 2), TURN).straight(leg)
    path.arc(FLAT_U, 180.0).to(f.pose(a1 + 2 * FLAT_U, back_end, math.pi / 2), TURN)
    finish(path, inp, hub)
    return RoadPlan(f'{hub.id}_{side.lower()}_balloon', out.name, path, hub, inp.name,
                    f'{hub.id}_{side}', wants_location=location, needs_location=must)


def loop_pair(hub: Hub, side: str, location: bool, must: bool, room: float, room_other: float,
              stretch: float = 0.0) -> list[RoadPlan]:
    """Close `side` and the next side clockwise; `room` bounds the outer loop along `side`,
    `room_other` along the other side.
    """
    other = CW[side]
    f = hub.frame(side)
    o_s, i_t = hub.out_port(side), hub.in_port(other)
    inner = finish(Path(o_s.pose).straight(LEAD_OUT), i_t, hub, max_turn=math.radians(300.0))
    points = [f.local(p) for p in inner.sample(0.02)]
    a_max = max(p[0] for p in points)
    l_bottom = min(p[1] for p in points) - PAIR_CLEARANCE
    if -l_bottom + PAIR_TURN > room_other + 1e-9:
        raise GeometryError(f'{hub.id} {side}{other} loops reach {-l_bottom:.2f} m, room {room_other:.2f} m')
    o_t, i_s = hub.out_port(other), hub.in_port(side)
    start = f.local(o_t.pose)
    short = a_max + PAIR_CLEARANCE
    long = max(short, start[0] + PAIR_TURN + LOCATION_STRAIGHT + 0.05 + PAIR_TURN)
    location = _fits(location, must, long + PAIR_TURN, short + PAIR_TURN, room, f'{hub.id} {side}{other} loops')
    a_far = long if location else short
    a_far += _extra(stretch, room, a_far + PAIR_TURN)
    outer = Path(o_t.pose).straight(LEAD_OUT)
    outer.to(f.pose(start[0] + PAIR_TURN, l_bottom, 0.0), PAIR_TURN)
    outer.to(f.pose(a_far, l_bottom + PAIR_TURN, math.pi / 2), PAIR_TURN)
    # Straight up beside the inner loop, then the turn onto the way in.
    l_in = f.local(lead_in_pose(i_s, hub))[1]
    outer.to(f.pose(a_far, l_in - PAIR_TURN - (0.0 if hub.kind == 'crossroad' else 0.15), math.pi / 2), PAIR_TURN)
    finish(outer, i_s, hub, PAIR_TURN)
    group = f'{hub.id}_{side}{other}'
    corner = f'{side}{other}'.lower()
    return [RoadPlan(f'{hub.id}_{corner}_inner', o_s.name, inner, hub, i_t.name, group),
            RoadPlan(f'{hub.id}_{corner}_outer', o_t.name, outer, hub, i_s.name, group, wants_location=location,
                     needs_location=must)]
