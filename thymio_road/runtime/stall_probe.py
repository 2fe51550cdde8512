"""Stalls and gridlock (:mod:`thymio_road.analysis.stalls`) watched live during an embedded run, for
``summary.json`` and the console's warning when the network stops."""
from __future__ import annotations

from typing import Any, Callable

from thymio_road.analysis.stalls import SAMPLE_PERIOD, STALL_TIME, Places, StallDetector, warning


class StallProbe:
    """Samples the robots' poses and controller states every second of simulated time."""

    def __init__(self, graph: Any, stall_time: float = STALL_TIME,
                 on_gridlock: Callable[[str], None] | None = None) -> None:
        self.graph = graph
        self.world = graph.world_node.world
        self.movers = [i for i, s in enumerate(self.world.specs) if not s.static]
        self.names = [self.world.specs[i].name for i in self.movers]
        self.detector = StallDetector(self.names, Places(graph.scenario.road_map), stall_time)
        self.on_gridlock = on_gridlock
        self._warned = False
        graph.executor.add_timer(int(SAMPLE_PERIOD * 1e9), self._sample)

    def _controller(self, name: str) -> Any:
        node = self.graph.nodes.get(f'/{name}/controller')
        return getattr(node, 'core', None)

    def _sample(self) -> None:
        held, states = [], []
        for name in self.names:
            core = self._controller(name)
            if core is None:
                held.append(None)
                states.append(None)
                continue
            light = core.stopped_by_light or not core.increment_counter
            held.append('a traffic light' if light else None)
            states.append(core.state.name)
        self.detector.update(self.graph.executor.now_ns / 1e9, self.world.poses[self.movers], held, states)
        if self.detector.gridlock_at is not None and not self._warned:
            self._warned = True
            if self.on_gridlock is not None:
                self.on_gridlock(self.warning())

    def summary(self) -> dict[str, Any]:
        return self.detector.summary()

    def warning(self) -> str | None:
        return warning(self.summary(), len(self.names))
