# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The network checks that run once a map is parsed: its road graph, then its traffic lights.

They live here, not in each other, so that the graph and the lights both build on the map model
without importing one another (:mod:`thymio_road.map.loader` runs them).
"""
from __future__ import annotations


import numpy as np

from thymio_road.map.lights import check_lights
from thymio_road.map.road_graph import check_graph, RoadGraph
from thymio_road.map.road_map import MapError, RoadMap


def check_network(road_map: RoadMap) -> RoadGraph:
    """Validate the road graph and the lights' places and addressing; raises MapError."""
    graph = check_graph(road_map)
    if road_map.intersections:
        # Traffic lights: their places and their addressing by node ids (docs/traffic.md).
        check_lights(graph)
    return graph


def check_crossings(road_map: RoadMap, owners: dict[str, str], step: float = 0.005) -> None:
    """Refuse roads whose bands overlap where no intersection was built (raises MapError).

    Two roads may share paper only where one starts or ends on the other (an exit splitting off,
    an entry merging, a road continuing from an intersection's arm) or where both belong to the
    same intersection (a roundabout's ring, a crossroad's lanes, a branching's links). Anywhere
    else a robot following one road would read the other's gradient, and no barcode tells it
    what to do there: the report's maps never let roads cross outside an intersection.
    """
    width = road_map.road_width
    near_end = 2 * width
    samples = [(np.linspace(0.0, road.length, len(p)), p[:, :2]) for road in road_map.roads
               for p in (road.sample(step),)]
    # Broad phase: the pairs of samples closer than a road width, from a grid of all samples
    # (linear in the length of road; comparing every pair took 27 GB for 300 m of road).
    first = np.cumsum([0] + [len(p) for _, p in samples])
    points = np.concatenate([p for _, p in samples])
    i, j = close_pairs(points, width)
    close = np.hypot(points[i, 0] - points[j, 0], points[i, 1] - points[j, 1]) < width
    i, j = i[close], j[close]
    road_of = np.repeat(np.arange(len(samples)), np.diff(first))
    ra, rb = road_of[i], road_of[j]
    keep = ra <= rb
    i, j, ra, rb = i[keep], j[keep], ra[keep], rb[keep]
    # Each pair of roads' close samples, ordered as np.nonzero ordered the matrix (rows, then columns).
    order = np.lexsort((j, i, rb, ra))
    i, j, ra, rb = i[order], j[order], ra[order], rb[order]
    starts = np.flatnonzero(np.r_[True, (ra[1:] != ra[:-1]) | (rb[1:] != rb[:-1])]) if len(i) else []
    for lo, hi in zip(starts, [*starts[1:], len(i)]):
        a, b = int(ra[lo]), int(rb[lo])
        road_a, road_b = road_map.roads[a], road_map.roads[b]
        if a != b and owners.get(road_a.id) is not None and owners.get(road_a.id) == owners.get(road_b.id):
            continue  # the intersection's own roads: built to meet
        (sa, pa), (sb, _) = samples[a], samples[b]
        rows, cols = i[lo:hi] - first[a], j[lo:hi] - first[b]
        if a == b:
            gap = np.abs(sa[rows] - sb[cols])
            if road_a.closed:
                gap = np.minimum(gap, road_a.length - gap)
            rows, cols = rows[gap > 3 * width], cols[gap > 3 * width]
        if not len(rows):
            continue
        # One stretch of overlap per run of consecutive samples along road a.
        breaks = np.nonzero(np.diff(rows) > 2)[0] + 1
        for run_rows, run_cols in zip(np.split(rows, breaks), np.split(cols, breaks)):
            ends = [(sa[run_rows], road_a), (sb[run_cols], road_b)]
            if a != b and any(not road.closed and (s.min() <= near_end or s.max() >= road.length - near_end)
                              for s, road in ends):
                continue  # a split, merge or joint: one road starts or ends on the other
            x, y = pa[run_rows[len(run_rows) // 2]]
            what = (f"road '{road_a.id}' crosses itself" if a == b else
                    f"roads '{road_a.id}' and '{road_b.id}' cross")
            raise MapError(f'{road_map.source}: {what} near ({x:.3f}, {y:.3f}) m with no intersection '
                           'there (roads may only meet at an intersection: add a crossroad, or move '
                           'one road at least one road width away)')


def close_pairs(points: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (i, j), i ≠ j, of points (n×2) in the same or neighbouring cells of a
    grid of `reach` metres: a superset of the pairs closer than `reach`, found in time and
    memory linear in the number of points and pairs (a grid hash: the points sorted by cell,
    each cell's neighbours looked up by binary search). scipy.spatial's k-d tree did the same
    but took half a second to import.
    """
    cell = np.floor(points / reach).astype(np.int64)
    cell -= cell.min(axis=0) - 1
    width = int(cell[:, 1].max()) + 2
    key = cell[:, 0] * width + cell[:, 1]
    order = np.argsort(key, kind='stable')
    sorted_keys = key[order]
    firsts, lasts = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            wanted = key + dx * width + dy
            lo = np.searchsorted(sorted_keys, wanted, side='left')
            hi = np.searchsorted(sorted_keys, wanted, side='right')
            firsts.append(lo)
            lasts.append(hi)
    lo, hi = np.concatenate(firsts), np.concatenate(lasts)
    owner = np.tile(np.arange(len(points)), 9)
    counts = hi - lo
    i = np.repeat(owner, counts)
    # each i's run of candidates: positions lo .. hi-1 in the sorted order
    starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
    j = order[starts + np.arange(len(i))]
    keep = i != j
    return i[keep], j[keep]
