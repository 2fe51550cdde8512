# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`generate_map(seed, size)`: a random road network that the loader accepts, strongly connected,
the same bytes for the same seed.

A candidate is drawn (topology.py), given its geometry (layout.py) and its barcodes (codes.py),
checked for room between its roads (clearance.py), written out (emit.py) and loaded with the
loader itself, which runs every map check (crossings, barcodes, turns, the road graph, the
lights). A candidate that fails any of this is drawn again from the next random stream of the
same seed, so the result depends on the seed and the code alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
import math
import random

from thymio_road.generator import clearance, codes, layout, topology
from thymio_road.generator.emit import map_text
from thymio_road.generator.hubs import Hub
from thymio_road.generator.paths import GeometryError, Path
from thymio_road.generator.plan import MapPlan, RoadPlan
from thymio_road.map.connectivity import split_roads
from thymio_road.map.intersections import LIGHT_BEFORE_MERGE, LIGHT_LEFT, LIGHT_TURN
from thymio_road.map.loader import parse_map
from thymio_road.map.road_graph import RoadGraph
from thymio_road.map.road_map import MapError, RoadMap
from thymio_road.map.validation import ConfigError, MAX_SEED, parse_yaml

#: Largest sheet per size (m). Small is the final map's 7.8 × 4.9 m; medium a classroom floor;
#: large a hall's. The 1 mm raster stays under the loader's 10⁸ pixels (docs/maps.md).
SIZES = {'small': (7.8, 4.9), 'medium': (10.0, 7.5), 'large': (12.0, 8.0)}
#: Paper beyond the outermost road's centre line and light (m).
MARGIN = 0.20
#: Draws tried before giving up (each load takes about a second).
MAX_ATTEMPTS = 40
#: Share of locations given a traffic light, where one can stand.
LIGHT_CHANCE = 0.6
#: A location's light keeps this far from a crossroad's lights: a crossroad arm after the
#: location is addressed by its id, so both may send the same codes (map/lights.py: 1.2 m).
LIGHT_FROM_CROSSROAD_LIGHTS = 1.3


class GeneratorError(ConfigError):
    """A request the generator cannot serve (a bad seed or size, or no valid map found)."""


@dataclass
class GeneratedMap:
    seed: int
    size: str
    name: str
    text: str
    road_map: RoadMap
    #: Draws rejected before this one, with the reason of each (for the curious and for tuning).
    rejected: list[str] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        return len(self.rejected) + 1


def check_request(seed: object, size: object) -> tuple[int, str]:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise GeneratorError(f'seed: must be an integer in 0..{MAX_SEED}, got {seed!r}')
    if size not in SIZES:
        raise GeneratorError(f"size: must be one of {', '.join(SIZES)}, got {size!r}")
    return seed, size


def map_name(seed: int, size: str) -> str:
    return f'generated_{seed}' if size == 'small' else f'generated_{seed}_{size}'


def generate_map(seed: int, size: str = 'small') -> GeneratedMap:
    """The map of generator seed `seed`; raises GeneratorError for a bad request."""
    seed, size = check_request(seed, size)
    rejected: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f'thymio_road.generator/{size}/{seed}/{attempt}')
        try:
            return _candidate(rng, seed, size, rejected)
        except (topology.DrawError, GeometryError, clearance.Crowded, MapError) as exc:
            rejected.append(f'{type(exc).__name__}: {exc}')
    raise GeneratorError(f'no valid {size} map found for seed {seed} in {MAX_ATTEMPTS} draws; the last: '
                         f'{rejected[-1]}')


def _candidate(rng: random.Random, seed: int, size: str, rejected: list[str]) -> GeneratedMap:
    topo = topology.draw(rng, size)
    plan = layout.build(topo, SIZES[size], MARGIN)
    codes.announce(plan)
    _place_locations(plan, rng)
    codes.speeds(plan, rng)
    pts, names = clearance.points(plan)
    clearance.check(pts, names)
    _lights(plan, rng, pts, names)
    if not any(h.kind == 'crossroad' for h in plan.hubs) and not any(loc.light for loc in plan.locations):
        raise topology.DrawError('no traffic-light place (no crossroad, no location with a light)')
    plan, sheet = _on_sheet(plan, clearance.bounds(pts))
    limit = SIZES[size]
    if sheet[0] > limit[0] + 1e-9 or sheet[1] > limit[1] + 1e-9:
        raise topology.DrawError(f'the sheet would be {sheet[0]:g} × {sheet[1]:g} m, '
                                 f'over {limit[0]:g} × {limit[1]:g}')
    name = map_name(seed, size)
    text = emit_text(plan, name, sheet, seed, size)
    road_map = parse_map(parse_yaml(text, name, MapError), name)
    graph = RoadGraph.build(road_map)
    split = split_roads(graph)
    if split:
        raise MapError(f'{name}: not strongly connected: no drive both ways between roads {split[0][0]!r} '
                       f'and {split[0][1]!r}')
    return GeneratedMap(seed, size, name, text, road_map, list(rejected))


def _place_locations(plan: MapPlan, rng: random.Random) -> None:
    """Locations numbered 1..7 in road order, the needed ones first, anywhere along their straight."""
    roads = [r for r in plan.roads if r.needs_location] + \
        [r for r in plan.roads if r.wants_location and not r.needs_location]
    for road in roads:
        number = len(plan.locations) + 1
        where = rng.random()
        loc = codes.place_location(road, f'L{number}', number, where) if number <= topology.MAX_LOCATIONS else None
        if loc is not None:
            plan.locations.append(loc)
        elif road.needs_location:
            raise GeometryError(f"no room for the location road '{road.id}' needs")
    plan.locations.sort(key=lambda loc: loc.number)


def _light_pose(road: RoadPlan, at: float) -> tuple[float, float, float]:
    """Where intersections.location puts a location's light (its exit, on the road's left)."""
    x, y, h = road.path.pose_at(at + codes.SIDING_LENGTH - LIGHT_BEFORE_MERGE)
    return (x - LIGHT_LEFT * math.sin(h), y + LIGHT_LEFT * math.cos(h), h + LIGHT_TURN)


def _lights(plan: MapPlan, rng: random.Random, pts: clearance.Points, names: list[str]) -> None:
    """A light at some locations: where it stands clear of other roads and of crossroad lights."""
    crossroad_lights = [p for h in plan.hubs if h.kind == 'crossroad' for p in h.lights]
    free = []
    for loc in plan.locations:
        pose = _light_pose(plan.road(loc.road), loc.at)
        free.append(clearance.light_clear_of(pts, names, loc.road, pose) and
                    all(math.dist(pose[:2], p[:2]) >= LIGHT_FROM_CROSSROAD_LIGHTS for p in crossroad_lights))
        loc.light = free[-1] and rng.random() < LIGHT_CHANCE
    # Every map has a light place at least (a traffic scenario puts its lights there).
    if not crossroad_lights and not any(loc.light for loc in plan.locations) and any(free):
        plan.locations[free.index(True)].light = True


def _on_sheet(plan: MapPlan, box: tuple[float, float, float, float]) -> tuple[MapPlan, tuple[float, float]]:
    """The plan moved so that its roads and lights keep MARGIN from the sheet's edges (on the cm)."""
    x0, y0, x1, y1 = box
    lights = [p for h in plan.hubs if h.kind == 'crossroad' for p in h.lights] + \
        [_light_pose(plan.road(loc.road), loc.at) for loc in plan.locations if loc.light]
    for x, y, _ in lights:
        x0, y0, x1, y1 = min(x0, x - 0.1), min(y0, y - 0.1), max(x1, x + 0.1), max(y1, y + 0.1)
    dx, dy = math.ceil((MARGIN - x0) * 100) / 100, math.ceil((MARGIN - y0) * 100) / 100
    sheet = (math.ceil((x1 + dx + MARGIN) * 100) / 100, math.ceil((y1 + dy + MARGIN) * 100) / 100)
    return _moved(plan, dx, dy), sheet


def _moved(plan: MapPlan, dx: float, dy: float) -> MapPlan:
    hubs = {h.id: replace(h, centre=(round(h.centre[0] + dx, 2), round(h.centre[1] + dy, 2))) for h in plan.hubs}
    roads = []
    for r in plan.roads:
        start = (r.path.start[0] + dx, r.path.start[1] + dy, r.path.start[2])
        roads.append(replace(r, path=Path(start, list(r.path.pieces)), target=hubs[r.target.id]))
    return MapPlan([hubs[h.id] for h in plan.hubs], roads, plan.branchings, plan.locations, plan.lane_codes)


def emit_text(plan: MapPlan, name: str, sheet: tuple[float, float], seed: int, size: str) -> str:
    hubs = ', '.join(_describe(h) for h in plan.hubs)
    branchings = ', '.join(b.id for b in plan.branchings) or 'none'
    locations = ', '.join(loc.id for loc in plan.locations) or 'none'
    lit = ', '.join(loc.id for loc in plan.locations if loc.light)
    named = f'generated:{seed}' + ('' if size == 'small' else f':{size}')
    header = [f'Generated road network: thymio-road map generate --seed {seed} --size {size}',
              f'({named} names the same map; docs/generated_maps.md says how it is built).',
              f'Hubs: {hubs}. Branchings: {branchings}.',
              f'Locations: {locations}' + (f' (with a light: {lit}).' if lit else '.'),
              'Roads: <from>_<to> between hubs, <hub>_<side>_balloon, <hub>_<corner>_inner and _outer',
              '(loop pairs), <hub>_<side>_loop (the loops a branching joins). Units: metres and degrees.']
    return map_text(plan, name, sheet, header)


def _describe(hub: Hub) -> str:
    if hub.kind == 'crossroad':
        return f'{hub.id} crossroad'
    return f'{hub.id} roundabout ({len(hub.sides)} arms)'
