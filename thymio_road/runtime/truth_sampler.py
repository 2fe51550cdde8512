"""The embedded run's samples of the published ground truth, built as analysis/sampling.py builds
them from a bag, so that the run's probes and ``thymio-road analyze`` measure the same poses."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from thymio_road.analysis.sampling import interpolate, recorded_yaw, seconds


#: A body that has not published: NaN stamp and pose.
_NONE = (math.nan, math.nan, math.nan, math.nan)


class TruthSampler:
    """Reads the world node's log of published ground truths (WorldNode.truth_log)."""

    def __init__(self, world_node: Any) -> None:
        self.node = world_node

    def _rows(self, bodies: Sequence[int], which: int) -> np.ndarray:
        """(stamp ns, x, y, yaw as recorded) of each body's last (which=1) or previous (0) pose."""
        log = self.node.truth_log
        rows = np.array([log[i][which] or _NONE for i in bodies], dtype=np.float64).reshape(len(bodies), 4)
        ok = ~np.isnan(rows[:, 0])
        if ok.any():
            rows[ok, 3] = recorded_yaw(rows[ok, 3].tolist())
        return rows

    def held(self, bodies: Sequence[int]) -> np.ndarray:
        """Each body's last published pose (n×3; NaN before its first): sampled by a timer, which
        fires before the world's tick of the same time, these are the poses stamped before it."""
        return self._rows(bodies, 1)[:, 1:]

    def interpolated(self, bodies: Sequence[int], t_ns: int) -> np.ndarray:
        """Each body's pose at t_ns (at least one event period ago) between its two published poses
        around it (n×3; NaN where it has none at or after t_ns, or none before and none exactly at)."""
        last, prev = self._rows(bodies, 1), self._rows(bodies, 0)
        out = np.full((len(bodies), 3), np.nan)
        with np.errstate(invalid='ignore'):
            after = last[:, 0] >= t_ns                  # NaN: False
            pair = after & (prev[:, 0] < t_ns)
            exact = after & np.isnan(prev[:, 0]) & (last[:, 0] == t_ns)
        if pair.any():
            k = np.flatnonzero(pair)
            t0 = seconds(prev[k, 0].astype(np.int64))
            t1 = seconds(last[k, 0].astype(np.int64))
            out[k] = interpolate(t0, prev[k, 1:], t1, last[k, 1:], np.full(len(k), float(seconds(t_ns))))
        out[exact] = last[exact, 1:]
        return out
