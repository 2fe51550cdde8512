# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Ground sensing and the road truth: look-ups in the map's rasters under the ground sensors.

Compiled kernels. The sensors' Gaussian patch is applied once to the whole sheet
(sensors.noiseless_response), so a reading is one raster look-up plus noise (the rasters are
tiled: thymio_road/map/tiles.py); the road truth
(time on the road, road losses, the barcode under the reading sensor) samples the map's masks
under the same sensors. The left sensor follows the road, the right one reads the barcodes.
"""
from __future__ import annotations

import math

from numba import njit
import numpy as np

from thymio_road.map.tiles import TILE_MASK, TILE_SHIFT
from thymio_road.sim import kernel_cache
from thymio_road.sim import robot_model as rm
from thymio_road.sim.kernel_cache import DIGEST
from thymio_road.sim.layout import (BARCODE_INDEX, BARCODE_TILES, BLIND_AREA, BLIND_TILES, DIRECTORIES, LEFT,
                                    OFF_ROAD_FOR, PAIR, POSE, RIGHT, ROAD_INDEX, ROAD_LOSSES, ROAD_TILES, THETA,
                                    TIME_ON_ROAD, TIME_SENSED, X, Y)

GROUND_MAX = rm.GROUND_MAX
#: The sensors' positions in the robot's frame, rows LEFT and RIGHT, columns X and Y.
GROUND_SENSORS = np.ascontiguousarray(rm.GROUND_SENSORS, dtype=float)
FOLLOW, READING = LEFT, RIGHT


@njit(cache=True)
def tile_at(directory: np.ndarray, tiles: np.ndarray, r: int, c: int):
    """Pixel (r, c) of a tiled raster (thymio_road.map.tiles.Tiled: its directory and tiles)."""
    return tiles[directory[r >> TILE_SHIFT, c >> TILE_SHIFT], r & TILE_MASK, c & TILE_MASK]


@njit(cache=True)
def ground_pair(x: float, y: float, th: float, directory: np.ndarray, response: np.ndarray, rows: int, cols: int,
                resolution: float, sigma: float, n0: float, n1: float) -> tuple[int, int]:
    """(left, right) raw ground values: one look-up each in the blurred response (tiled, on a
    sheet of rows × cols pixels), then the noise samples n0 and n1.
    """
    c, s = math.cos(th), math.sin(th)
    out0 = 0
    out1 = 0
    for k in range(PAIR):
        gx, gy = GROUND_SENSORS[k, X], GROUND_SENSORS[k, Y]
        px = x + c * gx - s * gy
        py = y + s * gx + c * gy
        r = min(max(int(py / resolution), 0), rows - 1)
        col = min(max(int(px / resolution), 0), cols - 1)
        value = np.float64(tile_at(directory, response, r, col)) + sigma * (n0 if k == LEFT else n1)
        v = min(max(int(np.rint(value)), 0), GROUND_MAX)
        if k == LEFT:
            out0 = v
        else:
            out1 = v
    return out0, out1


@njit(cache=True)
def _pixel(x: float, y: float, th: float, gx: float, gy: float, resolution: float, rows: int, cols: int
           ) -> tuple[int, int]:
    """(row, column) of the raster pixel under the robot-frame point (gx, gy) of pose (x, y, th)."""
    c, s = math.cos(th), math.sin(th)
    px = x + c * gx - s * gy
    py = y + s * gx + c * gy
    return min(max(int(py / resolution), 0), rows - 1), min(max(int(px / resolution), 0), cols - 1)


@njit(cache=True)
def road_truth(i: int, robots: np.ndarray, robot_ints: np.ndarray, tables: tuple, rows: int, cols: int,
               resolution: float, period: float, loss_time: float) -> int:
    """Ground truth at robot i's event: road keeping under the follow sensor (time on road, losses);
    returns the barcode under the reading sensor (-1: none), which the same pose gives.
    """
    directories = tables[DIRECTORIES]
    road_index = tables[ROAD_TILES]
    blind_area = tables[BLIND_TILES]
    barcode_index = tables[BARCODE_TILES]
    x, y, th = robots[i, POSE + X], robots[i, POSE + Y], robots[i, POSE + THETA]
    r, col = _pixel(x, y, th, GROUND_SENSORS[FOLLOW, X], GROUND_SENSORS[FOLLOW, Y], resolution, rows, cols)
    on = (tile_at(directories[ROAD_INDEX], road_index, r, col) >= 0
          or tile_at(directories[BLIND_AREA], blind_area, r, col))
    robots[i, TIME_SENSED] += period
    off = robots[i, OFF_ROAD_FOR]
    if on:
        robots[i, TIME_ON_ROAD] += period
        robots[i, OFF_ROAD_FOR] = 0.0
    else:
        if off < loss_time and loss_time <= off + period + 1e-9:
            robot_ints[i, ROAD_LOSSES] += 1
        robots[i, OFF_ROAD_FOR] = off + period
    r, col = _pixel(x, y, th, GROUND_SENSORS[READING, X], GROUND_SENSORS[READING, Y], resolution, rows, cols)
    return int(tile_at(directories[BARCODE_INDEX], barcode_index, r, col))


@njit(cache=True)
def compiled_digest() -> int:
    """kernel_cache.DIGEST as it was when this file's cached kernels were compiled."""
    return DIGEST


kernel_cache.refresh(globals())
