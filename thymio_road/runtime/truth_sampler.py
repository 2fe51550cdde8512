"""The embedded run's samples of the published ground truth, built as analysis/sampling.py builds
them from a bag, so that the run's probes and ``thymio-road analyze`` measure the same poses."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from thymio_road.analysis.sampling import interpolate, recorded_yaw, seconds


class TruthSampler:
    """Reads the world node's log of published ground truths (WorldNode.truth_log)."""

    def __init__(self, world_node: Any) -> None:
        self.node = world_node

    def held(self, bodies: Sequence[int]) -> np.ndarray:
        """Each body's last published pose (n×3; NaN before its first): sampled by a timer, which
        fires before the world's tick of the same time, these are the poses stamped before it."""
        out = np.full((len(bodies), 3), np.nan)
        rows = [(k, self.node.truth_log[i][1]) for k, i in enumerate(bodies)]
        rows = [(k, last) for k, last in rows if last is not None]
        if rows:
            out[[k for k, _ in rows], 0] = [last[1] for _, last in rows]
            out[[k for k, _ in rows], 1] = [last[2] for _, last in rows]
            out[[k for k, _ in rows], 2] = recorded_yaw([last[3] for _, last in rows])
        return out

    def interpolated(self, bodies: Sequence[int], t_ns: int) -> np.ndarray:
        """Each body's pose at t_ns (at least one event period ago) between its two published poses
        around it (n×3; NaN where it has none at or after t_ns, or none before and none exactly at)."""
        out = np.full((len(bodies), 3), np.nan)
        t = float(seconds(t_ns))
        pairs, exact = [], []
        for k, i in enumerate(bodies):
            prev, last = self.node.truth_log[i]
            if last is None or last[0] < t_ns:
                continue
            if prev is not None and prev[0] < t_ns:
                pairs.append((k, prev, last))
            elif last[0] == t_ns and prev is None:
                exact.append((k, last))
        if pairs:
            ks = [k for k, _, _ in pairs]
            t0 = seconds([p[0] for _, p, _ in pairs])
            t1 = seconds([q[0] for _, _, q in pairs])
            p0 = np.column_stack([[p[1] for _, p, _ in pairs], [p[2] for _, p, _ in pairs],
                                  recorded_yaw([p[3] for _, p, _ in pairs])])
            p1 = np.column_stack([[q[1] for _, _, q in pairs], [q[2] for _, _, q in pairs],
                                  recorded_yaw([q[3] for _, _, q in pairs])])
            out[ks] = interpolate(t0, p0, t1, p1, np.full(len(ks), t))
        for k, last in exact:
            out[k] = (last[1], last[2], recorded_yaw([last[3]])[0])
        return out
