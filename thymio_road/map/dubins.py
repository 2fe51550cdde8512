# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Shortest road between two poses with a minimum turning radius (Dubins' CSC paths).

Roads that join intersections are given as `from:`/`to:` poses in a map; this turns them into the
straight and arc pieces the map model draws, so maps are built from parts, not drawn by hand.
"""
from __future__ import annotations

import math

Pose = tuple[float, float, float]


def _mod(a: float) -> float:
    return a % (2 * math.pi)


def dubins(start: Pose, end: Pose, radius: float) -> list[dict]:
    """Pieces (map YAML form: {'arc': {...}} / {'straight': L}) of the shortest CSC path.

    Only the four turn-straight-turn words are used (LSL, RSR, LSR, RSL): they exist whenever the
    poses are at least 4 radii apart, which is what a road between two intersections needs.
    """
    x0, y0, h0 = start
    x1, y1, h1 = end
    best: tuple[float, list[dict]] | None = None
    for first, second in (('L', 'L'), ('R', 'R'), ('L', 'R'), ('R', 'L')):
        path = _csc(x0, y0, h0, x1, y1, h1, radius, first, second)
        if path is not None and (best is None or path[0] < best[0]):
            best = path
    if best is None:
        raise ValueError(f'no turn-straight-turn road of radius {radius} m joins {start} to {end}')
    return best[1]


def _centre(x: float, y: float, h: float, r: float, turn: str) -> tuple[float, float]:
    k = r if turn == 'L' else -r
    return x - k * math.sin(h), y + k * math.cos(h)


def _csc(x0: float, y0: float, h0: float, x1: float, y1: float, h1: float, r: float,
         first: str, second: str) -> tuple[float, list[dict]] | None:
    c0 = _centre(x0, y0, h0, r, first)
    c1 = _centre(x1, y1, h1, r, second)
    dx, dy = c1[0] - c0[0], c1[1] - c0[1]
    d = math.hypot(dx, dy)
    if first == second:
        if d < 1e-9:
            return None
        heading = math.atan2(dy, dx)
        length = d
    else:
        if d < 2 * r:
            return None
        length = math.sqrt(d * d - 4 * r * r)
        tilt = math.atan2(2 * r, length)
        heading = math.atan2(dy, dx) + (tilt if first == 'L' else -tilt)
    sign0 = 1 if first == 'L' else -1
    sign1 = 1 if second == 'L' else -1
    a0 = _mod(sign0 * (heading - h0))
    a1 = _mod(sign1 * (h1 - heading))
    pieces = []
    if a0 > 1e-9:
        pieces.append({'arc': {'radius': r, 'angle_deg': round(math.degrees(sign0 * a0), 9)}})
    if length > 1e-9:
        pieces.append({'straight': round(length, 9)})
    if a1 > 1e-9:
        pieces.append({'arc': {'radius': r, 'angle_deg': round(math.degrees(sign1 * a1), 9)}})
    total = r * (a0 + a1) + length
    return total, pieces
