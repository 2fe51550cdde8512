# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Map tracking and routing for one robot, on top of the report's controller (§7, §9, Appendix A).

The report's robots kept ``currentNode`` in an adjacency table. Reading an intersection code
(``mapUpdate``) moved them to the node the exit they took leads to (``searchCompatibleNode``);
when that node's type did not match the code read they searched again and set
``positionError``; a location barcode (``currentNode = code + 7``) made the position certain.

The :class:`Navigator` does the same on the :class:`~thymio_road.map.road_graph.RoadGraph`, with a
set of candidates instead of one node, so that a wrong guess is corrected as soon as the codes
read allow it:

- between nodes it holds the options (drives) the robot may be on; inside a node, the
  approaches it may have entered by;
- an intersection code keeps the candidates whose next node has that kind (and whose drive has
  the codes read since the last node); if none has, that is a **mismatch**: every approach of
  that kind becomes a candidate (the report's re-search);
- the marks passed and the exit taken (the controller's ``decision`` events) select the option
  out of each candidate approach; a location barcode names the node outright.

Decisions at marks follow the route to the mission's next location (shortest road length over
the graph) when the position is certain, and are random otherwise, as in the report. When the
mission is done the robot drives on at random (it must leave the siding anyway, and stopping on
the road would block the others).
"""
from __future__ import annotations

import math
import random
import re
from typing import Callable, Collection, Iterable, Sequence

from thymio_road.control.controller import Action, Event, RoadController
from thymio_road.map.road_graph import Option, RoadGraph
from thymio_road.map.road_map import RoadMap
from thymio_road.map.validation import show

#: Extra cost (metres) of entering a location that is not the destination: the 2 s stop and the
#: slow siding (§7.2) are worth about this much road at the lowest speed.
LOCATION_DETOUR = 0.5
#: A crossroad option's `exit_at` (road_graph: the mark the way turns off at) ↔ the controller's way.
CROSSROAD_WAYS = {0: 'right', None: 'straight', 2: 'left'}
CROSSROAD_EXITS = {way: exit_at for exit_at, way in CROSSROAD_WAYS.items()}


#: A ring robot that has driven this many of the ring's longest gaps between marks, and this
#: margin, past its last mark has left the ring unawares: one missed mark is not enough.
OVERDUE_GAPS = 2.0
OVERDUE_MARGIN_M = 0.2

#: A location number in a mission: ASCII digits only ('²'.isdigit() is True, but int('²') fails).
_NUMBER = re.compile(r'[0-9]+')


class MissionError(ValueError):
    """A mission that is not location numbers, or that names `location`, which the map lacks."""

    def __init__(self, message: str, location: int | None = None) -> None:
        super().__init__(message)
        self.location = location


def map_locations(road_map: RoadMap) -> frozenset[int]:
    """The location numbers of a map: the only ones a mission may name."""
    return frozenset(i.number for i in road_map.intersections if i.kind == 'location')


def parse_mission(mission: str | int | Sequence[int | str], locations: Collection[int] | None = None,
                  map_label: str = 'the map') -> list[int]:
    """'3,1,5', 3 or [3, 1, 5] → [3, 1, 5]; '' → [] (random driving). The one check of a mission
    (scenario files, the controller node's parameter and topic, the Navigator): each number ASCII
    digits and, given the map's `locations` (map_locations), one of them (`map_label` names the
    map in the error).
    """
    if isinstance(mission, (list, tuple)) and all(isinstance(m, (int, str)) and not isinstance(m, bool)
                                                  for m in mission):
        text = ','.join(map(str, mission))
    elif isinstance(mission, int) and not isinstance(mission, bool):
        text = str(mission)
    elif isinstance(mission, str):
        text = mission
    else:
        raise MissionError(f'mission must be location numbers, got {show(mission)}')
    out = []
    for part in text.split(','):
        part = part.strip()
        if not part:
            continue
        if not _NUMBER.fullmatch(part):
            raise MissionError(f'mission must be location numbers separated by commas, got {show(mission)}')
        out.append(int(part))
    if locations is not None:
        for n in out:
            if n not in locations:
                raise MissionError(f'no location {n} on {map_label} (locations: '
                                   f"{', '.join(map(str, sorted(locations))) or 'none'})", n)
    return out


def _subsequence(read: Sequence[int], codes: Sequence[int]) -> bool:
    it = iter(codes)
    return all(any(c == r for c in it) for r in read)


class Navigator:
    """Tracks a robot's node from its controller's events and decides at marks; see the module doc."""

    def __init__(self, graph: RoadGraph, mission: Sequence[int] = (), start_node: str = '',
                 seed: int = 0, start_road: str = '') -> None:
        self.graph = graph
        self.rng = random.Random(seed)
        self._random: Callable[[Action, int], str] = self._own_random
        self._random_direction: Callable[[], str] = lambda: self.rng.choice(tuple(CROSSROAD_EXITS))
        #: Options the robot may be driving (None: anywhere, nothing known). This and `inside`
        #: are the belief, replaced (never changed in place) when it changes: the ROS node asks
        #: for the node only when one of them is another object (ControllerNode._flush).
        self.edges: list[Option] | None = None
        #: Approaches the robot may have entered its current node by (None: not in a node).
        self.inside: list[str] | None = None
        self.exit_at: int | None = None
        self.codes_read: list[int] = []
        self.plan: Option | None = None
        self._overdue_cm = math.inf
        self.mission: list[int] = []
        self.arrivals: list[int] = []
        #: After one lap of a ring, random choices take the next exit (set by `attach`).
        self.one_lap = False
        self.set_start(start_node, start_road)
        self.set_mission(mission)

    # --- set-up -------------------------------------------------------------------------------------
    def attach(self, controller: RoadController) -> None:
        """Decide for `controller`; random decisions stay the controller's own (seeded) ones."""
        self._random = controller.decide
        controller.decide = self.decide
        self.one_lap = controller.policy.one_lap
        if controller.policy.notices_left_ring:
            controller.mark_overdue_cm = self.mark_overdue_cm
        self._random_direction = controller.choose_direction
        controller.choose_direction = self.choose_direction

    def set_start(self, start_node: str, start_road: str = '') -> None:
        """The node the robot last passed ('' = unknown, a robot freshly put on the map), and the
        road it was put down on: of the node's ways out, only those that drive that road are
        candidates. Without it every way out of the node is, and a robot put down after a
        crossroad cannot know the arm it comes back by, which the crossroad's lights address.
        """
        self.inside = None
        self._overdue_cm = math.inf
        self.exit_at = None
        self.codes_read = []
        if not start_node:
            self.edges = None
            return
        keys = [start_node] if start_node in self.graph.approaches else self.graph.approaches_of(start_node)
        if not keys:
            raise ValueError(f'start_node {start_node!r} is not a node of map {self.graph.road_map.name!r} '
                             f'(nodes: {", ".join(sorted(self.graph.nodes))})')
        self.edges = [o for k in keys for o in self.graph.options[k]]
        on_road = [o for o in self.edges if start_road in o.roads]
        if on_road:
            self.edges = on_road

    def set_mission(self, mission: Sequence[int] | str) -> None:
        """Locations to visit in order; replaces the current mission."""
        locations = map_locations(self.graph.road_map)
        try:
            numbers = parse_mission(mission, locations)
        except MissionError as exc:
            if exc.location is None:
                raise
            raise MissionError(f'mission location {exc.location} is not on map {self.graph.road_map.name!r} '
                               f'(locations: {sorted(locations)})', exc.location) from None
        self.mission = numbers
        self._distances = {n: self.graph.distances_to_location(n, LOCATION_DETOUR) for n in set(numbers)}
        self._plan()

    @property
    def target(self) -> int | None:
        return self.mission[0] if self.mission else None

    @property
    def node(self) -> str | None:
        """The node the robot is in, or last passed, when certain."""
        if self.inside is not None:
            nodes = {self.graph.approaches[a].node for a in self.inside}
        elif self.edges is not None:
            nodes = {self.graph.approaches[o.approach].node for o in self.edges}
        else:
            return None
        return nodes.pop() if len(nodes) == 1 else None

    # --- decisions ------------------------------------------------------------------------------------
    def decide(self, action: Action, passed: int) -> str:
        """The controller's hook at a mark: follow the plan, else decide at random (§7)."""
        plan = self.plan
        if plan is not None:
            if plan.exit_at is None:
                return 'continue'
            # Past the planned exit (a mark missed, or laps on a ring): the marks repeat.
            n = len(self.graph.approaches[plan.approach].marks)
            return 'exit' if passed == plan.exit_at or (passed >= n and passed % n == plan.exit_at) else 'continue'
        if self.one_lap and action is Action.ROUNDABOUT and passed >= self._ring_marks():
            # One lap of random choices: the report's 50 % at each exit kept robots on R2's ring
            # for up to four laps (15 robots seed 13: 22 marks, 350 s), in the way of the others.
            return 'exit'
        return self._random(action, passed)

    def _ring_marks(self) -> float:
        """The marks of one lap of the ring the robot is on (infinite when the map does not say);
        unsure which ring, of the smallest: a lap of the largest is laps of a smaller one.
        """
        if not self.inside:
            return float('inf')
        return min(len(self.graph.approaches[a].marks) for a in self.inside)

    def mark_overdue_cm(self) -> float:
        """How far past its last mark a robot on this ring is overdue (infinite when not on a ring)."""
        return self._overdue_cm

    def _overdue_on_ring(self) -> float:
        """The overdue distance of the ring the robot may have entered by, from its longest gap
        between marks, round the lap.
        """
        longest = 0.0
        for key in self.inside or ():
            approach = self.graph.approaches[key]
            ring = self.graph.road_map.road(approach.road)
            if self.graph.nodes[approach.node].kind != 'roundabout' or not ring.closed:
                return math.inf
            at = [mark[2] for mark in approach.marks] + [ring.length]
            longest = max([longest] + [b - a for a, b in zip(at, at[1:])])
        return 100 * (OVERDUE_GAPS * longest + OVERDUE_MARGIN_M) if longest else math.inf

    def choose_direction(self) -> str:
        """The controller's hook on a crossroad's barcode: the planned way, else at random."""
        plan = self.plan
        if plan is not None:
            return CROSSROAD_WAYS[plan.exit_at]
        return self._random_direction()

    def _own_random(self, action: Action, passed: int) -> str:
        return 'exit' if self.rng.random() < 0.5 else 'continue'

    def _plan(self) -> None:
        """Choose the option out of the current node (only when its approach is certain)."""
        self.plan = None
        if self.target is None or self.inside is None or len(self.inside) != 1:
            return
        best = self._distances[self.target].get(self.inside[0])
        if best is not None:
            self.plan = best[1]

    # --- tracking -------------------------------------------------------------------------------------
    def on_events(self, events: Iterable[Event]) -> list[Event]:
        """Consume one step's controller events; returns the navigator's own events."""
        out: list[Event] = []
        for e in events:
            handler = getattr(self, f'_on_{e.kind}', None)
            if handler is not None:
                handler(e.data, out)
        return out

    def _on_barcode(self, data: dict, out: list[Event]) -> None:
        if self.inside is None:
            self.codes_read.append(int(data['code']))

    def _on_intersection(self, data: dict, out: list[Event]) -> None:
        kind = str(data['action'])
        edges = self.edges if self.edges is not None else self.graph.all_options
        expected = sorted({o.target_node for o in edges}) if self.edges is not None else []
        fits = self._filter([o for o in edges if self.graph.node_of(o.target).kind == kind])
        mismatch = self.edges is not None and not fits
        if not fits:
            # The report's re-search: any way into a node of that kind, preferring those whose
            # drive has the codes read.
            fits = self._filter([o for o in self.graph.all_options if self.graph.node_of(o.target).kind == kind])
        self.inside = sorted({o.target for o in fits})
        self.exit_at = None
        self.codes_read = []
        self._overdue_cm = self._overdue_on_ring()
        self._plan()
        out.append(Event('node', {'node': self.node, 'expected': expected[0] if len(expected) == 1 else None,
                                  'mismatch': mismatch, 'type': kind, 'candidates': len(self.inside)}))

    def _filter(self, options: list[Option]) -> list[Option]:
        if not self.codes_read:
            return options
        with_codes = [o for o in options if _subsequence(self.codes_read, o.codes)]
        return with_codes or options

    def _on_decision(self, data: dict, out: list[Event]) -> None:
        if data.get('action') == 'crossroad':
            self.exit_at = CROSSROAD_EXITS[str(data['choice'])]
        elif data.get('choice') == 'exit':
            self.exit_at = int(data['mark'])

    def _on_location(self, data: dict, out: list[Event]) -> None:
        """A location barcode: the position is certain (Appendix A: currentNode = code + 7)."""
        number = int(data['number'])
        node = self.graph.location(number)
        believed = {self.graph.approaches[a].node for a in (self.inside or [])}
        if node is None:
            # A misread: no such location. Keep the belief (the stop will still end the visit).
            out.append(Event('node', {'node': self.node, 'expected': self.node, 'mismatch': True,
                                      'type': 'location', 'candidates': len(self.inside or []),
                                      'misread': number}))
            return
        mismatch = node.id not in believed
        expected = believed.pop() if len(believed) == 1 else None
        self.inside = self.graph.approaches_of(node.id)
        self.exit_at = 0
        self._overdue_cm = math.inf
        self._plan()
        if mismatch or len(self.inside) == 1:
            out.append(Event('node', {'node': node.id, 'expected': expected, 'mismatch': mismatch,
                                      'type': 'location', 'candidates': len(self.inside)}))

    def _on_stop(self, data: dict, out: list[Event]) -> None:
        """The stop in a location: an arrival when it is the mission's next location."""
        number = data.get('location')
        if number is None and self.node is not None:
            number = self.graph.nodes[self.node].number  # barcode missed, but the tracker is certain
        if number is None:
            return
        self.arrivals.append(int(number))
        arrived = self.target is not None and int(number) == self.target
        if arrived:
            self.mission.pop(0)
            self._plan()
        out.append(Event('arrival', {'location': int(number), 'target': arrived,
                                     'next': self.target, 'remaining': len(self.mission)}))

    def _on_left_unawares(self, data: dict, out: list[Event]) -> None:
        """The controller has left the ring by an exit it did not count: any of the ring's exits
        may be the one, and the codes read next tell which (as after the report's re-search).
        """
        if self.inside is None:
            return
        self.edges = [o for a in self.inside for o in self.graph.options[a] if o.exit_at is not None] or None
        self.inside = None
        self.exit_at = None
        self.plan = None
        self.codes_read = []
        self._overdue_cm = math.inf

    def _on_left(self, data: dict, out: list[Event]) -> None:
        if self.inside is None:
            return
        edges = []
        for a in self.inside:
            opts = self.graph.options[a]
            if self.exit_at is None or self.graph.node_of(a).kind == 'crossroad':
                edges += [o for o in opts if o.exit_at == self.exit_at]
            else:
                n = len(self.graph.approaches[a].marks)
                # Laps on a ring: the marks repeat, so do the exits.
                edges += [o for o in opts if o.exit_at is not None and o.exit_at in (self.exit_at, self.exit_at % n)]
        self.edges = edges or None
        self.inside = None
        self.exit_at = None
        self.plan = None
        self.codes_read = []
        self._overdue_cm = math.inf
