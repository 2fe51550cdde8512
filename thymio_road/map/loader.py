# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Loading a map file: YAML in metres and degrees → a validated :class:`RoadMap`.

Parsing builds the roads, the intersections' generated pieces and the barcodes, checks each
element where it is read (naming the file, the element and the value), then runs the network
checks of :mod:`thymio_road.map.checks` (the road graph and the traffic lights).
"""
from __future__ import annotations

import math
from pathlib import Path
import re
from typing import Any

import numpy as np

from thymio_road.map.barcode import (Barcode, BARCODE_BITS, BARCODE_MIN_ARC_RADIUS, DEFAULT_GAP, DEFAULT_WIDTH,
                                     RIGHT_SENSOR_OFFSET)
from thymio_road.map.checks import check_crossings, check_network
from thymio_road.map.dubins import dubins
from thymio_road.map.geometry import Arc, Piece, Straight, wrap_angle
from thymio_road.map.intersections import branching, crossroad, Generated, location, ROAD_WIDTH, roundabout
from thymio_road.map.road_map import MapError, MAX_RESOLUTION, Road, RoadMap
from thymio_road.map.tiles import TILE
from thymio_road.map.turns import check_turns
from thymio_road.map.validation import Fields, load_yaml, show

#: A closed road must end where it starts, within these tolerances.
CLOSE_TOLERANCE = 0.001
CLOSE_ANGLE_TOLERANCE = math.radians(0.5)
#: The rasters are tiled (map/tiles.py): each keeps a directory of the sheet's tiles (4 bytes a
#: tile) and the pixels of the tiles near ink. At most 10⁷ tiles a sheet (40 MB a directory;
#: a 50 × 50 m sheet at 1 mm has 2.4·10⁶)...
MAX_SHEET_TILES = 10_000_000
#: ... and at most 4·10⁸ pixels near ink (about 2.5 km of road at 1 mm): a run holds about
#: RASTER_BYTES_PER_PIXEL bytes for each (measured on 300 m and 1 km of road, bench_map_scale.py).
MAX_RASTER_PIXELS = 400_000_000
RASTER_BYTES_PER_PIXEL = 6
#: Longest straight and largest arc radius: a 50 × 50 m sheet holds nothing longer.
MAX_PIECE = 100.0


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
    min_arc = top.optional('barcode_min_arc_radius', float, BARCODE_MIN_ARC_RADIUS)
    turn_limits = top.optional('turn_limits', bool, True)
    elements = top.optional('intersections', list, [])
    top.done()

    width, height = _size(size, top)
    if not 0 < resolution <= MAX_RESOLUTION:
        top.fail('resolution', f'must be in (0, {MAX_RESOLUTION}] m per pixel, got {resolution}')
    _check_raster(width, height, resolution, top)
    if not 0.005 <= road_width <= 0.2:
        top.fail('road_width', f'must be between 0.005 and 0.2 m, got {road_width}')
    if not roads_data:
        top.fail('roads', 'must list at least one road')
    if not 0 <= min_arc <= MAX_PIECE:
        top.fail('barcode_min_arc_radius', f'must be in 0..{MAX_PIECE:g} m, got {min_arc}')

    roads: list[Road] = []

    def add(road: Road, where: str) -> None:
        if any(r.id == road.id for r in roads):
            raise MapError(f"{source}: {where}: duplicate road id '{road.id}'")
        roads.append(road)

    # Intersections standing on their own come first: roads may start or end at their arms.
    parsed = [_parse_element(d, source, i) for i, d in enumerate(elements)]
    _check_unique_numbers(parsed, source)
    generated = Generated()
    #: Road id → the intersection that generated it (its roads may meet: check_crossings).
    owners: dict[str, str] = {}
    for i, (kind, where, params) in enumerate(parsed):
        if kind in ('roundabout', 'crossroad'):
            made = _generate(where, source, {'roundabout': roundabout, 'crossroad': crossroad}[kind], **params)
            owners.update({r['id']: where for r in made.roads})
            generated.extend(made)
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
        owners.update({r['id']: where for r in extra.roads})
        for road_data in extra.roads:
            add(_parse_road(road_data, source, f"{where} road '{road_data['id']}'", road_width, {}), where)
        generated.extend(extra)
    barcodes = [_parse_barcode(d, source, f'barcodes[{i}]', roads, road_width, BARCODE_BITS, min_arc)
                for i, d in enumerate(barcodes_data)]
    barcodes += [_parse_barcode(d, source, f'marks[{i}]', roads, road_width, 1)
                 for i, d in enumerate(marks_data)]
    barcodes += [_parse_barcode(d, source, f"intersection barcode '{d['id']}'", roads, road_width,
                                BARCODE_BITS, min_arc) for d in generated.barcodes]
    barcodes += [_parse_barcode(d, source, f"intersection mark '{d['id']}'", roads, road_width, 1)
                 for d in generated.marks]
    road_map = RoadMap(name, source, width, height, resolution, walls, road_width, tuple(roads),
                       tuple(barcodes), tuple(generated.intersections))
    _check_ink(road_map, top)
    for i, road in enumerate(road_map.roads):
        _check_inside(road_map, road, i)
    _check_barcodes(road_map)
    check_crossings(road_map, owners)
    if turn_limits:  # off only for tracks that measure the limits (`thymio-road turns`)
        check_turns(road_map, owners)
    check_network(road_map)
    return road_map


def _parse_barcode(data: Any, source: str, ctx: str, roads: list[Road], road_width: float,
                   bits: int, min_arc: float = 0.0) -> Barcode:
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
    if not 0 <= gap <= MAX_BARCODE_GAP:
        f.fail('gap', f'{show(gap)}: must be a number in [0, {MAX_BARCODE_GAP}] m (a negative gap prints the bits '
                      'onto the road, a wide one puts them beyond the right ground sensor)')
    if not u_in + 0.004 <= RIGHT_SENSOR_OFFSET <= u_out - 0.004:
        f.fail('width', f'the bits span {u_in * 1000:.1f}..{u_out * 1000:.1f} mm right of the centre '
                        f'line but the right ground sensor runs {RIGHT_SENSOR_OFFSET * 1000:.1f} mm '
                        'right of it (needs 4 mm of margin on both sides)')
    for piece, offset in zip(road.pieces, road.offsets):
        overlaps = barcode.at < offset + piece.length and barcode.end > offset
        if overlaps and isinstance(piece, Arc) and piece.turn < 0 and piece.radius <= u_out:
            f.fail('at', f'the bits would cross the centre of a right turn of radius {piece.radius} m')
        if overlaps and isinstance(piece, Arc) and bits > 1 and piece.radius < min_arc:
            f.fail('at', f'{at}..{barcode.end:.3f} m lies on an arc of radius {piece.radius:g} m '
                         f"({offset:.3f}..{offset + piece.length:.3f} m of road '{road_id}'); barcodes "
                         f'are read reliably only on straights and arcs of radius >= {min_arc:g} m '
                         '(docs/maps.md, "Barcodes on arcs"): move it onto a straight')
    return barcode


#: Widest gap between a road and its barcode's bits (m): the right ground sensor must still see them.
MAX_BARCODE_GAP = 0.05


def _check_barcodes(road_map: RoadMap) -> None:
    """Bits must not overlap printed roads or one another. Only the barcodes' own pixels are
    rendered (:meth:`RoadMap.road_index_window`), so loading a map builds no raster.
    """
    owner: dict[int, int] = {}
    cols = road_map.shape[1]
    for k, barcode in enumerate(road_map.barcodes):
        kind = 'barcodes' if barcode.bits > 1 else 'marks'
        where = f"{road_map.source}: {kind} '{barcode.id}'"
        for rows, cols_, _ in road_map.barcode_pixels(barcode):
            if not len(rows):
                continue
            r0, c0 = int(rows.min()), int(cols_.min())
            window = road_map.road_index_window(r0, int(rows.max()) + 1, c0, int(cols_.max()) + 1)
            roads_hit = np.unique(window[rows - r0, cols_ - c0])
            roads_hit = roads_hit[roads_hit >= 0]
            if len(roads_hit):
                raise MapError(f"{where}: overlaps road '{road_map.roads[roads_hit[0]].id}'")
            pixels = (rows.astype(np.int64) * cols + cols_).tolist()
            others = sorted({owner[p] for p in pixels if p in owner} - {k})
            if others:
                raise MapError(f"{where}: overlaps '{road_map.barcodes[others[0]].id}'")
            owner.update(dict.fromkeys(pixels, k))


def _size(size: list, top: Fields) -> tuple[float, float]:
    if len(size) != 2 or not all(_is_number(v) for v in size):
        top.fail('size', f'must be [width, height] in metres, got {show(size)}')
    width, height = float(size[0]), float(size[1])
    if width <= 0 or height <= 0 or width > 50 or height > 50:
        top.fail('size', f'width and height must be in (0, 50] m, got {show(size)}')
    return width, height


def _check_raster(width: float, height: float, resolution: float, top: Fields) -> None:
    """Refuse a sheet whose tile directories would not fit in memory before anything is allocated."""
    rows, cols = round(height / resolution), round(width / resolution)
    tiles = -(-rows // TILE) * -(-cols // TILE)
    if tiles <= MAX_SHEET_TILES:
        return
    finest = math.sqrt(width * height / MAX_SHEET_TILES) / TILE
    top.fail('resolution', f'a {width:g} × {height:g} m sheet at {resolution:g} m per pixel is a {cols} × {rows} '
                           f'raster: {rows * cols:.3g} pixels in {tiles:.3g} tiles of {TILE} × {TILE}, whose '
                           f'directories alone take {tiles * 4 * 4 / 1e9:.3g} GB; the limit is {MAX_SHEET_TILES:.3g} '
                           f'tiles: with this size, a resolution of {finest:.2g} m ({finest * 1000:.2f} mm) or '
                           'coarser fits')


def _check_ink(road_map: RoadMap, top: Fields) -> None:
    """Refuse more road than the rasters near it would hold (each piece's length and ends, times
    the band that its paint, the sensors' blur and the tiles around it cover), before any is built.
    """
    res = road_map.resolution
    band = road_map.road_width + 2 * (0.015 + TILE * res)
    length = road_map.road_length
    pixels = sum((piece.length + band) * band for road in road_map.roads for piece in road.pieces) / res ** 2
    if pixels <= MAX_RASTER_PIXELS:
        return
    gb = pixels * RASTER_BYTES_PER_PIXEL / 1e9
    top.fail('roads', f'{length:.0f} m of road at {res:g} m per pixel needs rasters of about {pixels:.3g} pixels near '
                      f'the roads, about {gb:.3g} GB in memory; the limit is {MAX_RASTER_PIXELS:.3g} pixels '
                      f'(about {MAX_RASTER_PIXELS * res ** 2 / band / 1000:.2g} km of road at this resolution)')


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
        f.fail('start', f'must be [x, y, heading_deg], got {show(start)}')
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
    if closed:
        closing = _closing_straight(pieces, x, y, heading)
        if closing is None:
            x0, y0, h0 = pieces[0].x, pieces[0].y, pieces[0].heading
            gap = math.hypot(x - x0, y - y0)
            turn = abs(float(wrap_angle(heading - h0)))
            raise MapError(f'{source}: {ctx}: closed road does not close: it ends '
                           f'{gap * 1000:.1f} mm and {math.degrees(turn):.1f}° away from its start, and '
                           'not pointing at it, where a closing straight would be added')
        if closing > CLOSE_TOLERANCE:
            pieces.append(Straight(x, y, heading, closing))
    return Road(road_id, tuple(pieces), closed, layer)


def _closing_straight(pieces: list[Piece], x: float, y: float, heading: float) -> float | None:
    """The straight that closes a closed road (0 if it ends at its start), or None if none does.

    A closed road may stop short of its start, heading the start's way with the start straight
    ahead: the loader adds that last straight, so that a loop's lengths need not be worked out
    to the tenth of a millimetre by hand.
    """
    x0, y0, h0 = pieces[0].x, pieces[0].y, pieces[0].heading
    if abs(float(wrap_angle(heading - h0))) > CLOSE_ANGLE_TOLERANCE:
        return None
    ahead = (x0 - x) * math.cos(heading) + (y0 - y) * math.sin(heading)
    aside = -(x0 - x) * math.sin(heading) + (y0 - y) * math.cos(heading)
    if abs(aside) > CLOSE_TOLERANCE or ahead < -CLOSE_TOLERANCE or ahead > MAX_PIECE:
        return None
    return max(ahead, 0.0)


#: Intersection ids: they become parts of ROS names (a traffic light's namespace /light_<id>).
_ID = re.compile(r'[A-Za-z][A-Za-z0-9_]*')

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
                       f"{{{' | '.join(_ELEMENTS)}: {{...}}}}, got {show(data)}")
    (kind, value), = data.items()
    f = Fields(value, source, f'intersections[{i}] {kind}', MapError)
    params = {}
    for key, kind_of in _ELEMENTS[kind].items():
        params[key] = f.require(key, kind_of) if key in _REQUIRED[kind] else f.optional(key, kind_of, None)
    f.context = f"intersections[{i}] {kind} '{params['id']}'"
    f.done()
    if not _ID.fullmatch(params['id']):
        f.fail('id', f'must be a letter, then letters, digits or _ (it names ROS namespaces such as '
                     f"/light_<id>), got {show(params['id'])}")
    params = {k: v for k, v in params.items() if v is not None}
    if kind in ('roundabout', 'crossroad'):
        centre = params.pop('center')
        if len(centre) != 2 or not all(_is_number(v) for v in centre):
            f.fail('center', f'must be [x, y], got {show(centre)}')
        params['centre'] = (float(centre[0]), float(centre[1]))
        arms = params['arms']
        wanted = 'four' if kind == 'crossroad' else 'at least two'
        if (len(arms) != 4 if kind == 'crossroad' else len(arms) < 2) or \
                not all(isinstance(a, str) for a in arms) or len(set(arms)) != len(arms):
            f.fail('arms', f'must name {wanted} distinct arms, got {show(arms)}')
        params['heading'] = math.radians(params.pop('heading_deg', 0.0))
        params['rid' if kind == 'roundabout' else 'cid'] = params.pop('id')
    elif kind == 'location':
        if not 1 <= params['number'] <= 7:
            f.fail('number', f"locations are named by barcodes 1..7, got {params['number']}")
        params['lid'] = params.pop('id')
    else:
        params['bid'] = params.pop('id')
    return kind, f.context, params


def _check_unique_numbers(parsed: list[tuple[str, str, dict]], source: str) -> None:
    """A location is named by its number's barcode: two with one number are one place to a robot."""
    seen: dict[int, str] = {}
    for kind, where, params in parsed:
        if kind != 'location':
            continue
        number = params['number']
        if number in seen:
            raise MapError(f'{source}: {where}.number: location number {number} is already '
                           f'{seen[number]} (each location needs its own number 1..7)')
        seen[number] = where


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
                       f'{{arc: {{radius: R, angle_deg: A}}}}, got {show(data)}')
    (kind, value), = data.items()
    if kind == 'straight':
        if not _is_number(value) or not 0 < value <= MAX_PIECE:
            raise MapError(f'{source}: {ctx}: straight length must be a number of metres in (0, {MAX_PIECE:g}] '
                           '(no sheet is larger), '
                           f'got {show(value)}')
        return Straight(x, y, heading, float(value))
    if kind == 'arc':
        f = Fields(value, source, ctx + ' arc', MapError)
        radius = f.require('radius', float)
        angle = f.require('angle_deg', float)
        f.done()
        if radius > MAX_PIECE:
            f.fail('radius', f'must be at most {MAX_PIECE:g} m (no sheet is larger), got {radius}')
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
    x, y = pts[:, 0], pts[:, 1]
    inside = (half <= x) & (x <= road_map.width - half) & (half <= y) & (y <= road_map.height - half)
    if not inside.all():
        x, y = pts[np.argmin(inside), :2]
        raise MapError(f"{road_map.source}: roads[{i}] '{road.id}': the road leaves the "
                       f'{road_map.width} × {road_map.height} m sheet near ({x:.3f}, {y:.3f}) m')
