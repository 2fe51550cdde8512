# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Contacts (analysis/contacts.py) measured live during an embedded run, on the poses the world
publishes, interpolated every 0.1 s as `thymio-road analyze` interpolates them from the bag; the
samples go on to the traffic measures (runtime/traffic_probe.py).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from thymio_road.analysis.contacts import ContactDetector
from thymio_road.analysis.sampling import INTERPOLATED_PERIOD_NS, seconds
from thymio_road.analysis.stalls import Places
from thymio_road.runtime.truth_sampler import TruthSampler


class ContactProbe:
    """Every 0.1 s, the sample of 0.1 s ago (every body has published at or after it by then)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        world = graph.world_node.world
        self.names = [s.name for s in world.specs]
        self.sampler = TruthSampler(graph.world_node)
        self.detector = ContactDetector(self.names, describe=Places(graph.scenario.road_map).describe)
        #: Called with (t, poses of every body) at each sample.
        self.listeners: list[Callable[[float, np.ndarray], None]] = []
        graph.executor.add_timer(INTERPOLATED_PERIOD_NS, self._sample)

    def _sample(self) -> None:
        t_ns = self.graph.executor.now_ns - INTERPOLATED_PERIOD_NS
        if t_ns <= 0:
            return
        poses = self.sampler.interpolated(t_ns)
        t = float(seconds(t_ns))
        self.detector.update(t, poses)
        for listener in self.listeners:
            listener(t, poses)
