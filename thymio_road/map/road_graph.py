# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The road graph of a map: intersections as nodes, the drives between them as edges (report §9).

The report's robots carried the map as an adjacency table (Appendix A: ``map[]`` says which
nodes are connected, ``maptype[]`` each node's type) and tracked the node they were in from the
intersection codes they read. This module derives that table from a :class:`RoadMap` instead of
writing it by hand, with what a robot needs to follow a route:

- a **node** is an intersection (roundabout, location, branching; a crossroad fits the same
  model: marks, and the branch an exit at each mark takes);
- an **approach** is a way into a node: the first of its marks a robot meets, which fixes the
  order of the marks that follow (on a roundabout the entry decides which exit comes first);
- an **option** is one way through a node from an approach — exit after `exit_at` marks, or
  drive through (``exit_at`` None) — and the drive to the next approach: the roads followed, the
  barcodes read on them in order (Table 6) and the length in metres.

Road continuity: a road that is not closed continues on the road whose start, or whose centre
line (a merge: a roundabout entry joining the ring, a siding rejoining its road), lies within
1 mm of its end with the same heading. Exits, sidings and branching links are only taken by a
decision at a mark, so they never continue a road.

:func:`check_graph` validates a map with intersections: every node reachable from every
approach, every node announced by its code on every way in, every location named by its
barcode, and well-formed intersections.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
import heapq
import math

from thymio_road.map.barcode import Barcode, BIT_LENGTH
from thymio_road.map.geometry import wrap_angle
from thymio_road.map.intersections import Intersection, ROAD_CODES
from thymio_road.map.road_map import MapError, Road, RoadMap

#: A road's end meets the road it continues on within this distance and heading.
JOIN_TOLERANCE = 0.001
JOIN_ANGLE_TOLERANCE = math.radians(2.0)
#: Kinds the controller knows how to drive (intersections.ACTION_TYPES).
KINDS = ('roundabout', 'location', 'branching', 'crossroad')
#: Codes announcing an intersection on the road (Table 6), and the kind each announces.
KIND_OF_CODE = {code: kind for kind, code in ROAD_CODES.items()}


@dataclass(frozen=True)
class Node:
    id: str
    kind: str
    #: Location number (the code of its barcode, Table 6), None for other kinds.
    number: int | None = None


@dataclass(frozen=True)
class Approach:
    """A way into a node: its marks in the order a robot meets them from `road`."""

    key: str
    node: str
    road: str
    #: (mark id, branch road or None, distance from the first mark) in driving order.
    marks: tuple[tuple[str, str | None, float], ...]


@dataclass(frozen=True)
class Option:
    """One way through a node from an approach, and the drive to the next approach."""

    approach: str
    #: Marks passed (the controller's counter_continue) when the robot exits; None: through.
    exit_at: int | None
    #: Road taken out of the node.
    branch: str
    #: Approach reached next (its node is `target_node`).
    target: str
    target_node: str
    #: Codes of the barcodes a robot reads on the road between the two nodes, in order.
    codes: tuple[int, ...]
    #: Metres from the approach's first mark to the next approach's first mark.
    length: float
    #: Roads followed, from the branch to the road of the next approach's first mark.
    roads: tuple[str, ...]
    #: Codes read inside the node's branch (a location's name, Table 6 "in a location").
    names: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        return 'through' if self.exit_at is None else f'exit {self.exit_at}'


@dataclass
class RoadGraph:
    """Nodes, approaches and options of a map; see the module docstring."""

    road_map: RoadMap
    nodes: dict[str, Node] = field(default_factory=dict)
    approaches: dict[str, Approach] = field(default_factory=dict)
    #: approach key → options in the order the marks come.
    options: dict[str, list[Option]] = field(default_factory=dict)

    # --- queries ---------------------------------------------------------------------------------
    def node_of(self, approach: str) -> Node:
        return self.nodes[self.approaches[approach].node]

    def approaches_of(self, node: str) -> list[str]:
        return [k for k, a in self.approaches.items() if a.node == node]

    def location(self, number: int) -> Node | None:
        return next((n for n in self.nodes.values() if n.kind == 'location' and n.number == number), None)

    @cached_property
    def all_options(self) -> list[Option]:
        return [o for opts in self.options.values() for o in opts]

    def node_before(self, road_id: str, s: float) -> str:
        """The node a robot put down at `s` on `road_id` last passed (Appendix A's oldNode, by
        which a crossroad's lights address it), or '' when the map does not say: the last node
        whose marks on that road lie before `s` (on a closed road, before it round the loop),
        else the one node whose drives lead onto the road.
        """
        at = {b.id: b.at for b in self.road_map.barcodes if b.road == road_id}
        on_road = sorted((at[a.marks[-1][0]], a.node) for a in self.approaches.values()
                         if a.road == road_id and a.marks[-1][0] in at)
        passed = [node for mark, node in on_road if mark < s]
        if passed:
            return passed[-1]
        if on_road and self.road_map.road(road_id).closed:
            return on_road[-1][1]
        nodes = {self.approaches[o.approach].node for o in self.all_options
                 if road_id in o.roads and self.approaches[o.approach].road != road_id}
        return nodes.pop() if len(nodes) == 1 else ''

    def next_nodes(self) -> dict[tuple[str, str], str]:
        """(approach, option label) → next node: the report's adjacency table, oriented."""
        return {(o.approach, o.label): o.target_node for o in self.all_options}

    def successors(self, node: str) -> set[str]:
        return {o.target_node for a in self.approaches_of(node) for o in self.options[a]}

    def reachable_from(self, approach: str) -> set[str]:
        """Nodes a robot at `approach` can reach (including its own node when it comes back)."""
        seen_a: set[str] = set()
        todo = [approach]
        while todo:
            a = todo.pop()
            for o in self.options[a]:
                if o.target not in seen_a:
                    seen_a.add(o.target)
                    todo.append(o.target)
        return {self.approaches[a].node for a in seen_a}

    def distances_to_location(self, number: int, detour: float = 0.0) -> dict[str, tuple[float, Option]]:
        """Shortest road length from each approach to stopping in location `number`.

        Returns approach → (metres, best option there). At the location itself the best option
        is its exit into the siding (0 m). `detour` is added for each other location entered on
        the way (the 2 s stop and the slow siding, §7.2), so routes avoid them when they can.
        """
        node = self.location(number)
        if node is None:
            known = sorted(n.number for n in self.nodes.values() if n.kind == 'location')
            raise ValueError(f'no location {number} on map {self.road_map.name!r} (locations: {known})')
        best: dict[str, tuple[float, Option]] = {}
        incoming: dict[str, list[Option]] = {}
        for o in self.all_options:
            incoming.setdefault(o.target, []).append(o)
        heap: list[tuple[float, int, str, Option]] = []
        tie = 0
        for a in self.approaches_of(node.id):
            for o in self.options[a]:
                if o.exit_at is not None:
                    heapq.heappush(heap, (0.0, tie, a, o))
                    tie += 1
        while heap:
            d, _, a, o = heapq.heappop(heap)
            if a in best:
                continue
            best[a] = (d, o)
            for p in incoming.get(a, []):
                if p.approach in best:
                    continue
                cost = p.length + (detour if self._enters_location(p) else 0.0)
                heapq.heappush(heap, (d + cost, tie, p.approach, p))
                tie += 1
        return best

    def _enters_location(self, option: Option) -> bool:
        return option.exit_at is not None and self.node_of(option.approach).kind == 'location'

    # --- construction ----------------------------------------------------------------------------
    @classmethod
    def build(cls, road_map: RoadMap) -> 'RoadGraph':
        """Derive the graph, once per map object (RoadMap.derived); raises MapError for what makes
        it impossible to derive.
        """
        graph = road_map.derived.get('road_graph')
        if graph is None:
            graph = road_map.derived['road_graph'] = _Builder(road_map).build()
        return graph


class _Builder:
    def __init__(self, road_map: RoadMap) -> None:
        self.m = road_map
        self.src = road_map.source
        self.roads = {r.id: r for r in road_map.roads}
        self.by_id = {b.id: b for b in road_map.barcodes}
        self.on_road: dict[str, list[Barcode]] = {}
        for b in road_map.barcodes:
            self.on_road.setdefault(b.road, []).append(b)
        for items in self.on_road.values():
            items.sort(key=lambda b: b.at)
        self.owner: dict[str, Intersection] = {}
        self.branches: set[str] = set()
        self.graph = RoadGraph(road_map)
        self._continuation: dict[str, tuple[str, float]] = {}

    def fail(self, where: str, problem: str) -> None:
        raise MapError(f'{self.src}: {where}: {problem}')

    def build(self) -> RoadGraph:
        for inter in self.m.intersections:
            self._check_intersection(inter)
        for inter in self.m.intersections:
            self.graph.nodes[inter.id] = Node(inter.id, inter.kind, inter.number)
        # Approaches are found by driving out of every node; start from each node's own marks.
        todo = [self._approach(road, marks[0][0]) for inter in self.m.intersections
                for road, marks in inter.marks.items()]
        todo = [a for a in todo if a is not None]
        while todo:
            a = todo.pop()
            if a.key in self.graph.options:
                continue
            self.graph.options[a.key] = opts = self._options(a)
            todo += [self.graph.approaches[o.target] for o in opts if o.target not in self.graph.options]
        self.graph.options = dict(sorted(self.graph.options.items()))
        return self.graph

    def _check_intersection(self, inter: Intersection) -> None:
        where = f"intersection '{inter.id}' ({inter.kind})"
        if inter.kind not in KINDS:
            self.fail(where, f"unknown kind (known: {', '.join(KINDS)})")
        if inter.kind == 'location' and (inter.number is None or not 1 <= inter.number <= 7):
            self.fail(where, f'a location needs a number 1..7 (its barcode), got {inter.number!r}')
        if not inter.marks or not any(marks for marks in inter.marks.values()):
            self.fail(where, 'has no marks: a robot could never act in it')
        for road, marks in inter.marks.items():
            if road not in self.roads:
                self.fail(where, f"marks on road '{road}', which is not on the map")
            for mark, branch in marks:
                bar = self.by_id.get(mark)
                if bar is None or bar.bits != 1:
                    self.fail(where, f"mark '{mark}' is not a one-bit mark on the map")
                if bar.road != road:
                    self.fail(where, f"mark '{mark}' is on road '{bar.road}', not on '{road}'")
                if mark in self.owner:
                    self.fail(where, f"mark '{mark}' also belongs to '{self.owner[mark].id}'")
                if branch is not None and branch not in self.roads:
                    self.fail(where, f"mark '{mark}' exits onto road '{branch}', which is not on the map")
                self.owner[mark] = inter
                if branch is not None:
                    self.branches.add(branch)
            if not any(branch for _, branch in marks) and road not in inter.through:
                self.fail(where, f"from road '{road}' it has neither an exit nor a way through")
        for road, through in inter.through.items():
            if through not in self.roads:
                self.fail(where, f"goes through onto road '{through}', which is not on the map")

    # --- approaches and options ------------------------------------------------------------------
    def _approach(self, road_id: str, first_mark: str) -> Approach | None:
        inter = self.owner[first_mark]
        key = f'{inter.id}@{first_mark}'
        if key in self.graph.approaches:
            return self.graph.approaches[key]
        road = self.roads[road_id]
        branch_of = dict(inter.marks[road_id])
        mine = [b for b in self.on_road[road_id] if b.id in branch_of]
        k = next(i for i, b in enumerate(mine) if b.id == first_mark)
        if road.closed:
            ordered = mine[k:] + mine[:k]
        else:
            ordered = mine[k:]
        s0 = mine[k].at
        marks = tuple((b.id, branch_of[b.id], (b.at - s0) % road.length if road.closed else b.at - s0)
                      for b in ordered)
        where = f"intersection '{inter.id}' ({inter.kind}) entered at mark '{first_mark}' on road '{road_id}'"
        if inter.kind in ('location', 'branching'):
            # The controller exits only at the first mark and leaves after the second (§7.2, §7.3).
            if len(marks) != 2 or marks[0][1] is None or marks[1][1] is not None:
                self.fail(where, 'expected its exit mark then one mark to cross, got '
                                 f'{[(m, b) for m, b, _ in marks]}')
        if inter.kind == 'roundabout':
            odd = [m for i, (m, b, _) in enumerate(marks) if b is not None and i % 2]
            if odd:
                self.fail(where, f"exit mark '{odd[0]}' comes after an odd number of marks; the "
                                 'controller exits a roundabout only on even counts (Appendix A)')
        approach = Approach(key, inter.id, road_id, marks)
        self.graph.approaches[key] = approach
        return approach

    def _options(self, a: Approach) -> list[Option]:
        inter = next(i for i in self.m.intersections if i.id == a.node)
        if inter.kind == 'crossroad':
            return self._crossroad_options(a, inter)
        opts = []
        for i, (mark, branch, s) in enumerate(a.marks):
            if branch is None:
                continue
            label = f"intersection '{a.node}' exit at mark '{mark}' onto '{branch}'"
            names_roads = set(inter.extra.get('siding', [branch])) if inter.kind == 'location' else set()
            opts.append(self._drive(a, i, branch, branch, 0.0, s, label, names_roads))
        through = inter.through.get(a.road)
        if through is not None:
            last = self.by_id[a.marks[-1][0]]
            start = last.end if through == a.road else 0.0
            label = f"intersection '{a.node}' through from road '{a.road}'"
            opts.append(self._drive(a, None, through, through, start, a.marks[-1][2] + BIT_LENGTH, label, set()))
        return opts

    def _crossroad_options(self, a: Approach, inter: Intersection) -> list[Option]:
        """Right exits at the first mark; straight and left cross the square blind, by the circle,
        onto an out-lane (§7.4). `exit_at` is the mark the way turns off at: 0 right, 2 left (at
        the circle's mark), None straight, as the controller's crossroad decision reports it.
        """
        e = inter.extra
        arms = e['arms']
        k = next(i for i, arm in enumerate(arms) if e['in'][arm] == a.road)
        to_circle = e['to_circle']
        right = self._drive(a, 0, e['right'][arms[k]], e['right'][arms[k]], 0.0, 0.0,
                            f"crossroad '{inter.id}' right from '{a.road}'", set())
        opts = [right]
        for exit_at, arm, arc in ((None, arms[k], e['leave_arc']),
                                  (2, arms[(k + 1) % 4], e['quarter'] + e['leave_arc'])):
            out = e['out'][arm]
            way = 'straight' if exit_at is None else 'left'
            o = self._drive(a, exit_at, out, out, 0.0, to_circle + arc + e['to_out_lane'],
                            f"crossroad '{inter.id}' {way} from '{a.road}'", set())
            opts.append(replace(o, roads=(e['circle'],) + o.roads))
        return opts

    def _drive(self, a: Approach, exit_at: int | None, branch: str, road_id: str, s: float,
               length: float, label: str, names_roads: set[str]) -> Option:
        """Follow the roads from (road, s) to the first mark met: the next approach."""
        codes: list[int] = []
        names: list[int] = []
        roads = [road_id]
        visited: set[str] = set()
        while True:
            road = self.roads[road_id]
            items = self.on_road.get(road_id, [])
            ahead = [b for b in items if b.at >= s - 1e-9]
            if road.closed:
                ahead += [b for b in items if b.at < s - 1e-9]
            for b in ahead:
                travelled = (b.at - s) % road.length if road.closed else b.at - s
                if b.bits == 1:
                    if b.id not in self.owner:
                        self.fail(label, f"meets mark '{b.id}' on road '{road_id}', which belongs to "
                                         'no intersection')
                    nxt = self._approach(road_id, b.id)
                    assert nxt is not None
                    return Option(a.key, exit_at, branch, nxt.key, nxt.node, tuple(codes),
                                  length + travelled, tuple(roads), tuple(names))
                (names if road_id in names_roads else codes).append(b.code)
            if road.closed:
                self.fail(label, f"then drives round the closed road '{road_id}' for ever: it has "
                                 'no intersection mark')
            if road_id in visited:
                self.fail(label, f"then loops through road '{road_id}' without meeting an intersection")
            visited.add(road_id)
            length += road.length - s
            road_id, s = self._continue(road)
            roads.append(road_id)

    def _continue(self, road: Road) -> tuple[str, float]:
        """The road (and arc length) a robot following `road` drives onto at its end."""
        if road.id in self._continuation:
            return self._continuation[road.id]
        x, y, h = road.pose_at(road.length)
        starts, merges = [], []
        for other in self.m.roads:
            if other.id == road.id or other.id in self.branches:
                continue
            ox, oy, oh = other.pose_at(0.0)
            if math.hypot(ox - x, oy - y) <= JOIN_TOLERANCE and _same_heading(oh, h):
                starts.append((other.id, 0.0))
                continue
            for piece, offset in zip(other.pieces, other.offsets):
                s_local, u = (float(v) for v in piece.local(x, y))
                if -JOIN_TOLERANCE <= s_local <= piece.length + JOIN_TOLERANCE and abs(u) <= JOIN_TOLERANCE:
                    s = min(max(s_local + float(offset), 0.0), other.length)
                    if _same_heading(other.pose_at(s)[2], h):
                        merges.append((other.id, s))
                        break
        found = starts or merges
        where = f"road '{road.id}'"
        if not found:
            self.fail(where, f'ends at ({x:.3f}, {y:.3f}) m, heading {math.degrees(h) % 360:.1f}°, '
                             f'where no road continues (within {JOIN_TOLERANCE * 1000:.0f} mm)')
        if len(found) > 1:
            self.fail(where, f"ends where several roads continue: {', '.join(r for r, _ in found)}")
        self._continuation[road.id] = found[0]
        return found[0]


def _same_heading(a: float, b: float) -> bool:
    return abs(float(wrap_angle(a - b))) <= JOIN_ANGLE_TOLERANCE


def check_graph(road_map: RoadMap) -> RoadGraph:
    """Validate a map's road graph (raises MapError naming the element) and return it.

    A map without intersections (a plain loop) has no graph to check. Otherwise:
    - every intersection is well formed and every drive out of it reaches another one;
    - from every approach every node can be reached, so no robot is ever trapped (§9);
    - every way into a node is announced by its code (Table 6: 4 branching, 5 crossroad,
      6 location, 7 roundabout): the last intersection code read on the way is the node's;
    - every location is named by its barcode (its number) on its siding (§7.2);
    - every road of the map is driven on some way between nodes (none left disconnected).
    """
    if not road_map.intersections:
        return RoadGraph(road_map)
    graph = RoadGraph.build(road_map)
    src = road_map.source
    for node in graph.nodes.values():
        if not graph.approaches_of(node.id):
            raise MapError(f"{src}: intersection '{node.id}' ({node.kind}): no road leads into it")
    for key in graph.options:
        missing = sorted(set(graph.nodes) - graph.reachable_from(key))
        if missing:
            a = graph.approaches[key]
            raise MapError(f"{src}: intersection '{missing[0]}' ({graph.nodes[missing[0]].kind}) cannot be "
                           f"reached from intersection '{a.node}' entered at mark '{a.marks[0][0]}': "
                           'the road graph is disconnected')
    for o in graph.all_options:
        target = graph.nodes[o.target_node]
        wanted = ROAD_CODES[target.kind]
        announced = [c for c in o.codes if c in KIND_OF_CODE]
        if not announced or announced[-1] != wanted:
            got = f'the last is {announced[-1]} ({KIND_OF_CODE[announced[-1]]})' if announced else 'none'
            raise MapError(
                f"{src}: intersection '{target.id}' ({target.kind}): no barcode {wanted} announces it on "
                f"the way from '{graph.approaches[o.approach].node}' ({o.label}) along "
                f"{' → '.join(o.roads)}: intersection codes read there: {announced} ({got})")
        if graph.node_of(o.approach).kind == 'location' and o.exit_at is not None:
            number = graph.node_of(o.approach).number
            if number not in o.names:
                raise MapError(f"{src}: intersection '{o.approach.split('@')[0]}' (location): no barcode "
                               f'{number} names it on its siding {o.branch!r} (codes there: {list(o.names)})')
    driven = {r for o in graph.all_options for r in o.roads} | {a.road for a in graph.approaches.values()}
    for road in road_map.roads:
        if road.id not in driven:
            raise MapError(f"{src}: road '{road.id}': not on any way between intersections "
                           '(disconnected from the road graph)')
    return graph
