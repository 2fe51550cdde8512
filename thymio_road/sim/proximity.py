# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Horizontal proximity sensors: Enki's three rays per sensor against walls and near hulls.

Compiled kernels over an array of poses (columns X, Y, THETA of layout.py). A sensor's value
is F(d_left) + F(d_centre) + F(d_right) - 2·F(d_centre / cos 15°) plus noise, clamped to
[0, m] (ProxSensing's model); the formulas and their order are the numpy code's
(test/world_reference.py), so the readings are the same to the bit.
"""
from __future__ import annotations

import math

from numba import njit
import numpy as np

from thymio_road.sim import kernel_cache
from thymio_road.sim import robot_model as rm
from thymio_road.sim.broad_phase import ALL_ROBOTS
from thymio_road.sim.kernel_cache import DIGEST
from thymio_road.sim.layout import AX, AY, BX, BY, END_A, END_B, PROX_COUNT, SEGMENT_ROWS, THETA, X, Y

PROX_RANGE = rm.PROX_RANGE
PROX_M = rm.PROX_M
#: The response's numerator and the denominator's linear factor, as the numpy code computed them.
PROX_NUM = rm.PROX_M * (rm.PROX_C - rm.PROX_X0 ** 2)
PROX_2X0 = 2 * rm.PROX_X0
PROX_C = rm.PROX_C
#: A sensor's rays (rm.PROX_RAY_ANGLES): the centre one also gives the slanted term.
RAYS = len(rm.PROX_RAY_ANGLES)
LEFT_RAY, CENTRE_RAY, RIGHT_RAY = 0, 1, 2
COS_SIDE_RAY = math.cos(float(rm.PROX_RAY_ANGLES[RIGHT_RAY]))
#: Each ray's origin in the robot's frame (X, Y) and its angle, sensor by sensor (as ProxSensing).
PROX_ORIGINS = np.ascontiguousarray(np.repeat(rm.PROX_SENSORS[:, X:Y + 1], RAYS, axis=0))
PROX_ANGLES = np.ascontiguousarray((rm.PROX_SENSORS[:, THETA][:, None] + rm.PROX_RAY_ANGLES[None, :]).reshape(-1))
HULL = np.ascontiguousarray(rm.HULL)
HULL_POINTS = HULL.shape[0]
#: (Bounding radius of the hull + 0.1 mm)²: a ray that passes farther from a robot's centre
#: cannot hit its hull (the margin covers the hull's corners and round-off).
HULL_SKIP2 = (float(np.hypot(HULL[:, X], HULL[:, Y]).max()) + 1e-4) ** 2


@njit(cache=True)
def _response(x: float) -> float:
    """Enki's response for a distance in cm (0 where nothing is hit)."""
    if not math.isfinite(x):
        return 0.0
    return PROX_NUM / (x * x - PROX_2X0 * x + PROX_C)


@njit(cache=True)
def prox_read(i: int, poses: np.ndarray, reach2: float, walls: np.ndarray, sigma: float, noise: np.ndarray,
              at: int, out: np.ndarray) -> bool:
    """Robot i's PROX_COUNT raw values into out, rays against near hulls and the given walls,
    with the noise samples noise[at:].

    Returns False (out untouched, no noise used) when nothing is within reach, as ProxSensing.
    """
    n = poses.shape[0]
    return prox_rays(i, poses, reach2, walls, sigma, noise, at, out, np.empty(n, dtype=np.int64),
                     np.empty((SEGMENT_ROWS, walls.shape[0] + n * HULL_POINTS)), ALL_ROBOTS, -1)


@njit(cache=True)
def prox_rays(i: int, poses: np.ndarray, reach2: float, walls: np.ndarray, sigma: float, noise: np.ndarray,
              at: int, out: np.ndarray, near: np.ndarray, segments: np.ndarray, among: np.ndarray,
              m_among: int) -> bool:
    """:func:`prox_read` with its work arrays given: `near` (n robots), `segments` (SEGMENT_ROWS
    rows of at least walls + n hulls' edges), so that a robot event allocates nothing; the other
    robots looked at are among[:m_among], ascending (all of them when m_among < 0).
    """
    x, y, th = poses[i, X], poses[i, Y], poses[i, THETA]
    m = 0
    for q0 in range(poses.shape[0] if m_among < 0 else m_among):
        j = q0 if m_among < 0 else among[q0]
        dx = poses[j, X] - x
        dy = poses[j, Y] - y
        if dx * dx + dy * dy < reach2 and j != i:
            near[m] = j
            m += 1
    nw = walls.shape[0]
    if m == 0 and nw == 0:
        return False
    k = HULL_POINTS
    ax = segments[AX]
    ay = segments[AY]
    bx = segments[BX]
    by = segments[BY]
    for s in range(nw):
        ax[s], ay[s], bx[s], by[s] = walls[s, END_A, X], walls[s, END_A, Y], walls[s, END_B, X], walls[s, END_B, Y]
    for q in range(m):
        j = near[q]
        c, s_ = math.cos(poses[j, THETA]), math.sin(poses[j, THETA])
        base = nw + q * k
        for p in range(k):
            ax[base + p] = poses[j, X] + c * HULL[p, X] - s_ * HULL[p, Y]
            ay[base + p] = poses[j, Y] + s_ * HULL[p, X] + c * HULL[p, Y]
        for p in range(k):
            nxt = (p + 1) % k
            bx[base + p], by[base + p] = ax[base + nxt], ay[base + nxt]
    c, s_ = math.cos(th), math.sin(th)
    f0 = 0.0
    f1 = 0.0
    f2 = 0.0
    for q in range(PROX_COUNT):
        value = 0.0
        slant = 0.0
        for ray in range(RAYS):
            r = RAYS * q + ray
            lx, ly = PROX_ORIGINS[r, X], PROX_ORIGINS[r, Y]
            best = _ray(x + c * lx - s_ * ly, y + s_ * lx + c * ly, PROX_ANGLES[r] + th, poses, near, m, nw, segments)
            if ray == LEFT_RAY:
                f0 = _response(best * 100.0)
            elif ray == CENTRE_RAY:
                f1 = _response(best * 100.0)
                slant = _response(best / COS_SIDE_RAY * 100.0)
            else:
                f2 = _response(best * 100.0)
        value = f0 + f1 + f2 - 2.0 * slant
        seen = value > 0
        value = value + sigma * noise[at + q]
        if seen:
            out[q] = np.int16(np.rint(min(max(value, 0.0), PROX_M)))
        else:
            out[q] = 0
    return True


@njit(cache=True)
def _ray(ox: float, oy: float, ang: float, poses: np.ndarray, near: np.ndarray, m: int, nw: int,
         segments: np.ndarray) -> float:
    """Distance along the ray from (ox, oy) at angle `ang` to the nearest of the nw walls and the
    m near robots' hulls in `segments` (inf: none within range).
    """
    ax = segments[AX]
    ay = segments[AY]
    bx = segments[BX]
    by = segments[BY]
    dx, dy = math.cos(ang), math.sin(ang)
    best = np.inf
    for q in range(-1, m):
        if q < 0:  # the walls
            first, last = 0, nw
        else:
            # A hull farther from the ray than its bounding radius cannot be hit: its
            # segments are skipped (the nearest hit, the minimum, is the same).
            cx = poses[near[q], X] - ox
            cy = poses[near[q], Y] - oy
            along = min(max(cx * dx + cy * dy, 0.0), PROX_RANGE)
            gx = cx - along * dx
            gy = cy - along * dy
            if gx * gx + gy * gy > HULL_SKIP2:
                continue
            first = nw + q * HULL_POINTS
            last = first + HULL_POINTS
        for s in range(first, last):
            ex = bx[s] - ax[s]
            ey = by[s] - ay[s]
            wx = ax[s] - ox
            wy = ay[s] - oy
            denom = dx * ey - dy * ex
            if abs(denom) > 1e-12:
                tt = (wx * ey - wy * ex) / denom
                u = (wx * dy - wy * dx) / denom
                if tt >= 0 and tt <= PROX_RANGE and u >= 0 and u <= 1 and tt < best:
                    best = tt
    return best


@njit(cache=True)
def compiled_digest() -> int:
    """kernel_cache.DIGEST as it was when this file's cached kernels were compiled."""
    return DIGEST


kernel_cache.refresh(globals())
