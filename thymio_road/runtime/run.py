# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Run a scenario's node graph in the embedded runtime: simulated time, faster than real time.

Outputs (in `out`): ``bag/`` (rosbag2, MCAP), ``summary.json`` and ``trajectories.png``.
Ctrl-C or SIGTERM stops the run between callbacks; the bag is closed and the summary written
for what ran, and further signals wait until that is done (runtime/interrupt.py). A folder that
holds an earlier run is refused, never overwritten.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
import json
from pathlib import Path
import sys
import time
from typing import Any, Callable

import numpy as np

from thymio_road.analysis.metrics import road_keeping_figures
from thymio_road.map import atomic
from thymio_road.map.validation import ConfigError
from thymio_road.nodes import msgs
from thymio_road.nodes.controller_node import ControllerNode
from thymio_road.nodes.ir_medium_node import IrMediumNode
from thymio_road.nodes.traffic_light_node import TrafficLightNode
from thymio_road.nodes.world_node import WorldNode
from thymio_road.runtime.contact_probe import ContactProbe
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.interrupt import StopRequest
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.runtime.progress import progress_reporter
from thymio_road.runtime.recorder import BagRecorder, COMPRESSIONS, PROFILES
from thymio_road.runtime.stall_probe import STALL_TIME, StallProbe
from thymio_road.scenario import laps, node_specs, Scenario
from thymio_road.sim import robot_model as rm

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
        self._fast_path()
        self.executor.watchers.append(self._on_graph_change)

    # --- the fast path -----------------------------------------------------------------------------
    def _fast_path(self, robots: list[str] | None = None) -> None:
        """Connect the world and each robot's controller by direct calls where nothing else listens.

        A robot's sensor event goes to its controller as values, not as prox/horizontal and
        prox/ground/delta messages, while the controller is those topics' only reader and they are
        not recorded; its wheel targets go back as two integers while the world is cmd_vel's only
        reader; its ground truth goes to the IR medium as values while that is its only reader;
        its Range, odom and TF messages are not even looked at while nothing reads them. The calls take the messages'
        places in the delivery queue (Executor.deferred), so
        the run is the same; a new reader (or a recorder) gets the messages again.
        """
        world = self.nodes.get('/world')
        if world is None:
            return
        topics = self.executor.topics
        mediums = [node for node in self.nodes.values() if isinstance(node, IrMediumNode)]
        for i, name in enumerate(world.names):
            if robots is not None and name not in robots:
                continue
            world.truth_direct[i] = None
            truth = topics.get(f'/{name}/ground_truth')
            for medium in mediums:
                j = medium.names.index(name) if name in medium.names else -1
                if j >= 0 and truth is not None and not truth.recorded and len(truth.subscriptions) == 1 \
                        and _is_partial(truth.subscriptions[0].callback, medium._on_truth, j):
                    world.truth_direct[i] = self.executor.deferred(partial(medium.on_pose, j))
            quiet = [f'/{name}/proximity/{sensor}' for sensor in rm.PROX_NAMES]
            quiet += [f'/{name}/ground/{side}' for side in msgs.GROUND_NAMES] + [f'/{name}/odom', '/tf']
            if world.truth_direct[i] is None:
                quiet.append(f'/{name}/ground_truth')
            world.quiet[i] = not any(_read(topics.get(topic)) for topic in quiet)
            world.direct[i] = None
            controller = self.nodes.get(f'/{name}/controller')
            if controller is None:  # a traffic light
                continue
            if (_only_reader(topics.get(f'/{name}/prox/horizontal'), controller._on_horizontal)
                    and _only_reader(topics.get(f'/{name}/prox/ground/delta'), controller._on_ground)):
                world.direct[i] = self.executor.deferred(controller.on_sensors)
            cmd = topics.get(f'/{name}/cmd_vel')
            controller.command_sink = None
            if cmd is not None and not cmd.recorded and len(cmd.subscriptions) == 1 \
                    and _is_partial(cmd.subscriptions[0].callback, world._on_cmd_vel, i):
                controller.command_sink = self.executor.deferred(partial(world.command, i))

    def _on_graph_change(self, topic: str) -> None:
        parts = topic.split('/')
        if topic == '/tf':
            self._fast_path()
        elif len(parts) > 2 and ('/'.join(parts[2:]) in _FAST_TOPICS or parts[2] in ('proximity', 'ground')):
            self._fast_path([parts[1]])

    @property
    def world_node(self) -> WorldNode:
        return self.nodes['/world']

    def controller(self, robot: str) -> ControllerNode:
        return self.nodes[f'/{robot}/controller']

    def run(self, duration: float, on_second: Callable[[float], None] | None = None,
            check: Callable[[int], None] | None = None) -> None:
        """Run to `duration`; `check(now_ns)` runs at each time step and may raise to stop."""
        end_ns = int(round(duration * 1e9))
        callback = check
        if on_second is not None:
            last = [0]

            def each_step(now_ns: int) -> None:
                if check is not None:
                    check(now_ns)
                if now_ns - last[0] >= 1_000_000_000:
                    last[0] = now_ns
                    on_second(now_ns / 1e9)
            callback = each_step
        self.executor.run_until(end_ns, callback)


_FAST_TOPICS = ('prox/horizontal', 'prox/ground/delta', 'cmd_vel', 'ground_truth', 'odom')


def _read(topic: Any) -> bool:
    """Whether a topic has a reader (a subscription or the recorder)."""
    return topic is not None and (topic.recorded or bool(topic.subscriptions))


def _only_reader(topic: Any, callback: Callable) -> bool:
    return (topic is not None and not topic.recorded and len(topic.subscriptions) == 1
            and topic.subscriptions[0].callback == callback)


def _is_partial(callback: Any, function: Callable, *args: Any) -> bool:
    return getattr(callback, 'func', None) == function and getattr(callback, 'args', None) == args


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


class OutputExists(ConfigError):
    """The output folder holds an earlier run, which a run must not overwrite."""


#: What a run writes into its folder.
OUTPUTS = ('bag', 'summary.json', 'trajectories.png')


def refuse_earlier_run(out: Path) -> None:
    """Raise OutputExists when `out` holds any output of an earlier run (recorded or not)."""
    found = [name for name in OUTPUTS if (out / name).exists()]
    if not found:
        return
    what = ', '.join(f'{n}/' if (out / n).is_dir() else n for n in found)
    hint = ''
    meta = out / 'bag' / 'metadata.yaml'
    if (out / 'bag').is_dir() and not meta.exists() and _being_written(out / 'bag'):
        hint = ' (another run is still writing its bag there)'
    elif (out / 'bag').is_dir() and not meta.exists():
        hint = f' (its bag was not closed: `thymio-road bag repair {out / "bag"}` recovers it)'
    elif meta.exists() and _message_count(meta) == 0:
        hint = ' (its bag holds no messages: remove it)'
    raise OutputExists(f'{out} holds an earlier run ({what}){hint}; choose another --out or remove them')


def _being_written(bag: Path) -> bool:
    """Whether a recorder holds one of the bag's MCAP files (a run on the same --out, still going)."""
    from thymio_road.runtime.bag_repair import being_written
    try:
        return any(being_written(f) for f in bag.glob('*.mcap'))
    except OSError:
        return False


def _message_count(metadata: Path) -> int | None:
    import yaml
    try:
        return int(yaml.safe_load(metadata.read_text())['rosbag2_bagfile_information']['message_count'])
    except Exception:  # noqa: BLE001 - unreadable metadata: say nothing about it
        return None


def run_scenario(scenario: Scenario, out: Path, *, record: bool | str = True, progress: bool = True,
                 picture: bool = True, stall_time: float = STALL_TIME,
                 compression: str = COMPRESSIONS[0], tap: Callable[..., Any] | None = None) -> RunResult:
    """`record`: a recording profile (recorder.PROFILES: 'full', 'analysis', 'none'); True is
    'full' and False 'none'. `compression`: the MCAP chunks' ('zstd' or 'none').

    `tap` (the live view, runtime/live.py) is called with the recorder (None without a bag) and
    a function that says whether a stop (Ctrl-C, SIGTERM) was requested, and returns what the
    executor records to instead: an object with the recorder's records, period,
    add_topic and write, which passes the recorder its messages, and a step(now_ns) called at
    each simulated time step.
    """
    profile = ('full' if record else 'none') if isinstance(record, bool) else record
    if profile not in PROFILES:
        raise ValueError(f'unknown recording profile {record!r}; known: {", ".join(PROFILES)}')
    if compression not in COMPRESSIONS:
        raise ValueError(f'unknown chunk compression {compression!r}; known: {", ".join(COMPRESSIONS)}')
    refuse_earlier_run(out)
    created = not out.exists()
    stop = StopRequest()
    with stop.installed():
        try:
            return _run(scenario, out, profile, progress, picture, stop, stall_time, compression, tap)
        except BaseException:
            if created and out.is_dir() and not any(out.iterdir()):
                out.rmdir()  # a run that failed before writing anything leaves nothing behind
            raise


def _run(scenario: Scenario, out: Path, profile: str, progress: bool, picture: bool,
         stop: StopRequest, stall_time: float = STALL_TIME, compression: str = COMPRESSIONS[0],
         tap: Callable[..., Any] | None = None) -> RunResult:
    out.mkdir(parents=True, exist_ok=True)
    # The nodes fill the classes of the distro the bag is recorded for.
    msgs.use_distro(scenario.ros_distro)
    record = profile != 'none'
    recorder = BagRecorder(out / 'bag', scenario.ros_distro, profile=profile,
                           compression=compression) if record else None
    interrupted = False
    write_error: OSError | None = None
    wall = 0.0
    graph = None
    probe = None
    contacts: ContactProbe | None = None
    stalls: StallProbe | None = None
    bar = None
    try:
        with stop.running('closing the bag…' if record else None, quiet=not progress):
            try:
                sink = recorder if tap is None else tap(recorder, lambda: bool(stop.signum))
                graph = Graph(scenario, sink)
                stop.started = True
                log = TrajectoryLog(graph)
                if len(graph.world_node.world.specs) > 1:
                    # Hull contacts between Thymios, traffic lights included (analysis/contacts.py).
                    contacts = ContactProbe(graph)
                if contacts is not None and len(scenario.robots) > 1 and scenario.road_map.intersections:
                    # Traffic measures (docs/traffic.md): throughput, contacts, merge conflicts.
                    from thymio_road.runtime.traffic_probe import TrafficProbe
                    probe = TrafficProbe(graph, contacts)
                bar = progress_reporter(scenario.duration, progress)
                # Stalls and gridlock (analysis/stalls.py), stuck and confined robots
                # (analysis/progress.py): summary.json, and warnings as they happen.
                stalls = StallProbe(graph, stall_time, _console(bar), _console(bar))
                wall0 = time.perf_counter()
                try:
                    graph.run(scenario.duration, bar.update_to if bar else None,
                              stop.check if tap is None else _checks(stop.check, sink.step))
                finally:
                    wall = time.perf_counter() - wall0
                if bar:
                    bar.update_to(scenario.duration)
                    bar.close()
            except KeyboardInterrupt:
                interrupted = True
                if bar:
                    bar.close()  # so that "closing the bag…" starts a line of its own
            except OSError as exc:  # a full disk, a file-size limit: the run stops and says so
                interrupted, write_error = True, exc
                if bar:
                    bar.close()
    finally:
        if recorder is not None:
            try:
                recorder.close()
            except OSError as exc:
                recorder.abort()
                write_error = write_error or exc
    if write_error is not None:
        raise _stopped_by(write_error, scenario, graph, wall, recorder, contacts, out)
    if graph is None:
        raise KeyboardInterrupt
    summary = _summary(scenario, graph, wall, interrupted, recorder, contacts)
    if probe is not None:
        summary['traffic'] = probe.summary()
    summary['stalls'] = stalls.summary() if stalls is not None else None
    summary['progress'] = stalls.progress_summary() if stalls is not None else None
    atomic.write_text(out / 'summary.json', json.dumps(summary, indent=2) + '\n')
    if picture:
        from thymio_road.analysis.figures import plot_trajectories, run_title
        with atomic.atomic_path(out / 'trajectories.png') as tmp:
            plot_trajectories(scenario.road_map, log.per_robot(), tmp,
                              run_title(scenario.name, len(scenario.robots), summary['simulated_s'],
                                        scenario.seed, interrupted))
    return RunResult(summary, out, interrupted)


def _stopped_by(exc: OSError, scenario: Scenario, graph: Graph | None, wall: float,
                recorder: BagRecorder | None, contacts: ContactProbe | None, out: Path) -> OSError:
    """The error of a run that could not write (its bag, mostly): the file, where the run stopped,
    what is left. A summary is written when the disk takes it (marked interrupted).
    """
    bag = recorder is not None and not recorder.removed
    filename = exc.filename or (str(recorder.storage_path) if recorder is not None else None)
    stopped = ''
    if graph is not None:
        try:
            summary = _summary(scenario, graph, wall, True, recorder if bag and recorder.closed_whole else None,
                               contacts)
            stopped = f" at {summary['simulated_s']:.1f} s"
            summary['write_error'] = f'{filename}: {exc.strerror or exc}'
            atomic.write_text(out / 'summary.json', json.dumps(summary, indent=2) + '\n')
        except (OSError, ValueError, KeyError):
            pass  # the disk is full: the message says what there is
    what = f'the run stopped{stopped}'
    if bag and not recorder.closed_whole:
        what += (f'; its bag is cut there: free some space, then `thymio-road bag repair {recorder.path}` '
                 'recovers it')
    elif bag:
        what += f'; its bag {recorder.path} is closed'
    return OSError(exc.errno, f'{exc.strerror or exc}: {what}', filename)


def _summary(scenario: Scenario, graph: Graph, wall: float, interrupted: bool,
             recorder: BagRecorder | None, contacts: ContactProbe | None = None) -> dict:
    world = graph.world_node.world
    simulated = graph.executor.now_ns / 1e9
    touching = contacts.detector.per_body() if contacts is not None else {}
    robots = []
    for i, spec in enumerate(world.specs):
        if spec.static:
            continue
        # the path of the published ground truth, as analysis/metrics.path_length measures a bag's
        distance = round(graph.world_node.truth_distance[i], 4)
        lap_count = laps(scenario, distance)
        robots.append({
            'robot': spec.name, 'distance_m': distance,
            # the world's own road truth, as analysis/metrics.road_keeping_figures reports a bag's
            **road_keeping_figures(float(world.time_sensed[i]), float(world.time_on_road[i]),
                                   int(world.road_losses[i])),
            # contact episodes the robot took part in (analysis/contacts.py), as `analyze` counts them
            'contacts': touching.get(spec.name, {}).get('contacts', 0),
            'laps': None if lap_count is None else round(lap_count, 3),
            'final_state': graph.controller(spec.name).core.state.name})
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
        'bag': {'path': 'bag', 'profile': recorder.profile, 'compression': recorder.compression,
                'bytes': recorder.bytes, 'messages': dict(sorted(recorder.counts.items()))}
        if recorder and not recorder.removed else None,
    }


def _checks(*checks: Callable[[int], None]) -> Callable[[int], None]:
    def check(now_ns: int) -> None:
        for one in checks:
            one(now_ns)
    return check


def _console(bar: Any) -> Callable[[str | None], None]:
    """Print a line to stderr without breaking the progress bar."""
    def write(text: str | None) -> None:
        if not text:
            return
        write = getattr(bar, 'write', None)   # tqdm's bar; the line reporter has none
        if write is not None:
            write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)
    return write
