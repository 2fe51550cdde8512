# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Whether every way into an intersection can be reached from every other by legal passages.

:func:`thymio_road.map.road_graph.check_graph` asks that every *intersection* be reachable from
every approach; a driving network needs more: a robot anywhere must be able to come back to any
road, entering each intersection by any of its ways in (a crossroad arm that can be left but never
re-entered would trap the traffic that needs it). Every road lies on some drive between two
approaches (check_graph refuses a road that does not), so the network is strongly connected when
its approaches are: one strongly connected component.
"""
from __future__ import annotations

from thymio_road.map.road_graph import RoadGraph


def components(graph: RoadGraph) -> list[list[str]]:
    """The strongly connected components of the approaches (Tarjan, iterative), largest first."""
    succ = {a: sorted({o.target for o in opts}) for a, opts in graph.options.items()}
    for a in graph.approaches:
        succ.setdefault(a, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                out.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(out, key=lambda c: (-len(c), c))


def strongly_connected(graph: RoadGraph) -> bool:
    return len(components(graph)) <= 1


def split_roads(graph: RoadGraph) -> list[tuple[str, str]]:
    """For a message: a road of the largest component and one of each other component, pairs
    between which no legal drive goes both ways; empty when the network is strongly connected.
    """
    comps = components(graph)
    road = {a: graph.approaches[a].road for a in graph.approaches}
    return [(road[comps[0][0]], road[comp[0]]) for comp in comps[1:]]
