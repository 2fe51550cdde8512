# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Metrics of a run from ground-truth poses, the map and the controllers' events (pure numpy).

Each function takes arrays and returns numbers or small records, so it can be tested on
hand-made data. The definitions follow the simulator's own ground truth where it has one
(:mod:`thymio_road.sim.world`): a robot is on the road while its follow (left) ground sensor is over
a printed road pixel or an intersection's blind area, and a *road loss* is a stretch of at least
0.3 s off the road.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any, Iterable, Sequence

import numpy as np

from thymio_road.sim import robot_model as rm
from thymio_road.sim.sensors import hulls_world
from thymio_road.sim.world import ROAD_LOSS_TIME

#: A robot is stopped under this ground-truth speed (m/s) ...
STOP_SPEED = 0.005
#: ... for at least this long.
STOP_MIN_TIME = 0.5
#: A stop within this distance (m, axle centres) of a traffic light is waiting at that light.
LIGHT_RADIUS = 0.35
#: Two samples further apart than this are a gap in the recording, not motion.
MAX_SAMPLE_GAP = 1.0


# --- road keeping ------------------------------------------------------------------------------

def sensor_points(x: np.ndarray, y: np.ndarray, yaw: np.ndarray,
                  sensor: tuple[float, float] = rm.GROUND_SENSORS_TUPLE[0]) -> tuple[np.ndarray, np.ndarray]:
    """World position of a robot-frame point (default: the follow ground sensor)."""
    gx, gy = sensor
    c, s = np.cos(yaw), np.sin(yaw)
    return x + c * gx - s * gy, y + s * gx + c * gy


def raster_lookup(mask: np.ndarray, resolution: float, origin: tuple[float, float],
                  px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Values of a raster (row 0 at the origin's y) at points, clipped to it as the world does."""
    rows, cols = mask.shape
    r = np.clip(((py - origin[1]) / resolution).astype(np.int64), 0, rows - 1)
    c = np.clip(((px - origin[0]) / resolution).astype(np.int64), 0, cols - 1)
    return mask[r, c]


def on_road_mask(road_map: Any) -> np.ndarray:
    """Pixels where the follow sensor is on the road: a printed road, or an intersection's blind
    area (a crossroad's square, crossed over bare paper). The test of the world's own ground truth
    (sim/ground.road_truth), as a raster the analysis can look poses up in.
    """
    return (road_map.road_index >= 0) | road_map.blind_area


def road_keeping_figures(time_sensed: float, time_on_road: float, losses: int) -> dict[str, Any]:
    """A robot's road keeping as summary.json and the analysis report it: seconds to 0.01 s and
    the on-road fraction of those rounded seconds, so that both give the same numbers.
    """
    time_s, on = round(time_sensed, 2), round(time_on_road, 2)
    return {'time_s': time_s, 'time_on_road_s': on, 'on_road_fraction': round(on / time_s, 4) if time_s else None,
            'road_losses': int(losses)}


@dataclass
class RoadKeeping:
    time_sensed: float
    time_on_road: float
    losses: int
    #: (start, end) of each loss: first off-road sample to the next on-road one (or the last sample).
    loss_spans: list[tuple[float, float]]


def road_keeping(t: np.ndarray, on: np.ndarray, period: float) -> RoadKeeping:
    """Time on road and losses from on-road flags sampled every `period` seconds.

    Mirrors ``World.record_road_truth``: each sample stands for one period, and a loss is a run
    of off-road samples lasting at least ROAD_LOSS_TIME (3 samples at 10 Hz).
    """
    n = len(on)
    if n == 0:
        return RoadKeeping(0.0, 0.0, 0, [])
    starts, ends = runs(~on)
    spans = []
    for a, b in zip(starts, ends):
        if (b - a) * period >= ROAD_LOSS_TIME - 1e-9:
            spans.append((float(t[a]), float(t[b]) if b < n else float(t[-1]) + period))
    return RoadKeeping(n * period, float(on.sum()) * period, len(spans), spans)


def runs(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) indices of the runs of True."""
    f = np.concatenate([[False], np.asarray(flags, dtype=bool), [False]])
    d = np.diff(f.astype(np.int8))
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def sample_period(t: np.ndarray, default: float = rm.PROX_EVENT_PERIOD) -> float:
    if len(t) < 2:
        return default
    return float(np.median(np.diff(t)))


def path_length(x: np.ndarray, y: np.ndarray, t: np.ndarray | None = None) -> float:
    """Sum of the straight steps between samples (recording gaps are not counted as motion), in
    order and with math.hypot, as the embedded run sums its published poses (WorldNode.truth_distance).
    """
    if len(x) < 2:
        return 0.0
    dx, dy = np.diff(x).tolist(), np.diff(y).tolist()
    keep = (np.diff(t) <= MAX_SAMPLE_GAP + 1e-9).tolist() if t is not None else [True] * len(dx)
    total = 0.0
    for a, b, k in zip(dx, dy, keep):
        if k:
            total += math.hypot(a, b)
    return total


# --- states --------------------------------------------------------------------------------------

def state_timeline(initial: str | None, changes: Sequence[tuple[float, str]], t0: float,
                   t1: float) -> list[tuple[float, float, str]]:
    """Intervals (start, end, state) from an initial state and timed changes, clipped to [t0, t1]."""
    out: list[tuple[float, float, str]] = []
    state, since = initial, t0
    for t, new in sorted(changes, key=lambda c: c[0]):
        t = min(max(t, t0), t1)
        if state is not None and t > since:
            out.append((since, t, state))
        state, since = new, t
    if state is not None and t1 > since:
        out.append((since, t1, state))
    return out


def time_per_state(timeline: Iterable[tuple[float, float, str]]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for a, b, state in timeline:
        totals[state] = totals.get(state, 0.0) + (b - a)
    return totals


def state_at(timeline: Sequence[tuple[float, float, str]], times: np.ndarray) -> np.ndarray:
    """State name at each time ('' outside the timeline)."""
    out = np.full(len(times), '', dtype=object)
    for a, b, state in timeline:
        out[(times >= a) & (times < b)] = state
    if timeline:
        out[times >= timeline[-1][1]] = timeline[-1][2]
    return out


# --- robots against one another ------------------------------------------------------------------

def hull_gaps(pa: np.ndarray, pb: np.ndarray, block: int = 20000) -> np.ndarray:
    """Distance between the hulls of robots at poses pa and pb (m×3 each); 0 where they overlap."""
    out = np.empty(len(pa))
    for k in range(0, len(pa), block):
        a = hulls_world(pa[k:k + block])
        b = hulls_world(pb[k:k + block])
        gap = np.minimum(_vertex_edge_distance(a, b), _vertex_edge_distance(b, a))
        gap[_overlap(a, b)] = 0.0
        out[k:k + block] = gap
    return out


def _vertex_edge_distance(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Smallest distance from the vertices of polygons p to the edges of polygons q (m×k×2)."""
    e0 = q
    e1 = np.roll(q, -1, axis=1)
    d = e1 - e0                                      # m×k×2
    length2 = np.maximum((d * d).sum(-1), 1e-18)     # m×k
    rel = p[:, :, None, :] - e0[:, None, :, :]       # m×kp×kq×2
    u = np.clip((rel * d[:, None]).sum(-1) / length2[:, None], 0.0, 1.0)
    closest = rel - u[..., None] * d[:, None]
    return np.sqrt((closest * closest).sum(-1)).min(axis=(1, 2))


def _overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Separating-axis test for convex polygons, vectorised over m pairs."""
    overlapping = np.ones(len(a), dtype=bool)
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=1) - poly
        normals = np.stack([edges[..., 1], -edges[..., 0]], axis=-1)       # m×k×2
        pa = np.einsum('mvd,mkd->mvk', a, normals)
        pb = np.einsum('mvd,mkd->mvk', b, normals)
        separated = (pa.max(1) < pb.min(1)) | (pb.max(1) < pa.min(1))      # m×k
        overlapping &= ~separated.any(axis=1)
    return overlapping


# --- where on the network ------------------------------------------------------------------------

def project_on_roads(road_map: Any, x: np.ndarray, y: np.ndarray, max_offset: float = 0.06
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Road index, arc length along it and lateral offset of points (road -1 when off the network).

    The nearest piece (smallest |offset| among the pieces whose extent contains the point) wins.
    """
    n = len(x)
    best_road = np.full(n, -1, dtype=np.int64)
    best_s = np.zeros(n)
    best_u = np.full(n, np.inf)
    for k, road in enumerate(road_map.roads):
        for piece, offset in zip(road.pieces, road.offsets):
            s, u = piece.local(x, y)
            inside = (s >= -1e-6) & (s <= piece.length + 1e-6) & (np.abs(u) < np.abs(best_u)) \
                & (np.abs(u) <= max_offset)
            best_road[inside] = k
            best_s[inside] = s[inside] + offset
            best_u[inside] = u[inside]
    best_u[best_road < 0] = np.nan
    return best_road, best_s, best_u


def lap_crossings(t: np.ndarray, road: np.ndarray, s: np.ndarray, lengths: Sequence[float],
                  closed: Sequence[bool]) -> list[tuple[float, int]]:
    """Times a robot drives forward over the start (s = 0) of a closed road, with the road index.

    Only consecutive samples on the same road count; the time is interpolated between them.
    """
    out: list[tuple[float, int]] = []
    if len(t) < 2:
        return out
    same = (road[1:] == road[:-1]) & (road[1:] >= 0) & (np.diff(t) <= MAX_SAMPLE_GAP)
    for k in np.flatnonzero(same):
        r = int(road[k])
        if not closed[r]:
            continue
        length = lengths[r]
        ds = s[k + 1] - s[k]
        if ds < -length / 2:  # wrapped forward through s = 0
            before = length - s[k]
            step = before + s[k + 1]
            f = before / step if step > 0 else 0.0
            out.append((float(t[k] + f * (t[k + 1] - t[k])), r))
    return out


# --- stops ---------------------------------------------------------------------------------------

def stops(t: np.ndarray, x: np.ndarray, y: np.ndarray, speed: float = STOP_SPEED,
          min_time: float = STOP_MIN_TIME) -> list[tuple[float, float, float, float]]:
    """Stretches where the robot stands still: (start, end, x, y)."""
    if len(t) < 2:
        return []
    dt = np.diff(t)
    v = np.hypot(np.diff(x), np.diff(y)) / np.where(dt > 0, dt, np.inf)
    still = v < speed
    out = []
    for a, b in zip(*runs(still)):
        start, end = float(t[a]), float(t[b])
        if end - start >= min_time - 1e-9:
            out.append((start, end, float(x[a]), float(y[a])))
    return out


def is_static(x: np.ndarray, y: np.ndarray, tolerance: float = 0.001) -> bool:
    """Never moved more than `tolerance` from its first pose (a traffic-light Thymio)."""
    return len(x) > 0 and float(np.hypot(x - x[0], y - y[0]).max()) <= tolerance


def nearest(points: np.ndarray, x: float, y: float) -> tuple[int, float]:
    if len(points) == 0:
        return -1, math.inf
    d = np.hypot(points[:, 0] - x, points[:, 1] - y)
    k = int(np.argmin(d))
    return k, float(d[k])
