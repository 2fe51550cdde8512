# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Contacts and near misses between Thymios' hulls, from poses: one definition for the run and a bag.

A **contact** is a sample at which two bodies' hulls (robot_model.HULL, the Enki outline; traffic
lights are Thymios too) are :data:`CONTACT_GAP` (2 mm) or less apart; a **near miss** is a pair
closer than :data:`NEAR_MISS_GAP` (2 cm) that never gets that close. A pair's samples within
:data:`EPISODE_MERGE` of one another make one *episode*, a contact episode if any of its samples
is a contact. The samples are the interpolated ones of :mod:`.sampling` (every 0.1 s).

Why poses and not the simulator's own contact count (``World.contacts``, hulls it had to push
apart at a 10 ms tick): a bag has only the published poses, and those are always pushed apart
already (the world resolves an overlap before a robot senses or publishes), so only a gap can be
measured there, never an overlap. The run measures the same gap on the same samples, so that
``summary.json`` and ``thymio-road analyze`` count the same contacts.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any, Callable, Sequence

import numpy as np

from thymio_road.analysis.metrics import hull_gaps
from thymio_road.sim import robot_model as rm

CONTACT_GAP = 0.002
NEAR_MISS_GAP = 0.02
#: Close samples of one pair this near in time (s) are one episode.
EPISODE_MERGE = 0.5
#: Bins of the hull's support table (SUPPORT).
_BINS = 720


def _support_table(hull: np.ndarray, bins: int = _BINS) -> np.ndarray:
    """For each bin of directions (robot frame), the most the hull reaches along any direction of
    the bin: max over its vertices v of v·u. Separating along the line of centres, two hulls are
    at least d − reach_a − reach_b apart, which spares the exact gap of a queue's pairs.
    """
    edges = np.linspace(-math.pi, math.pi, bins + 1)
    a, b = edges[:-1, None], edges[1:, None]
    vx, vy = hull[None, :, 0], hull[None, :, 1]
    ends = np.maximum(vx * np.cos(a) + vy * np.sin(a), vx * np.cos(b) + vy * np.sin(b))
    peak = np.arctan2(vy, vx)
    inside = (peak >= a) & (peak <= b)
    return np.where(inside, np.hypot(vx, vy), ends).max(axis=1) + 1e-9


SUPPORT = _support_table(rm.HULL)


@dataclass
class ProximityEpisode:
    a: str
    b: str
    start: float
    end: float
    min_gap: float
    #: Samples at which the pair was in contact (gap ≤ the contact gap).
    contact_samples: int
    x: float
    y: float
    where: str = ''

    @property
    def contact(self) -> bool:
        return self.contact_samples > 0

    @property
    def kind(self) -> str:
        return 'collision' if self.contact else 'near miss'

    def as_dict(self) -> dict[str, Any]:
        return {'a': self.a, 'b': self.b, 'kind': self.kind, 'start_s': round(self.start, 3),
                'end_s': round(self.end, 3), 'min_gap_mm': round(self.min_gap * 1000, 2),
                'contact_samples': self.contact_samples, 'x': round(self.x, 3), 'y': round(self.y, 3),
                'where': self.where}


def _reach(angle: np.ndarray) -> np.ndarray:
    """SUPPORT at directions (robot frame, any angle)."""
    k = ((np.asarray(angle) + math.pi) % (2 * math.pi)) * (_BINS / (2 * math.pi))
    return SUPPORT[np.minimum(k.astype(np.int64), _BINS - 1)]


class ContactDetector:
    """Feed it every body's pose at each sample (NaN rows: no pose); it keeps the episodes."""

    def __init__(self, names: Sequence[str], contact: float = CONTACT_GAP, near: float = NEAR_MISS_GAP,
                 merge: float = EPISODE_MERGE, describe: Callable[[float, float], str] | None = None) -> None:
        self.names = list(names)
        self.contact, self.near, self.merge, self.describe = contact, near, merge, describe
        n = len(self.names)
        self._i, self._j = np.triu_indices(n, 1)
        self._reach2 = (2 * rm.HULL_BOUND_RADIUS + near) ** 2
        self.episodes: list[ProximityEpisode] = []
        self._open: dict[tuple[int, int], ProximityEpisode] = {}
        self.contact_samples = 0

    def update(self, t: float, poses: np.ndarray) -> None:
        poses = np.asarray(poses, dtype=float)
        if len(self._i) == 0:
            return
        d = poses[self._j, :2] - poses[self._i, :2]
        with np.errstate(invalid='ignore'):
            close = np.flatnonzero((d * d).sum(axis=1) < self._reach2)
        if len(close) == 0:
            return
        a, b = self._i[close], self._j[close]
        dx, dy = d[close, 0], d[close, 1]
        direction = np.arctan2(dy, dx)
        reach = _reach(direction - poses[a, 2]) + _reach(direction + math.pi - poses[b, 2])
        exact = np.hypot(dx, dy) - reach < self.near
        if not exact.any():
            return
        a, b = a[exact], b[exact]
        gaps = hull_gaps(poses[a], poses[b])
        for i, j, gap in zip(a.tolist(), b.tolist(), gaps.tolist()):
            if gap < self.near:
                self._close_sample(t, i, j, gap, poses)

    def run(self, times: np.ndarray, poses: np.ndarray) -> None:
        """:meth:`update` for every sample at once (m times, m×n×3 poses): the same episodes, pair
        by pair over the whole recording, as `thymio-road analyze` needs.
        """
        found = []
        for pair, (i, j) in enumerate(zip(self._i.tolist(), self._j.tolist())):
            d = poses[:, j, :2] - poses[:, i, :2]
            with np.errstate(invalid='ignore'):
                close = np.flatnonzero((d * d).sum(axis=1) < self._reach2)
            if len(close) == 0:
                continue
            dx, dy = d[close, 0], d[close, 1]
            direction = np.arctan2(dy, dx)
            reach = _reach(direction - poses[close, i, 2]) + _reach(direction + math.pi - poses[close, j, 2])
            close = close[np.hypot(dx, dy) - reach < self.near]
            if len(close) == 0:
                continue
            gaps = hull_gaps(poses[close, i], poses[close, j])
            hit = gaps < self.near
            found += zip(close[hit].tolist(), [pair] * int(hit.sum()), gaps[hit].tolist())
        found.sort()
        for k, pair, gap in found:
            self._close_sample(float(times[k]), int(self._i[pair]), int(self._j[pair]), gap, poses[k])

    def _close_sample(self, t: float, i: int, j: int, gap: float, poses: np.ndarray) -> None:
        """Bodies i and j less than the near-miss gap apart at t."""
        ep = self._open.get((i, j))
        if ep is None or t - ep.end > self.merge + 1e-9:
            x, y = (poses[i, :2] + poses[j, :2]) / 2
            ep = ProximityEpisode(self.names[i], self.names[j], t, t, gap, 0, float(x), float(y))
            self._open[(i, j)] = ep
            self.episodes.append(ep)
        ep.end = t
        if gap < ep.min_gap:
            ep.min_gap = gap
        if gap <= self.contact:
            if not ep.contact:   # where the pair first touched
                ep.x, ep.y = (float(v) for v in (poses[i, :2] + poses[j, :2]) / 2)
            ep.contact_samples += 1
            self.contact_samples += 1

    def contacts(self) -> list[ProximityEpisode]:
        return [e for e in self.episodes if e.contact]

    def per_body(self) -> dict[str, dict[str, int]]:
        """Robot name → {'contacts': contact episodes, 'near_misses': near-miss episodes} it took part in."""
        out = {name: {'contacts': 0, 'near_misses': 0} for name in self.names}
        for e in self.episodes:
            key = 'contacts' if e.contact else 'near_misses'
            out[e.a][key] += 1
            out[e.b][key] += 1
        return out

    def summary(self, limit: int = 50) -> dict[str, Any]:
        """The contact figures of summary.json's traffic block and of the analysis."""
        touching = self.contacts()
        if self.describe is not None:
            for e in touching[:limit]:
                if not e.where:
                    e.where = self.describe(e.x, e.y)
        return {'hull_contacts': len(touching), 'contact_samples': self.contact_samples,
                'contact_episodes': [e.as_dict() for e in touching[:limit]]}
