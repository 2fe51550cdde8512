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

from numba import njit
import numpy as np

from thymio_road.sim import kernel_cache
from thymio_road.sim.kernel_cache import DIGEST
from thymio_road.sim.layout import X, Y


@njit(cache=True)
def within(i: int, poses: np.ndarray, radius2: float, out: np.ndarray) -> int:
    """Robots (i included) whose centre is closer than sqrt(radius2) to robot i's, ascending in out."""
    n = 0
    x, y = poses[i, X], poses[i, Y]
    for j in range(poses.shape[0]):
        dx = poses[j, X] - x
        dy = poses[j, Y] - y
        if dx * dx + dy * dy < radius2:
            out[n] = j
            n += 1
    return n


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


@njit(cache=True)
def compiled_digest() -> int:
    """kernel_cache.DIGEST as it was when this file's cached kernels were compiled."""
    return DIGEST


kernel_cache.refresh(globals())
