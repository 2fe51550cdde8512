# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Contacts between robot hulls and with the sheet's walls, resolved without interpenetration.

Hulls are convex polygons; overlaps are found with the separating-axis test and removed by moving
the robots apart along the axis of least overlap (static robots, the traffic lights, do not move).
"""
from __future__ import annotations

import numpy as np

from thymio_road.sim import robot_model as rm
from thymio_road.sim.layout import X, XY, Y
from thymio_road.sim.sensors import hulls_world

#: Robots are left this far apart after a contact, so that round-off never reads as overlap.
SLOP = 1e-5


def penetration(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """Depth and unit axis (pointing from a to b) of the overlap of convex polygons; depth <= 0 if apart."""
    best_depth, best_axis = np.inf, np.zeros(2)
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        normals = np.column_stack([edges[:, Y], -edges[:, X]])
        normals /= np.linalg.norm(normals, axis=1)[:, None]
        pa, pb = a @ normals.T, b @ normals.T
        overlap = np.minimum(pa.max(axis=0) - pb.min(axis=0), pb.max(axis=0) - pa.min(axis=0))
        k = int(np.argmin(overlap))
        if overlap[k] < best_depth:
            best_depth, best_axis = float(overlap[k]), normals[k]
    if best_depth > 0 and (b.mean(axis=0) - a.mean(axis=0)) @ best_axis < 0:
        best_axis = -best_axis
    return best_depth, best_axis


def resolve(poses: np.ndarray, movable: np.ndarray, walls: tuple[float, float] | None,
            iterations: int = 8) -> set[tuple[int, int]]:
    """Push overlapping robots apart in place; returns the pairs that were in contact."""
    contacts: set[tuple[int, int]] = set()
    n = len(poses)
    for _ in range(iterations):
        moved = False
        if n > 1:
            dx = poses[:, None, X] - poses[None, :, X]
            dy = poses[:, None, Y] - poses[None, :, Y]
            close = np.argwhere(np.triu(dx * dx + dy * dy < (2 * rm.HULL_BOUND_RADIUS) ** 2, k=1))
            if len(close):
                hulls = hulls_world(poses[np.unique(close)])
                index = {int(k): m for m, k in enumerate(np.unique(close))}
                for i, j in close:
                    depth, axis = penetration(hulls[index[i]], hulls[index[j]])
                    if depth <= 0:
                        continue
                    contacts.add((int(i), int(j)))
                    moved = True
                    _separate(poses, movable, int(i), int(j), axis * (depth + SLOP))
                    hulls[index[i]] = hulls_world(poses[i:i + 1])[0]
                    hulls[index[j]] = hulls_world(poses[j:j + 1])[0]
        if walls is not None:
            moved |= _keep_inside(poses, movable, walls)
        if not moved:
            break
    return contacts


def _separate(poses: np.ndarray, movable: np.ndarray, i: int, j: int, push: np.ndarray) -> None:
    if movable[i] and movable[j]:
        poses[i, XY] -= push / 2
        poses[j, XY] += push / 2
    elif movable[i]:
        poses[i, XY] -= push
    elif movable[j]:
        poses[j, XY] += push


def _keep_inside(poses: np.ndarray, movable: np.ndarray, walls: tuple[float, float]) -> bool:
    hulls = hulls_world(poses)
    low = np.minimum(hulls.min(axis=1), 0.0)
    high = np.maximum(hulls.max(axis=1) - np.array(walls), 0.0)
    shift = -low - high
    shift[~movable] = 0.0
    if not np.any(shift):
        return False
    poses[:, XY] += shift + np.sign(shift) * SLOP
    return True


def overlapping_pairs(poses: np.ndarray, tolerance: float = 1e-6) -> list[tuple[int, int, float]]:
    """Pairs whose hulls overlap by more than `tolerance` metres (for tests and analysis)."""
    hulls = hulls_world(poses)
    found = []
    for i in range(len(poses)):
        for j in range(i + 1, len(poses)):
            if np.hypot(*(poses[i, XY] - poses[j, XY])) >= 2 * rm.HULL_BOUND_RADIUS:
                continue
            depth, _ = penetration(hulls[i], hulls[j])
            if depth > tolerance:
                found.append((i, j, depth))
    return found
