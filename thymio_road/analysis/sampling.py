# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""What the detectors see: robots' poses at common sample times, from the ground truth as published.

The live run (runtime/) and ``thymio-road analyze`` must give the same figures, so both feed the
detectors the same samples, built from the same data: the ground-truth poses the world publishes
(one per robot per "prox" event, each robot on its own phase of the 0.1 s period), with their
stamps and yaws exactly as a bag gives them back (:func:`seconds`, :func:`recorded_yaw`).

Two samplings, one per kind of detector:

- **held** (stalls, progress, wrong way; every second): each robot's last pose stamped *before*
  the sample time. The run's probes are timers, and the executor fires a timer due at t before the
  world's tick of t (equal times go in arming order, and the world re-arms its tick after the
  probe), so they see exactly the poses stamped before t; events are taken the same way.
- **interpolated** (contacts, merge and crossroad conflicts; every 0.1 s): each robot's pose at
  the sample time, linear between the two published poses around it, so that robots on different
  phases are compared at one instant. The run evaluates sample t at t + 0.1 s, once every robot
  has published at or after t.

A robot without a pose for a sample (none published yet) has NaN there and is left out of it.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

#: The interpolated samples' period (s) and, in ns, the run's lag behind them.
INTERPOLATED_PERIOD = 0.1
INTERPOLATED_PERIOD_NS = 100_000_000
#: The held samples' period (s).
HELD_PERIOD = 1.0
HELD_PERIOD_NS = 1_000_000_000


def seconds(ns: np.ndarray | int) -> np.ndarray | float:
    """A stamp in ns as a bag's reader gives it back: sec + nanosec · 1e-9 (float64)."""
    ns = np.asarray(ns, dtype=np.int64)
    return (ns // 1_000_000_000).astype(np.float64) + (ns % 1_000_000_000).astype(np.float64) * 1e-9


def quaternion_yaw(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The yaw a bag's reader (analysis/bag.py) takes from a planar quaternion (0, 0, z, w)."""
    z, w = np.asarray(z, dtype=np.float64), np.asarray(w, dtype=np.float64)
    return np.arctan2(2 * (w * z + 0.0 * 0.0), 1 - 2 * (0.0 * 0.0 + z * z))


def recorded_yaw(theta: Sequence[float]) -> np.ndarray:
    """The yaw a bag gives back for a pose published with heading theta: the world writes the
    quaternion (0, 0, sin θ/2, cos θ/2) with math's functions (WorldNode.truth_log keeps them).
    """
    return quaternion_yaw([math.sin(th / 2) for th in theta], [math.cos(th / 2) for th in theta])


def grid(start: float, end: float, period_ns: int) -> np.ndarray:
    """Sample times k · period (k ≥ 1) from `start` to `end` inclusive, in ns (integers, so that
    the run and a bag name the same instants).
    """
    first = max(1, math.ceil(round(start * 1e9) / period_ns))
    last = math.floor(round(end * 1e9) / period_ns)
    return np.arange(first, last + 1, dtype=np.int64) * period_ns


def interpolate(t0: np.ndarray, p0: np.ndarray, t1: np.ndarray, p1: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Poses (m×3) at times t0 < t ≤ t1 between (t0, p0) and (t1, p1), the yaw along the shorter turn."""
    f = ((t - t0) / (t1 - t0))[:, None]
    d = p1 - p0
    d[:, 2] = (d[:, 2] + math.pi) % (2 * math.pi) - math.pi
    out = p0 + f * d
    out[:, 2] = (out[:, 2] + math.pi) % (2 * math.pi) - math.pi
    return out


def held(stamps: np.ndarray, poses: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The last pose stamped before each time (m×3; NaN before the first)."""
    k = np.searchsorted(stamps, times, side='left') - 1
    out = np.full((len(times), 3), np.nan)
    ok = k >= 0
    out[ok] = poses[k[ok]]
    return out


def interpolated(stamps: np.ndarray, poses: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The pose at each time between the published poses around it (m×3; NaN outside them)."""
    out = np.full((len(times), 3), np.nan)
    if len(stamps) == 0:
        return out
    k = np.searchsorted(stamps, times, side='left')   # stamps[k] >= t > stamps[k - 1]
    exact = (k < len(stamps)) & (k == 0)
    exact &= stamps[np.minimum(k, len(stamps) - 1)] == times
    between = (k >= 1) & (k < len(stamps))
    kk = k[between]
    out[between] = interpolate(stamps[kk - 1], poses[kk - 1], stamps[kk], poses[kk], times[between])
    out[exact] = poses[0]
    return out


def value_before(stamps: Sequence[float], values: Sequence, times: np.ndarray) -> list:
    """The last value stamped before each time (None before the first): what the run's probe has
    heard from the controllers' events when it samples.
    """
    k = np.searchsorted(np.asarray(stamps, dtype=float), times, side='left') - 1
    return [values[i] if i >= 0 else None for i in k]


def at_or_before(stamps: np.ndarray, poses: np.ndarray, t: float) -> np.ndarray | None:
    """The last pose stamped at or before t (a controller's event at t follows the world's
    publication of the same tick), None before the first.
    """
    k = int(np.searchsorted(stamps, t + 1e-9, side='right')) - 1
    return poses[k] if k >= 0 else None
