"""Run a scenario's node graph in the embedded runtime: simulated time, faster than real time.

Outputs (in `out`): ``bag/`` (rosbag2, MCAP), ``summary.json`` and ``trajectories.png``.
Ctrl-C or SIGTERM stops the run between callbacks; the bag is closed and the summary written
for what ran.
"""
from __future__ import annotations

import json
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from thymio_road.nodes.controller_node import ControllerNode
from thymio_road.nodes.ir_medium_node import IrMediumNode
from thymio_road.nodes.traffic_light_node import TrafficLightNode
from thymio_road.nodes.world_node import WorldNode
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.runtime.progress import progress_reporter
from thymio_road.runtime.recorder import BagRecorder
from thymio_road.scenario import Scenario, laps, node_specs

NODE_CLASSES: dict[str, Callable[[Any], Any]] = {
    'thymio_world': WorldNode,
    'thymio_controller': ControllerNode,
    'thymio_ir_medium': IrMediumNode,
    'thymio_traffic_light': TrafficLightNode,
}
SAMPLE_PERIOD = 0.1


class Graph:
    """All nodes of a scenario on one executor."""

    def __init__(self, scenario: Scenario, recorder: BagRecorder | None = None) -> None:
        self.scenario = scenario
        self.executor = Executor(recorder)
        self.nodes: dict[str, Any] = {}
        for spec in node_specs(scenario):
            handle = EmbeddedNode(self.executor, spec.name, spec.namespace, spec.parameters,
                                  dict(spec.remappings))
            self.nodes[f'{spec.namespace.rstrip("/")}/{spec.name}'] = NODE_CLASSES[spec.executable](handle)

    @property
    def world_node(self) -> WorldNode:
        return self.nodes['/world']

    def controller(self, robot: str) -> ControllerNode:
        return self.nodes[f'/{robot}/controller']

    def run(self, duration: float, on_second: Callable[[float], None] | None = None) -> None:
        end_ns = int(round(duration * 1e9))
        callback = None
        if on_second is not None:
            last = [0]

            def callback(now_ns: int) -> None:
                if now_ns - last[0] >= 1_000_000_000:
                    last[0] = now_ns
                    on_second(now_ns / 1e9)
        self.executor.run_until(end_ns, callback)


class TrajectoryLog:
    """Ground-truth positions sampled every 0.1 s of simulated time (for the picture)."""

    def __init__(self, graph: Graph) -> None:
        self.world = graph.world_node.world
        self.samples: list[np.ndarray] = []
        graph.executor.add_timer(int(SAMPLE_PERIOD * 1e9), self._sample)

    def _sample(self) -> None:
        self.samples.append(self.world.poses[:, :2].copy())

    def per_robot(self) -> dict[str, np.ndarray]:
        data = np.array(self.samples) if self.samples else np.zeros((0, len(self.world.specs), 2))
        return {spec.name: data[:, i] for i, spec in enumerate(self.world.specs) if not spec.static}


@dataclass
class RunResult:
    summary: dict
    out: Path
    interrupted: bool


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt
    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not in the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_scenario(scenario: Scenario, out: Path, *, record: bool = True, progress: bool = True,
                 picture: bool = True) -> RunResult:
    out.mkdir(parents=True, exist_ok=True)
    recorder = BagRecorder(out / 'bag') if record else None
    interrupted = False
    wall = 0.0
    graph = None
    probe = None
    try:
        with _sigterm_as_interrupt():
            try:
                graph = Graph(scenario, recorder)
                log = TrajectoryLog(graph)
                if len(scenario.robots) > 1 and scenario.road_map.intersections:
                    # Traffic measures (docs/traffic.md): throughput, contacts, merge conflicts.
                    from thymio_road.runtime.traffic_probe import TrafficProbe
                    probe = TrafficProbe(graph)
                bar = progress_reporter(scenario.duration, progress)
                wall0 = time.perf_counter()
                try:
                    graph.run(scenario.duration, bar.update_to if bar else None)
                finally:
                    wall = time.perf_counter() - wall0
                if bar:
                    bar.update_to(scenario.duration)
                    bar.close()
            except KeyboardInterrupt:
                interrupted = True
    finally:
        if recorder is not None:
            recorder.close()
    if graph is None:
        raise KeyboardInterrupt
    summary = _summary(scenario, graph, wall, interrupted, recorder)
    if probe is not None:
        summary['traffic'] = probe.summary()
    (out / 'summary.json').write_text(json.dumps(summary, indent=2) + '\n')
    if picture:
        from thymio_road.analysis.figures import plot_trajectories, run_title
        plot_trajectories(scenario.road_map, log.per_robot(), out / 'trajectories.png',
                          run_title(scenario.name, len(scenario.robots), summary['simulated_s'],
                                    scenario.seed, interrupted))
    return RunResult(summary, out, interrupted)


def _summary(scenario: Scenario, graph: Graph, wall: float, interrupted: bool,
             recorder: BagRecorder | None) -> dict:
    world = graph.world_node.world
    simulated = graph.executor.now_ns / 1e9
    robots = []
    for row in world.summary():
        if row['static']:
            continue
        name = row.pop('robot')
        row.pop('static')
        lap_count = laps(scenario, row['distance_m'])
        row['laps'] = None if lap_count is None else round(lap_count, 3)
        row['on_road_fraction'] = round(row['time_on_road_s'] / row['time_s'], 4) if row['time_s'] else None
        row['final_state'] = graph.controller(name).core.state.name
        robots.append({'robot': name, **row})
    return {
        'scenario': scenario.name,
        'scenario_file': str(scenario.source),
        'map': scenario.road_map.name,
        'seed': scenario.seed,
        'robots_count': len(robots),
        'simulated_s': round(simulated, 3),
        'requested_s': scenario.duration,
        'interrupted': interrupted,
        'wall_time_s': round(wall, 3),  # the simulation loop, without map rendering
        'real_time_factor': round(simulated / wall, 1) if wall > 0 else None,
        'robots': robots,
        'bag': {'path': 'bag', 'messages': dict(sorted(recorder.counts.items()))} if recorder else None,
    }

