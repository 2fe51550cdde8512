# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The printed road map: roads of straight pieces and arcs, rendered to a raster.

A road is 3 cm wide with a grey gradient from white (left) to black (right) in the driving
direction (report §4); turns are arcs with a radial gradient. The raster is the printed sheet:
the ground sensors sample it and it is published as ``/map``.

Everything in memory is metres and radians (map files use degrees: :mod:`thymio_road.map.loader`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
import math
from typing import Any

import numpy as np

from thymio_road.map import raster_cache
from thymio_road.map.barcode import Barcode, BIT_LENGTH
from thymio_road.map.geometry import Piece
from thymio_road.map.intersections import Intersection
from thymio_road.map.tiles import BLOCK, cells_near, TILE, Tiled, unique_cells
from thymio_road.map.validation import ConfigError

MAX_RESOLUTION = 0.001


class MapError(ConfigError):
    """A map file that cannot be used; the message names the file, the element and the problem."""


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

    def poses(self, s: np.ndarray) -> np.ndarray:
        """:meth:`pose_at` at many arc lengths (n×3), bit for bit: the same arithmetic per point,
        with the C library's cos and sin as in :mod:`math` (numpy's vector ones may differ in
        the last bit), so that checks sampling 1 km of road do not call pose_at 200 000 times.
        """
        s = np.asarray(s, dtype=float)
        if self.closed:
            s = np.mod(s, self.length)
        s = np.minimum(np.maximum(s, 0.0), self.length)
        piece = np.minimum(np.searchsorted(self.offsets, s, side='right') - 1, len(self.pieces) - 1)
        local = s - self.offsets[piece]
        out = np.empty((len(s), 3))
        for i in np.unique(piece):
            at = np.flatnonzero(piece == i)
            out[at] = self.pieces[i].poses(local[at])
        return out

    @cached_property
    def _samples(self) -> dict[float, np.ndarray]:
        return {}

    def sample(self, step: float = 0.005) -> np.ndarray:
        """Centre-line points (n×3: x, y, heading) every `step` metres (read-only; kept, since
        the map checks sample every road once per traffic light).
        """
        points = self._samples.get(step)
        if points is None:
            n = max(2, int(math.ceil(self.length / step)) + 1)
            points = self.poses(np.linspace(0.0, self.length, n))
            points.setflags(write=False)
            self._samples[step] = points
        return points


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
    #: What layers above derive from the map once per map object (its road graph): the checks, the
    #: scenario and the controllers of a process share it, and it is kept with a map that
    #: map/map_cache.py stores. Not an argument, so that dataclasses.replace starts it afresh.
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def road(self, road_id: str) -> Road:
        for road in self.roads:
            if road.id == road_id:
                return road
        raise KeyError(road_id)

    @property
    def road_length(self) -> float:
        """Metres of road on the map: every road's, intersections' included."""
        return sum(road.length for road in self.roads)

    @cached_property
    def shape(self) -> tuple[int, int]:
        """Raster shape: (rows = y, cols = x), row 0 at y = 0 like nav_msgs/OccupancyGrid."""
        return (int(round(self.height / self.resolution)), int(round(self.width / self.resolution)))

    @cached_property
    def _barcode_paint(self) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray, tuple[int, int, int, int]]]:
        """(barcode index, rows, cols, black, pixel box) of every piece of barcode, in printing order."""
        out = []
        for k, barcode in enumerate(self.barcodes):
            for rows, cols, s in self.barcode_pixels(barcode):
                if not len(rows):
                    continue
                bit = np.minimum(((s - barcode.at) / BIT_LENGTH).astype(int), barcode.bits - 1)
                box = (int(rows.min()), int(rows.max()) + 1, int(cols.min()), int(cols.max()) + 1)
                out.append((k, rows, cols, np.asarray(barcode.bit_values)[bit] == 1, box))
        return out

    def _index_dtype(self, count: int) -> type:
        """The smallest signed integer for indices 0..count-1 and -1 (the 1 mm raster is big)."""
        return np.int8 if count < 128 else np.int16

    @cached_property
    def _index_layers(self) -> tuple[Tiled, Tiled]:
        return (raster_cache.cached(self, 'road_index', self._build_road_index),
                raster_cache.cached(self, 'barcode_index', self._build_barcode_index))

    def _build_road_index(self) -> Tiled:
        return Tiled.build(self.shape, -1, self._index_dtype(len(self.roads)),
                           cells_near(self._piece_points, self._piece_pad, self.resolution), self.road_index_window)

    def _build_barcode_index(self) -> Tiled:
        return Tiled.build(self.shape, -1, self._index_dtype(len(self.barcodes)),
                           self._barcode_tiles(0.0), self._barcode_index_window)

    def _barcode_index_window(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        codes = np.full((r1 - r0, c1 - c0), -1, dtype=self._index_dtype(len(self.barcodes)))
        for k, rows, cols, _ in self._barcodes_in(r0, r1, c0, c1):
            codes[rows - r0, cols - c0] = k
        return codes

    def _barcodes_in(self, r0: int, r1: int, c0: int, c1: int):
        """(barcode index, rows, cols, black) of the barcode pixels inside a window, in printing order."""
        for j in self._near(self._barcode_blocks, r0, r1, c0, c1):
            k, rows, cols, black, (b0, b1, b2, b3) = self._barcode_paint[j]
            if b0 >= r1 or b1 <= r0 or b2 >= c1 or b3 <= c0:
                continue
            inside = (rows >= r0) & (rows < r1) & (cols >= c0) & (cols < c1)
            if inside.any():
                yield k, rows[inside], cols[inside], black[inside]

    def grey_window(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """``grey[r0:r1, c0:c1]`` painted on that window alone (same values as the whole sheet)."""
        grey = np.ones((r1 - r0, c1 - c0), dtype=np.float32)
        self._paint_roads(grey, None, (r0, r1, c0, c1))
        for _, rows, cols, black in self._barcodes_in(r0, r1, c0, c1):
            grey[rows - r0, cols - c0] = np.where(black, 0.0, 1.0)
        return grey

    def ink_boxes(self) -> list[tuple[int, int, int, int]]:
        """Pixel boxes (r0, r1, c0, c1) outside of which the sheet is bare white paper."""
        return [box for _, _, box in self._pieces_in_drawing_order] + [p[4] for p in self._barcode_paint]

    def ink_tiles(self, reach: float = 0.0) -> np.ndarray:
        """The tiles (:mod:`thymio_road.map.tiles`; rows of row, column) within `reach` metres of ink."""
        return unique_cells(np.concatenate([cells_near(self._piece_points, self._piece_pad + reach, self.resolution),
                                            self._barcode_tiles(reach)]))

    def _barcode_tiles(self, reach: float) -> np.ndarray:
        """The tiles within `reach` of a piece of barcode's pixel box."""
        boxes = self._barcode_points[:, :2].reshape(-1, 4, 2)
        return unique_cells(list(_box_cells(boxes, reach + 2 * self.resolution, self.resolution, TILE)))

    @cached_property
    def grey(self) -> Tiled:
        """Printed grey level per pixel, 1 = white paper, 0 = black, tiled where there is ink
        (4 bytes a pixel there; the simulator itself works on windows,
        :func:`thymio_road.sim.sensors.noiseless_response`).
        """
        return raster_cache.cached(self, 'grey', lambda: Tiled.build(self.shape, 1.0, np.float32, self.ink_tiles(),
                                                                     self.grey_window))

    @cached_property
    def _pieces_in_drawing_order(self) -> list[tuple[int, Piece, tuple[int, int, int, int]]]:
        """(road index, piece, pixel box) of every piece, later layers last (printed over)."""
        res, out = self.resolution, []
        for k in sorted(range(len(self.roads)), key=lambda k: self.roads[k].layer):
            for piece in self.roads[k].pieces:
                pts = np.array([piece.pose_at(s)[:2] for s in np.linspace(0.0, piece.length, 64)])
                out.append((k, piece, _bbox(pts, self.road_width / 2 + 2 * res, res, self.shape)))
        return out

    @property
    def _piece_step(self) -> float:
        """Spacing of the points along each piece that find the blocks it is painted on."""
        return TILE * self.resolution / 4

    @property
    def _piece_pad(self) -> float:
        """How far from a point along a piece its paint may reach: half the road, a pixel's
        diagonal and rounding, half the points' spacing.
        """
        return self.road_width / 2 + 3 * self.resolution + self._piece_step / 2

    @cached_property
    def _piece_points(self) -> np.ndarray:
        """Points along every piece (n×3: x, y, index in _pieces_in_drawing_order)."""
        out = []
        for j, (_, piece, _) in enumerate(self._pieces_in_drawing_order):
            n = max(2, int(math.ceil(piece.length / self._piece_step)) + 1)
            pts = piece.poses(np.linspace(0.0, piece.length, n))
            pts[:, 2] = j
            out.append(pts)
        return np.concatenate(out) if out else np.zeros((0, 3))

    @cached_property
    def _barcode_points(self) -> np.ndarray:
        """The corners of every piece of barcode's pixel box (n×3: x, y, index in _barcode_paint)."""
        res, out = self.resolution, []
        for j, (_, _, _, _, (r0, r1, c0, c1)) in enumerate(self._barcode_paint):
            out += [(c * res, r * res, j) for r in (r0, r1) for c in (c0, c1)]
        return np.array(out, dtype=float).reshape(-1, 3)

    @cached_property
    def _piece_blocks(self) -> dict[tuple[int, int], list[int]]:
        """Block → the pieces that may paint in it (indices in drawing order): a window is painted
        with the pieces near it only, so that painting is linear in the length of road.
        """
        return _index_blocks(self._piece_points, self._piece_pad, self.resolution)

    @cached_property
    def _barcode_blocks(self) -> dict[tuple[int, int], list[int]]:
        """Block → the pieces of barcode (indices in _barcode_paint) whose pixel box reaches it."""
        boxes = self._barcode_points[:, :2].reshape(-1, 4, 2)
        out: dict[tuple[int, int], list[int]] = {}
        for j, box in enumerate(boxes):
            for block in _box_cells(box[None], 2 * self.resolution, self.resolution, TILE * BLOCK):
                out.setdefault(block, []).append(j)
        return out

    def _near(self, blocks: dict[tuple[int, int], list[int]], r0: int, r1: int, c0: int, c1: int) -> list[int]:
        side = TILE * BLOCK
        found: set[int] = set()
        for br in range(r0 // side, (r1 - 1) // side + 1):
            for bc in range(c0 // side, (c1 - 1) // side + 1):
                found.update(blocks.get((br, bc), ()))
        return sorted(found)

    def _paint_roads(self, grey: np.ndarray | None, index: np.ndarray | None,
                     window: tuple[int, int, int, int]) -> None:
        """Paint the roads' gradients and indices into arrays covering rows r0:r1, cols c0:c1 of
        the sheet. Each pixel gets the same value whatever the window, so a window of the
        sheet can be checked without rendering the whole sheet.
        """
        wr0, wr1, wc0, wc1 = window
        res, width = self.resolution, self.road_width
        pieces = self._pieces_in_drawing_order
        for j in self._near(self._piece_blocks, wr0, wr1, wc0, wc1):
            k, piece, (r0, r1, c0, c1) = pieces[j]
            r0, r1, c0, c1 = max(r0, wr0), min(r1, wr1), max(c0, wc0), min(c1, wc1)
            if c0 >= c1 or r0 >= r1:
                continue
            gx, gy = np.meshgrid((np.arange(c0, c1) + 0.5) * res, (np.arange(r0, r1) + 0.5) * res)
            s, u = piece.local(gx, gy)
            mask = (s >= -res / 2) & (s <= piece.length + res / 2) & (np.abs(u) <= width / 2)
            if grey is not None:
                grey[r0 - wr0:r1 - wr0, c0 - wc0:c1 - wc0][mask] = (0.5 + u / width)[mask]
            if index is not None:
                index[r0 - wr0:r1 - wr0, c0 - wc0:c1 - wc0][mask] = k

    def road_index_window(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """``road_index[r0:r1, c0:c1]`` computed on that window alone (the map checks use it,
        so that loading a map does not render its whole raster).
        """
        index = np.full((r1 - r0, c1 - c0), -1, dtype=self._index_dtype(len(self.roads)))
        self._paint_roads(None, index, (r0, r1, c0, c1))
        return index

    @property
    def road_index(self) -> Tiled:
        """Index of the road printed at each pixel, -1 off road (ground truth for the metrics)."""
        return self._index_layers[0]

    @property
    def barcode_index(self) -> Tiled:
        """Index in `barcodes` of the barcode printed at each pixel, -1 elsewhere (ground truth)."""
        return self._index_layers[1]

    def cell_factor(self, cell: float) -> int:
        """How many raster pixels a side of a `cell` metre cell holds; raises ValueError unless
        the cell is a whole multiple of the raster's resolution.
        """
        k = int(round(cell / self.resolution))
        if k < 1 or abs(k * self.resolution - cell) > 1e-9:
            raise ValueError(f'must be a whole multiple of the map resolution {self.resolution} m, got {cell}')
        return k

    def occupancy(self, cell: float | None = None) -> np.ndarray:
        """Printed darkness (0 white paper .. 100 black) on cells of `cell` metres (default: the
        raster's), each the mean grey of its pixels: what ``/map`` publishes. Computed on the
        inked tiles only, without the whole sheet's grey.
        """
        k = 1 if cell is None else self.cell_factor(cell)
        return raster_cache.cached(self, f'occupancy{k}', lambda: self._occupancy(k))

    def _occupancy(self, k: int) -> np.ndarray:
        rows, cols = self.shape
        out = np.zeros((-(-rows // k), -(-cols // k)), dtype=np.int8)
        tile = k * max(1, 256 // k)
        inked = np.zeros((-(-rows // tile), -(-cols // tile)), dtype=bool)
        for tr, tc in self.ink_tiles().tolist():
            r0, c0 = tr * TILE, tc * TILE
            r1, c1 = min(r0 + TILE, rows), min(c0 + TILE, cols)
            if 0 <= r0 < r1 and 0 <= c0 < c1:
                inked[r0 // tile:(r1 - 1) // tile + 1, c0 // tile:(c1 - 1) // tile + 1] = True
        for tr, tc in zip(*np.nonzero(inked)):
            r0, c0 = tr * tile, tc * tile
            r1, c1 = min(r0 + tile, rows), min(c0 + tile, cols)
            grey = self.grey_window(r0, r1, c0, c1)
            if k == 1:
                dark = np.rint((1.0 - grey) * 100)
            else:
                starts_r, starts_c = np.arange(0, r1 - r0, k), np.arange(0, c1 - c0, k)
                sums = np.add.reduceat(np.add.reduceat(grey.astype(np.float64), starts_r, axis=0),
                                       starts_c, axis=1)
                counts = np.outer(np.diff(np.append(starts_r, r1 - r0)), np.diff(np.append(starts_c, c1 - c0)))
                dark = np.rint((1.0 - sums / counts) * 100)
            out[r0 // k:r0 // k + dark.shape[0], c0 // k:c0 // k + dark.shape[1]] = dark.astype(np.int8)
        return out

    @property
    def _blind_rectangles(self) -> list[tuple[float, float, float, float, float]]:
        return [rect for inter in self.intersections for rect in inter.extra.get('blind', ())]

    def _blind_window(self, wr0: int, wr1: int, wc0: int, wc1: int) -> np.ndarray:
        """blind_area[wr0:wr1, wc0:wc1]: each rectangle evaluated on its bounding box in the window."""
        area = np.zeros((wr1 - wr0, wc1 - wc0), dtype=bool)
        res = self.resolution
        ys, xs = ((np.arange(n) + 0.5) * res for n in self.shape)
        for cx, cy, heading, half_along, half_across in self._blind_rectangles:
            c, s = math.cos(heading), math.sin(heading)
            ex = abs(c) * half_along + abs(s) * half_across
            ey = abs(s) * half_along + abs(c) * half_across
            # one pixel of margin each side so rounding never drops a pixel of the rectangle
            c0, c1 = (min(max(int(v), wc0), wc1) for v in ((cx - ex) / res - 1, (cx + ex) / res + 2))
            r0, r1 = (min(max(int(v), wr0), wr1) for v in ((cy - ey) / res - 1, (cy + ey) / res + 2))
            if r0 >= r1 or c0 >= c1:
                continue
            gx, gy = np.meshgrid(xs[c0:c1] - cx, ys[r0:r1] - cy)
            area[r0 - wr0:r1 - wr0, c0 - wc0:c1 - wc0] |= ((np.abs(c * gx + s * gy) <= half_along)
                                                           & (np.abs(-s * gx + c * gy) <= half_across))
        return area

    @cached_property
    def blind_area(self) -> Tiled:
        """Pixels that intersections are built to be crossed blind, over bare paper (a crossroad's
        square and the starts of its out-lanes; rectangles in ``extra['blind']``): a follow
        sensor there is not off its road (ground truth for road losses). Tiled: only the
        rectangles' blocks are evaluated.
        """
        corners = []
        for cx, cy, heading, half_along, half_across in self._blind_rectangles:
            reach = half_along + half_across
            corners += [(cx + dx, cy + dy) for dx in (-reach, reach) for dy in (-reach, reach)]
        tiles = _box_cells(np.array(corners).reshape(-1, 4, 2), 2 * self.resolution, self.resolution, TILE)
        return raster_cache.cached(self, 'blind_area', lambda: Tiled.build(self.shape, False, bool, tiles,
                                                                           self._blind_window))

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


def _index_blocks(points: np.ndarray, pad: float, res: float) -> dict[tuple[int, int], list[int]]:
    """Block (BLOCK × BLOCK tiles) → the sorted indices (points[:, 2]) of the points within `pad` of it."""
    side = BLOCK * TILE * res
    lo = np.floor((points[:, :2] - pad) / side).astype(np.int64)
    hi = np.floor((points[:, :2] + pad) / side).astype(np.int64)
    index = points[:, 2].astype(np.int64)
    span = hi - lo
    found = [np.zeros((0, 3), dtype=np.int64)]
    for dr in range(int(span[:, 1].max(initial=0)) + 1):
        for dc in range(int(span[:, 0].max(initial=0)) + 1):
            ok = (dr <= span[:, 1]) & (dc <= span[:, 0])
            found.append(np.column_stack([lo[ok, 1] + dr, lo[ok, 0] + dc, index[ok]]))
    out: dict[tuple[int, int], list[int]] = {}
    for br, bc, j in np.unique(np.concatenate(found), axis=0).tolist():  # sorted: indices ascend
        out.setdefault((br, bc), []).append(j)
    return out


def _box_cells(boxes: np.ndarray, pad: float, res: float, cell: int) -> set[tuple[int, int]]:
    """Every cell of `cell` pixels that the bounding box of each group of points (k×m×2) reaches, within `pad`."""
    side = cell * res
    out = set()
    for pts in boxes:
        (c0, r0), (c1, r1) = (np.floor((pts.min(axis=0) - pad) / side).astype(int),
                              np.floor((pts.max(axis=0) + pad) / side).astype(int))
        out.update((r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
    return out
