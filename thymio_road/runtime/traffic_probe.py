# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The traffic measures (:mod:`thymio_road.analysis.traffic`) taken live during an embedded run,
for ``summary.json``'s traffic block: the contact probe's samples, the controllers' events, and
wrong-way driving on the poses of every second (the same samples `thymio-road analyze` takes).
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from thymio_road.analysis.sampling import HELD_PERIOD_NS, seconds
from thymio_road.analysis.stalls import Places
from thymio_road.analysis.traffic import TrafficMeasures
from thymio_road.analysis.wrong_way import WrongWayMonitor
from thymio_road.nodes import msgs
from thymio_road.runtime.contact_probe import ContactProbe
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.runtime.truth_sampler import TruthSampler


class TrafficProbe:
    """The measures during an embedded run."""

    def __init__(self, graph: Any, contacts: ContactProbe) -> None:
        self.graph = graph
        world = graph.world_node.world
        self.names = [s.name for s in world.specs]
        self.movers = [i for i, s in enumerate(world.specs) if not s.static]
        self.robots = [self.names[i] for i in self.movers]
        self.sampler = TruthSampler(graph.world_node)
        self.contacts = contacts
        self.measures = TrafficMeasures(graph.scenario.road_map, self.robots)
        self.wrong_way = WrongWayMonitor(graph.scenario.road_map, Places(graph.scenario.road_map).describe)
        self.node = EmbeddedNode(graph.executor, 'traffic_probe', '/', {}, {})
        for i in self.movers:
            self.node.create_subscription(msgs.String, f'/{self.names[i]}/controller/events',
                                          lambda msg, i=i: self._on_event(i, msg), msgs.qos(100))
        self.node.create_subscription(msgs.String, '/world/events',
                                      lambda msg: self.measures.world_event(json.loads(msg.data)), msgs.qos(100))
        contacts.listeners.append(self._sample)
        graph.executor.add_timer(HELD_PERIOD_NS, self._sample_wrong_way)

    @property
    def passages(self) -> int:
        return len(self.measures.passages)

    @property
    def monitor(self) -> Any:
        """The merge conflicts' monitor."""
        return self.measures.merge

    def _sample(self, t: float, poses: np.ndarray) -> None:
        self.measures.sample(t, poses[self.movers, :2])

    def _sample_wrong_way(self) -> None:
        t = float(seconds(self.graph.executor.now_ns))
        self.wrong_way.update(t, self.robots, self.sampler.held(self.movers))

    def _on_event(self, i: int, msg: Any) -> None:
        # The world has published this tick's poses before the controllers speak: the last one
        # is the pose at the event, as analysis/sampling.at_or_before finds it in a bag.
        pose = self.sampler.held([i])[0]
        xy = None if np.isnan(pose[0]) else (float(pose[0]), float(pose[1]))
        self.measures.event(self.names[i], json.loads(msg.data), xy)

    def summary(self) -> dict:
        duration = self.graph.executor.now_ns / 1e9
        return self.measures.summary(duration, self.contacts.detector.summary(), self.wrong_way.summary())
