"""The traffic measures (:mod:`thymio_road.analysis.traffic`) taken live during an embedded run,
for ``summary.json``'s traffic block."""
from __future__ import annotations

import json
from typing import Any

from thymio_road.analysis.stalls import Places
from thymio_road.analysis.wrong_way import WrongWayMonitor
from thymio_road.analysis.traffic import (SAMPLE_PERIOD, ContactMonitor, CrossroadMonitor, MergeMonitor, stop_distance,
                                          crossroad_centres, crossroad_zones, hold_times, merge_zones,
                                          summarise, throughput_windows)
from thymio_road.nodes import msgs
from thymio_road.runtime.node import EmbeddedNode


#: Wrong-way driving is judged on poses 1 s apart: a lane's length, not its wobble.
WRONG_WAY_PERIOD = 1.0


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
        places = Places(self.road_map)
        self.contact_monitor = ContactMonitor(places.describe)
        self.wrong_way = WrongWayMonitor(self.road_map, places.describe)
        self.passage_times: list[float] = []
        #: Improved rules and recovery at work: how often robots yielded, made way, turned back.
        self.manoeuvres = {'yield': 0, 'make_way': 0, 'wrong_way': 0}
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
        graph.executor.add_timer(int(WRONG_WAY_PERIOD * 1e9), self._sample_wrong_way)

    def _sample_wrong_way(self) -> None:
        self.wrong_way.update(self.world.time, [self.names[i] for i in self.movers], self.world.poses[self.movers])

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
        if kind in self.manoeuvres:
            self.manoeuvres[kind] += 1
        if kind == 'left':
            self.passages += 1
            self.passage_times.append(self.world.time)
        if kind == 'light':
            self.light_events.setdefault(self.names[i], []).append(event)
        if kind == 'light' and event.get('command') == 'stop':
            x, y = self.world.poses[i, :2]
            d = stop_distance(event.get('lane'), (x, y), self.monitor.zones, self.centres)
            self.stops.append({'robot': self.names[i], 't': event.get('t'), 'lane': event.get('lane'),
                               'distance_m': None if d is None else round(d, 3)})

    def summary(self) -> dict:
        contacts = int(self.world.contacts.sum()) // 2
        out = summarise(self.passages, len(self.movers), self.duration, self.monitor, contacts, self.stops,
                        hold_times(self.light_events, self.duration), self.crossroads, self.contact_monitor)
        out['throughput_windows'] = throughput_windows(self.passage_times, self.duration)
        out['wrong_way'] = self.wrong_way.summary()
        out['manoeuvres'] = {'yields': self.manoeuvres['yield'], 'made_way': self.manoeuvres['make_way'],
                             'turned_back': self.manoeuvres['wrong_way']}
        return out
