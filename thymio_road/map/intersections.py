# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Intersections of the report (§7) built from a few parameters: roundabout, location, branching.

Each generator returns the roads, marks and barcodes that make the intersection, plus its
description for the road graph and the controller. The geometry follows two rules of the
report's design:

- A robot that keeps following the line takes the exit. Exits are drawn over the road they
  leave (layer +1), so their gradient wins where the two overlap. The mark (a single black bit)
  ends where the exit splits off "at the beginning of the exit turn … on a straight line" (§7.1).
  A robot that continues drives blind for 21 counts (≈ 10 cm at SPEED_LOW, §7.1). The exit turns
  away with a 10 cm radius, so by then its band has cleared the road's centre by more than the
  sensor needs (2.2 cm of offset after 6.6 cm, against the 7.3 cm the blind drive covers past the
  split).
- Entries merge tangentially from the right and are drawn under the road they join (layer −1), so
  traffic on that road never sees them. Their mark is where the entering road's band has not yet
  reached the road's right side (11 cm before the merge). It makes the robot "cross" the entry
  as in the report, and it keeps the count of bits that decides where a roundabout may be left
  (only on even counts).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any, Callable

from thymio_road.map.barcode import BIT_LENGTH
from thymio_road.map.dubins import dubins
from thymio_road.map.geometry import Arc, Straight

Pose = tuple[float, float, float]

#: Radius of the turn that starts an exit (see the module docstring for why 10 cm).
EXIT_RADIUS = 0.10
#: The report's road width (§4); maps may set another.
ROAD_WIDTH = 0.03
#: CONTINUE's blind drive: 21 counts at SPEED_LOW, 150 × 0.032 cm/s × 2.1 s (§7.4, eq. 1).
CROSSING = 0.101
#: A crossroad's out-lanes start this far beyond the perpendicular lanes, clear of their marks.
OUT_LANE_GAP = 0.01
#: Around a crossroad's blind drives, where a follow sensor off the road is not a road loss.
BLIND_MARGIN = 0.02
#: The crossroad's second mark puts a robot down on the circle this far before the tangent point.
LANDING_BEFORE_TANGENT = 0.011
#: A crossroad's traffic light: how far before the right turn's split, and how far right of the
#: arm's line (the lane's robots pass 5.5 cm + 5.5 cm + 3 cm from its centre).
LIGHT_BEFORE_SPLIT, LIGHT_OFFSET = 0.10, 0.15
#: Crossroad paint order (higher on top): a right turn over its in-lane, its join under the
#: out-lane.
LAYER_OUT, LAYER_CIRCLE, LAYER_IN = 0, 1, 2
#: Where an entry's band starts to cover the bits on the right of the road it joins.
ENTRY_CLEARANCE = 0.11
#: Lateral distance between a location's siding and the road: the report's parallel tracks
#: were close enough that robots side by side did not see each other (§7.2, Fig. 16).
SIDING_OFFSET = 0.13

#: actionType of Appendix A, which also sets CONTINUE's left bias (85 + 3·type) % (§9).
ACTION_TYPES = {'branching': 0, 'roundabout': 1, 'crossroad': 2, 'location': 3}
#: Barcode codes on the road announcing each kind (Table 6).
ROAD_CODES = {'branching': 4, 'crossroad': 5, 'location': 6, 'roundabout': 7}


@dataclass
class Intersection:
    """What the road graph, the controller's tracking and the metrics need to know."""

    id: str
    kind: str
    #: Road the intersection is entered from → list of (mark id, branch) in driving order; the
    #: branch is the road taken when the robot exits at that mark (None: a mark to cross).
    marks: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    #: Road taken when continuing through, per road entered from.
    through: dict[str, str] = field(default_factory=dict)
    #: Location number (locations only).
    number: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Generated:
    roads: list[dict] = field(default_factory=list)
    marks: list[dict] = field(default_factory=list)
    barcodes: list[dict] = field(default_factory=list)
    poses: dict[str, Pose] = field(default_factory=dict)
    intersections: list[Intersection] = field(default_factory=list)

    def extend(self, other: 'Generated') -> None:
        self.roads += other.roads
        self.marks += other.marks
        self.barcodes += other.barcodes
        self.poses.update(other.poses)
        self.intersections += other.intersections


def advance(pose: Pose, pieces: list[dict]) -> Pose:
    """The pose at the end of a list of pieces (map YAML form) started at `pose`."""
    x, y, h = pose
    for p in pieces:
        piece = Straight(x, y, h, p['straight']) if 'straight' in p else \
            Arc(x, y, h, p['arc']['radius'], math.radians(p['arc']['angle_deg']))
        x, y, h = piece.pose_at(piece.length)
    return x, y, h


def _road(road_id: str, pose: Pose, pieces: list[dict], layer: int = 0, closed: bool = False) -> dict:
    return {'id': road_id, 'start': [round(pose[0], 9), round(pose[1], 9), round(math.degrees(pose[2]), 9)],
            'pieces': pieces, 'closed': closed, 'layer': layer}


def _split(pieces: list[dict], at: float) -> tuple[list[dict], list[dict]]:
    """Cut a piece list at arc length `at` (an arc or straight is cut in two)."""
    first: list[dict] = []
    done = 0.0
    for k, p in enumerate(pieces):
        if 'straight' in p:
            length = p['straight']
        else:
            length = p['arc']['radius'] * math.radians(abs(p['arc']['angle_deg']))
        if done + length >= at:
            cut = at - done
            if 'straight' in p:
                head, tail = {'straight': cut}, {'straight': length - cut}
            else:
                r, a = p['arc']['radius'], p['arc']['angle_deg']
                part = a * cut / length
                head = {'arc': {'radius': r, 'angle_deg': part}}
                tail = {'arc': {'radius': r, 'angle_deg': a - part}}
            return first + [head], [tail] + pieces[k + 1:]
        first.append(p)
        done += length
    return first, []


def _check(name: str, value: float, low: float, high: float, why: str = '', unit: str = 'm') -> None:
    """An intersection's own parameter in [low, high], refused by its name (not as the error of
    a road it would generate: `approach: 0` was reported as a road's straight length).
    """
    if not (math.isfinite(value) and low <= value <= high):
        from thymio_road.map.validation import show
        raise ValueError(f'{name}: {show(value)}: must be a number in [{low:.3g}, {high:.3g}] {unit}'
                         + (f' ({why})' if why else ''))


def _mark(mark_id: str, road: str, end: float) -> dict:
    return {'id': mark_id, 'road': road, 'at': round(end - BIT_LENGTH, 6)}


def roundabout(rid: str, centre: tuple[float, float], arms: list[str], heading: float,
               radius: float = 0.65, stub: float = 0.10) -> Generated:
    """A circular ring driven counter-clockwise, with an exit and an entry per arm.

    Arm k points at `heading + k·360°/N` from the centre. A circulating robot meets arm k's exit
    mark, the exit, the entry mark and the entry; a robot that entered at arm k therefore meets
    arm k+1's exit first (an even count). The ring's radius matters: CONTINUE drives blind with
    a left bias of 88 % (§9), a circle of 0.78 m. On a ring of 0.65 m the blind 10 cm end 3 mm
    outside the road's centre with 1 cm to spare from the exit's band; straight sides left the
    robot 1.5 cm off to the left (off the road), a 0.5 m ring 1 cm to the right (too near the exit).
    """
    _check('radius', radius, 0.2, 5.0, 'a robot follows the ring blind between its marks')
    _check('stub', stub, 0.01, 2.0, 'the straight between the ring and an arm')
    n = len(arms)
    circumference = 2 * math.pi * radius
    half_arm = 0.20  # exit split and entry merge lie 20 cm before and after the arm's axis
    needed = 2 * half_arm + 0.20
    if circumference / n < needed:
        raise ValueError(f'a ring of radius {radius} m has {circumference / n:.2f} m per arm; '
                         f'{n} arms need {needed:.2f} m each: make the radius at least '
                         f'{needed * n / (2 * math.pi):.2f} m')
    theta0 = heading - half_arm / radius
    start = (centre[0] + radius * math.cos(theta0), centre[1] + radius * math.sin(theta0),
             theta0 + math.pi / 2)
    ring_id = f'{rid}.ring'
    pieces = [{'arc': {'radius': radius, 'angle_deg': 360.0 / n}} for _ in range(n)]
    g = Generated()
    g.roads.append(_road(ring_id, start, pieces, 0, closed=True))
    info = Intersection(rid, 'roundabout', extra={'ring': ring_id, 'arms': list(arms)})
    ring_marks: list[tuple[str, str | None]] = []
    period = circumference / n

    def ring_pose(s: float) -> Pose:
        a = theta0 + s / radius
        return centre[0] + radius * math.cos(a), centre[1] + radius * math.sin(a), a + math.pi / 2

    for k, arm in enumerate(arms):
        split_at, merge_at = k * period, k * period + 2 * half_arm
        split_pose = ring_pose(split_at)
        exit_pieces = [{'arc': {'radius': EXIT_RADIUS, 'angle_deg': -90}}, {'straight': stub}]
        exit_id = f'{rid}.exit.{arm}'
        g.roads.append(_road(exit_id, split_pose, exit_pieces, +1))
        g.poses[exit_id] = advance(split_pose, exit_pieces)
        mx, my, mh = ring_pose(merge_at)
        cx, cy = mx + EXIT_RADIUS * math.sin(mh), my - EXIT_RADIUS * math.cos(mh)
        arc_start = (cx - EXIT_RADIUS * math.cos(mh), cy - EXIT_RADIUS * math.sin(mh), mh + math.pi / 2)
        entry_start = (arc_start[0] - stub * math.cos(arc_start[2]), arc_start[1] - stub * math.sin(arc_start[2]),
                       arc_start[2])
        entry_id = f'{rid}.entry.{arm}'
        g.roads.append(_road(entry_id, entry_start,
                             [{'straight': stub}, {'arc': {'radius': EXIT_RADIUS, 'angle_deg': -90}}], -1))
        g.poses[entry_id] = entry_start
        exit_mark, entry_mark = f'{rid}.exit_mark.{arm}', f'{rid}.entry_mark.{arm}'
        # The ring starts at arm 0's split: its exit mark ends where the ring closes.
        g.marks.append(_mark(exit_mark, ring_id, (split_at - 0.001) % circumference))
        g.marks.append(_mark(entry_mark, ring_id, merge_at - ENTRY_CLEARANCE))
        ring_marks += [(exit_mark, exit_id), (entry_mark, None)]
    info.marks[ring_id] = ring_marks
    g.intersections.append(info)
    return g


#: Where a location's traffic light stands (docs/traffic.md): LIGHT_BEFORE_MERGE before the
#: siding rejoins the road, LIGHT_LEFT to the left of the road (13 cm of free space between its
#: hull and a passing robot's is not needed: 6 cm are left), turned LIGHT_TURN from the road's
#: heading so that its front emitters look back at both lanes. Chosen by a sweep over poses with
#: the enki_doc channel: robots on the road first hear it 36 cm before the merge (their centre),
#: robots leaving the siding 29 cm before it, and both keep hearing it down to 15 and 9 cm.
LIGHT_BEFORE_MERGE = 0.10
LIGHT_LEFT = 0.17
LIGHT_TURN = math.radians(255.0)


def location(lid: str, number: int, road: str, at: float, road_pose: Callable[[float], Pose],
             parallel: float = 0.5, barcode_after: float = 0.04, light: bool = False) -> Generated:
    """A railway-style siding on the right of a straight road (report §7.2, Fig. 17).

    Marks on the road: the entry (the siding splits off there) and, before the siding rejoins,
    a mark to cross the merge; on the siding, 4 cm after its first S-curve, the barcode naming
    the location (Table 6: "in a location", codes are location numbers). With `light`, the exit
    gets a traffic-light Thymio's place (§7.2: "a traffic light Thymio at the exit"):
    ``extra['lights']`` = [(x, y, theta)].
    """
    _check('parallel', parallel, 0.05, 10.0, "the siding's straight beside the road")
    _check('barcode_after', barcode_after, 0.0, parallel, "the location's barcode lies on the siding's straight")
    r_out, r_in = EXIT_RADIUS, 0.15
    alpha = math.degrees(math.acos(1 - SIDING_OFFSET / (r_out + r_in)))
    curve_length = (r_out + r_in) * math.sin(math.radians(alpha))  # along the road, per S-curve
    split = road_pose(at)
    in_pieces = [{'arc': {'radius': r_out, 'angle_deg': -alpha}}, {'arc': {'radius': r_in, 'angle_deg': alpha}},
                 {'straight': parallel}]
    out_pieces = [{'arc': {'radius': r_in, 'angle_deg': alpha}}, {'arc': {'radius': r_out, 'angle_deg': -alpha}}]
    in_id, out_id = f'{lid}.siding', f'{lid}.siding_exit'
    g = Generated()
    g.roads.append(_road(in_id, split, in_pieces, +1))
    g.roads.append(_road(out_id, advance(split, in_pieces), out_pieces, -1))
    merge = at + 2 * curve_length + parallel
    entry_mark, cross_mark = f'{lid}.entry_mark', f'{lid}.merge_mark'
    g.marks.append(_mark(entry_mark, road, at - 0.001))
    g.marks.append(_mark(cross_mark, road, merge - 0.13))
    g.barcodes.append({'id': f'{lid}.name', 'road': in_id, 'code': number,
                       'at': round(r_out * math.radians(alpha) + r_in * math.radians(alpha) + barcode_after, 6)})
    info = Intersection(lid, 'location', number=number,
                        marks={road: [(entry_mark, in_id), (cross_mark, None)]},
                        through={road: road},
                        extra={'road': road, 'siding': [in_id, out_id], 'split_at': at, 'merge_at': merge})
    if light:
        x, y, h = road_pose(merge - LIGHT_BEFORE_MERGE)
        info.extra['lights'] = [(x - LIGHT_LEFT * math.sin(h), y + LIGHT_LEFT * math.cos(h),
                                 math.atan2(math.sin(h + LIGHT_TURN), math.cos(h + LIGHT_TURN)))]
    g.intersections.append(info)
    return g


def branching(bid: str, road_a: str, at_a: float, road_b: str, at_b: float,
              pose_a: Callable[[float], Pose], pose_b: Callable[[float], Pose], gap: float = 0.2
              ) -> Generated:
    """Two one-way links between roads that run side by side in opposite directions (§7.3).

    Road b runs to the right of road a. The link a→b leaves a at `at_a` and joins b at `at_b`; the
    link b→a leaves b `gap` metres before that and joins a `gap` metres after `at_a`, so on each
    road the split comes first and a robot never meets the link back into the road it just left.
    """
    _check('gap', gap, 0.05, 2.0, 'between the two links along each road')
    g = Generated()
    ab, ba = f'{bid}.a_to_b', f'{bid}.b_to_a'
    split_a, merge_b = pose_a(at_a), pose_b(at_b)
    split_b, merge_a = pose_b(at_b - gap), pose_a(at_a + gap)
    for link, start, end in ((ab, split_a, merge_b), (ba, split_b, merge_a)):
        # The link leaves over the road it splits from and arrives under the road it joins.
        pieces = dubins(start, end, EXIT_RADIUS)
        length = sum(p['straight'] if 'straight' in p else
                     p['arc']['radius'] * math.radians(abs(p['arc']['angle_deg'])) for p in pieces)
        leave, arrive = _split(pieces, length / 2)
        g.roads.append(_road(link, start, leave, +1))
        g.roads.append(_road(f'{link}.join', advance(start, leave), arrive, -1))
    marks = {}
    for road, split_at, merge_at, link in ((road_a, at_a, at_a + gap, ab), (road_b, at_b - gap, at_b, ba)):
        exit_mark, cross_mark = f'{bid}.exit_mark.{road}', f'{bid}.merge_mark.{road}'
        g.marks.append(_mark(exit_mark, road, split_at - 0.001))
        g.marks.append(_mark(cross_mark, road, merge_at - ENTRY_CLEARANCE))
        marks[road] = [(exit_mark, link), (cross_mark, None)]
    g.intersections.append(Intersection(bid, 'branching', marks=marks,
                                        through={road_a: road_a, road_b: road_b},
                                        extra={'links': {ab: road_b, ba: road_a}}))
    return g


def crossroad(cid: str, centre: tuple[float, float], arms: list[str], heading: float,
              radius: float = 0.108, approach: float = 0.75, leave: float = 0.75,
              turn_straight: float = 0.15, leave_angle_deg: float = 22.0, lights: bool = True,
              light_offset: float = LIGHT_OFFSET) -> Generated:
    """A four-way crossroad with a central circle (report §7.4, Figs. 18-20).

    Arm k's lanes run at `heading + k·90°` along four lines `radius` from the centre, tangent to
    a counter-clockwise central circle; the square they enclose is driven blind. A robot going
    straight acts on four marks, as in the report: (1) at its right turn's split it crosses it;
    (2) before the square it crosses blind onto the circle (the report crossed "the
    perpendicular road" there and then "reach[ed] the circle"); (3) on the circle it leaves it
    straight, across the other perpendicular road; (4) at once, forced, it drives on until its
    out-lane, which starts beyond the square. Turning right exits at (1); turning left follows
    the circle from (3) (EXIT, 29 counts, then ACTION) and leaves it at the next arm's (3).

    The geometry follows from the report's counts: CONTINUE's 21 counts (10 cm at SPEED_LOW)
    must take a robot from mark (2) onto the circle, which fixes the radius at the report's
    10.8 cm. The sensors lead the wheels by 7.2 cm, so a robot following a 10.8 cm circle
    heads 42° inside the circle's tangent at its sensors: the circle's marks lie
    `leave_angle_deg` past the tangent points, where a blind robot is headed onto its out-lane.
    The report marked (2) with the perpendicular road's black edge; we print a mark instead,
    because the follow sensor meets that edge with the reading sensor and swings the robot off
    its heading before the blind drive (docs/intersections.md).

    With `lights`, four traffic-light places (`extra['lights']`, in arm order) stand beside the
    approaches, just before mark (1), where a robot still may stop: the report had two in the
    centre, but one Thymio's IR (about 23 cm, docs/design.md: Thymio facts) cannot reach two approaches 60 cm
    apart. `light_offset`: how far right of its lane each light stands (m); at the default 15 cm
    a robot passing it sees its hull with its centre-right proximity sensor above the second
    avoidance threshold (docs/traffic.md).
    """
    if len(arms) != 4 or len(set(arms)) != 4:
        raise ValueError(f'a crossroad has four arms, got {arms!r}')
    g = Generated()
    circle_id = f'{cid}.circle'
    # The circle starts at arm 0's tangent point, heading like arm 0's lane.
    right0 = (math.sin(heading), -math.cos(heading))
    tangent0 = (centre[0] + radius * right0[0], centre[1] + radius * right0[1], heading)
    g.roads.append(_road(circle_id, tangent0, [{'arc': {'radius': radius, 'angle_deg': 90.0}} for _ in range(4)],
                         LAYER_CIRCLE, closed=True))
    quarter = radius * math.pi / 2
    # An in-lane ends where the circle's band meets it, so that neither road's black edge lies
    # beside the other's follow sensor; an out-lane starts beyond the square.
    lane_end = math.sqrt(2 * radius * ROAD_WIDTH)
    out_start = radius + ROAD_WIDTH + OUT_LANE_GAP
    leave_arc = radius * math.radians(leave_angle_deg)
    _check('radius', radius, 0.05, 0.5, "the central circle's; the report's counts fit 0.108")
    _check('turn_straight', turn_straight, 0.0, 1.0, "the right turn's straight")
    _check('leave_angle_deg', leave_angle_deg, 0.0, 90.0, 'past the tangent point', unit='°')
    _check('light_offset', light_offset, 0.0, 1.0, 'right of the lane')
    diagonal = EXIT_RADIUS + turn_straight * math.sin(math.pi / 4)  # forward run of the right turn
    _check('approach', approach, radius + diagonal + BIT_LENGTH + 0.002, 20.0,
           "room for the right turn's split and its mark before the circle, with this radius and turn_straight")
    _check('leave', leave, radius + ROAD_WIDTH + OUT_LANE_GAP + 0.01, 20.0, 'the out-lane starts beyond the square')
    info = Intersection(cid, 'crossroad', extra={
        'circle': circle_id, 'arms': list(arms), 'in': {}, 'out': {}, 'right': {}, 'lights': [],
        'circle_marks': {}, 'radius': radius, 'blind': [(centre[0], centre[1], heading, out_start, out_start)],
        # Road lengths of the blind ways (for the road graph): from the turn mark's start to the
        # circle, the circle's arc before a robot leaves it straight, and from there to the
        # out-lane (a quarter more when turning left).
        'to_circle': radius + diagonal + 0.001 + BIT_LENGTH, 'leave_arc': leave_arc, 'quarter': quarter,
        'to_out_lane': out_start})
    for k, arm in enumerate(arms):
        h = heading + k * math.pi / 2
        u, right = (math.cos(h), math.sin(h)), (math.sin(h), -math.cos(h))
        tangent = (centre[0] + radius * right[0], centre[1] + radius * right[1])
        in_id, out_id, turn_id = f'{cid}.in.{arm}', f'{cid}.out.{arm}', f'{cid}.right.{arm}'
        in_start = (tangent[0] - approach * u[0], tangent[1] - approach * u[1], h)
        g.roads.append(_road(in_id, in_start, [{'straight': approach - lane_end}], LAYER_IN))
        out_pose = (tangent[0] + out_start * u[0], tangent[1] + out_start * u[1], h)
        g.roads.append(_road(out_id, out_pose, [{'straight': leave - out_start}], LAYER_OUT))
        g.poses[in_id] = in_start
        g.poses[out_id] = (tangent[0] + leave * u[0], tangent[1] + leave * u[1], h)
        # The right turn leaves with the exits' 10 cm radius (a continuing robot must clear it)
        # and runs a straight in its middle, so that it joins the out-lane beyond the square.
        split_at = approach - radius - diagonal
        turn = [{'arc': {'radius': EXIT_RADIUS, 'angle_deg': -45.0}}, {'straight': turn_straight},
                {'arc': {'radius': EXIT_RADIUS, 'angle_deg': -45.0}}]
        turn_length = EXIT_RADIUS * math.pi / 2 + turn_straight
        leave_half, arrive_half = _split(turn, turn_length / 2)
        split_pose = (in_start[0] + split_at * u[0], in_start[1] + split_at * u[1], h)
        g.roads.append(_road(turn_id, split_pose, leave_half, LAYER_IN + 1))
        g.roads.append(_road(f'{turn_id}.join', advance(split_pose, leave_half), arrive_half, LAYER_OUT - 1))
        first, second, third = f'{cid}.turn_mark.{arm}', f'{cid}.cross_mark.{arm}', f'{cid}.circle_mark.{arm}'
        g.marks.append(_mark(first, in_id, split_at - 0.001))
        g.marks.append(_mark(second, in_id, approach - (CROSSING - BIT_LENGTH + LANDING_BEFORE_TANGENT)))
        g.marks.append(_mark(third, circle_id, quarter * k + leave_arc))
        # The road graph sees the in-lane's two marks; the circle's marks are only met on the
        # circle (extra['circle_marks']), where the robot leaves it blind.
        info.marks[in_id] = [(first, turn_id), (second, None)]
        info.extra['in'][arm], info.extra['out'][arm], info.extra['right'][arm] = in_id, out_id, turn_id
        info.extra['circle_marks'][arm] = third
        # Blind until the forced fourth crossing ends, 2 × CONTINUE from the circle's mark: the
        # out-lane's first centimetres are part of the designed blind drive.
        blind_end = radius * math.sin(leave_arc / radius) + 2 * CROSSING + BLIND_MARGIN
        mid = (out_start + blind_end) / 2
        info.extra['blind'].append((tangent[0] + mid * u[0], tangent[1] + mid * u[1], h,
                                    (blind_end - out_start) / 2, ROAD_WIDTH + BLIND_MARGIN))
        if not lights:
            continue
        # The light stands right of the approach, facing it, 10 cm before mark (1).
        along, side = radius + diagonal + LIGHT_BEFORE_SPLIT, radius + light_offset
        info.extra['lights'].append((centre[0] - along * u[0] + side * right[0],
                                     centre[1] - along * u[1] + side * right[1], h + math.pi / 2))
    g.intersections.append(info)
    return g
