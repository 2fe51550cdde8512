"""The traffic measures (:mod:`thymio_road.analysis.traffic`) taken live during an embedded run,
for ``summary.json``'s traffic block."""
from __future__ import annotations

import json
from typing import Any

from thymio_road.analysis.stalls import Places
from thymio_road.analysis.traffic import (SAMPLE_PERIOD, ContactMonitor, CrossroadMonitor, MergeMonitor, stop_distance,
                                          crossroad_centres, crossroad_zones, hold_times, merge_zones,
                                          summarise)
from thymio_road.nodes import msgs
from thymio_road.runtime.node import EmbeddedNode


class TrafficProbe:
    """The measures during an embedded run: poses every 0.1 s, the controllers' events."""

    def __init__(self, graph: Any) -> None:
        self.world = graph.world_node.world
        self.road_map = graph.scenario.road_map
        self.names = [s.name for s in self.world.specs]
        self.movers = [i for i, s in enumerate(self.world.specs) if not s.static]
        self.monitor = MergeMonitor(merge_zones(self.road_map))
        self.crossroads = CrossroadMonitor(crossroad_zones(self.road_map))
        self.centres = crossroad_centres(self.road_map)
        self.contact_monitor = ContactMonitor(Places(self.road_map).describe)
        self._contacts = self.world.contacts.copy()
        self.passages = 0
        self.stops: list[dict] = []
        self.light_events: dict[str, list[dict]] = {}
        self.duration = 0.0
        self.node = EmbeddedNode(graph.executor, 'traffic_probe', '/', {}, {})
        for i in self.movers:
            self.node.create_subscription(msgs.String, f'/{self.names[i]}/controller/events',
                                          lambda msg, i=i: self._on_event(i, msg), msgs.qos(100))
        graph.executor.add_timer(int(SAMPLE_PERIOD * 1e9), self._sample)

    def _sample(self) -> None:
        t = self.world.time
        self.duration = t
        poses = self.world.poses[self.movers, :2]
        names = [self.names[i] for i in self.movers]
        self.monitor.update(t, names, poses)
        self.crossroads.update(t, names, poses)
        touched = self.world.contacts != self._contacts
        if touched.any():
            self._contacts = self.world.contacts.copy()
            self.contact_monitor.update(t, self.names, self.world.poses[:, :2], touched)

    def _on_event(self, i: int, msg: Any) -> None:
        event = json.loads(msg.data)
        kind = event.get('kind')
        if kind == 'left':
            self.passages += 1
        if kind == 'light':
            self.light_events.setdefault(self.names[i], []).append(event)
        if kind == 'light' and event.get('command') == 'stop':
            x, y = self.world.poses[i, :2]
            d = stop_distance(event.get('lane'), (x, y), self.monitor.zones, self.centres)
            self.stops.append({'robot': self.names[i], 't': event.get('t'), 'lane': event.get('lane'),
                               'distance_m': None if d is None else round(d, 3)})

    def summary(self) -> dict:
        contacts = int(self.world.contacts.sum()) // 2
        return summarise(self.passages, len(self.movers), self.duration, self.monitor, contacts, self.stops,
                         hold_times(self.light_events, self.duration), self.crossroads, self.contact_monitor)
