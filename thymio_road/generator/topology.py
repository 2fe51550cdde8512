# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The random structure of a generated map, before any geometry: which hubs, how they connect,
how their free sides close.

Hubs stand on a grid. Grid neighbours that both have a port pair on the sides facing each other
are always joined, either by a two-way **edge** (a road each way) or by a **branching** (a loop
from each hub, side by side, joined by the report's branching, §7.3); neighbours that are not
joined have no port on those sides. So the only free sides are on the grid's border, and every
side closure lives in the margin around the grid, where nothing else is:

- a **deep balloon** goes straight out of the side and turns back into the same side;
- a **flat balloon** goes out, turns right and runs along the border before it turns back;
- a **loop pair** closes two border sides at a corner: an inner loop from one side's exit into
  the other's entry (clockwise, round the corner) and an outer loop round it the other way.

Each closure and each branching claims the diagonal region of the margin it spreads into (the
region between a side and the next one clockwise), so no two of them meet. The draw is retried
(deterministically) when a choice is infeasible.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
import random

from thymio_road.generator.hubs import CW, OPPOSITE, roundabout_sides, SIDE_STEP, SIDES

Cell = tuple[int, int]


class DrawError(ValueError):
    """This random draw cannot be completed; the generator draws again."""


#: Grid shapes (columns, rows) per map size.
SHAPES = {'small': ((2, 1),), 'medium': ((3, 1), (2, 2)), 'large': ((3, 2),)}
#: Most crossroads per map size (each is large and needs lights addressed apart).
MAX_CROSSROADS = {'small': 1, 'medium': 2, 'large': 3}
#: Most branchings per map size, and the chance that two hubs in a row that may be joined by one
#: are (their loops need about 4 m between the hubs, which a small sheet often cannot give).
MAX_BRANCHINGS = {'small': 1, 'medium': 1, 'large': 2}
BRANCHING_CHANCE = 0.75
#: Location numbers are 1..7 (Table 6): at most seven per map.
MAX_LOCATIONS = 7
#: Most extra space between two columns or rows of hubs (m).
SPREAD = 0.5


@dataclass(frozen=True)
class HubSpec:
    kind: str            # 'roundabout' | 'crossroad'
    sides: tuple[str, ...]
    heading: int = 0     # roundabouts: arm 0's heading (degrees, a multiple of 90)

    def square(self, side: str) -> bool:
        """Whether the arm of `side` lies on the side's axis (not a leaning arm of a three-arm
        roundabout, whose arms are 120° apart).
        """
        if self.kind == 'crossroad' or len(self.sides) != 3:
            return True
        return self.sides.index(side) == 0


@dataclass(frozen=True)
class Relation:
    """Two grid neighbours joined: `a` west of / below `b`, `side` is a's side facing b."""

    a: Cell
    b: Cell
    side: str
    kind: str            # 'edge' | 'branching'
    #: Branchings: the side of the row their loops rise into ('N' or 'S'), and whether the
    #: first loop carries a location.
    toward: str = ''
    location: bool = False


@dataclass(frozen=True)
class Closure:
    """Border sides of a hub closed on themselves; `sides` is (S,) or, for a pair, (S, cw(S))."""

    hub: Cell
    kind: str            # 'deep' | 'flat' | 'pair'
    sides: tuple[str, ...]
    location: bool = False
    #: The location is needed (a crossroad's light addressing, below), not only wished for.
    must: bool = False
    #: 0..1: how much of the room left it takes to run longer (the shapes vary continuously,
    #: so that seeds do not fall on the same few maps).
    stretch: float = 0.0


@dataclass
class Topology:
    cols: int
    rows: int
    hubs: dict[Cell, HubSpec] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)
    closures: list[Closure] = field(default_factory=list)
    #: Extra space (m) between columns and between rows, beyond what their roads need.
    spread_x: list[float] = field(default_factory=list)
    spread_y: list[float] = field(default_factory=list)

    def neighbour(self, cell: Cell, side: str) -> Cell | None:
        dc, dr = SIDE_STEP[side]
        other = (cell[0] + dc, cell[1] + dr)
        return other if other in self.hubs or self._inside(other) else None

    def _inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.cols and 0 <= cell[1] < self.rows

    @property
    def locations(self) -> int:
        return sum(c.location for c in self.closures)


def diagonal(cell: Cell, side: str) -> tuple[int, int]:
    """The diagonal region between `side` and the next side clockwise, in doubled grid units."""
    step = {'N': (1, 1), 'E': (1, -1), 'S': (-1, -1), 'W': (-1, 1)}[side]
    return 2 * cell[0] + step[0], 2 * cell[1] + step[1]


def draw(rng: random.Random, size: str) -> Topology:
    """A random, feasible structure for a map of `size`; raises DrawError if this draw is not."""
    cols, rows = rng.choice(SHAPES[size])
    topo = Topology(cols, rows)
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    pairs = _tree(rng, cells)
    joined = set(pairs)
    for cell in cells:
        for side in ('E', 'N'):
            other = topo.neighbour(cell, side)
            if other is not None and (cell, other) not in joined and rng.random() < 0.5:
                joined.add((cell, other))
    topo.hubs = _kinds(rng, topo, cells, joined, size)
    claimed: set[tuple[int, int]] = set()
    branchings = 0
    for a, b in sorted(joined):
        side = 'E' if b[0] > a[0] else 'N'
        kind, toward = 'edge', ''
        outward = [s for s, ok in (('N', a[1] == rows - 1), ('S', a[1] == 0)) if ok]
        square = side == 'E' and topo.hubs[a].square('E') and topo.hubs[b].square('W')
        if square and outward and branchings < MAX_BRANCHINGS[size] and rng.random() < BRANCHING_CHANCE:
            toward = rng.choice(outward)
            region = diagonal(a, 'N') if toward == 'N' else diagonal(a, 'E')
            if region not in claimed:
                claimed.add(region)
                kind, branchings = 'branching', branchings + 1
        topo.relations.append(Relation(a, b, side, kind, toward, kind == 'branching' and rng.random() < 0.5))
    topo.closures = _closures(rng, topo, joined, claimed)
    _locations(rng, topo)
    topo.closures = [replace(c, stretch=rng.random()) for c in topo.closures]
    topo.spread_x = [round(rng.uniform(0.0, SPREAD), 2) for _ in range(cols - 1)]
    topo.spread_y = [round(rng.uniform(0.0, SPREAD), 2) for _ in range(rows - 1)]
    return topo


def _tree(rng: random.Random, cells: list[Cell]) -> list[tuple[Cell, Cell]]:
    """A random spanning tree of the grid (randomised Prim), pairs ordered west/south first."""
    inside = {cells[rng.randrange(len(cells))]}
    pairs = []
    while len(inside) < len(cells):
        frontier = sorted((a, b) for a in inside for b in cells if b not in inside
                          and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1)
        a, b = rng.choice(frontier)
        inside.add(b)
        pairs.append(tuple(sorted((a, b))))
    return pairs


def _kinds(rng: random.Random, topo: Topology, cells: list[Cell], joined: set, size: str) -> dict[Cell, HubSpec]:
    """A hub kind per cell with a port on every joined side and none facing an unjoined neighbour."""
    hubs: dict[Cell, HubSpec] = {}
    crossroads = 0
    for cell in cells:
        required, forbidden = set(), set()
        for side in SIDES:
            other = topo.neighbour(cell, side)
            if other is None:
                continue
            (required if tuple(sorted((cell, other))) in joined else forbidden).add(side)
        options: list[tuple[float, HubSpec]] = []
        if not forbidden and crossroads < MAX_CROSSROADS[size]:
            options.append((1.2, HubSpec('crossroad', SIDES)))
        for count, weight in ((4, 0.8), (3, 1.2), (2, 0.8)):
            headings = (0,) if count == 4 else (0, 90, 180, 270) if count == 3 else (0, 90)
            for heading in headings:
                sides = roundabout_sides(count, heading)
                # A three-arm roundabout's leaning arms only close on themselves (no neighbour).
                joinable = set(sides) if count != 3 else {sides[0]}
                if required <= joinable and not forbidden & set(sides):
                    options.append((weight / len(headings), HubSpec('roundabout', sides, heading)))
        if not options:
            raise DrawError(f'no hub fits cell {cell} (needs {sorted(required)}, not {sorted(forbidden)})')
        spec = _weighted(rng, options)
        crossroads += spec.kind == 'crossroad'
        hubs[cell] = spec
    return hubs


def _weighted(rng: random.Random, options: list[tuple[float, object]]):
    total = sum(w for w, _ in options)
    x = rng.random() * total
    for w, option in options:
        x -= w
        if x <= 0:
            return option
    return options[-1][1]


def _closures(rng: random.Random, topo: Topology, joined: set, claimed: set) -> list[Closure]:
    """Close every border side that has ports: deep or flat balloons, or corner loop pairs."""
    free = [(cell, side) for cell, spec in sorted(topo.hubs.items()) for side in spec.sides
            if topo.neighbour(cell, side) is None]
    rng.shuffle(free)
    todo = set(free)
    out = []
    for cell, side in free:
        if (cell, side) not in todo:
            continue
        todo.discard((cell, side))
        pair_side = CW[side]
        region = diagonal(cell, side)
        square = len(topo.hubs[cell].sides) == 4
        if (cell, pair_side) in todo and square and region not in claimed and rng.random() < 0.3:
            todo.discard((cell, pair_side))
            claimed.add(region)
            out.append(Closure(cell, 'pair', (side, pair_side)))
        elif region not in claimed and topo.hubs[cell].square(side) and rng.random() < 0.55:
            claimed.add(region)
            out.append(Closure(cell, 'flat', (side,)))
        else:
            out.append(Closure(cell, 'deep', (side,)))
    return sorted(out, key=lambda c: (c.hub, c.sides))


def _locations(rng: random.Random, topo: Topology) -> None:
    """Decide which closures carry a location (up to seven). A crossroad's lights address an arm by
    the node its robots come from (Appendix A: oldNode), so two arms of different phases may not
    both be fed straight from the crossroad itself: a location on the way makes the difference.
    """
    closures = list(topo.closures)
    want = [rng.random() < 0.6 for _ in closures]
    must = [False] * len(closures)
    for k, c in enumerate(closures):
        if c.kind == 'pair' and topo.hubs[c.hub].kind == 'crossroad':
            want[k] = must[k] = True
    for cell, spec in topo.hubs.items():
        if spec.kind != 'crossroad':
            continue
        # A pair's inner loop is too short for a location: it feeds its second side's arm directly.
        fixed = {g for c in closures if c.hub == cell and c.kind == 'pair' for g in ('EW', 'NS') if c.sides[1] in g}
        mine = [k for k, c in enumerate(closures) if c.hub == cell and c.kind != 'pair']
        groups = {g: [k for k in mine if closures[k].sides[0] in g] for g in ('EW', 'NS')}
        unfed = {g: [k for k in groups[g] if not want[k]] for g in groups}
        # One group of arms may be fed straight from the crossroad (a location may not fit where it
        # is wished for); the other group's balloons need their location.
        if fixed or (groups['EW'] and groups['NS']):
            keep = next(iter(fixed)) if fixed else max(groups, key=lambda g: (len(unfed[g]), g))
            for g in groups:
                if g != keep:
                    for k in groups[g]:
                        want[k] = must[k] = True
    if sum(want) > MAX_LOCATIONS:
        optional = [k for k in range(len(closures)) if want[k] and not must[k]]
        rng.shuffle(optional)
        for k in optional[:sum(want) - MAX_LOCATIONS]:
            want[k] = False
        if sum(want) > MAX_LOCATIONS:
            raise DrawError('more than seven locations would be needed')
    topo.closures = [Closure(c.hub, c.kind, c.sides, w, m) for c, w, m in zip(closures, want, must)]


def joined_sides(topo: Topology) -> dict[Cell, set[str]]:
    """Per hub, the sides used by relations."""
    out: dict[Cell, set[str]] = {cell: set() for cell in topo.hubs}
    for rel in topo.relations:
        out[rel.a].add(rel.side)
        out[rel.b].add(OPPOSITE[rel.side])
    return out
