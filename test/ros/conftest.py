# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The real-ROS tier: nodes as separate rclpy processes over DDS, launch files through the real
``launch.LaunchService``, observed from this process by a plain rclpy node.

Every test here skips, saying why, where rclpy, launch or launch_ros cannot be imported or the
package is not installed with its data files (``pip install .``, not ``-e``, or a colcon install
space sourced, as under ``colcon test``): the README's plain test command still passes on a fresh
machine. ``.ci/run`` installs the tier with
``../shared/ros/install.sh`` and runs it. Each session takes its own DDS domain and keeps
discovery on this machine.
"""
from __future__ import annotations

from collections import defaultdict
import importlib.util
import math
import os
from pathlib import Path
import signal
import subprocess
import sys
import time
from typing import Any, Callable

import pytest

HERE = Path(__file__).resolve().parent
MISSING = [m for m in ('rclpy', 'launch', 'launch_ros') if importlib.util.find_spec(m) is None]
#: One DDS domain per test session (0..101 are valid; nearby sessions of one machine differ).
DOMAIN_ID = str(20 + os.getpid() % 70)


def pytest_collection_modifyitems(config, items):
    if not MISSING:
        return
    reason = (f"real-ROS tier: {', '.join(MISSING)} not importable "
              '(install it with: bash ../shared/ros/install.sh VENV; see docs/ros2.md)')
    for item in items:
        if str(item.fspath).startswith(str(HERE)):
            item.add_marker(pytest.mark.skip(reason=reason))


def share_dir() -> Path:
    """The installed share/thymio_road (launch files, config), or skip."""
    from ament_index_python.packages import get_package_share_directory, PackageNotFoundError
    try:
        share = Path(get_package_share_directory('thymio_road'))
    except PackageNotFoundError:
        pytest.skip('thymio_road is not in the ament index: pip install . (not -e) into this environment, '
                    'or source a colcon install space')
    if not (share / 'launch' / 'road_network.launch.py').is_file():
        pytest.skip(f'{share} has no launch files: pip install . (not -e) into this environment')
    return share


@pytest.fixture(scope='session')
def ros_env(tmp_path_factory) -> dict[str, str]:
    """The environment of the processes under test, and of this one's rclpy."""
    log_dir = tmp_path_factory.mktemp('ros-log')
    env = dict(os.environ, ROS_DOMAIN_ID=DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_LOG_DIR=str(log_dir), PYTHONUNBUFFERED='1')
    # The nodes must use rclpy's message classes, not the embedded runtime's (test/conftest.py sets it).
    env.pop('THYMIO_ROAD_EMBEDDED', None)
    for key in ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE', 'ROS_LOG_DIR'):
        os.environ[key] = env[key]
    return env


@pytest.fixture(scope='session')
def rclpy_context(ros_env):
    import rclpy
    rclpy.init()
    yield rclpy
    rclpy.try_shutdown()


class Observer:
    """A plain rclpy node that records what the graph publishes (best effort: matches any publisher)."""

    def __init__(self, rclpy: Any, name: str) -> None:
        self.rclpy = rclpy
        self.node = rclpy.create_node(name)
        self.messages: dict[str, list[tuple[float, Any]]] = defaultdict(list)

    def subscribe(self, msg_type: Any, topic: str, qos: Any = None) -> None:
        from rclpy.qos import qos_profile_sensor_data
        self.node.create_subscription(msg_type, topic, lambda m, t=topic: self.messages[t].append((time.time(), m)),
                                      qos or qos_profile_sensor_data)

    def spin_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.rclpy.spin_once(self.node, timeout_sec=0.1)
            if condition():
                return True
        return condition()

    def spin_for(self, seconds: float) -> None:
        self.spin_until(lambda: False, seconds)

    def call(self, srv_type: Any, name: str, timeout: float = 10.0) -> Any:
        client = self.node.create_client(srv_type, name)
        if not client.wait_for_service(timeout_sec=timeout):
            raise AssertionError(f'service {name} did not appear within {timeout} s')
        future = client.call_async(srv_type.Request())
        self.spin_until(future.done, timeout)
        assert future.done(), f'service {name} did not answer within {timeout} s'
        return future.result()

    def close(self) -> None:
        self.node.destroy_node()


@pytest.fixture
def observer(rclpy_context, request):
    obs = Observer(rclpy_context, 'observer_' + request.node.name.split('[')[0][-40:].replace('-', '_'))
    yield obs
    obs.close()


class Processes:
    """Processes under test, stopped by SIGINT (then killed) at the end, their output kept."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env, self.folder = env, folder
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []

    def start(self, name: str, cmd: list[str]) -> subprocess.Popen:
        log = self.folder / f'{name}.log'
        # A session of its own: stopping it reaches the nodes it started too, and none is left
        # behind to publish into the next test's graph (they share the session's DDS domain).
        proc = subprocess.Popen(cmd, env=self.env, stdout=log.open('wb'), stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append((name, proc, log))
        return proc

    def output(self, name: str) -> str:
        return next(log for n, _, log in self.procs if n == name).read_text(errors='replace')

    def stop(self, timeout: float = 15.0) -> dict[str, int]:
        """Ctrl-C to each process and the nodes it started (as a terminal sends it), its exit
        code, then SIGKILL to whatever of its session is left.
        """
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                _signal_group(proc, signal.SIGINT)
        codes = {}
        deadline = time.time() + timeout
        for name, proc, _ in self.procs:
            try:
                codes[name] = proc.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                proc.kill()
                codes[name] = proc.wait()
            _signal_group(proc, signal.SIGKILL)
        return codes


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


#: Builds a world, which compiles the simulator's kernels (or loads them from numba's cache).
WARM_KERNELS = ('from thymio_road.scenario import load_scenario, robot_specs, world_params; '
                'from thymio_road.sim.world import World; '
                "s = load_scenario('oval', robots=1); World(s.road_map, robot_specs(s), world_params(s), seed=s.seed)")


@pytest.fixture(scope='session')
def compiled_kernels(ros_env, tmp_path_factory) -> None:
    """The first world of a fresh install compiles numba's kernels (some tens of seconds, cached
    beside the installed modules): done once here, in a process that imports thymio_road as the
    nodes do (not from the current folder), so that no test's world spends its time limit on it.
    Under `colcon test` no earlier test has done it: the first launch test failed.
    """
    warm = subprocess.run([sys.executable, '-c', WARM_KERNELS], env=ros_env, cwd=tmp_path_factory.mktemp('warm'),
                          capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr


@pytest.fixture
def processes(ros_env, tmp_path, compiled_kernels):
    procs = Processes(ros_env, tmp_path)
    yield procs
    procs.stop()


def run_launch_cmd(launch_file: Path, seconds: float, *args: str) -> list[str]:
    """The command that runs `launch_file` through LaunchService for `seconds` (run_launch.py)."""
    return [sys.executable, str(HERE / 'run_launch.py'), str(launch_file), str(seconds), *args]


def console_script(name: str) -> str:
    """Path of one of our console scripts: in a sourced colcon install space (lib/thymio_road/, found
    through the ament index) or beside this interpreter (pip), as the launch files find them.
    """
    from thymio_road.ros.launch_plan import console_script as installed_script
    from thymio_road.ros.launch_plan import LaunchArgumentError
    try:
        return str(installed_script(name))
    except LaunchArgumentError:
        pytest.skip(f'{name} is not installed: pip install . into this environment, or colcon build and '
                    'source install/setup.bash')


def distance_to_road(road_map: Any, x: float, y: float) -> float:
    """Distance (m) from a point to the nearest road centre line (sampled every 5 mm)."""
    best = math.inf
    for road in road_map.roads:
        pts = road.sample(0.005)
        best = min(best, float(((pts[:, 0] - x) ** 2 + (pts[:, 1] - y) ** 2).min() ** 0.5))
    return best
