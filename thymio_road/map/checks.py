"""The network checks that run once a map is parsed: its road graph, then its traffic lights.

They live here, not in each other, so that the graph and the lights both build on the map model
without importing one another (:mod:`thymio_road.map.loader` runs them).
"""
from __future__ import annotations

import math

import numpy as np
from thymio_road.map.lights import check_lights
from thymio_road.map.road_graph import RoadGraph, check_graph
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
    samples = []
    for road in road_map.roads:
        n = max(2, int(math.ceil(road.length / step)) + 1)
        s = np.linspace(0.0, road.length, n)
        samples.append((s, np.array([road.pose_at(t)[:2] for t in s])))
    boxes = [(p.min(axis=0) - width, p.max(axis=0) + width) for _, p in samples]
    for a, road_a in enumerate(road_map.roads):
        for b in range(a, len(road_map.roads)):
            road_b = road_map.roads[b]
            if (boxes[a][0] > boxes[b][1]).any() or (boxes[b][0] > boxes[a][1]).any():
                continue
            if a != b and owners.get(road_a.id) is not None and owners.get(road_a.id) == owners.get(road_b.id):
                continue  # the intersection's own roads: built to meet
            (sa, pa), (sb, pb) = samples[a], samples[b]
            close = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1]) < width
            if a == b:
                gap = np.abs(sa[:, None] - sb[None, :])
                if road_a.closed:
                    gap = np.minimum(gap, road_a.length - gap)
                close &= gap > 3 * width
            if not close.any():
                continue
            rows, cols = np.nonzero(close)
            # One stretch of overlap per run of consecutive samples along road a.
            order = np.argsort(rows, kind='stable')
            rows, cols = rows[order], cols[order]
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
