"""The network checks that run once a map is parsed: its road graph, then its traffic lights.

They live here, not in each other, so that the graph and the lights both build on the map model
without importing one another (:mod:`thymio_road.map.loader` runs them).
"""
from __future__ import annotations

from thymio_road.map.lights import check_lights
from thymio_road.map.road_graph import RoadGraph, check_graph
from thymio_road.map.road_map import RoadMap


def check_network(road_map: RoadMap) -> RoadGraph:
    """Validate the road graph and the lights' places and addressing; raises MapError."""
    graph = check_graph(road_map)
    if road_map.intersections:
        # Traffic lights: their places and their addressing by node ids (docs/traffic.md).
        check_lights(graph)
    return graph
