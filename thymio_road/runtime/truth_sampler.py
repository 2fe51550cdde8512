# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The embedded run's samples of the published ground truth, built as analysis/sampling.py builds
them from a bag, so that the run's probes and ``thymio-road analyze`` measure the same poses.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from thymio_road.analysis.sampling import interpolate, quaternion_yaw, seconds


class TruthSampler:
    """Reads the world node's log of published ground truths (WorldNode.truth_log: per body the
    stamp in ns, x, y, qz and qw of the pose before the last, then of the last; NaN: none).
    """

    def __init__(self, world_node: Any) -> None:
        self.node = world_node

    def _rows(self, bodies: Sequence[int] | None) -> np.ndarray:
        log = self.node.truth_log
        return np.array(log if bodies is None else [log[i] for i in bodies], dtype=np.float64).reshape(-1, 10)

    def held(self, bodies: Sequence[int] | None = None) -> np.ndarray:
        """Each body's last published pose (n×3; NaN before its first): sampled by a timer, which
        fires before the world's tick of the same time, these are the poses stamped before it.
        `bodies`: indices in the world (None: all).
        """
        rows = self._rows(bodies)
        return np.column_stack([rows[:, 6], rows[:, 7], quaternion_yaw(rows[:, 8], rows[:, 9])])

    def interpolated(self, t_ns: int, bodies: Sequence[int] | None = None) -> np.ndarray:
        """Each body's pose at t_ns (at least one event period ago) between its two published poses
        around it (n×3; NaN where it has none at or after t_ns, or none before and none exactly at).
        """
        rows = self._rows(bodies)
        n = len(rows)
        prev = np.column_stack([rows[:, 1], rows[:, 2], quaternion_yaw(rows[:, 3], rows[:, 4])])
        last = np.column_stack([rows[:, 6], rows[:, 7], quaternion_yaw(rows[:, 8], rows[:, 9])])
        pair = (rows[:, 5] >= t_ns) & (rows[:, 0] < t_ns)          # NaN compares False
        t = float(seconds(t_ns))
        if pair.all():                                             # every body, once all have published
            stamps = seconds(rows[:, (0, 5)].astype(np.int64))
            return interpolate(stamps[:, 0], prev, stamps[:, 1], last, np.full(n, t))
        out = np.full((n, 3), np.nan)
        exact = (rows[:, 5] == t_ns) & np.isnan(rows[:, 0])
        out[exact] = last[exact]
        if pair.any():
            k = np.flatnonzero(pair)
            stamps = seconds(rows[k][:, (0, 5)].astype(np.int64))
            out[k] = interpolate(stamps[:, 0], prev[k], stamps[:, 1], last[k], np.full(len(k), t))
        return out
