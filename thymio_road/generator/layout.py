# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""From a topology to geometry: where the hubs stand and the roads of every edge, branching and
closure (no barcodes yet: codes.py).

Columns and rows are spaced for what lies between them: 2.9 m between hub centres, more where a
branching's loops need it. Closures reach into the margins; a flat balloon, which runs along the
border towards the next hub, is kept 80 cm short of it.
"""
from __future__ import annotations

from thymio_road.generator.closures import deep_balloon, flat_balloon, loop_pair
from thymio_road.generator.hubs import CW, Hub, SIDE_STEP
from thymio_road.generator.links import branching, branching_width, edge, EDGE_ONTO_LANE
from thymio_road.generator.plan import MapPlan
from thymio_road.generator.topology import Cell, Topology

#: Hub centre to hub centre along a row or a column where no edge sets it (_edge_need: 2.9 m
#: between two roundabouts, whose edge roads need 1.2 m between the ports).
PITCH = 2.9
#: How far from its hub's centre a closure or a branching's loops may reach into the margin (m).
ROOM = 2.7
#: A flat balloon stops this far short of the next hub's centre.
FLAT_CLEARANCE = 0.8


def hub_ids(topo: Topology) -> dict[Cell, str]:
    """R1, R2, … and X1, X2, … in cell order (rows from the bottom, columns from the left)."""
    ids, counts = {}, {'roundabout': 0, 'crossroad': 0}
    for cell in sorted(topo.hubs, key=lambda c: (c[1], c[0])):
        kind = topo.hubs[cell].kind
        counts[kind] += 1
        ids[cell] = f"{'R' if kind == 'roundabout' else 'X'}{counts[kind]}"
    return ids


def hubs_at(topo: Topology, origin: tuple[float, float]) -> dict[Cell, Hub]:
    ids = hub_ids(topo)
    xs, ys = _spacing(topo, ids)
    return {cell: Hub(ids[cell], spec.kind, (round(origin[0] + xs[cell[0]], 2), round(origin[1] + ys[cell[1]], 2)),
                      spec.sides, spec.heading)
            for cell, spec in topo.hubs.items()}


def _spacing(topo: Topology, ids: dict[Cell, str]) -> tuple[list[float], list[float]]:
    probe = {cell: Hub(ids[cell], spec.kind, (0.0, 0.0), spec.sides, spec.heading) for cell, spec in topo.hubs.items()}
    gaps_x = [0.0] * (topo.cols - 1)
    gaps_y = [0.0] * (topo.rows - 1)
    # The random spread widens gaps of edges only: a branching's loops already need about 4 m.
    spread_x = list(topo.spread_x or [0.0] * len(gaps_x))
    spread_y = list(topo.spread_y or [0.0] * len(gaps_y))
    for rel in topo.relations:
        gaps, spread = (gaps_x, spread_x) if rel.side == 'E' else (gaps_y, spread_y)
        k = rel.a[0] if rel.side == 'E' else rel.a[1]
        if rel.kind == 'branching':
            first, second = (rel.a, rel.b) if rel.toward == 'N' else (rel.b, rel.a)
            need = branching_width(probe[first], probe[second]) + 0.05
            spread[k] = 0.0
        else:
            need = max(_edge_need(probe[rel.a], probe[rel.b]), _edge_need(probe[rel.b], probe[rel.a]))
        gaps[k] = max(gaps[k], need)
    xs, ys = [0.0], [0.0]
    for gap, extra in zip(gaps_x, spread_x):
        xs.append(xs[-1] + (gap or PITCH) + extra)
    for gap, extra in zip(gaps_y, spread_y):
        ys.append(ys[-1] + (gap or PITCH) + extra)
    return xs, ys


def _edge_need(a: Hub, b: Hub) -> float:
    """Centre-to-centre distance for an edge's road from `a` to `b`: the ports' reach, the turn
    onto the lane (links.EDGE_ONTO_LANE), then the turn off it into b's lead-in, after a straight
    for b's code 7 if b is a roundabout. Two crossroads' lanes are in line: 90 cm of straight.
    """
    reach_out = 0.84 if a.kind == 'roundabout' else 0.50
    if a.kind == 'crossroad' and b.kind == 'crossroad':
        return reach_out + 0.75 + 0.90
    into = 0.84 + 0.85 if b.kind == 'roundabout' else 0.75 + 0.20 + 0.35
    return round(reach_out + EDGE_ONTO_LANE + into, 2)


def build(topo: Topology, sheet: tuple[float, float], margin: float) -> MapPlan:
    """The hubs and roads of `topo` on a sheet of at most `sheet` metres with `margin` of paper
    round the roads (raises GeometryError when something does not fit).
    """
    hubs = hubs_at(topo, (0.0, 0.0))
    xs = sorted({h.centre[0] for h in hubs.values()})
    ys = sorted({h.centre[1] for h in hubs.values()})
    # How far a closure may reach out of the grid, beyond the outermost hubs' centres.
    room = {'x': (sheet[0] - 2 * margin - (xs[-1] - xs[0])) / 2, 'y': (sheet[1] - 2 * margin - (ys[-1] - ys[0])) / 2}
    axis = {'E': 'x', 'W': 'x', 'N': 'y', 'S': 'y'}
    plan = MapPlan(hubs=[hubs[c] for c in sorted(hubs, key=lambda c: (c[1], c[0]))], roads=[])
    count = 0
    for rel in topo.relations:
        if rel.kind == 'edge':
            plan.roads += edge(hubs[rel.a], rel.side, hubs[rel.b])
            continue
        count += 1
        first, side, second = (rel.a, 'E', rel.b) if rel.toward == 'N' else (rel.b, 'W', rel.a)
        roads, made = branching(f'B{count}', hubs[first], side, hubs[second], rel.location, min(ROOM, room['y']))
        plan.roads += roads
        plan.branchings.append(made)
    for c in topo.closures:
        hub = hubs[c.hub]
        side = c.sides[0]
        out = min(ROOM, room[axis[side]])
        if c.kind == 'deep':
            plan.roads.append(deep_balloon(hub, side, c.location, c.must, out, c.stretch))
        elif c.kind == 'flat':
            width = _flat_width(hubs, c.hub, side, min(ROOM, room[axis[CW[side]]]))
            plan.roads.append(flat_balloon(hub, side, c.location, c.must, out, width, c.stretch))
        else:
            plan.roads += loop_pair(hub, side, c.location, c.must, out, min(ROOM, room[axis[CW[side]]]), c.stretch)
    return plan


def _flat_width(hubs: dict[Cell, Hub], cell: Cell, side: str, room: float) -> float:
    """How far to the right of `side` a flat balloon may run: short of the next hub, if any."""
    dc, dr = SIDE_STEP[CW[side]]
    other = (cell[0] + dc, cell[1] + dr)
    if other not in hubs:
        return room
    here, there = hubs[cell].centre, hubs[other].centre
    return abs(there[0] - here[0]) + abs(there[1] - here[1]) - FLAT_CLEARANCE
