# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Traffic lights on the printed map (report §7.2, §7.4; Appendix A): where they stand, the
codes they send and the lanes those codes address.

A traffic light is a static Thymio that sends one integer every 0.1 s by proximity
communication (``prox.comm.tx``). Appendix A's robots act on two codes:

- ``node + 20`` (:data:`STOP`) and ``node + 40`` (:data:`GO`), where ``node`` is an integer node
  id below 20, so that the two ranges never overlap;
- at a **crossroad** the node is the one the robot *came from* (``oldNode``): a light addresses an
  arm's in-lane by the node its robots arrive from. ``oldNode+20`` stops a robot that has not yet
  started crossing (``counterContinue == 0 and countExit == 0``), ``oldNode+40`` lets it go;
- at a **location** the node is the location itself (``currentNode``) and one code speaks to both
  lanes, oppositely: robots that continued past the siding entry (``counterContinue == 1``, the
  *road* lane) stop on ``node+20`` and go on ``node+40``; robots leaving the siding
  (``counterContinue == 0``, the *siding* lane) go on ``node+20`` and stop on ``node+40``, with
  their stop timer frozen while stopped (``incrementCounter = 0``).

One addition (docs/traffic.md): ``node + 60`` (:data:`ALL_STOP`) stops both lanes of a location,
for the all-red clearance between two phases, which the report's two codes cannot express (at a
crossroad the clearance simply sends ``+20`` to every lane). Appendix A reserved ``+60`` for a
map-exchange protocol that is commented out, so no robot gives it another meaning.

Node ids (:func:`node_ids`): the position of the intersection in the parsed map's
``intersections`` — roundabouts and crossroads first, in file order, then locations and
branchings, in file order. They are stable as long as the map file keeps its order. A map whose
lights would need an id above 19, or whose crossroad arms cannot be told apart by the node their
robots come from, is refused when it is parsed (:func:`check_lights`, run by
:mod:`thymio_road.map.checks`), naming the intersection.

What a light sends over time, and its battery, is :mod:`thymio_road.control.traffic_light`.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from thymio_road.map.road_map import MapError

#: Offsets of the codes (Appendix A: stop, go) and the all-red addition.
STOP = 20
GO = 40
ALL_STOP = 60
#: Node ids must stay below 20 so that node+20, node+40 and node+60 never overlap.
MAX_NODE_ID = 19
#: Codes a light may send: 20..79.
CODE_MIN, CODE_MAX = STOP, ALL_STOP + MAX_NODE_ID
#: A light's body must keep this far (m) from any road's centre line: a Thymio's half width
#: (5.5 cm), the road's half width and a robot following it (its centre is 1.3 cm right of the
#: road's centre) leave 11.5 cm.
LIGHT_ROAD_CLEARANCE = 0.115
#: Two lights that send a common code must stand this far apart (m): twice the longest IR range
#: of the channel models (48 cm, enki_code) plus a Thymio's length, so that no robot hears both.
SAME_CODE_DISTANCE = 1.2


# --- lights of a map ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lane:
    """A lane a light commands: its name, the node ids that address it and the phase that opens it."""

    name: str
    addresses: tuple[int, ...]
    phase: int


@dataclass(frozen=True)
class LightPlace:
    """A traffic-light Thymio the map places: where, at which node, which lanes it commands."""

    name: str
    intersection: str
    kind: str
    #: The node id (location: the location's; crossroad: the crossroad's, for messages only).
    node: int
    pose: tuple[float, float, float]
    lanes: tuple[Lane, ...]

    @property
    def phases(self) -> int:
        return 2


def node_ids(road_map: Any) -> dict[str, int]:
    """Stable integer ids of a map's intersections (see the module docstring for the rule)."""
    return {inter.id: k for k, inter in enumerate(road_map.intersections)}


def light_places(graph: Any) -> list[LightPlace]:
    """The lights of a map (``Intersection.extra['lights']``), checked; raises MapError."""
    road_map = graph.road_map
    ids = node_ids(road_map)
    src = road_map.source
    places: list[LightPlace] = []
    for inter in road_map.intersections:
        poses = inter.extra.get('lights') or []
        if not poses:
            continue
        where = f"intersection '{inter.id}' ({inter.kind})"
        if inter.kind == 'location':
            node = ids[inter.id]
            if node > MAX_NODE_ID:
                raise MapError(f'{src}: {where}: its light addresses it by its node id {node}, but ids must be '
                               f'0..{MAX_NODE_ID} (node+20 and node+40 must not overlap, Appendix A); '
                               'list it among the first 20 intersections')
            lanes = (Lane('road', (node,), 0), Lane('siding', (node,), 1))
            places += [LightPlace(f'light_{inter.id}', inter.id, inter.kind, node, tuple(map(float, poses[0])), lanes)]
        elif inter.kind == 'crossroad':
            places += _crossroad_lights(graph, inter, ids, where)
        else:
            raise MapError(f'{src}: {where}: traffic lights stand at locations and crossroads only')
    for place in places:
        _check_clear_of_roads(road_map, place)
    _check_shared_codes(road_map, places)
    return places


def light_codes(place: LightPlace) -> set[int]:
    """Every value a light may send."""
    offsets = (STOP, GO, ALL_STOP) if place.kind == 'location' else (STOP, GO)
    return {a + k for lane in place.lanes for a in lane.addresses for k in offsets}


def _check_shared_codes(road_map: Any, places: list[LightPlace]) -> None:
    """Lights of different intersections that send a common code (a crossroad lane addressed by a
    location's id, say) must be out of each other's lanes' hearing.
    """
    for i, a in enumerate(places):
        for b in places[i + 1:]:
            if a.intersection == b.intersection:
                continue
            common = light_codes(a) & light_codes(b)
            d = math.dist(a.pose[:2], b.pose[:2])
            if common and d < SAME_CODE_DISTANCE:
                raise MapError(f"{road_map.source}: intersection '{a.intersection}' ({a.kind}): its light "
                               f"'{a.name}' and '{b.name}' of '{b.intersection}' both send {sorted(common)} but "
                               f'stand {d:.2f} m apart (at least {SAME_CODE_DISTANCE} m, or a robot could obey '
                               'the wrong one)')


def _crossroad_lights(graph: Any, inter: Any, ids: dict[str, int], where: str) -> list[LightPlace]:
    """The crossroad's lights. Opposite arms share a phase (arms 0 and 2, then 1 and 3). Each
    arm's in-lane is addressed by the nodes its robots come from (Appendix A: oldNode). Light
    places are either one per arm (``extra['lights']`` = {arm: pose}: each light commands its
    arm) or a list (the report's pair: each lane is commanded by the light nearer to its end).
    """
    src = graph.road_map.source
    arms = list(inter.extra.get('arms', []))
    in_roads = inter.extra.get('in', {})
    given = inter.extra['lights']
    per_arm = isinstance(given, dict)
    poses = [tuple(map(float, p)) for p in (given.values() if per_arm else given)]
    lane_of: dict[str, tuple[Lane, tuple[float, float]]] = {}
    owner: dict[int, tuple[str, int]] = {}
    for k, arm in enumerate(arms):
        road_id = in_roads.get(arm)
        approach = next((key for key, a in graph.approaches.items() if a.node == inter.id and a.road == road_id), None)
        if approach is None:
            raise MapError(f"{src}: {where}: arm '{arm}' has no in-lane that robots reach (road {road_id!r})")
        previous = sorted({graph.approaches[o.approach].node for o in graph.all_options if o.target == approach})
        if not previous:
            raise MapError(f"{src}: {where}: no node leads into arm '{arm}'")
        addresses = tuple(ids[p] for p in previous)
        phase = k % 2
        for p, a in zip(previous, addresses):
            if a > MAX_NODE_ID:
                raise MapError(f"{src}: {where}: arm '{arm}' is addressed by node '{p}' whose id {a} is above "
                               f'{MAX_NODE_ID} (node+20 and node+40 must not overlap, Appendix A)')
            if a in owner and owner[a][1] != phase:
                raise MapError(f"{src}: {where}: arms '{owner[a][0]}' and '{arm}' are both entered from node "
                               f"'{p}' (id {a}) but open in different phases: a light addresses a lane by the "
                               'node its robots come from (Appendix A: oldNode+20 / oldNode+40) and could not '
                               'tell them apart')
            owner[a] = (arm, phase)
        road = graph.road_map.road(road_id)
        lane_of[arm] = (Lane(arm, addresses, phase), road.pose_at(road.length)[:2])
    out = []
    if per_arm:
        for arm, pose in given.items():
            if arm not in lane_of:
                raise MapError(f"{src}: {where}: a light stands at arm '{arm}', which the crossroad does not have")
            out.append(LightPlace(f'light_{inter.id}_{arm}', inter.id, inter.kind, ids[inter.id],
                                  tuple(map(float, pose)), (lane_of[arm][0],)))
        return out
    for j, pose in enumerate(poses):
        mine = tuple(lane for lane, end in lane_of.values()
                     if min(range(len(poses)), key=lambda i: math.dist(poses[i][:2], end)) == j)
        out.append(LightPlace(f'light_{inter.id}_{j}', inter.id, inter.kind, ids[inter.id], pose, mine))
    return out


def _check_clear_of_roads(road_map: Any, place: LightPlace) -> None:
    x, y, _ = place.pose
    for road in road_map.roads:
        pts = road.sample(0.005)
        d = float(np.hypot(pts[:, 0] - x, pts[:, 1] - y).min()) if len(pts) else math.inf
        if d < LIGHT_ROAD_CLEARANCE:
            raise MapError(f"{road_map.source}: intersection '{place.intersection}' ({place.kind}): its light "
                           f"'{place.name}' stands {d * 100:.1f} cm from road '{road.id}' (at least "
                           f'{LIGHT_ROAD_CLEARANCE * 100:.1f} cm, or robots on it would hit the light)')


def check_lights(graph: Any) -> list[LightPlace]:
    """Map-parse check of the lights' places and addressing; returns them."""
    return light_places(graph)
