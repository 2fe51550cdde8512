# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Print-ready maps: the printed sheet at 1:1 in vector form (SVG or PDF), tiled onto pages.

The report's authors could not find a drawing program that makes curves of a given size with a
radial gradient (§4); here every shape comes from the same map model that the simulator rasterises
(:class:`thymio_road.map.road_map.RoadMap`), so the print and the simulation cannot disagree:

- a straight piece is a rectangle filled with a linear gradient from white (left edge) to black
  (right edge), across the driving direction;
- an arc is an annular sector filled with a radial gradient centred on the arc's centre, with
  its stops at the inner and outer radii R ∓ w/2;
- a barcode (or a single-bit mark) is one rectangle or annular sector per 2.7 cm bit, black for
  1 and white for 0, on the road's right side, at the map's lateral offsets.

Shapes are painted in the raster's order (roads, pieces, then barcodes: later over earlier). Each
road piece is drawn from a hair (0.2 mm) before its start, so that the seam between two pieces
is covered instead of showing the renderer's anti-aliased hairline.

Pages: without a page size the output is one page the size of the sheet (for a print shop). With
``A4``, ``A3`` or ``A0`` the sheet is cut into tiles of the page's printable area that overlap by
15 mm; each tile page has tick marks every 5 cm of map coordinates and cut marks at the middle of
each overlap in its margins (a neighbour's marks fall on the same map points), a 100 mm bar to
check the printer did not scale, and its row and column. Tiles with no ink on them (blank paper)
are not printed. A one-page preview shows the whole map and the grid of printed tiles; in a PDF it
is the first page, in SVG a file of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from pathlib import Path
from typing import Iterable, Sequence
import zlib

import numpy as np

from thymio_road.map import atomic
from thymio_road.map.geometry import Arc, Straight
from thymio_road.map.road_map import RoadMap

#: Page sizes in mm (portrait).
PAGES = {'A4': (210.0, 297.0), 'A3': (297.0, 420.0), 'A0': (841.0, 1189.0)}
#: Unprintable border most printers leave, mm.
MARGIN = 10.0
#: Width of the strip two neighbouring tiles share, mm.
OVERLAP = 15.0
#: Each road piece starts this far (m) before its nominal start, to cover the seam.
SEAM = 0.0002
#: Circular arcs become cubic Béziers of at most this angle in PDF (radial error ~1e-6·R).
BEZIER_MAX_ANGLE = math.radians(30)
#: Map-coordinate tick spacing in the margins of tile pages, mm.
TICK_STEP = 50.0
PT_PER_MM = 72.0 / 25.4


class ExportError(Exception):
    """An export that cannot be made (unknown format or page); the message says why."""


# --- shapes (sheet coordinates in mm, y up) ---------------------------------------------------

@dataclass(frozen=True)
class LinearShape:
    """A polygon filled with a linear gradient: grey g0 at p0, g1 at p1 (constant across)."""

    polygon: tuple[tuple[float, float], ...]
    p0: tuple[float, float]
    p1: tuple[float, float]
    g0: float
    g1: float


@dataclass(frozen=True)
class RadialShape:
    """An annular sector (angles a0 < a1, counter-clockwise) filled with a radial gradient:
    grey g0 at radius r0 and g1 at radius r1 (r0 < r1); solid when g0 == g1.
    """

    cx: float
    cy: float
    r0: float
    r1: float
    a0: float
    a1: float
    g0: float
    g1: float


@dataclass(frozen=True)
class SolidShape:
    polygon: tuple[tuple[float, float], ...]
    grey: float


Shape = LinearShape | RadialShape | SolidShape


def _mm(p: Sequence[float]) -> tuple[float, float]:
    return (p[0] * 1000.0, p[1] * 1000.0)


def straight_shape(piece: Straight, width: float, seam: float = SEAM) -> LinearShape:
    """A straight piece: white on the left edge, black on the right, across the heading."""
    c, s = math.cos(piece.heading), math.sin(piece.heading)
    left = (-s * width / 2, c * width / 2)
    x0, y0 = piece.x - c * seam, piece.y - s * seam
    x1, y1 = piece.x + c * piece.length, piece.y + s * piece.length
    poly = ((x0 + left[0], y0 + left[1]), (x1 + left[0], y1 + left[1]),
            (x1 - left[0], y1 - left[1]), (x0 - left[0], y0 - left[1]))
    return LinearShape(tuple(_mm(p) for p in poly), _mm((piece.x + left[0], piece.y + left[1])),
                       _mm((piece.x - left[0], piece.y - left[1])), 1.0, 0.0)


def _sector_angles(piece: Arc, s0: float, s1: float) -> tuple[float, float]:
    """Polar angles (about the centre) of arc lengths s0 < s1 along an arc, as a0 < a1."""
    a = piece.start_angle + piece.turn * s0 / piece.radius
    b = piece.start_angle + piece.turn * s1 / piece.radius
    return (a, b) if a <= b else (b, a)


def arc_shape(piece: Arc, width: float, seam: float = SEAM) -> RadialShape:
    """An arc piece: grey 0.5 + u/w at lateral offset u = turn·(R − r), as in the raster."""
    cx, cy = piece.center
    r0, r1 = piece.radius - width / 2, piece.radius + width / 2
    a0, a1 = _sector_angles(piece, -seam, piece.length)
    g_inner = 0.5 + piece.turn * 0.5  # left turn: the inner edge is the road's left (white)
    return RadialShape(cx * 1000, cy * 1000, r0 * 1000, r1 * 1000, a0, a1, g_inner, 1.0 - g_inner)


def road_shapes(road_map: RoadMap) -> list[Shape]:
    """Every piece of every road, in the raster's painting order."""
    shapes: list[Shape] = []
    for road in road_map.roads:
        for k, piece in enumerate(road.pieces):
            seam = SEAM if (k > 0 or road.closed) else 0.0
            if isinstance(piece, Straight):
                shapes.append(straight_shape(piece, road_map.road_width, seam))
            elif isinstance(piece, Arc):
                shapes.append(arc_shape(piece, road_map.road_width, seam))
            else:
                raise ExportError(f"road '{road.id}': cannot draw a {type(piece).__name__} piece "
                                  '(add a function for it in thymio_road/export.py)')
    return shapes


def barcode_shapes(road_map: RoadMap, barcode: object) -> list[Shape]:
    """One shape per bit (and per road piece the bit lies on): black for 1, white for 0.

    `barcode` has the fields of :class:`thymio_road.map.barcode.Barcode`: ``road``, ``at`` (arc
    length of its start), ``bits``, ``bit_values`` and ``lateral_span(road_width)`` (offsets
    right of the centre line).
    """
    from thymio_road.map.barcode import BIT_LENGTH
    road = road_map.road(barcode.road)  # type: ignore[attr-defined]
    u_in, u_out = barcode.lateral_span(road_map.road_width)  # type: ignore[attr-defined]
    shapes: list[Shape] = []
    for k, value in enumerate(barcode.bit_values):  # type: ignore[attr-defined]
        lo = barcode.at + k * BIT_LENGTH  # type: ignore[attr-defined]
        hi = lo + BIT_LENGTH
        grey = 0.0 if value else 1.0
        for piece, offset in zip(road.pieces, road.offsets):
            a, b = max(lo, offset), min(hi, offset + piece.length)
            if a >= b:
                continue
            s0, s1 = a - offset, b - offset
            if isinstance(piece, Straight):
                c, s = math.cos(piece.heading), math.sin(piece.heading)
                right = (s, -c)  # unit vector to the right of the heading
                pts = []
                for sl, u in ((s0, u_in), (s1, u_in), (s1, u_out), (s0, u_out)):
                    pts.append(_mm((piece.x + c * sl + right[0] * u, piece.y + s * sl + right[1] * u)))
                shapes.append(SolidShape(tuple(pts), grey))
            else:
                cx, cy = piece.center
                # right of the road is r = R + turn·u for u right of the centre line
                ra, rb = piece.radius + piece.turn * u_in, piece.radius + piece.turn * u_out
                a0, a1 = _sector_angles(piece, s0, s1)
                shapes.append(RadialShape(cx * 1000, cy * 1000, min(ra, rb) * 1000, max(ra, rb) * 1000,
                                          a0, a1, grey, grey))
    return shapes


def map_shapes(road_map: RoadMap, barcodes: Iterable[object] | None = None) -> list[Shape]:
    """The whole printed sheet: roads, then barcodes and marks (the map's own unless given)."""
    shapes = road_shapes(road_map)
    for barcode in (getattr(road_map, 'barcodes', ()) if barcodes is None else barcodes):
        shapes.extend(barcode_shapes(road_map, barcode))
    return shapes


#: Spacing (mm) of the points that find which tiles a shape inks.
INK_PITCH = 1.0


def _quad_points(q: Sequence[tuple[float, float]], pitch: float) -> np.ndarray:
    """Points every `pitch` mm over a convex quadrilateral (corners in order), edges included."""
    (a, b, c, d) = (np.asarray(p, dtype=float) for p in q)
    nu = max(2, int(math.ceil(max(np.hypot(*(b - a)), np.hypot(*(c - d))) / pitch)) + 1)
    nv = max(2, int(math.ceil(max(np.hypot(*(d - a)), np.hypot(*(c - b))) / pitch)) + 1)
    u = np.linspace(0.0, 1.0, nu)[:, None, None]
    v = np.linspace(0.0, 1.0, nv)[None, :, None]
    pts = (1 - u) * (1 - v) * a + u * (1 - v) * b + u * v * c + (1 - u) * v * d
    return pts.reshape(-1, 2)


#: A point prints ink when its grey is below this (1 is the paper's white).
INK_GREY = 0.99


def ink_points(shape: Shape, pitch: float = INK_PITCH) -> np.ndarray:
    """Points (n×2, sheet mm) where a shape prints ink: its paper-white parts (a gradient's white
    edge, a 0 bit) leave none.
    """
    if isinstance(shape, RadialShape):
        nr = max(2, int(math.ceil((shape.r1 - shape.r0) / pitch)) + 1)
        na = max(2, int(math.ceil((shape.a1 - shape.a0) * shape.r1 / pitch)) + 1)
        r = np.linspace(shape.r0, shape.r1, nr)
        grey = np.interp(r, [shape.r0, shape.r1], [shape.g0, shape.g1])
        r = r[grey < INK_GREY][:, None]
        a = np.linspace(shape.a0, shape.a1, na)[None, :]
        return np.column_stack([(shape.cx + r * np.cos(a)).ravel(), (shape.cy + r * np.sin(a)).ravel()])
    if isinstance(shape, SolidShape):
        return _quad_points(shape.polygon, pitch) if shape.grey < INK_GREY else np.zeros((0, 2))
    pts = _quad_points(shape.polygon, pitch)
    axis = np.subtract(shape.p1, shape.p0)
    along = (pts - shape.p0) @ axis / max(float(axis @ axis), 1e-12)
    grey = shape.g0 + (shape.g1 - shape.g0) * np.clip(along, 0.0, 1.0)
    return pts[grey < INK_GREY]


# --- page decorations (page coordinates in mm, y up) ---------------------------------------------

@dataclass(frozen=True)
class Line:
    x0: float
    y0: float
    x1: float
    y1: float
    width: float = 0.2
    grey: float = 0.0
    dash: tuple[float, ...] = ()


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    size: float = 7.0  # points
    anchor: str = 'start'  # 'start', 'middle' or 'end'


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    width: float = 0.2
    grey: float = 0.0


@dataclass
class Page:
    """One page: a window of the map placed on it, and decorations.

    The map point (wx, wy) mm is drawn at page point (px, py) mm, scaled by `scale`; only the
    page rectangle `clip` (x, y, w, h) shows the map.
    """

    width: float
    height: float
    window: tuple[float, float]
    at: tuple[float, float]
    scale: float
    clip: tuple[float, float, float, float]
    marks: list[Line | Text | Rect] = field(default_factory=list)
    name: str = ''


@dataclass(frozen=True)
class Layout:
    page: str
    width: float
    height: float
    cols: int
    rows: int
    step_x: float
    step_y: float
    content_w: float
    content_h: float


def tile_layout(sheet_w: float, sheet_h: float, page: str, margin: float = MARGIN,
                overlap: float = OVERLAP) -> Layout:
    """Tiles for a sheet (mm) on a page size: the orientation with fewer pages (portrait on ties)."""
    if page not in PAGES:
        raise ExportError(f"unknown page size '{page}' (known: {', '.join(PAGES)})")
    best = None
    for w, h in (PAGES[page], PAGES[page][::-1]):
        cw, ch = w - 2 * margin, h - 2 * margin
        sx, sy = cw - overlap, ch - overlap
        cols = 1 if sheet_w <= cw else math.ceil((sheet_w - overlap) / sx)
        rows = 1 if sheet_h <= ch else math.ceil((sheet_h - overlap) / sy)
        layout = Layout(page, w, h, cols, rows, sx, sy, cw, ch)
        if best is None or cols * rows < best.cols * best.rows:
            best = layout
    assert best is not None
    return best


def printed_tiles(layout: Layout, shapes: Sequence[Shape], overlap: float = OVERLAP) -> set[tuple[int, int]]:
    """Tiles (column i, row j from the bottom) with ink between their cut marks; the others are
    blank paper and are not printed (a large sheet is mostly paper: the final map's A4 grid is
    840 tiles).

    Cut along the marks (the middle of each overlap), the tiles partition the sheet: the point x
    belongs to column floor((x − overlap/2) / step), clamped to the grid. Ink that a skipped tile
    would show in its overlap lies between the cut marks of a neighbour, which is printed.
    """
    inked: set[tuple[int, int]] = set()
    pts = [ink_points(sh) for sh in shapes]
    if not pts:
        return inked
    xy = np.concatenate(pts)
    i = np.clip(np.floor((xy[:, 0] - overlap / 2) / layout.step_x).astype(int), 0, layout.cols - 1)
    j = np.clip(np.floor((xy[:, 1] - overlap / 2) / layout.step_y).astype(int), 0, layout.rows - 1)
    inked.update(zip(i.tolist(), j.tolist()))
    return inked


def tile_pages(road_map: RoadMap, layout: Layout, margin: float = MARGIN,
               overlap: float = OVERLAP, tiles: set[tuple[int, int]] | None = None) -> list[Page]:
    """The tile pages, row 1 at the top of the map, left to right; only `tiles` (i, j) when given."""
    sheet_w, sheet_h = road_map.width * 1000, road_map.height * 1000
    pages = []
    wanted = [(row, i) for row in range(layout.rows) for i in range(layout.cols)
              if tiles is None or (i, layout.rows - 1 - row) in tiles]
    for n, (row, i) in enumerate(wanted, start=1):  # rows from the top of the map
        j = layout.rows - 1 - row                   # from the bottom
        wx, wy = i * layout.step_x, j * layout.step_y
        page = Page(layout.width, layout.height, (wx, wy), (margin, margin), 1.0,
                    (margin, margin, layout.content_w, layout.content_h),
                    name=f'r{row + 1}c{i + 1}')
        _tile_marks(page, layout, i, j, sheet_w, sheet_h, margin, overlap)
        page.marks.append(Text(margin + overlap + 2.0, layout.height - margin + 5.0,
                               f'{road_map.name}: page {n} of {len(wanted)}, row {row + 1} of {layout.rows}, '
                               f'column {i + 1} of {layout.cols}. Print at 100 % (1:1).', 7.0))
        pages.append(page)
    return pages


def _tile_marks(page: Page, layout: Layout, i: int, j: int, sheet_w: float, sheet_h: float,
                margin: float, overlap: float) -> None:
    wx, wy = page.window
    cw, ch = layout.content_w, layout.content_h
    x_lo, x_hi = margin, margin + cw
    y_lo, y_hi = margin, margin + ch
    marks = page.marks
    marks.append(Rect(x_lo, y_lo, cw, ch, 0.1, 0.75))
    # Map-coordinate ticks every TICK_STEP in all four margins: neighbours share them.
    for x in np.arange(math.ceil(wx / TICK_STEP) * TICK_STEP, wx + cw + 1e-6, TICK_STEP):
        px = margin + x - wx
        marks += [Line(px, y_lo - 2.5, px, y_lo - 0.5, 0.2), Line(px, y_hi + 0.5, px, y_hi + 2.5, 0.2)]
        if x <= sheet_w:
            marks.append(Text(px + 0.6, y_lo - 2.5, f'{x / 10:g} cm', 5.0))
    for y in np.arange(math.ceil(wy / TICK_STEP) * TICK_STEP, wy + ch + 1e-6, TICK_STEP):
        py = margin + y - wy
        marks += [Line(x_lo - 2.5, py, x_lo - 0.5, py, 0.2), Line(x_hi + 0.5, py, x_hi + 2.5, py, 0.2)]
        if y <= sheet_h:
            marks.append(Text(x_lo - 0.5, py + 0.6, f'{y / 10:g} cm', 5.0, 'end'))
    # Cut marks at the middle of each overlap shared with a neighbour (dashed, in the margins).
    cuts_x = []
    if i > 0:
        cuts_x.append(margin + overlap / 2)
    if i < layout.cols - 1:
        cuts_x.append(margin + cw - overlap / 2)
    for px in cuts_x:
        marks += [Line(px, 0.5, px, y_lo - 0.5, 0.3, 0.0, (2.0, 1.0)),
                  Line(px, y_hi + 0.5, px, layout.height - 0.5, 0.3, 0.0, (2.0, 1.0))]
    cuts_y = []
    if j > 0:
        cuts_y.append(margin + overlap / 2)
    if j < layout.rows - 1:
        cuts_y.append(margin + ch - overlap / 2)
    for py in cuts_y:
        marks += [Line(0.5, py, x_lo - 0.5, py, 0.3, 0.0, (2.0, 1.0)),
                  Line(x_hi + 0.5, py, layout.width - 0.5, py, 0.3, 0.0, (2.0, 1.0))]
    # A 100 mm bar to check the print scale, top right.
    bar_x, bar_y = x_hi - 100.0, y_hi + 5.5
    marks += [Line(bar_x, bar_y, x_hi, bar_y, 0.3), Line(bar_x, bar_y - 1.0, bar_x, bar_y + 1.0, 0.3),
              Line(x_hi, bar_y - 1.0, x_hi, bar_y + 1.0, 0.3),
              Text(bar_x - 1.5, bar_y - 0.8, 'check: 100 mm', 6.0, 'end')]


def sheet_page(road_map: RoadMap) -> Page:
    """The whole sheet on one page of its own size (1:1)."""
    w, h = road_map.width * 1000, road_map.height * 1000
    return Page(w, h, (0.0, 0.0), (0.0, 0.0), 1.0, (0.0, 0.0, w, h), name='sheet')


def preview_page(road_map: RoadMap, layout: Layout, margin: float = MARGIN,
                 tiles: set[tuple[int, int]] | None = None) -> Page:
    """The whole map scaled onto one page, with the grid of printed tiles and their names."""
    sheet_w, sheet_h = road_map.width * 1000, road_map.height * 1000
    pw, ph = PAGES[layout.page] if sheet_w <= sheet_h else PAGES[layout.page][::-1]
    top = 14.0
    scale = min((pw - 2 * margin) / sheet_w, (ph - 2 * margin - top) / sheet_h)
    ox = (pw - sheet_w * scale) / 2
    oy = margin + (ph - 2 * margin - top - sheet_h * scale) / 2
    page = Page(pw, ph, (0.0, 0.0), (ox, oy), scale, (ox, oy, sheet_w * scale, sheet_h * scale),
                name='preview')
    page.marks.append(Rect(ox, oy, sheet_w * scale, sheet_h * scale, 0.3, 0.0))
    for row in range(layout.rows):
        j = layout.rows - 1 - row
        for i in range(layout.cols):
            if tiles is not None and (i, j) not in tiles:
                continue
            x0, y0 = i * layout.step_x, j * layout.step_y
            w = min(layout.content_w, sheet_w - x0)
            h = min(layout.content_h, sheet_h - y0)
            page.marks.append(Rect(ox + x0 * scale, oy + y0 * scale, w * scale, h * scale, 0.3, 0.4))
            page.marks.append(Text(ox + (x0 + w / 2) * scale, oy + (y0 + h / 2) * scale,
                                   f'r{row + 1}c{i + 1}', 9.0, 'middle'))
    roads = road_map.road_length
    bars = len(getattr(road_map, 'barcodes', ()))
    page.marks.append(Text(margin, ph - margin - 4, f"Map '{road_map.name}': {sheet_w / 10:g} x "
                           f'{sheet_h / 10:g} cm sheet, {len(road_map.roads)} roads ({roads:.2f} m), '
                           f'{bars} barcodes/marks', 10.0))
    count = layout.cols * layout.rows if tiles is None else len(tiles)
    blank = layout.cols * layout.rows - count
    page.marks.append(Text(margin, ph - margin - 9, f'{count} {layout.page} tile pages '
                           f'({layout.cols} columns x {layout.rows} rows'
                           f'{f", {blank} blank tiles not printed" if blank else ""}), '
                           f'{OVERLAP:g} mm overlap; this preview is at {scale * 100:.1f} %', 8.0))
    return page


# --- SVG -----------------------------------------------------------------------------------------

def _hex(g: float) -> str:
    v = int(round(min(max(g, 0.0), 1.0) * 255))
    return f'#{v:02x}{v:02x}{v:02x}'


def _f(v: float) -> str:
    return f'{v:.4f}'.rstrip('0').rstrip('.') if abs(v) < 1e7 else f'{v:.1f}'


def _svg_arc_path(s: RadialShape) -> str:
    """Annular sector as one SVG path: outer arc counter-clockwise, inner arc back."""
    n = max(1, math.ceil((s.a1 - s.a0) / (math.pi * 0.9)))
    angles = np.linspace(s.a0, s.a1, n + 1)

    def pt(r: float, a: float) -> str:
        return f'{_f(s.cx + r * math.cos(a))} {_f(s.cy + r * math.sin(a))}'
    d = [f'M {pt(s.r1, angles[0])}']
    for a in angles[1:]:
        d.append(f'A {_f(s.r1)} {_f(s.r1)} 0 0 1 {pt(s.r1, a)}')
    d.append(f'L {pt(s.r0, angles[-1])}')
    for a in angles[-2::-1]:
        d.append(f'A {_f(s.r0)} {_f(s.r0)} 0 0 0 {pt(s.r0, a)}')
    d.append('Z')
    return ' '.join(d)


def _svg_polygon(poly: Sequence[tuple[float, float]]) -> str:
    return 'M ' + ' L '.join(f'{_f(x)} {_f(y)}' for x, y in poly) + ' Z'


def svg_map_group(shapes: Sequence[Shape], prefix: str = 'g') -> tuple[str, str]:
    """(defs, body) of the map drawing in map mm, y up (the caller flips it)."""
    defs, body = [], []
    for k, s in enumerate(shapes):
        gid = f'{prefix}{k}'
        if isinstance(s, LinearShape):
            defs.append(f'<linearGradient id="{gid}" gradientUnits="userSpaceOnUse" '
                        f'x1="{_f(s.p0[0])}" y1="{_f(s.p0[1])}" x2="{_f(s.p1[0])}" y2="{_f(s.p1[1])}">'
                        f'<stop offset="0" stop-color="{_hex(s.g0)}"/>'
                        f'<stop offset="1" stop-color="{_hex(s.g1)}"/></linearGradient>')
            body.append(f'<path d="{_svg_polygon(s.polygon)}" fill="url(#{gid})"/>')
        elif isinstance(s, RadialShape):
            if s.g0 == s.g1:
                body.append(f'<path d="{_svg_arc_path(s)}" fill="{_hex(s.g0)}"/>')
                continue
            defs.append(f'<radialGradient id="{gid}" gradientUnits="userSpaceOnUse" cx="{_f(s.cx)}" '
                        f'cy="{_f(s.cy)}" r="{_f(s.r1)}" fx="{_f(s.cx)}" fy="{_f(s.cy)}">'
                        f'<stop offset="{s.r0 / s.r1:.6f}" stop-color="{_hex(s.g0)}"/>'
                        f'<stop offset="1" stop-color="{_hex(s.g1)}"/></radialGradient>')
            body.append(f'<path d="{_svg_arc_path(s)}" fill="url(#{gid})"/>')
        else:
            body.append(f'<path d="{_svg_polygon(s.polygon)}" fill="{_hex(s.grey)}"/>')
    return '\n'.join(defs), '\n'.join(body)


def _svg_marks(page: Page) -> str:
    out = []
    H = page.height
    for mk in page.marks:
        if isinstance(mk, Line):
            dash = f' stroke-dasharray="{" ".join(_f(d) for d in mk.dash)}"' if mk.dash else ''
            out.append(f'<line x1="{_f(mk.x0)}" y1="{_f(H - mk.y0)}" x2="{_f(mk.x1)}" y2="{_f(H - mk.y1)}" '
                       f'stroke="{_hex(mk.grey)}" stroke-width="{_f(mk.width)}"{dash}/>')
        elif isinstance(mk, Rect):
            out.append(f'<rect x="{_f(mk.x)}" y="{_f(H - mk.y - mk.h)}" width="{_f(mk.w)}" '
                       f'height="{_f(mk.h)}" fill="none" stroke="{_hex(mk.grey)}" '
                       f'stroke-width="{_f(mk.width)}"/>')
        else:
            size_mm = mk.size * 25.4 / 72
            text = mk.text.replace('&', '&amp;').replace('<', '&lt;')
            out.append(f'<text x="{_f(mk.x)}" y="{_f(H - mk.y)}" '
                       'font-family="Helvetica, Arial, DejaVu Sans, sans-serif" '
                       f'font-size="{_f(size_mm)}" text-anchor="{mk.anchor}">{text}</text>')
    return '\n'.join(out)


def svg_page(page: Page, defs: str, body: str) -> str:
    """A page as an SVG document in mm (prints 1:1 at 100 %)."""
    wx, wy = page.window
    px, py = page.at
    k = page.scale
    # map (X, Y) mm → page SVG (px + k(X − wx), H − py − k(Y − wy))
    e, f = px - k * wx, page.height - py + k * wy
    cx, cy, cw, ch = page.clip
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{_f(page.width)}mm" '
            f'height="{_f(page.height)}mm" viewBox="0 0 {_f(page.width)} {_f(page.height)}">\n'
            f'<defs>\n<clipPath id="content"><rect x="{_f(cx)}" y="{_f(page.height - cy - ch)}" '
            f'width="{_f(cw)}" height="{_f(ch)}"/></clipPath>\n{defs}\n</defs>\n'
            f'<rect x="0" y="0" width="{_f(page.width)}" height="{_f(page.height)}" fill="#ffffff"/>\n'
            f'<g clip-path="url(#content)"><g transform="matrix({_f(k)} 0 0 {_f(-k)} {_f(e)} {_f(f)})">\n'
            f'{body}\n</g></g>\n{_svg_marks(page)}\n</svg>\n')


# --- PDF -----------------------------------------------------------------------------------------

def _pdf_num(v: float) -> str:
    return f'{v:.4f}'.rstrip('0').rstrip('.') or '0'


def _bezier_arc(cx: float, cy: float, r: float, a0: float, a1: float, move: bool) -> list[str]:
    """Cubic Béziers for a circular arc from a0 to a1 (either direction)."""
    n = max(1, math.ceil(abs(a1 - a0) / BEZIER_MAX_ANGLE))
    step = (a1 - a0) / n
    kappa = 4.0 / 3.0 * math.tan(step / 4)
    ops = []
    a = a0
    if move:
        ops.append(f'{_pdf_num(cx + r * math.cos(a))} {_pdf_num(cy + r * math.sin(a))} m')
    else:
        ops.append(f'{_pdf_num(cx + r * math.cos(a))} {_pdf_num(cy + r * math.sin(a))} l')
    for _ in range(n):
        b = a + step
        x0, y0 = cx + r * math.cos(a), cy + r * math.sin(a)
        x3, y3 = cx + r * math.cos(b), cy + r * math.sin(b)
        x1, y1 = x0 - kappa * r * math.sin(a), y0 + kappa * r * math.cos(a)
        x2, y2 = x3 + kappa * r * math.sin(b), y3 - kappa * r * math.cos(b)
        ops.append(' '.join(_pdf_num(v) for v in (x1, y1, x2, y2, x3, y3)) + ' c')
        a = b
    return ops


def _pdf_path(s: Shape) -> str:
    if isinstance(s, RadialShape):
        ops = _bezier_arc(s.cx, s.cy, s.r1, s.a0, s.a1, True) + \
            _bezier_arc(s.cx, s.cy, s.r0, s.a1, s.a0, False) + ['h']
        return '\n'.join(ops)
    poly = s.polygon
    ops = [f'{_pdf_num(poly[0][0])} {_pdf_num(poly[0][1])} m'] + \
        [f'{_pdf_num(x)} {_pdf_num(y)} l' for x, y in poly[1:]] + ['h']
    return '\n'.join(ops)


def pdf_map_content(shapes: Sequence[Shape]) -> tuple[str, list[str]]:
    """(content stream in map mm, shading dictionaries) of the map drawing."""
    content, shadings = [], []
    for s in shapes:
        if isinstance(s, SolidShape) or (isinstance(s, RadialShape) and s.g0 == s.g1):
            grey = s.grey if isinstance(s, SolidShape) else s.g0
            content.append(f'{_pdf_num(grey)} g\n{_pdf_path(s)}\nf')
            continue
        name = f'Sh{len(shadings)}'
        function = f'<< /FunctionType 2 /Domain [0 1] /C0 [{_pdf_num(s.g0)}] /C1 [{_pdf_num(s.g1)}] /N 1 >>'
        if isinstance(s, LinearShape):
            coords = ' '.join(_pdf_num(v) for v in (*s.p0, *s.p1))
            shadings.append(f'<< /ShadingType 2 /ColorSpace /DeviceGray /Coords [{coords}] '
                            f'/Function {function} /Extend [true true] >>')
        else:
            coords = ' '.join(_pdf_num(v) for v in (s.cx, s.cy, s.r0, s.cx, s.cy, s.r1))
            shadings.append(f'<< /ShadingType 3 /ColorSpace /DeviceGray /Coords [{coords}] '
                            f'/Function {function} /Extend [true true] >>')
        content.append(f'q\n{_pdf_path(s)}\nW n\n/{name} sh\nQ')
    return '\n'.join(content), shadings


def _pdf_text(s: str) -> str:
    s = s.encode('latin-1', 'replace').decode('latin-1')
    return s.replace('\\', '\\\\').replace('(', '\\(').replace(')', '\\)')


def _pdf_marks(page: Page) -> str:
    k = PT_PER_MM
    out = []
    for mk in page.marks:
        if isinstance(mk, Line):
            dash = f'[{" ".join(_pdf_num(d * k) for d in mk.dash)}] 0 d' if mk.dash else '[] 0 d'
            out.append(f'{_pdf_num(mk.grey)} G {_pdf_num(mk.width * k)} w {dash} '
                       f'{_pdf_num(mk.x0 * k)} {_pdf_num(mk.y0 * k)} m {_pdf_num(mk.x1 * k)} '
                       f'{_pdf_num(mk.y1 * k)} l S')
        elif isinstance(mk, Rect):
            out.append(f'{_pdf_num(mk.grey)} G {_pdf_num(mk.width * k)} w [] 0 d {_pdf_num(mk.x * k)} '
                       f'{_pdf_num(mk.y * k)} {_pdf_num(mk.w * k)} {_pdf_num(mk.h * k)} re S')
        else:
            # Helvetica averages about 0.5 em per character: enough to centre or right-align.
            width = 0.5 * mk.size * len(mk.text)
            shift = {'start': 0.0, 'middle': width / 2, 'end': width}[mk.anchor]
            out.append(f'0 g BT /F1 {_pdf_num(mk.size)} Tf {_pdf_num(mk.x * k - shift)} '
                       f'{_pdf_num(mk.y * k)} Td ({_pdf_text(mk.text)}) Tj ET')
    return '\n'.join(out)


def pdf_document(pages: Sequence[Page], shapes: Sequence[Shape], sheet: tuple[float, float]) -> bytes:
    """A PDF whose pages place one shared drawing of the map (a form XObject)."""
    content, shadings = pdf_map_content(shapes)
    objects: list[bytes] = []

    def add(obj: bytes) -> int:
        objects.append(obj)
        return len(objects)

    def stream(dictionary: str, data: str) -> bytes:
        raw = zlib.compress(data.encode('latin-1'), 6)
        return (f'<< {dictionary} /Length {len(raw)} /Filter /FlateDecode >>\nstream\n'.encode()
                + raw + b'\nendstream')

    catalog = add(b'')  # filled in at the end
    pages_id = add(b'')
    font = add(b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>')
    shading_ids = [add(s.encode()) for s in shadings]
    shading_dict = ' '.join(f'/Sh{k} {i} 0 R' for k, i in enumerate(shading_ids))
    sw, sh = sheet
    form = add(stream(f'/Type /XObject /Subtype /Form /BBox [0 0 {_pdf_num(sw)} {_pdf_num(sh)}] '
                      f'/Matrix [{_pdf_num(PT_PER_MM)} 0 0 {_pdf_num(PT_PER_MM)} 0 0] '
                      f'/Resources << /Shading << {shading_dict} >> >>', content))
    kids = []
    k = PT_PER_MM
    for page in pages:
        wx, wy = page.window
        px, py = page.at
        cx, cy, cw, ch = page.clip
        # Form space (map mm) → page pt: the form's matrix scales mm to pt; this cm places it.
        data = (f'1 g 0 0 {_pdf_num(page.width * k)} {_pdf_num(page.height * k)} re f\n'
                f'q {_pdf_num(cx * k)} {_pdf_num(cy * k)} {_pdf_num(cw * k)} {_pdf_num(ch * k)} re W n\n'
                f'{_pdf_num(page.scale)} 0 0 {_pdf_num(page.scale)} {_pdf_num((px - page.scale * wx) * k)} '
                f'{_pdf_num((py - page.scale * wy) * k)} cm /Map Do Q\n{_pdf_marks(page)}\n')
        contents = add(stream('', data))
        kids.append(add(f'<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {_pdf_num(page.width * k)} '
                        f'{_pdf_num(page.height * k)}] /Resources << /XObject << /Map {form} 0 R >> '
                        f'/Font << /F1 {font} 0 R >> >> /Contents {contents} 0 R >>'.encode()))
    objects[catalog - 1] = f'<< /Type /Catalog /Pages {pages_id} 0 R >>'.encode()
    objects[pages_id - 1] = (f'<< /Type /Pages /Kids [{" ".join(f"{i} 0 R" for i in kids)}] '
                             f'/Count {len(kids)} >>').encode()
    out = bytearray(b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n')
    offsets = []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f'{n} 0 obj\n'.encode() + obj + b'\nendobj\n'
    xref = len(out)
    out += f'xref\n0 {len(objects) + 1}\n0000000000 65535 f \n'.encode()
    out += b''.join(f'{o:010d} 00000 n \n'.encode() for o in offsets)
    out += (f'trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n%%EOF\n'
            .encode())
    return bytes(out)


# --- entry point ---------------------------------------------------------------------------------

@dataclass
class Export:
    """What an export wrote: the files (the first is `out`), the pages in them, blank tiles left out."""

    files: list[Path]
    pages: int
    tiles: int = 0
    blank_tiles: int = 0


def export_map(road_map: RoadMap, out: str | Path, fmt: str | None = None, page: str | None = None,
               barcodes: Iterable[object] | None = None) -> Export:
    """Write the map for printing.

    SVG: `out` is the whole sheet at 1:1; with a page size, the tiles and the preview are
    written beside it as ``<stem>-r<row>c<col>.svg`` and ``<stem>-preview.svg``.
    PDF: one document; with a page size its first page is the preview, then the tiles.
    Tiles with no ink are skipped.
    """
    out = Path(out)
    fmt = (fmt or out.suffix.lstrip('.')).lower()
    if fmt not in ('svg', 'pdf'):
        raise ExportError(f"{out}: unknown format '{fmt}' (use svg or pdf)")
    shapes = map_shapes(road_map, barcodes)
    sheet = (road_map.width * 1000, road_map.height * 1000)
    layout = tile_layout(*sheet, page) if page else None
    tiles = printed_tiles(layout, shapes) if layout is not None else None
    pages = [sheet_page(road_map)] if layout is None else \
        [preview_page(road_map, layout, tiles=tiles), *tile_pages(road_map, layout, tiles=tiles)]
    blank = 0 if layout is None or tiles is None else layout.cols * layout.rows - len(tiles)
    tile_count = 0 if tiles is None else len(tiles)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == 'pdf':
        atomic.write_bytes(out, pdf_document(pages, shapes, sheet))
        return Export([out], len(pages), tile_count, blank)
    defs, body = svg_map_group(shapes)
    atomic.write_text(out, svg_page(sheet_page(road_map), defs, body))
    written = [out]
    if layout is not None:
        for p in pages:
            path = out.with_name(f'{out.stem}-{p.name}.svg')
            atomic.write_text(path, svg_page(p, defs, body))
            written.append(path)
    return Export(written, len(written), tile_count, blank)
