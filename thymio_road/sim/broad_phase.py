# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Broad phase: which robots are close enough to sense or touch one another.

Compiled kernels over an array of poses (columns X, Y of layout.py): an event's neighbours,
the per-tick contact pass's robots (a sweep along x, no N×N matrix) and the cheap test that
lets contact resolution, which is Python (collision.py), be skipped when no two hulls can touch.
"""
from __future__ import annotations

import math

from numba import njit
import numpy as np

from thymio_road.sim import kernel_cache
from thymio_road.sim.kernel_cache import DIGEST
from thymio_road.sim.layout import X, Y

#: No list of robots: within_among looks at all of them.
ALL_ROBOTS = np.zeros(0, dtype=np.int64)


@njit(cache=True)
def within(i: int, poses: np.ndarray, radius2: float, out: np.ndarray) -> int:
    """Robots (i included) whose centre is closer than sqrt(radius2) to robot i's, ascending in out."""
    return within_among(i, poses, radius2, ALL_ROBOTS, -1, out)


@njit(cache=True)
def close_robots(poses: np.ndarray, radius: float, radius2: float, out: np.ndarray) -> int:
    """Robots with another robot's centre closer than `radius`, ascending in out (sweep and prune).

    Sorted along x, a robot is compared only with those within `radius` in x: no N×N work when
    the robots are spread out.
    """
    n = poses.shape[0]
    order = np.argsort(poses[:, X], kind='mergesort')
    close = np.zeros(n, dtype=np.bool_)
    for a in range(n):
        ia = order[a]
        for b in range(a + 1, n):
            ib = order[b]
            dx = poses[ia, X] - poses[ib, X]
            if -dx >= radius:
                break
            dy = poses[ia, Y] - poses[ib, Y]
            if dx * dx + dy * dy < radius2:
                close[ia] = True
                close[ib] = True
    m = 0
    for j in range(n):
        if close[j]:
            out[m] = j
            m += 1
    return m


@njit(cache=True)
def any_pair_within(poses: np.ndarray, group: np.ndarray, radius2: float) -> bool:
    """Whether two robots of the group have centres closer than sqrt(radius2)."""
    for a in range(len(group)):
        for b in range(a + 1, len(group)):
            dx = poses[group[a], X] - poses[group[b], X]
            dy = poses[group[a], Y] - poses[group[b], Y]
            if dx * dx + dy * dy < radius2:
                return True
    return False


#: Multipliers of the cells' hash (large primes: neighbouring cells fall in different buckets).
HASH_X, HASH_Y = 73856093, 19349663


@njit(cache=True)
def grid_size(n: int) -> int:
    """Buckets of a grid of n robots: a power of two, at least 2n."""
    size = 16
    while size < 2 * n:
        size *= 2
    return size


@njit(cache=True)
def _bucket(cx: int, cy: int, size: int) -> int:
    return ((cx * HASH_X) ^ (cy * HASH_Y)) & (size - 1)


@njit(cache=True)
def grid_build(poses: np.ndarray, cell: float, head: np.ndarray, chain: np.ndarray) -> None:
    """Hash the robots into square cells of side `cell`: head[bucket] is a robot of the bucket
    (-1: none), chain[j] the next one. The cells make an event's neighbour search local: with
    N robots, N searches over all robots per tick grow as N².
    """
    head[:] = -1
    size = head.shape[0]
    for j in range(poses.shape[0] - 1, -1, -1):
        b = _bucket(int(math.floor(poses[j, X] / cell)), int(math.floor(poses[j, Y] / cell)), size)
        chain[j] = head[b]
        head[b] = j


@njit(cache=True)
def grid_near(x: float, y: float, cell: float, head: np.ndarray, chain: np.ndarray, out: np.ndarray) -> int:
    """The robots hashed into the 3 × 3 cells around (x, y), ascending in out; their count.

    Every robot whose position when hashed was closer than `cell` to (x, y) is among them (a
    cell's side is `cell`); buckets that two of the nine cells share are walked once.
    """
    size = head.shape[0]
    cx, cy = int(math.floor(x / cell)), int(math.floor(y / cell))
    seen = np.empty(9, dtype=np.int64)
    n_seen = 0
    m = 0
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            b = _bucket(cx + dx, cy + dy, size)
            walked = False
            for k in range(n_seen):
                if seen[k] == b:
                    walked = True
            if walked:
                continue
            seen[n_seen] = b
            n_seen += 1
            j = head[b]
            while j >= 0:
                out[m] = j
                m += 1
                j = chain[j]
    for a in range(1, m):  # insertion sort: the lists are short
        v = out[a]
        b = a - 1
        while b >= 0 and out[b] > v:
            out[b + 1] = out[b]
            b -= 1
        out[b + 1] = v
    return m


@njit(cache=True)
def within_among(i: int, poses: np.ndarray, radius2: float, among: np.ndarray, m_among: int, out: np.ndarray) -> int:
    """:func:`within`, looking only at among[:m_among] (ascending; all robots when m_among < 0)."""
    n = 0
    x, y = poses[i, X], poses[i, Y]
    for q in range(poses.shape[0] if m_among < 0 else m_among):
        j = q if m_among < 0 else among[q]
        dx = poses[j, X] - x
        dy = poses[j, Y] - y
        if dx * dx + dy * dy < radius2:
            out[n] = j
            n += 1
    return n


@njit(cache=True)
def compiled_digest() -> int:
    """kernel_cache.DIGEST as it was when this file's cached kernels were compiled."""
    return DIGEST


kernel_cache.refresh(globals())
