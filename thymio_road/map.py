"""The printed road map: roads of straight pieces and arcs, validated from YAML, rendered to a raster.

A road is 3 cm wide with a grey gradient from white (left) to black (right) in the driving
direction (report §4); turns are arcs with a radial gradient. The raster is the printed sheet:
the ground sensors sample it and it is published as ``/map``.

Map files use metres and degrees (``heading_deg``, ``angle_deg``) so that they read like the
printed sheet; everything in memory is metres and radians.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from thymio_road.barcode import (BARCODE_BITS, BIT_LENGTH, DEFAULT_GAP, DEFAULT_WIDTH,
                                 RIGHT_SENSOR_OFFSET, Barcode)
from thymio_road.intersections import ROAD_WIDTH, Generated, Intersection, branching, crossroad, location, roundabout
from thymio_road.paths import dubins
from thymio_road.validation import ConfigError, Fields, load_yaml

MAX_RESOLUTION = 0.001
#: A closed road must end where it starts, within these tolerances.
CLOSE_TOLERANCE = 0.001
CLOSE_ANGLE_TOLERANCE = math.radians(0.5)


class MapError(ConfigError):
    """A map file that cannot be used; the message names the file, the element and the problem."""


def wrap_angle(a: np.ndarray | float) -> np.ndarray | float:
    """Angle in [-π, π)."""
    return (np.asarray(a) + math.pi) % (2 * math.pi) - math.pi


@dataclass(frozen=True)
class Straight:
    """A straight piece of road starting at (x, y) with a heading."""

    x: float
    y: float
    heading: float
    length: float

    def pose_at(self, s: float) -> tuple[float, float, float]:
        return (self.x + s * math.cos(self.heading), self.y + s * math.sin(self.heading), self.heading)

    def local(self, px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Arc length along the piece and lateral offset (positive left) of points."""
        dx, dy = px - self.x, py - self.y
        c, s = math.cos(self.heading), math.sin(self.heading)
        return dx * c + dy * s, -dx * s + dy * c


@dataclass(frozen=True)
class Arc:
    """A circular piece; a positive sweep turns left (counter-clockwise)."""

    x: float
    y: float
    heading: float
    radius: float
    sweep: float

    @property
    def length(self) -> float:
        return self.radius * abs(self.sweep)

    @property
    def turn(self) -> float:
        return 1.0 if self.sweep > 0 else -1.0

    @property
    def center(self) -> tuple[float, float]:
        k = self.turn * self.radius
        return (self.x - k * math.sin(self.heading), self.y + k * math.cos(self.heading))

    @property
    def start_angle(self) -> float:
        return self.heading - self.turn * math.pi / 2

    def pose_at(self, s: float) -> tuple[float, float, float]:
        cx, cy = self.center
        a = self.start_angle + self.turn * s / self.radius
        return (cx + self.radius * math.cos(a), cy + self.radius * math.sin(a),
                self.heading + self.turn * s / self.radius)

    def local(self, px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cx, cy = self.center
        r = np.hypot(px - cx, py - cy)
        phi = np.mod(self.turn * (np.arctan2(py - cy, px - cx) - self.start_angle), 2 * math.pi)
        # Points just before the start wrap to ~2π; map them to small negative arc lengths.
        phi = np.where(phi > math.pi + abs(self.sweep) / 2, phi - 2 * math.pi, phi)
        return self.radius * phi, self.turn * (self.radius - r)


Piece = Straight | Arc


@dataclass(frozen=True)
class Road:
    """A road: pieces joined end to start, drawn in the driving direction."""

    id: str
    pieces: tuple[Piece, ...]
    closed: bool
    #: Drawing order: exits are printed over the road they leave (+1), entries under (−1).
    layer: int = 0

    @cached_property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0.0], np.cumsum([p.length for p in self.pieces])])

    @property
    def length(self) -> float:
        return float(self.offsets[-1])

    def pose_at(self, s: float) -> tuple[float, float, float]:
        """Pose of the centre line at arc length s (wrapped on a closed road)."""
        if self.closed:
            s = s % self.length
        s = min(max(s, 0.0), self.length)
        i = int(np.searchsorted(self.offsets, s, side='right')) - 1
        i = min(i, len(self.pieces) - 1)
        return self.pieces[i].pose_at(s - self.offsets[i])

    def sample(self, step: float = 0.005) -> np.ndarray:
        """Centre-line points (n×3: x, y, heading) every `step` metres."""
        n = max(2, int(math.ceil(self.length / step)) + 1)
        return np.array([self.pose_at(s) for s in np.linspace(0.0, self.length, n)])


@dataclass(frozen=True, eq=False)
class RoadMap:
    """A printed map: a sheet of `size` metres with roads on it."""

    name: str
    source: str
    width: float
    height: float
    resolution: float
    walls: bool
    road_width: float
    roads: tuple[Road, ...]
    barcodes: tuple[Barcode, ...] = ()
    intersections: tuple[Intersection, ...] = ()

    def road(self, road_id: str) -> Road:
        for road in self.roads:
            if road.id == road_id:
                return road
        raise KeyError(road_id)

    @cached_property
    def shape(self) -> tuple[int, int]:
        """Raster shape (rows = y, cols = x), row 0 at y = 0 like nav_msgs/OccupancyGrid."""
        return (int(round(self.height / self.resolution)), int(round(self.width / self.resolution)))

    @cached_property
    def _layers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        grey = np.ones(self.shape, dtype=np.float32)
        index = np.full(self.shape, -1, dtype=np.int16)
        for k in sorted(range(len(self.roads)), key=lambda k: self.roads[k].layer):
            for piece in self.roads[k].pieces:
                _draw_piece(grey, index, k, piece, self.road_width, self.resolution)
        codes = np.full(self.shape, -1, dtype=np.int16)
        for k, barcode in enumerate(self.barcodes):
            for rows, cols, s in self.barcode_pixels(barcode):
                bit = np.minimum(((s - barcode.at) / BIT_LENGTH).astype(int), barcode.bits - 1)
                black = np.asarray(barcode.bit_values)[bit] == 1
                grey[rows, cols] = np.where(black, 0.0, 1.0)
                codes[rows, cols] = k
        for layer in (grey, index, codes):
            layer.setflags(write=False)
        return grey, index, codes

    @property
    def grey(self) -> np.ndarray:
        """Printed grey level per pixel, 1 = white paper, 0 = black."""
        return self._layers[0]

    @property
    def road_index(self) -> np.ndarray:
        """Index of the road printed at each pixel, -1 off road (ground truth for the metrics)."""
        return self._layers[1]

    @property
    def barcode_index(self) -> np.ndarray:
        """Index in `barcodes` of the barcode printed at each pixel, -1 elsewhere (ground truth)."""
        return self._layers[2]

    @cached_property
    def blind_area(self) -> np.ndarray:
        """Pixels that intersections are built to be crossed blind, over bare paper (a crossroad's
        square and the starts of its out-lanes; rectangles in ``extra['blind']``): a follow
        sensor there is not off its road (ground truth for road losses)."""
        area = np.zeros(self.shape, dtype=bool)
        ys, xs = ((np.arange(n) + 0.5) * self.resolution for n in self.shape)
        for inter in self.intersections:
            for cx, cy, heading, half_along, half_across in inter.extra.get('blind', ()):
                gx, gy = np.meshgrid(xs - cx, ys - cy)
                c, s = math.cos(heading), math.sin(heading)
                area |= (np.abs(c * gx + s * gy) <= half_along) & (np.abs(-s * gx + c * gy) <= half_across)
        area.setflags(write=False)
        return area

    def barcode_pixels(self, barcode: Barcode) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Pixels (rows, cols) of a barcode's footprint with their arc length along its road."""
        road = self.road(barcode.road)
        u_in, u_out = barcode.lateral_span(self.road_width)
        found = []
        for piece, offset in zip(road.pieces, road.offsets):
            lo, hi = max(barcode.at, offset), min(barcode.end, offset + piece.length)
            if lo >= hi:
                continue
            pts = np.array([piece.pose_at(t - offset) for t in np.linspace(lo, hi, 16)])
            r0, r1, c0, c1 = _bbox(pts, u_out + 2 * self.resolution, self.resolution, self.shape)
            if r0 >= r1 or c0 >= c1:
                continue
            gx, gy = np.meshgrid((np.arange(c0, c1) + 0.5) * self.resolution,
                                 (np.arange(r0, r1) + 0.5) * self.resolution)
            s_local, u = piece.local(gx, gy)
            s_road = s_local + offset
            mask = (s_road >= lo) & (s_road < hi) & (-u >= u_in) & (-u <= u_out)
            rr, cc = np.nonzero(mask)
            found.append((rr + r0, cc + c0, s_road[mask]))
        return found

    def pixel_scalar(self, x: float, y: float) -> tuple[int, int]:
        """Row and column of one point, clipped to the sheet (no numpy overhead in hot paths)."""
        rows, cols = self.shape
        return (min(max(int(y / self.resolution), 0), rows - 1),
                min(max(int(x / self.resolution), 0), cols - 1))

    def pixel(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row and column of points, clipped to the sheet."""
        rows, cols = self.shape
        r = np.clip((np.asarray(y) / self.resolution).astype(int), 0, rows - 1)
        c = np.clip((np.asarray(x) / self.resolution).astype(int), 0, cols - 1)
        return r, c


def _bbox(pts: np.ndarray, margin: float, res: float, shape: tuple[int, int]
          ) -> tuple[int, int, int, int]:
    """Pixel rows and columns around points (n×2+), clipped to the raster."""
    rows, cols = shape
    c0 = max(int((pts[:, 0].min() - margin) / res), 0)
    c1 = min(int((pts[:, 0].max() + margin) / res) + 1, cols)
    r0 = max(int((pts[:, 1].min() - margin) / res), 0)
    r1 = min(int((pts[:, 1].max() + margin) / res) + 1, rows)
    return r0, r1, c0, c1


def _draw_piece(grey: np.ndarray, index: np.ndarray, k: int, piece: Piece, width: float,
                res: float) -> None:
    """Paint one piece's gradient: white on the left edge, black on the right, later over earlier."""
    pts = np.array([piece.pose_at(s)[:2] for s in np.linspace(0.0, piece.length, 64)])
    r0, r1, c0, c1 = _bbox(pts, width / 2 + 2 * res, res, grey.shape)
    if c0 >= c1 or r0 >= r1:
        return
    px = (np.arange(c0, c1) + 0.5) * res
    py = (np.arange(r0, r1) + 0.5) * res
    gx, gy = np.meshgrid(px, py)
    s, u = piece.local(gx, gy)
    mask = (s >= -res / 2) & (s <= piece.length + res / 2) & (np.abs(u) <= width / 2)
    grey[r0:r1, c0:c1][mask] = (0.5 + u / width)[mask]
    index[r0:r1, c0:c1][mask] = k


# --- Loading and validation ------------------------------------------------------------------

def load_map(path: str | Path) -> RoadMap:
    """Read and validate a map file; raises MapError naming the file, element and problem."""
    path = Path(path)
    data = load_yaml(path, MapError)
    return parse_map(data, str(path))


def parse_map(data: Any, source: str) -> RoadMap:
    top = Fields(data, source, 'map', MapError)
    name = top.optional('name', str, Path(source).stem)
    size = top.require('size', list)
    resolution = top.optional('resolution', float, MAX_RESOLUTION)
    walls = top.optional('walls', bool, False)
    road_width = top.optional('road_width', float, ROAD_WIDTH)
    roads_data = top.require('roads', list)
    barcodes_data = top.optional('barcodes', list, [])
    marks_data = top.optional('marks', list, [])
    elements = top.optional('intersections', list, [])
    top.done()

    width, height = _size(size, top)
    if not 0 < resolution <= MAX_RESOLUTION:
        top.fail('resolution', f'must be in (0, {MAX_RESOLUTION}] m per pixel, got {resolution}')
    if not 0.005 <= road_width <= 0.2:
        top.fail('road_width', f'must be between 0.005 and 0.2 m, got {road_width}')
    if not roads_data:
        top.fail('roads', 'must list at least one road')

    roads: list[Road] = []

    def add(road: Road, where: str) -> None:
        if any(r.id == road.id for r in roads):
            raise MapError(f"{source}: {where}: duplicate road id '{road.id}'")
        roads.append(road)

    # Intersections standing on their own come first: roads may start or end at their arms.
    parsed = [_parse_element(d, source, i) for i, d in enumerate(elements)]
    generated = Generated()
    for i, (kind, where, params) in enumerate(parsed):
        if kind in ('roundabout', 'crossroad'):
            generated.extend(_generate(where, source, {'roundabout': roundabout, 'crossroad': crossroad}[kind],
                                       **params))
    for road_data in generated.roads:
        add(_parse_road(road_data, source, f"{where} road '{road_data['id']}'", road_width, {}), where)
    for i, road_data in enumerate(roads_data):
        add(_parse_road(road_data, source, f'roads[{i}]', road_width, generated.poses), f'roads[{i}]')
    # Then those placed on roads.
    for kind, where, params in parsed:
        if kind in ('roundabout', 'crossroad'):
            continue
        extra = _generate(where, source, {'location': location, 'branching': branching}[kind],
                          **_road_poses(params, roads, source, where))
        for road_data in extra.roads:
            add(_parse_road(road_data, source, f"{where} road '{road_data['id']}'", road_width, {}), where)
        generated.extend(extra)
    barcodes = [_parse_barcode(d, source, f'barcodes[{i}]', roads, road_width, BARCODE_BITS)
                 for i, d in enumerate(barcodes_data)]
    barcodes += [_parse_barcode(d, source, f'marks[{i}]', roads, road_width, 1)
                 for i, d in enumerate(marks_data)]
    barcodes += [_parse_barcode(d, source, f"intersection barcode '{d['id']}'", roads, road_width,
                                BARCODE_BITS) for d in generated.barcodes]
    barcodes += [_parse_barcode(d, source, f"intersection mark '{d['id']}'", roads, road_width, 1)
                 for d in generated.marks]
    road_map = RoadMap(name, source, width, height, resolution, walls, road_width, tuple(roads),
                       tuple(barcodes), tuple(generated.intersections))
    for i, road in enumerate(road_map.roads):
        _check_inside(road_map, road, i)
    _check_barcodes(road_map)
    from thymio_road.road_graph import check_graph  # road_graph imports this module
    check_graph(road_map)
    return road_map


def _parse_barcode(data: Any, source: str, ctx: str, roads: list[Road], road_width: float,
                   bits: int) -> Barcode:
    f = Fields(data, source, ctx, MapError)
    road_id = f.require('road', str)
    at = f.require('at', float)
    code = f.require('code', int) if bits > 1 else f.optional('code', int, 0)
    default_id = ctx.replace('barcodes[', 'barcode').replace('marks[', 'mark').rstrip(']')
    bar_id = f.optional('id', str, default_id)
    f.context = f"{ctx} '{bar_id}'"
    gap = f.optional('gap', float, DEFAULT_GAP)
    width = f.optional('width', float, DEFAULT_WIDTH)
    side = f.optional('side', str, 'right')
    f.done()
    if side != 'right':
        f.fail('side', f"barcodes are read by the right ground sensor and must be on the road's "
                       f"right side, got '{side}'")
    if bits > 1 and not 1 <= code <= 7:
        f.fail('code', f'must be 1..7 (3 value bits after the black trigger bit), got {code}')
    if bits == 1 and code != 0:
        f.fail('code', f'a mark is a single black bit and carries no code, got {code}')
    road = next((r for r in roads if r.id == road_id), None)
    if road is None:
        f.fail('road', f"no road '{road_id}' (roads: {', '.join(r.id for r in roads)})")
    barcode = Barcode(bar_id, road_id, at, code, bits, gap, width)
    if at < 0 or barcode.end > road.length + 1e-9:
        f.fail('at', f"the {barcode.length * 100:.1f} cm {'barcode' if bits > 1 else 'mark'} must lie "
                     f"within road '{road_id}' (0..{road.length:.3f} m), got {at}..{barcode.end:.3f}")
    u_in, u_out = barcode.lateral_span(road_width)
    if gap < 0:
        f.fail('gap', f"must be >= 0 (a negative gap prints the bits onto the road), got {gap}")
    if not u_in + 0.004 <= RIGHT_SENSOR_OFFSET <= u_out - 0.004:
        f.fail('width', f'the bits span {u_in * 1000:.1f}..{u_out * 1000:.1f} mm right of the centre '
                        f'line but the right ground sensor runs {RIGHT_SENSOR_OFFSET * 1000:.1f} mm '
                        'right of it (needs 4 mm of margin on both sides)')
    for piece, offset in zip(road.pieces, road.offsets):
        overlaps = barcode.at < offset + piece.length and barcode.end > offset
        if overlaps and isinstance(piece, Arc) and piece.turn < 0 and piece.radius <= u_out:
            f.fail('at', f'the bits would cross the centre of a right turn of radius {piece.radius} m')
    return barcode


def _check_barcodes(road_map: RoadMap) -> None:
    """Bits must not overlap printed roads or one another."""
    road_index = road_map.road_index
    owner = np.full(road_map.shape, -1, dtype=np.int32)
    for k, barcode in enumerate(road_map.barcodes):
        kind = 'barcodes' if barcode.bits > 1 else 'marks'
        where = f"{road_map.source}: {kind} '{barcode.id}'"
        for rows, cols, _ in road_map.barcode_pixels(barcode):
            roads_hit = np.unique(road_index[rows, cols])
            roads_hit = roads_hit[roads_hit >= 0]
            if len(roads_hit):
                raise MapError(f"{where}: overlaps road '{road_map.roads[roads_hit[0]].id}'")
            others = np.unique(owner[rows, cols])
            others = others[(others >= 0) & (others != k)]
            if len(others):
                raise MapError(f"{where}: overlaps '{road_map.barcodes[others[0]].id}'")
            owner[rows, cols] = k


def _size(size: list, top: Fields) -> tuple[float, float]:
    if len(size) != 2 or not all(_is_number(v) for v in size):
        top.fail('size', f'must be [width, height] in metres, got {size!r}')
    width, height = float(size[0]), float(size[1])
    if width <= 0 or height <= 0 or width > 50 or height > 50:
        top.fail('size', f'width and height must be in (0, 50] m, got {size!r}')
    return width, height


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _parse_road(data: Any, source: str, where: str, width: float,
                poses: dict[str, tuple[float, float, float]]) -> Road:
    """A road from `start` (or `from`: an intersection's arm) through `pieces` (and/or to `to`)."""
    ctx = where
    f = Fields(data, source, ctx, MapError)
    road_id = f.require('id', str)
    ctx = where if "'" in where else f"{where} '{road_id}'"
    f.context = ctx
    start = f.optional('start', list, None)
    origin = f.optional('from', str, '')
    target = f.optional('to', str, '')
    radius = f.optional('radius', float, 0.15)
    closed = f.optional('closed', bool, False)
    layer = f.optional('layer', int, 0)
    pieces_data = f.optional('pieces', list, [])
    f.done()
    if origin:
        if origin not in poses:
            f.fail('from', f"no arm '{origin}' (known: {', '.join(sorted(poses)) or 'none'})")
        start = [poses[origin][0], poses[origin][1], math.degrees(poses[origin][2])]
    if start is None:
        f.fail(None, "needs 'start: [x, y, heading_deg]' or 'from: <intersection arm>'")
    if len(start) != 3 or not all(_is_number(v) for v in start):
        f.fail('start', f'must be [x, y, heading_deg], got {start!r}')
    if not pieces_data and not target:
        f.fail('pieces', "must list at least one piece (or give 'to')")
    x, y, heading = float(start[0]), float(start[1]), math.radians(float(start[2]))
    pieces: list[Piece] = []
    for j, piece_data in enumerate(pieces_data):
        piece = _parse_piece(piece_data, source, f'{ctx} pieces[{j}]', x, y, heading, width)
        pieces.append(piece)
        x, y, heading = piece.pose_at(piece.length)
    if target:
        if target not in poses:
            f.fail('to', f"no arm '{target}' (known: {', '.join(sorted(poses)) or 'none'})")
        try:
            joining = dubins((x, y, heading), poses[target], radius)
        except ValueError as exc:
            f.fail('to', str(exc))
        for j, piece_data in enumerate(joining):
            piece = _parse_piece(piece_data, source, f'{ctx} (to {target}) pieces[{j}]', x, y, heading, width)
            pieces.append(piece)
            x, y, heading = piece.pose_at(piece.length)
    road = Road(road_id, tuple(pieces), closed, layer)
    if closed:
        x0, y0, h0 = pieces[0].x, pieces[0].y, pieces[0].heading
        gap = math.hypot(x - x0, y - y0)
        turn = abs(float(wrap_angle(heading - h0)))
        if gap > CLOSE_TOLERANCE or turn > CLOSE_ANGLE_TOLERANCE:
            raise MapError(f'{source}: {ctx}: closed road does not close: it ends '
                           f'{gap * 1000:.1f} mm and {math.degrees(turn):.1f}° away from its start')
    return road


_ELEMENTS = {
    'roundabout': {'id': str, 'center': list, 'arms': list, 'heading_deg': float, 'radius': float,
                   'stub': float},
    'location': {'id': str, 'number': int, 'road': str, 'at': float, 'parallel': float, 'light': bool},
    'branching': {'id': str, 'road': str, 'at': float, 'to_road': str, 'to_at': float, 'gap': float},
    'crossroad': {'id': str, 'center': list, 'arms': list, 'heading_deg': float, 'radius': float,
                  'approach': float, 'leave': float, 'turn_straight': float, 'leave_angle_deg': float,
                  'lights': bool, 'light_offset': float},
}
_REQUIRED = {'roundabout': ('id', 'center', 'arms'), 'location': ('id', 'number', 'road', 'at'),
             'branching': ('id', 'road', 'at', 'to_road', 'to_at'), 'crossroad': ('id', 'center', 'arms')}


def _parse_element(data: Any, source: str, i: int) -> tuple[str, str, dict]:
    """One `intersections:` entry: {kind: {fields}} → (kind, context for errors, parameters)."""
    if not isinstance(data, dict) or len(data) != 1 or next(iter(data)) not in _ELEMENTS:
        raise MapError(f'{source}: intersections[{i}]: must be one of '
                       f"{{{' | '.join(_ELEMENTS)}: {{...}}}}, got {data!r}")
    (kind, value), = data.items()
    f = Fields(value, source, f'intersections[{i}] {kind}', MapError)
    params = {}
    for key, kind_of in _ELEMENTS[kind].items():
        params[key] = f.require(key, kind_of) if key in _REQUIRED[kind] else f.optional(key, kind_of, None)
    f.context = f"intersections[{i}] {kind} '{params['id']}'"
    f.done()
    params = {k: v for k, v in params.items() if v is not None}
    if kind in ('roundabout', 'crossroad'):
        centre = params.pop('center')
        if len(centre) != 2 or not all(_is_number(v) for v in centre):
            f.fail('center', f'must be [x, y], got {centre!r}')
        params['centre'] = (float(centre[0]), float(centre[1]))
        arms = params['arms']
        wanted = 'four' if kind == 'crossroad' else 'at least two'
        if (len(arms) != 4 if kind == 'crossroad' else len(arms) < 2) or \
                not all(isinstance(a, str) for a in arms) or len(set(arms)) != len(arms):
            f.fail('arms', f"must name {wanted} distinct arms, got {arms!r}")
        params['heading'] = math.radians(params.pop('heading_deg', 0.0))
        params['rid' if kind == 'roundabout' else 'cid'] = params.pop('id')
    elif kind == 'location':
        if not 1 <= params['number'] <= 7:
            f.fail('number', f"locations are named by barcodes 1..7, got {params['number']}")
        params['lid'] = params.pop('id')
    else:
        params['bid'] = params.pop('id')
    return kind, f.context, params


def _generate(where: str, source: str, generator: Any, **params: Any) -> Generated:
    try:
        return generator(**params)
    except ValueError as exc:
        raise MapError(f'{source}: {where}: {exc}') from None


def _road_poses(params: dict, roads: list[Road], source: str, where: str) -> dict:
    """Replace road ids by their pose functions for the generators placed on roads."""
    out = dict(params)
    for key, pose_key in (('road', 'road_pose'), ('to_road', 'pose_b')):
        if key not in params:
            continue
        road = next((r for r in roads if r.id == params[key]), None)
        if road is None:
            raise MapError(f"{source}: {where}.{key}: no road '{params[key]}' "
                           f"(roads: {', '.join(r.id for r in roads)})")
        out[pose_key] = road.pose_at
    if 'to_road' in params:
        out['road_a'], out['at_a'] = out.pop('road'), out.pop('at')
        out['road_b'], out['at_b'] = out.pop('to_road'), out.pop('to_at')
        out['pose_a'] = out.pop('road_pose')
    return out


def _parse_piece(data: Any, source: str, ctx: str, x: float, y: float, heading: float,
                 width: float) -> Piece:
    if not isinstance(data, dict) or len(data) != 1:
        raise MapError(f'{source}: {ctx}: a piece is one of {{straight: LENGTH}} or '
                       f'{{arc: {{radius: R, angle_deg: A}}}}, got {data!r}')
    (kind, value), = data.items()
    if kind == 'straight':
        if not _is_number(value) or value <= 0:
            raise MapError(f'{source}: {ctx}: straight length must be a positive number of metres, '
                           f'got {value!r}')
        return Straight(x, y, heading, float(value))
    if kind == 'arc':
        f = Fields(value, source, ctx + ' arc', MapError)
        radius = f.require('radius', float)
        angle = f.require('angle_deg', float)
        f.done()
        if radius < width / 2 + 0.005:
            f.fail('radius', f'must leave the inner edge of the road a radius of at least 5 mm '
                             f'(> {width / 2 + 0.005:.3f} m), got {radius}')
        if angle == 0 or abs(angle) > 360:
            f.fail('angle_deg', f'must be non-zero and within ±360, got {angle}')
        return Arc(x, y, heading, radius, math.radians(angle))
    raise MapError(f"{source}: {ctx}: unknown piece type '{kind}' (expected 'straight' or 'arc')")


def _check_inside(road_map: RoadMap, road: Road, i: int) -> None:
    pts = road.sample(0.01)
    half = road_map.road_width / 2
    for x, y, _ in pts:
        if not (half <= x <= road_map.width - half and half <= y <= road_map.height - half):
            raise MapError(f"{road_map.source}: roads[{i}] '{road.id}': the road leaves the "
                           f'{road_map.width} × {road_map.height} m sheet near ({x:.3f}, {y:.3f}) m')
