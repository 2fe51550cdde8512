# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The launch plan as plain processes, for machines without ``ros2 launch`` (``thymio-road ros``).

Each node is started the way launch_ros starts it: its console script with ``--ros-args``, its
name and namespace remapped, its parameters in a parameter file keyed by the node's fully
qualified name, and its remappings. What this does not do that ``ros2 launch`` does: no event
handlers or respawn, no per-process log prefixes, and the whole graph stops when one node dies.
"""
from __future__ import annotations

from dataclasses import dataclass
import os
from pathlib import Path
import signal
import subprocess
import time
from typing import Callable, Sequence

import yaml

from thymio_road.map import atomic
from thymio_road.ros.launch_plan import console_script, LaunchPlan
from thymio_road.scenario import NodeSpec

#: Environment variables that would make a node use the embedded runtime's message classes.
EMBEDDED_ONLY = ('THYMIO_ROAD_EMBEDDED',)


@dataclass(frozen=True)
class Process:
    name: str
    cmd: tuple[str, ...]


def fully_qualified(spec: NodeSpec) -> str:
    namespace = spec.namespace.rstrip('/')
    return f'{namespace}/{spec.name}' if namespace.startswith('/') else f'/{namespace}/{spec.name}'.replace('//', '/')


def parameter_file(spec: NodeSpec) -> str:
    """A ROS 2 parameter file (YAML) with the node's parameters under its fully qualified name."""
    return yaml.safe_dump({fully_qualified(spec): {'ros__parameters': dict(spec.parameters)}}, sort_keys=True)


def node_command(spec: NodeSpec, params_path: Path, executable: str) -> tuple[str, ...]:
    cmd = [executable, '--ros-args', '-r', f'__node:={spec.name}', '-r', f'__ns:={spec.namespace or "/"}',
           '--params-file', str(params_path)]
    for source, target in spec.remappings:
        cmd += ['-r', f'{source}:={target}']
    return tuple(cmd)


def processes(plan: LaunchPlan, folder: Path) -> list[Process]:
    """Every process of the plan, with the parameter files written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k, spec in enumerate(plan.nodes):
        params = folder / f'{k:02d}_{fully_qualified(spec).strip("/").replace("/", "_")}.yaml'
        atomic.write_text(params, parameter_file(spec))
        out.append(Process(fully_qualified(spec), node_command(spec, params, str(console_script(spec.executable)))))
    if plan.record is not None:
        out.append(Process('ros2 bag record', plan.record.cmd))
    if plan.rviz is not None:
        out.append(Process('rviz2', ('rviz2', '-d', plan.rviz.config, '--ros-args', '-p',
                                     f'use_sim_time:={str(plan.rviz.use_sim_time).lower()}')))
    return out


def child_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in EMBEDDED_ONLY}


def run(procs: Sequence[Process], duration: float | None = None, stop_timeout: float = 10.0,
        log: Callable[[str], None] = print) -> int:
    """Start every process, wait for `duration` seconds (None: until Ctrl-C or SIGTERM), stop them
    with SIGINT (then SIGKILL after `stop_timeout`). Returns 0, 130 when interrupted, or 1 when a
    node died on its own.
    """
    env = child_environment()
    running: list[tuple[Process, subprocess.Popen]] = []
    previous = signal.signal(signal.SIGTERM, _interrupt)   # SIGTERM stops the graph as Ctrl-C does
    code = 0
    try:
        for proc in procs:
            running.append((proc, subprocess.Popen(list(proc.cmd), env=env, stdin=subprocess.DEVNULL)))
            log(f'started {proc.name} (pid {running[-1][1].pid})')
        start = time.monotonic()
        while duration is None or time.monotonic() - start < duration:
            dead = [(p, popen.returncode) for p, popen in running if popen.poll() is not None]
            if dead:
                for p, rc in dead:
                    log(f'error: {p.name} exited with code {rc}; stopping the graph')
                code = 1
                break
            time.sleep(0.2)
    except KeyboardInterrupt:
        code = 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        _stop(running, stop_timeout, log)
    return code


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _stop(running: list[tuple[Process, subprocess.Popen]], timeout: float, log: Callable[[str], None]) -> None:
    for _, popen in running:
        if popen.poll() is None:
            popen.send_signal(signal.SIGINT)
    deadline = time.monotonic() + timeout
    for proc, popen in running:
        try:
            popen.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log(f'{proc.name} did not stop within {timeout:g} s of SIGINT: killed')
            popen.kill()
            popen.wait()
