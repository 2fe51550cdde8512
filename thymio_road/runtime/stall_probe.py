# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Stalls and gridlock (:mod:`thymio_road.analysis.stalls`) and progress (stuck and confined robots,
:mod:`thymio_road.analysis.progress`) watched live during an embedded run, for ``summary.json``
and the console's warnings. Every second it takes the poses and controller events that
`thymio-road analyze` takes from the bag for the same second (analysis/sampling.py).
"""
from __future__ import annotations

import json
from typing import Any, Callable

from thymio_road.analysis.progress import ProgressDetector
from thymio_road.analysis.sampling import HELD_PERIOD_NS, seconds
from thymio_road.analysis.stalls import Places, STALL_TIME, StallDetector, warning
from thymio_road.nodes import msgs
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.runtime.truth_sampler import TruthSampler

#: Live warnings about stuck or confined robots printed at most; the rest is in summary.json.
MAX_WARNINGS = 10


class StallProbe:
    """Samples the robots' published poses every second, with what their controllers said before."""

    def __init__(self, graph: Any, stall_time: float = STALL_TIME,
                 on_gridlock: Callable[[str], None] | None = None,
                 on_progress: Callable[[str], None] | None = None) -> None:
        self.graph = graph
        world = graph.world_node.world
        self.movers = [i for i, s in enumerate(world.specs) if not s.static]
        self.names = [world.specs[i].name for i in self.movers]
        self.sampler = TruthSampler(graph.world_node)
        places = Places(graph.scenario.road_map)
        self.detector = StallDetector(self.names, places, stall_time)
        self.progress = ProgressDetector(self.names, graph.scenario.road_map, stall_time, places, self._flag)
        self.on_gridlock, self.on_progress = on_gridlock, on_progress
        self._warned = False
        self._flags = 0
        self.held: dict[str, str | None] = {name: None for name in self.names}
        self.states: dict[str, str | None] = {}
        self.node = EmbeddedNode(graph.executor, 'stall_probe', '/', {}, {})
        for name in self.names:
            core = getattr(graph.nodes.get(f'/{name}/controller'), 'core', None)
            self.states[name] = core.state.name if core is not None else None
            self.node.create_subscription(msgs.String, f'/{name}/controller/events',
                                          lambda msg, name=name: self._on_event(name, msg), msgs.qos(100))
        graph.executor.add_timer(HELD_PERIOD_NS, self._sample)

    def _on_event(self, name: str, msg: Any) -> None:
        """A light's stop or hold holds the robot until its next light command (as in a bag)."""
        event = json.loads(msg.data)
        kind = event.get('kind')
        if kind == 'light':
            self.held[name] = 'a traffic light' if event.get('command') in ('stop', 'hold') else None
        elif kind == 'state' and 'to' in event:
            self.states[name] = str(event['to'])

    def _sample(self) -> None:
        t = float(seconds(self.graph.executor.now_ns))
        poses = self.sampler.held(self.movers)
        held = [self.held[name] for name in self.names]
        states = [self.states[name] for name in self.names]
        self.detector.update(t, poses, held, states)
        self.progress.update(t, poses, held, states)
        if self.detector.gridlock_at is not None and not self._warned:
            self._warned = True
            if self.on_gridlock is not None:
                self.on_gridlock(self.warning())

    def _flag(self, text: str) -> None:
        self._flags += 1
        if self.on_progress is None or self._flags > MAX_WARNINGS + 1:
            return
        self.on_progress(f'warning: {text}' if self._flags <= MAX_WARNINGS
                         else 'warning: more robots stuck or confined: see summary.json (progress)')

    def summary(self) -> dict[str, Any]:
        return self.detector.summary()

    def progress_summary(self) -> dict[str, Any]:
        return self.progress.summary()

    def warning(self) -> str | None:
        return warning(self.summary(), len(self.names))
