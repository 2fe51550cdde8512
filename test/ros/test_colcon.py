# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The ROS 2 user's way: a colcon workspace built from this checkout, its install space sourced, and
the ``ros2`` command line (launch, run, topic echo, param) against it; then ``colcon test`` there.

The workspace is built once per module with a plain ``colcon build`` (no ``--symlink-install``): the
install space then holds copies, so a file that only the checkout has (a launch file, a scenario, a
data file setup.py forgot) fails here. Every command runs in the environment a user's shell has
after ``source ../shared/ros/env.sh VENV`` (or ``. VENV/bin/activate`` with ``AMENT_PREFIX_PATH`` on
the venv: what sourcing ``/opt/ros/<distro>/setup.bash`` gives on a ROS machine) and ``source
install/setup.bash``, read from a bash subprocess.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from conftest import DOMAIN_ID, HERE

ROOT = HERE.parent.parent
VENV_BIN = Path(sys.executable).parent
KIT_ENV = ROOT.parent / 'shared' / 'ros' / 'env.sh'
EXECUTABLES = ('thymio-road', 'thymio_controller', 'thymio_driver', 'thymio_ir_medium', 'thymio_traffic_light',
               'thymio_world')
#: What a fresh clone holds besides git's own files: left out of the copy into ws/src.
NOT_SOURCE = shutil.ignore_patterns('.git', '.venv*', 'build', 'install', 'log', '__pycache__', '*.egg-info',
                                    'runs', '.pytest_cache', '.hypothesis')
#: The tests `colcon test` runs in the workspace: those whose outcome depends on the install
#: layout (the launch files and their executables, the real-ROS tier's launch files from the
#: install space). The whole suite passes there too, in about as long as the plain suite.
COLCON_TEST_ARGS = ('test/test_launch.py', 'test/test_packaging.py', 'test/ros/test_launch_files.py',
                    '-k', 'not real_robot')


def _tool(name: str) -> str:
    path = VENV_BIN / name
    if not path.is_file():
        pytest.skip(f'{name} is not installed beside {sys.executable} (../shared/ros/install.sh installs it)')
    return str(path)


def _copy_checkout(destination: Path) -> None:
    """The checkout's files as a clone has them: git's tracked and new files, else the tree
    without build outputs.
    """
    listed = subprocess.run(['git', '-C', str(ROOT), 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
                            capture_output=True) if (ROOT / '.git').exists() else None
    if listed is None or listed.returncode != 0:
        shutil.copytree(ROOT, destination, ignore=NOT_SOURCE, symlinks=True)
        return
    for name in filter(None, listed.stdout.decode().split('\0')):
        source = ROOT / name
        if source.is_file():        # a deleted but still tracked file is not
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)


def _shell_environment(base: dict[str, str], *sourced: str) -> dict[str, str]:
    """The environment after the user's `source` lines: the venv's (env.sh, or activate and
    AMENT_PREFIX_PATH on the venv as a ROS install's setup.bash sets it), then `sourced`; read
    with `env -0` from bash.
    """
    venv = VENV_BIN.parent
    lines = [f'source {KIT_ENV} {venv}' if KIT_ENV.is_file() else
             f'source {venv}/bin/activate && export AMENT_PREFIX_PATH={venv}',
             *(f'source {path}' for path in sourced), 'env -0']
    out = subprocess.run(['bash', '-c', ' && '.join(lines)], env=base, capture_output=True, check=True,
                         timeout=60).stdout.decode()
    return dict(line.split('=', 1) for line in out.split('\0') if '=' in line)


class Workspace:
    def __init__(self, path: Path, env: dict[str, str], build_seconds: float) -> None:
        self.path, self.env, self.build_seconds = path, env, build_seconds

    def run(self, *cmd: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, env=self.env, cwd=self.path, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=timeout)

    def start(self, log: Path, *cmd: str) -> subprocess.Popen:
        """A command in its own process group, as a terminal starts it (Ctrl-C: `interrupt`)."""
        return subprocess.Popen(cmd, env=self.env, cwd=self.path, stdout=log.open('wb'),
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)


@pytest.fixture(scope='module')
def workspace(ros_env, tmp_path_factory) -> Workspace:
    colcon = _tool('colcon')
    _tool('ros2')
    ws = tmp_path_factory.mktemp('ws')
    _copy_checkout(ws / 'src' / 'thymio_road')
    base = {k: v for k, v in ros_env.items() if k not in ('AMENT_PREFIX_PATH', 'PYTHONPATH', 'COLCON_PREFIX_PATH')}
    # A DDS domain of its own (90..101; the session's are 20..89): nothing started here can reach
    # the graphs of the tier's other tests.
    base['ROS_DOMAIN_ID'] = str(90 + int(DOMAIN_ID) % 12)
    t0 = time.monotonic()
    built = subprocess.run([colcon, 'build'], cwd=ws, env=_shell_environment(base), capture_output=True, text=True,
                           timeout=300)
    seconds = time.monotonic() - t0
    assert built.returncode == 0, built.stdout + built.stderr
    return Workspace(ws, _shell_environment(base, str(ws / 'install' / 'setup.bash')), seconds)


def interrupt(proc: subprocess.Popen, timeout: float = 30) -> int:
    """Ctrl-C at the terminal: SIGINT to the command's process group; its exit code."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError(f'{proc.args} did not stop within {timeout} s of Ctrl-C') from None


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f'/proc/{pid}/task/{pid}/children').read_text().split()]
    except OSError:
        return []


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f'/proc/{pid}/cmdline').read_bytes().decode(errors='replace').split('\0')
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        return Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def _param(workspace: Workspace, verb: str, node: str, *args: str) -> subprocess.CompletedProcess:
    """`ros2 param VERB --no-daemon NODE ...`, asked again while the CLI's fresh node has not yet
    discovered NODE ("Node not found": without the daemon every call starts discovery anew).
    """
    for _ in range(10):
        result = workspace.run('ros2', 'param', verb, '--no-daemon', node, *args)
        if 'Node not found' not in result.stderr + result.stdout:
            return result
        time.sleep(1)
    return result


def _position(workspace: Workspace, topic: str, deadline: float) -> tuple[float, float]:
    """One message's position, by `ros2 topic echo --once` (retried until the topic is up)."""
    while True:
        result = workspace.run('ros2', 'topic', 'echo', '--once', '--no-daemon', topic, '--field',
                               'pose.pose.position', timeout=60)
        found = dict(re.findall(r'^([xy]): (\S+)$', result.stdout, flags=re.M))
        if result.returncode == 0 and {'x', 'y'} <= set(found):
            return float(found['x']), float(found['y'])
        if time.monotonic() > deadline:
            raise AssertionError(f'ros2 topic echo {topic}: {result.stdout}{result.stderr}')
        time.sleep(1)


def test_colcon_build_installs_every_executable_and_launch_file(workspace):
    prefix = workspace.path / 'install' / 'thymio_road'
    for name in EXECUTABLES:
        assert (prefix / 'lib' / 'thymio_road' / name).is_file(), name
    for name in ('road_network', 'oval', 'thymio', 'real_robots'):
        assert (prefix / 'share' / 'thymio_road' / 'launch' / f'{name}.launch.py').is_file(), name
    listed = workspace.run('ros2', 'pkg', 'executables', 'thymio_road')
    assert listed.stdout.split() == [word for name in EXECUTABLES for word in ('thymio_road', name)], listed
    where = workspace.run(sys.executable, '-c', 'import thymio_road; print(thymio_road.__file__)').stdout
    assert where.startswith(str(prefix)), f'thymio_road imported from {where}, not the install space'
    print(f'colcon build: {workspace.build_seconds:.1f} s')


def test_ros2_launch_drives_answers_param_get_and_stops_on_ctrl_c(workspace, tmp_path):
    log = tmp_path / 'launch.log'
    launch = workspace.start(log, 'ros2', 'launch', 'thymio_road', 'oval.launch.py')
    try:
        start = _position(workspace, '/thymio1/odom', time.monotonic() + 90)
        nodes = _children(launch.pid)
        scripts = sorted(Path(_cmdline(pid)[1]).name for pid in nodes if len(_cmdline(pid)) > 1)
        assert scripts == ['thymio_controller'] * 3 + ['thymio_world'], scripts
        assert all(_cmdline(pid)[1].startswith(str(workspace.path / 'install')) for pid in nodes)

        got = _param(workspace, 'get', '/thymio1/controller', 'speed')
        assert got.stdout.strip() == 'Integer value is: 260', got
        # Read at start-up only: refused, where it used to say "Set parameter successful".
        refused = _param(workspace, 'set', '/thymio1/controller', 'speed', '150')
        assert 'Setting parameter failed: Trying to set a read-only parameter: speed' in refused.stderr, refused
        # The mission takes effect at run time; one the map cannot do is refused with the reason.
        bad = _param(workspace, 'set', '/thymio1/controller', 'mission', '3')
        assert 'Setting parameter failed' in bad.stderr and 'not on map' in bad.stderr, bad

        end = _position(workspace, '/thymio1/odom', time.monotonic() + 30)
        assert math.dist(start, end) > 0.05, f'thymio1 did not drive: {start} then {end}'
    finally:
        if launch.poll() is None:
            launch.send_signal(signal.SIGINT)     # Ctrl-C to ros2 launch alone: it stops its children
        code = launch.wait(timeout=60)
    text = log.read_text(errors='replace')
    assert code == 0, text
    assert not [pid for pid in nodes if _alive(pid)], text
    assert text.count('process has finished cleanly') == 4, text
    assert 'Traceback' not in text, text


def test_ros2_run_takes_parameters_and_every_executable_starts_bare(workspace, tmp_path):
    """`ros2 run` of each node with no parameters starts on defaults (the world on the oval) or
    exits at once saying which parameter it needs; `-p` parameters are applied.
    """
    procs = {name: workspace.start(tmp_path / f'{name}.log', 'ros2', 'run', 'thymio_road', name)
             for name in EXECUTABLES if name not in ('thymio-road', 'thymio_world')}
    world = workspace.start(tmp_path / 'world.log', 'ros2', 'run', 'thymio_road', 'thymio_world', '--ros-args',
                            '-p', 'robot_count:=2', '-p', 'scenario_file:=oval')
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            count = _param(workspace, 'get', '/world', 'robot_count')
            if count.returncode == 0 and 'value is' in count.stdout:
                break
            time.sleep(1)
        assert count.stdout.strip() == 'Integer value is: 2', count
        # The parameters are declared before the world has built its publishers (the map first).
        while True:
            topics = workspace.run('ros2', 'topic', 'list', '--no-daemon').stdout.split()
            if '/thymio1/odom' in topics or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert '/thymio2/odom' in topics and '/thymio3/odom' not in topics, topics
    finally:
        codes = {name: interrupt(proc) for name, proc in {**procs, 'thymio_world': world}.items()}
    logs = {name: (tmp_path / f'{"world" if name == "thymio_world" else name}.log').read_text(errors='replace')
            for name in codes}
    # The traffic light cannot guess which light to be: it says so and exits with code 2.
    assert codes.pop('thymio_traffic_light') == 2, logs['thymio_traffic_light']
    assert re.search(r'parameter light: .*-p light:=', logs['thymio_traffic_light']), logs['thymio_traffic_light']
    assert codes == dict.fromkeys(codes, 0), logs
    assert not [name for name, text in logs.items() if 'Traceback' in text], logs


def test_colcon_test_passes_in_the_workspace(workspace):
    """`colcon test` runs the package's pytest suite from the workspace, with the install space
    sourced: the launch files' tests find the executables in lib/thymio_road/, and the real-ROS
    tier's launch-file tests run instead of skipping.
    """
    result = workspace.run('colcon', 'test', '--pytest-args', *COLCON_TEST_ARGS, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = workspace.run('colcon', 'test-result', '--all', '--verbose')
    report = ET.parse(workspace.path / 'build' / 'thymio_road' / 'pytest.xml').getroot()
    suite = report if report.tag == 'testsuite' else report.find('testsuite')
    counts = {key: int(suite.get(key, 0)) for key in ('tests', 'failures', 'errors', 'skipped')}
    assert summary.returncode == 0 and counts['failures'] == counts['errors'] == 0, summary.stdout
    ros_cases = [case for case in suite.iter('testcase') if 'test_launch_files' in case.get('classname', '')]
    assert ros_cases and not [case for case in ros_cases if case.find('skipped') is not None], \
        'the real-ROS tier skipped under colcon test'
    assert counts['tests'] >= 30, counts
