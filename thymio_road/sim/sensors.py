# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Sensor models of the Thymio II as in Enki: ground sensors on the printed map, horizontal proximity.

Both are pure functions of the world's ground truth; a robot's reading is one compiled kernel call
(sim/ground.py, sim/proximity.py).
"""
from __future__ import annotations

import math
from pathlib import Path
import weakref

import numpy as np

from thymio_road.map import raster_cache
from thymio_road.map.road_map import RoadMap
from thymio_road.map.tiles import Tiled
from thymio_road.sim import robot_model as rm
from thymio_road.sim.ground import ground_pair
from thymio_road.sim.layout import END_A, END_B, PROX_COUNT, THETA, X, XY, Y
from thymio_road.sim.noise import NoiseStream
from thymio_road.sim.proximity import prox_read

_RESPONSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


#: The files the response's values come from, besides the map's (the raster cache's key).
_SOURCES = tuple(str(Path(__file__).resolve().parent / name) for name in ('sensors.py', 'robot_model.py'))


def noiseless_response(road_map: RoadMap) -> Tiled:
    """The ground sensor's mean reading at every pixel of the sheet (computed once per map).

    Computed tile by tile (:class:`thymio_road.map.tiles.Tiled`, a block of them at a time): the
    tiles within the blur's reach of ink are painted with a margin (:meth:`RoadMap.grey_window`),
    blurred and kept without the margin, which gives the values of blurring the whole sheet.
    Everywhere else is bare paper, whose response is one constant, so the memory follows the
    length of road, not the floor's area. Kept on disk for the next run (map/raster_cache.py).
    """
    if road_map not in _RESPONSES:
        sigma_px = rm.GROUND_SIGMA / road_map.resolution
        truncate = rm.GROUND_PATCH / 2 / road_map.resolution / sigma_px
        margin = int(truncate * sigma_px + 0.5) + 2  # scipy's kernel radius, and some
        rows, cols = road_map.shape

        def render(r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
            wr0, wr1 = max(r0 - margin, 0), min(r1 + margin, rows)
            wc0, wc1 = max(c0 - margin, 0), min(c1 + margin, cols)
            tile = _response(road_map.grey_window(wr0, wr1, wc0, wc1), sigma_px, truncate)
            return tile[r0 - wr0:r1 - wr0, c0 - wc0:c1 - wc0]

        def build() -> Tiled:
            # bare paper's response only here: a cached raster needs no blur (nor scipy.ndimage)
            paper = _response(np.ones((2 * margin + 1, 2 * margin + 1), np.float32), sigma_px, truncate)
            tiles = road_map.ink_tiles(margin * road_map.resolution)
            return Tiled.build(road_map.shape, paper[margin, margin], np.float32, tiles, render)

        _RESPONSES[road_map] = raster_cache.cached(road_map, 'response', build, _SOURCES)
    return _RESPONSES[road_map]


def _response(grey: np.ndarray, sigma_px: float, truncate: float) -> np.ndarray:
    """Enki's patch (a Gaussian blur truncated at the patch's edge), then the sensor's curve."""
    from scipy.ndimage import gaussian_filter  # here: a run whose rasters are cached needs no ndimage
    blurred = gaussian_filter(grey.astype(np.float32, copy=False), sigma_px, mode='nearest',
                              truncate=truncate)
    return rm.ground_response(blurred).astype(np.float32)


class GroundSensing:
    """Enki's ground sensor: Gaussian-weighted 2×2 cm patch, sigmoid response, noise σ 10.

    The weighted patch is the same for every reading, so it is applied once to the whole sheet
    (a Gaussian blur truncated at the patch's edge); a reading is then one raster look-up.
    """

    def __init__(self, road_map: RoadMap, noise: float = rm.GROUND_NOISE) -> None:
        self.response = noiseless_response(road_map)
        self.road_map = road_map
        self.noise = noise

    def read_pair(self, x: float, y: float, theta: float, noise: NoiseStream) -> tuple[int, int]:
        """(left, right) raw values for a robot at pose (x, y, θ): the hot path, compiled."""
        n0, n1 = noise.pair()
        rows, cols = self.response.shape
        return ground_pair(x, y, theta, self.response.directory, self.response.tiles, rows, cols,
                           self.road_map.resolution, self.noise, n0, n1)

    def read(self, points: np.ndarray, noise: NoiseStream) -> np.ndarray:
        """Raw values (0..1023) at world points (n×2)."""
        r, c = self.road_map.pixel(points[:, X], points[:, Y])
        value = self.response[r, c] + self.noise * noise.take(len(points))
        return np.clip(np.rint(value), 0, rm.GROUND_MAX).astype(np.int16)


def transform(points: np.ndarray, pose: np.ndarray) -> np.ndarray:
    """Robot-frame points (k×2) to the world frame for one pose (x, y, θ)."""
    c, s = math.cos(pose[THETA]), math.sin(pose[THETA])
    return np.column_stack([pose[X] + c * points[:, X] - s * points[:, Y],
                            pose[Y] + s * points[:, X] + c * points[:, Y]])


def hulls_world(poses: np.ndarray, hull: np.ndarray = rm.HULL) -> np.ndarray:
    """Hull polygons of all robots in the world frame (n×k×2)."""
    c, s = np.cos(poses[:, THETA])[:, None], np.sin(poses[:, THETA])[:, None]
    x = poses[:, X:X + 1] + c * hull[None, :, X] - s * hull[None, :, Y]
    y = poses[:, Y:Y + 1] + s * hull[None, :, X] + c * hull[None, :, Y]
    return np.stack([x, y], axis=-1)


def ray_distances(origins: np.ndarray, dirs: np.ndarray, seg_a: np.ndarray, seg_b: np.ndarray,
                  max_range: float) -> np.ndarray:
    """Distance along each ray (r×2 origins, unit dirs) to the nearest segment; inf beyond range."""
    if len(seg_a) == 0:
        return np.full(len(origins), np.inf)
    e = seg_b - seg_a  # (s, 2)
    w = seg_a[None, :, :] - origins[:, None, :]  # (r, s, 2)
    denom = dirs[:, None, X] * e[None, :, Y] - dirs[:, None, Y] * e[None, :, X]
    with np.errstate(divide='ignore', invalid='ignore'):
        t = (w[..., X] * e[None, :, Y] - w[..., Y] * e[None, :, X]) / denom
        u = (w[..., X] * dirs[:, None, Y] - w[..., Y] * dirs[:, None, X]) / denom
    hit = (np.abs(denom) > 1e-12) & (t >= 0) & (t <= max_range) & (u >= 0) & (u <= 1)
    t = np.where(hit, t, np.inf)
    return t.min(axis=1)


class ProxSensing:
    """Enki's horizontal proximity model: three rays per sensor, response F, noise σ 2.87.

    value = F(d_left) + F(d_centre) + F(d_right) - 2·F(d_centre / cos 15°), clamped to [0, m]:
    a flat surface facing the sensor gives F(d_centre); other robots' hulls and walls are seen.
    """

    def __init__(self, walls: np.ndarray | None, noise: float = rm.PROX_NOISE,
                 box: tuple[float, float] | None = None) -> None:
        self.walls = walls if walls is not None else np.zeros((0, 2, 2))
        #: When the walls are the sheet's border (width, height), a quick inside test skips them.
        self.box = box
        self.noise = noise
        self.reach = rm.HULL_BOUND_RADIUS * 2 + rm.PROX_RANGE

    def read(self, i: int, poses: np.ndarray, noise: NoiseStream) -> np.ndarray:
        """The 7 raw values (Aseba order) for robot i, given every robot's pose (compiled rays)."""
        walls = self.walls_near(poses[i]) if len(self.walls) else self.walls
        buffer, at = noise.reserve(PROX_COUNT)
        out = np.empty(PROX_COUNT, dtype=np.int16)
        if not prox_read(i, poses, self.reach * self.reach, walls, float(self.noise), buffer, at, out):
            return _ZEROS.copy()
        noise.advance(PROX_COUNT)
        return out

    def walls_near(self, pose: np.ndarray) -> np.ndarray:
        """Wall segments that a sensor of a robot at `pose` could reach."""
        if not len(self.walls):
            return self.walls
        x, y = float(pose[X]), float(pose[Y])
        reach = rm.HULL_BOUND_RADIUS + rm.PROX_RANGE
        if self.box is not None and reach < x < self.box[0] - reach and reach < y < self.box[1] - reach:
            return self.walls[:0]
        a, b = self.walls[:, END_A], self.walls[:, END_B]
        e = b - a
        t = np.clip(((pose[XY] - a) * e).sum(axis=1) / (e * e).sum(axis=1), 0.0, 1.0)
        closest = a + t[:, None] * e
        return self.walls[((closest - pose[XY]) ** 2).sum(axis=1) < reach * reach]


_ZEROS = np.zeros(PROX_COUNT, dtype=np.int16)


def sheet_walls(width: float, height: float) -> np.ndarray:
    """The four borders of the sheet as wall segments (4×2×2)."""
    corners = np.array([(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)])
    return np.stack([corners, np.roll(corners, -1, axis=0)], axis=1)
