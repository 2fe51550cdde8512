# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""What the ROS 2 launch files start, as pure functions of their arguments (no ROS imports).

The launch files only read their arguments, call :func:`plan` and turn the result into
``launch_ros`` actions. The simulated part of the plan is :func:`thymio_road.scenario.node_specs`,
the function the embedded runtime instantiates, so both runtimes start the same nodes with the
same names, namespaces, remappings and parameters. Real robots (:func:`real_robot_specs`)
swap the simulation of a robot for a ``thymio_driver`` in its namespace.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import math
import os
from pathlib import Path
import shutil
import sys
from typing import Any, Callable, Iterable, Mapping, Sequence

from thymio_road.map.validation import ConfigError, load_yaml, show
from thymio_road.ros.rviz_config import rviz_config_path
from thymio_road.scenario import load_scenario, node_specs, NodeSpec, robot_specs, Scenario

PACKAGE = 'thymio_road'
DRIVER = 'thymio_driver'
#: World-level nodes that simulate robots; they are told which robots are real.
SIMULATORS = ('thymio_world', 'thymio_ir_medium')
#: Whether the world node skips the robots named in its ``real_robots`` parameter (it does; a
#: scenario of only real robots runs without a world). Without it, real robots would have to be
#: the last ones of the scenario, the world simulating the first ``robot_count``.
WORLD_HONOURS_REAL_ROBOTS = True
#: Fields of a calibration file entry (per robot name): driver parameters and the controller's grey_ref.
CALIBRATION_FIELDS = {'speed_factor': float, 'gain_left': float, 'gain_right': float,
                      'robot_name': str, 'robot_id': str, 'grey_ref': int}

#: Launch arguments of road_network.launch.py: (name, default, description).
ARGUMENTS: tuple[tuple[str, str, str], ...] = (
    ('scenario', 'oval', 'shipped scenario name or path to a scenario file'),
    ('robots', '0', "robot count (0: the scenario's)"),
    ('seed', '-1', "random seed (-1: the scenario's)"),
    ('record', 'false', 'record every topic with ros2 bag record (MCAP)'),
    ('bag', '', 'bag output folder (default: ros2 bag record names one)'),
    ('rviz', 'false', 'start RViz'),
    ('rviz_config', '', 'RViz config file (default: the shipped one, or one generated for the robots)'),
    ('use_sim_time', 'auto', "nodes and RViz follow the world's /clock (auto: when a world runs)"),
    ('real', '', "comma-separated robots that are real Thymios; 'all' or 'true': every robot"),
    ('calibration', '', 'YAML file: per robot speed_factor, gain_left, gain_right, robot_name, robot_id, grey_ref'),
    ('tdm_host', '', "Thymio Device Manager host ('' discovers it with zeroconf)"),
    ('tdm_port', '0', "Thymio Device Manager TCP port (0: tdmclient's default, 8596)"),
)


class LaunchArgumentError(ValueError):
    """A launch argument that cannot be used; the message names it and its value."""


@dataclass(frozen=True)
class ProcessSpec:
    """A non-node process (ros2 bag record)."""

    cmd: tuple[str, ...]


@dataclass(frozen=True)
class RvizSpec:
    config: str
    use_sim_time: bool


@dataclass(frozen=True)
class LaunchPlan:
    scenario: Scenario
    nodes: tuple[NodeSpec, ...]
    record: ProcessSpec | None
    rviz: RvizSpec | None


# --- argument parsing -----------------------------------------------------------------------------

def parse_bool(value: str, name: str) -> bool:
    text = str(value).strip().lower()
    if text in ('true', '1', 'yes', 'on'):
        return True
    if text in ('false', '0', 'no', 'off', ''):
        return False
    raise LaunchArgumentError(f'launch argument {name}:={value!r}: expected true or false')


def parse_int(value: str, name: str, low: int, high: int) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise LaunchArgumentError(f'launch argument {name}:={value!r}: expected an integer') from None
    if not low <= number <= high:
        raise LaunchArgumentError(f'launch argument {name}:={value!r}: must be in {low}..{high}')
    return number


def parse_real(value: str, scenario: Scenario) -> list[str]:
    """'thymio1,thymio3', 'all' or 'true' → robot names of the scenario in its order; '' or 'false': none."""
    names = [r.name for r in scenario.robots]
    text = str(value).strip()
    if text.lower() in ('', 'false'):
        return []
    if text.lower() in ('all', 'true'):
        return names
    wanted = [w.strip() for w in text.split(',') if w.strip()]
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise LaunchArgumentError(f"launch argument real:={value!r}: no robot {', '.join(unknown)} in "
                                  f"scenario '{scenario.name}' (robots: {', '.join(names)})")
    return [n for n in names if n in wanted]


def load_calibration(path: str | Path | None) -> dict[str, dict[str, Any]]:
    """A calibration file: ``{robot: {speed_factor, gain_left, gain_right, robot_name, robot_id, grey_ref}}``."""
    if not path:
        return {}
    path = Path(path)
    try:
        data = load_yaml(path)  # bounded: size, aliases, encoding
    except ConfigError as exc:
        problem = str(exc).removeprefix(f'{path}: ')
        raise LaunchArgumentError(f'launch argument calibration:={str(path)!r}: {problem}') from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LaunchArgumentError(f'{path}: must map robot names to calibrations, got {show(data)}')
    out: dict[str, dict[str, Any]] = {}
    for robot, entry in data.items():
        if not isinstance(entry, dict):
            raise LaunchArgumentError(f'{path}: {robot}: must be a mapping, got {show(entry)}')
        for key, value in entry.items():
            kind = CALIBRATION_FIELDS.get(key)
            if kind is None:
                raise LaunchArgumentError(f'{path}: {robot}.{key}: unknown field '
                                          f"(known: {', '.join(CALIBRATION_FIELDS)})")
            ok = isinstance(value, str) if kind is str else \
                isinstance(value, int) and not isinstance(value, bool) if kind is int else \
                isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not ok:
                raise LaunchArgumentError(f'{path}: {robot}.{key}: must be {kind.__name__}, got {value!r}')
        from thymio_road.real.driver import Calibration
        try:
            Calibration.from_mapping({k: float(v) for k, v in entry.items() if k in
                                      ('speed_factor', 'gain_left', 'gain_right')}, f'{path}: {robot}')
        except ValueError as exc:
            raise LaunchArgumentError(str(exc)) from None
        if 'grey_ref' in entry and not 0 < entry['grey_ref'] < 1023:
            raise LaunchArgumentError(f"{path}: {robot}.grey_ref: must be in 1..1022, got {entry['grey_ref']}")
        out[str(robot)] = dict(entry)
    return out


# --- graphs ---------------------------------------------------------------------------------------------

def real_robot_specs(scenario: Scenario, real: Sequence[str], *, tdm_host: str = '', tdm_port: int = 0,
                     calibration: Mapping[str, Mapping[str, Any]] | None = None) -> list[NodeSpec]:
    """node_specs(scenario) where the robots in `real` are Thymios behind a thymio_driver.

    A real robot keeps its controller (with the calibration's grey_ref), gets a driver in its
    namespace placed where the scenario starts it (map → odom), and is left out of the
    simulators (``real_robots`` parameter; see :data:`WORLD_HONOURS_REAL_ROBOTS`).
    """
    specs = node_specs(scenario)
    if not real:
        return specs
    names = [r.name for r in scenario.robots]
    unknown = [n for n in real if n not in names]
    if unknown:
        raise LaunchArgumentError(f"real robots {unknown} are not in scenario '{scenario.name}' "
                                  f"(robots: {', '.join(names)})")
    real_set = set(real)
    simulated = [n for n in names if n not in real_set]
    if not WORLD_HONOURS_REAL_ROBOTS and simulated != names[:len(simulated)]:
        raise LaunchArgumentError(
            f"launch argument real:={','.join(real)!r}: the world simulates the first robots of a "
            f"scenario, so real robots must be the last ones (here: {', '.join(names[len(simulated):]) or '-'}"
            f"{' or all' if simulated else ''}); rename or reorder the robots in the scenario")
    calibration = calibration or {}
    poses = {spec.name: (spec.x, spec.y, spec.theta) for spec in robot_specs(scenario)}
    out: list[NodeSpec] = []
    for spec in specs:
        robot = spec.namespace.strip('/')
        if spec.executable in SIMULATORS:
            if not simulated:
                continue  # nothing left to simulate
            params = {**spec.parameters, 'real_robots': ','.join(real)}
            if 'robot_count' in params and not WORLD_HONOURS_REAL_ROBOTS:
                params['robot_count'] = len(simulated)  # the real ones are the last ones
            out.append(dataclasses.replace(spec, parameters=params))
        elif robot in real_set:
            cal = calibration.get(robot, {})
            if spec.executable == 'thymio_controller':
                x, y, theta = poses[robot]
                out.append(NodeSpec(DRIVER, 'driver', spec.namespace, {
                    'tdm_host': tdm_host, 'tdm_port': int(tdm_port),
                    'robot_name': str(cal.get('robot_name', '')), 'robot_id': str(cal.get('robot_id', '')),
                    'speed_factor': float(cal.get('speed_factor', 1.0)),
                    'gain_left': float(cal.get('gain_left', 1.0)),
                    'gain_right': float(cal.get('gain_right', 1.0)),
                    'initial_x': float(x), 'initial_y': float(y), 'initial_theta': float(theta),
                    'use_sim_time': bool(spec.parameters.get('use_sim_time', True)),
                }))
                params = dict(spec.parameters)
                if 'grey_ref' in cal:
                    params['grey_ref'] = int(cal['grey_ref'])
                out.append(dataclasses.replace(spec, parameters=params))
            else:
                out.append(spec)
        else:
            out.append(spec)
    return out


def with_sim_time(specs: Iterable[NodeSpec], use_sim_time: bool) -> list[NodeSpec]:
    """Set use_sim_time on every node that declares it (the world's own timer stays on the wall clock)."""
    return [dataclasses.replace(s, parameters={**s.parameters, 'use_sim_time': use_sim_time})
            if 'use_sim_time' in s.parameters else s for s in specs]


def record_command(bag: str = '') -> tuple[str, ...]:
    """ros2 bag record of every topic to MCAP (same options on Humble and Jazzy)."""
    cmd = ('ros2', 'bag', 'record', '--all', '--storage', 'mcap')
    return cmd + (('--output', bag) if bag else ())


#: The ROS packages ``ros2 bag record --storage mcap`` needs (the `bag` verb and the MCAP plugin).
RECORD_PACKAGES = ('ros2bag', 'rosbag2_storage_mcap')


def ament_package_installed(package: str) -> bool:
    """Whether `package` is in the ament index (``AMENT_PREFIX_PATH``), as ``ros2 pkg prefix`` finds it.

    Read from the index's marker files rather than by running ``ros2 bag --help``, which takes a
    second, or by importing ament_index_python, which a plain environment does not have.
    """
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if prefix and (Path(prefix) / 'share' / 'ament_index' / 'resource_index' / 'packages' / package).is_file():
            return True
    return False


def plan(arguments: Mapping[str, str], which: Callable[[str], str | None] | None = None,
         installed: Callable[[str], bool] | None = None) -> LaunchPlan:
    """The launch graph for road_network.launch.py's arguments (missing ones take their default).

    Programs the plan needs besides our own (``ros2`` to record, ``rviz2``) are looked up with
    `which` (default :func:`shutil.which`), and the ROS packages ``ros2 bag`` needs with
    `installed` (default :func:`ament_package_installed`), first, so that a missing one refuses
    the launch before any node has started.
    """
    which = which or shutil.which
    installed = installed or ament_package_installed
    args = {name: default for name, default, _ in ARGUMENTS}
    unknown = set(arguments) - set(args)
    if unknown:
        raise LaunchArgumentError(f'unknown launch argument(s) {sorted(unknown)} '
                                  f"(known: {', '.join(args)})")
    args.update({k: str(v) for k, v in arguments.items()})
    robots = parse_int(args['robots'], 'robots', 0, 1000)
    seed = parse_int(args['seed'], 'seed', -1, 2**31 - 1)
    try:
        scenario = load_scenario(args['scenario'], robots=robots or None, seed=None if seed < 0 else seed)
    except ValueError as exc:
        raise LaunchArgumentError(f"launch argument scenario:={args['scenario']!r}: {exc}") from None
    real = parse_real(args['real'], scenario)
    nodes = real_robot_specs(scenario, real, tdm_host=args['tdm_host'].strip(),
                             tdm_port=parse_int(args['tdm_port'], 'tdm_port', 0, 65535),
                             calibration=load_calibration(args['calibration']))
    clock = any(spec.executable == 'thymio_world' for spec in nodes)
    if args['use_sim_time'].strip().lower() == 'auto':
        sim_time = clock
    else:
        sim_time = parse_bool(args['use_sim_time'], 'use_sim_time')
        if sim_time and not clock:
            raise LaunchArgumentError(f"launch argument use_sim_time:={args['use_sim_time']!r}: no world "
                                      'runs to publish /clock (every robot is real); use auto or false')
    nodes = with_sim_time(nodes, sim_time)
    record = ProcessSpec(record_command(args['bag'])) if parse_bool(args['record'], 'record') else None
    if record is not None and which('ros2') is None:
        raise LaunchArgumentError("launch argument record:=true needs 'ros2' (ros2 bag record with "
                                  'rosbag2_storage_mcap), which is not on PATH; source a ROS 2 install, or '
                                  "record an embedded run with 'thymio-road run'")
    missing = [package for package in RECORD_PACKAGES if record is not None and not installed(package)]
    if missing:
        # `ros2 bag record` would die at once ("invalid choice: 'bag'") and the graph run unrecorded.
        raise LaunchArgumentError(f"launch argument record:=true needs 'ros2 bag' with MCAP storage, but "
                                  f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed "
                                  '(no such package in AMENT_PREFIX_PATH): install ros-<distro>-rosbag2 and '
                                  'ros-<distro>-rosbag2-storage-mcap, or record an embedded run with '
                                  "'thymio-road run'")
    rviz = None
    if parse_bool(args['rviz'], 'rviz'):
        if which('rviz2') is None:
            raise LaunchArgumentError("launch argument rviz:=true needs 'rviz2', which is not on PATH; "
                                      'install RViz (ros-<distro>-rviz2) or leave rviz:=false')
        size = (scenario.road_map.width, scenario.road_map.height)
        config = args['rviz_config'] or str(rviz_config_path([r.name for r in scenario.robots], size))
        if not Path(config).is_file():
            raise LaunchArgumentError(f'launch argument rviz_config:={config!r}: no such file')
        rviz = RvizSpec(config, sim_time)
    return LaunchPlan(scenario, tuple(nodes), record, rviz)


def console_script(executable: str) -> Path:
    """The path of one of our console scripts: colcon installs them into ``<prefix>/lib/thymio_road``
    (where launch_ros looks for a package's executables), pip into the environment's ``bin/``.
    """
    try:
        from ament_index_python.packages import get_package_prefix
        prefix: Path | None = Path(get_package_prefix(PACKAGE))
    except (ImportError, LookupError, ValueError):
        prefix = None
    for candidate in ([prefix / 'lib' / PACKAGE / executable] if prefix else []) + [
            Path(sys.executable).parent / executable]:
        if candidate.is_file():
            return candidate
    found = shutil.which(executable)
    if found is None:
        where = f'{prefix}/lib/{PACKAGE}/' if prefix else f'lib/{PACKAGE}/'
        raise LaunchArgumentError(f'executable {executable!r} is neither in {where} nor on PATH: install '
                                  'thymio_road (colcon build, or pip install . in this environment)')
    return Path(found)


def node_executable(executable: str) -> tuple[str | None, str]:
    """``(package, executable)`` for a ``launch_ros`` Node running one of our console scripts: by
    name from a colcon install, else by absolute path with no package, which launch_ros runs as it is.
    """
    path = console_script(executable)
    if path.parent.name == PACKAGE and path.parent.parent.name == 'lib':
        return PACKAGE, executable
    return None, str(path)
