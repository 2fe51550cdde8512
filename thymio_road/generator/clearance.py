# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Room between the roads of a candidate map, checked before the loader (which only refuses
roads whose bands touch): robots are 11 cm wide and see 14 cm ahead, so roads that the
generator did not design side by side must keep well apart.

Each road is sampled every 2 cm. Near its ends a road meets its hub's ports, where the hub's own
lanes are close by design, so the first and last 35 cm are not checked. Roads drawn together (a
group: an edge's two ways, a loop pair, a branching's two loops) are designed to their spacing and
are only held to the road-to-road minimum; roads of different groups keep 30 cm, and 20 cm from a
hub's own roads (a crossroad's lanes, a ring). Location sidings count as part of their road, and
a location's light must stand 25 cm from every road but its own.
"""
from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np
from scipy.spatial import cKDTree

from thymio_road.generator.paths import Path
from thymio_road.generator.plan import MapPlan
from thymio_road.map.intersections import SIDING_OFFSET

STEP = 0.02
END_FREE = 0.35
#: Least distance between centre lines (m): other groups, a hub's own roads, one group's roads,
#: one road with itself (parts more than SELF_APART of road apart; a crossroad's lanes are 21.6 cm
#: apart, and a balloon leaves and enters by them), a light and any road.
BETWEEN_GROUPS, FROM_HUBS, WITHIN_GROUP, LIGHT = 0.30, 0.20, 0.18, 0.25
SELF_APART = 1.0
#: A location's siding (intersections.location): it leaves the road and rejoins it 93.8 cm later.
SIDING_LENGTH = 0.938


@dataclass
class Points:
    xy: np.ndarray
    s: np.ndarray
    road: np.ndarray
    group: np.ndarray
    checked: np.ndarray
    hub: np.ndarray


class Crowded(ValueError):
    """Two roads (or a light and a road) of a candidate map are too close."""


def points(plan: MapPlan) -> tuple[Points, list[str]]:
    """Samples of every road of the plan (generated ones and the hubs'), with sidings."""
    parts: list[tuple[np.ndarray, int, int, bool, bool]] = []
    names: list[str] = []
    groups = {g: i for i, g in enumerate(sorted({r.group for r in plan.roads} | {h.id for h in plan.hubs}))}
    for h in plan.hubs:
        for r in h._built.roads:
            start = (r['start'][0], r['start'][1], math.radians(r['start'][2]))
            names.append(r['id'])
            parts.append((Path(start, list(r['pieces'])).samples(STEP), len(names) - 1, groups[h.id], True, False))
    index = {}
    for r in plan.roads:
        names.append(r.id)
        index[r.id] = len(names) - 1
        rows = r.path.samples(STEP)
        parts.append((rows, len(names) - 1, groups[r.group], False, True))
    for loc in plan.locations:
        # A siding is sampled as part of its road (same index and arc lengths), 13 cm to its right.
        host = plan.road(loc.road)
        rows = host.path.samples(STEP)
        rows = rows[(rows[:, 3] >= loc.at) & (rows[:, 3] <= loc.at + SIDING_LENGTH)].copy()
        rows[:, 0] += SIDING_OFFSET * np.sin(rows[:, 2])
        rows[:, 1] -= SIDING_OFFSET * np.cos(rows[:, 2])
        parts.append((rows, index[host.id], groups[host.group], False, False))
    xy = np.concatenate([p[0][:, :2] for p in parts])
    s = np.concatenate([p[0][:, 3] for p in parts])
    road = np.concatenate([np.full(len(p[0]), p[1]) for p in parts])
    group = np.concatenate([np.full(len(p[0]), p[2]) for p in parts])
    hub = np.concatenate([np.full(len(p[0]), p[3]) for p in parts])
    length = {k: plan.road(names[k]).path.length for k in index.values()}
    checked = np.concatenate([
        (END_FREE <= p[0][:, 3]) & (p[0][:, 3] <= length[p[1]] - END_FREE) if p[4] else np.zeros(len(p[0]), bool)
        for p in parts])
    # Sidings are checked against other roads like their road (they are not at its ends).
    sidings = np.concatenate([np.full(len(p[0]), not p[3] and not p[4]) for p in parts])
    return Points(xy, s, road, group, checked | sidings, hub), names


def check(pts: Points, names: list[str]) -> None:
    """Raise Crowded naming the two roads that come too close."""
    tree = cKDTree(pts.xy)
    pairs = tree.query_pairs(BETWEEN_GROUPS, output_type='ndarray')
    if not len(pairs):
        return
    i, j = pairs[:, 0], pairs[:, 1]
    d = np.hypot(*(pts.xy[i] - pts.xy[j]).T)
    hub_i, hub_j = pts.hub[i], pts.hub[j]
    mine = ~hub_i & ~hub_j & pts.checked[i] & pts.checked[j]
    same_road = pts.road[i] == pts.road[j]
    same_group = pts.group[i] == pts.group[j]
    # Against a hub's own roads (their spacing among themselves is the loader's design).
    near_hub = (hub_i ^ hub_j) & np.where(hub_i, pts.checked[j], pts.checked[i]) & (d < FROM_HUBS)
    bad = near_hub | (mine & ~same_group & (d < BETWEEN_GROUPS)) | \
        (mine & same_group & ~same_road & (d < WITHIN_GROUP)) | \
        (mine & same_road & (np.abs(pts.s[i] - pts.s[j]) > SELF_APART) & (d < WITHIN_GROUP))
    if bad.any():
        k = int(np.argmax(bad))
        a, b = int(i[k]), int(j[k])
        raise Crowded(f"roads '{names[pts.road[a]]}' and '{names[pts.road[b]]}' come {d[k] * 100:.0f} cm "
                      f'apart near ({pts.xy[a][0]:.2f}, {pts.xy[a][1]:.2f}) m')


def light_clear_of(pts: Points, names: list[str], road: str, pose: tuple[float, float, float]) -> bool:
    """Whether a location's light stands 25 cm from every road but its own (and its siding)."""
    mine = pts.road == names.index(road)
    d = np.hypot(pts.xy[:, 0] - pose[0], pts.xy[:, 1] - pose[1])
    return bool((d[~mine] >= LIGHT).all())


def bounds(pts: Points) -> tuple[float, float, float, float]:
    """(xmin, ymin, xmax, ymax) of every road's centre line and siding."""
    return (float(pts.xy[:, 0].min()), float(pts.xy[:, 1].min()), float(pts.xy[:, 0].max()),
            float(pts.xy[:, 1].max()))
