# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road`: run scenarios in the embedded runtime, check maps, and run experiments."""
from __future__ import annotations

import argparse
import atexit
from contextlib import contextmanager
import gc
import os
from pathlib import Path
import signal
import sys
import time
from typing import Any, Iterator

from thymio_road.map.validation import arg_float, arg_int, MAX_DURATION, MAX_ROBOTS, MAX_SEED

DEFAULT_SCENARIO = 'oval'


def main(argv: list[str] | None = None) -> int:
    try:
        code = _command(argv)
    finally:
        if argv is None:  # the program's own command line: the process ends with the command
            # Python's final garbage collection would traverse every object left (numba's, the
            # run's), 0.3-1 s of CPU after a 1 s run of `final`, to free memory that goes back
            # with the process anyway (issue #28). Every file is closed by now; the objects are
            # still freed by reference counting, only not searched for cycles.
            gc.freeze()
    if argv is None and code == 130:
        _exit_interrupted()
    return code


def _exit_interrupted() -> None:
    """End an interrupted command with 130, as documented. CPython remembers a KeyboardInterrupt
    raised inside code that a library ran through the C API's exec and, at exit, kills itself
    with SIGINT instead (exit status -2), even though the command caught the interrupt and
    cleaned up: `analyze` stopped by SIGTERM did so about one time in four. The exit handlers
    run and the streams are flushed first; then the process ends with 130 itself.
    """
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(130)


def _command(argv: list[str] | None) -> int:
    # The embedded runtime records rosbags types even where rclpy is installed.
    os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(argv)
    if not hasattr(args, 'func'):
        parser.print_help()
        return 2
    from thymio_road.map.validation import ConfigError
    try:
        with _signals_interrupt():
            return int(args.func(args) or 0)
    except ConfigError as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Every file is written under a temporary name and renamed when whole (map/atomic.py),
        # so what a stopped command leaves is whole or absent.
        print('interrupted: stopped; every file written is whole (none was left half-written)', file=sys.stderr)
        return 130
    except OSError as exc:
        # A file that could not be written or read after the checks (a full disk, a folder
        # removed meanwhile): the user's problem, not the program's, so no traceback.
        where = f'{exc.filename}: ' if exc.filename else ''
        print(f'error: {where}{exc.strerror or exc}', file=sys.stderr)
        return 2
    except MemoryError:
        print('error: out of memory (a smaller map, fewer robots or a smaller --width may fit)',
              file=sys.stderr)
        return 2


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGTERM stops a command as Ctrl-C does (KeyboardInterrupt), so that every command cleans up
    and says so as `run` does (run installs its own handlers while it simulates).
    """
    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt
    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


#: The commands defined in this module: given one of them, the parser leaves out the others'
#: modules, whose imports cost about 0.1 s of a short run's CPU (issue #28).
OWN_COMMANDS = ('run', 'calibrate', 'passages')


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `command` one of OWN_COMMANDS, only the parsers defined here."""
    parser = argparse.ArgumentParser(prog='thymio-road', description=__doc__)
    parser.add_argument('--version', action='version', version=f'%(prog)s {_version()}')
    sub = parser.add_subparsers(metavar='COMMAND')

    run = sub.add_parser('run', help='run a scenario in the embedded runtime (no ROS needed)',
                         description="Run a scenario's ROS 2 nodes in one process on simulated time, "
                                     'faster than real time, without ROS. Writes <out>/bag/ (rosbag2, '
                                     'MCAP, every topic unless --record says otherwise), <out>/summary.json '
                                     'and <out>/trajectories.png. '
                                     'Ctrl-C or SIGTERM stops the run, closes the bag and exits with 130. '
                                     'The same scenario and seed give the same recording.')
    run.add_argument('--scenario', default=DEFAULT_SCENARIO,
                     help=f'shipped scenario name or a scenario file (default: {DEFAULT_SCENARIO})')
    run.add_argument('--robots', type=ROBOTS, help="number of robots (default: the scenario's)")
    run.add_argument('--duration', type=DURATION, help="simulated seconds (default: the scenario's)")
    run.add_argument('--seed', type=SEED, help="random seed (default: the scenario's)")
    run.add_argument('--out', type=Path, help='output folder (default: runs/<scenario>-<time>)')
    run.add_argument('--record', choices=('full', 'analysis', 'none'), default='full',
                     help='what the bag records: every topic (full, the default), only what `analyze` '
                          'and `render` read (analysis: ground truth, controller events and state, IR '
                          'tx/rx, light phases, /clock and the map; several times smaller and faster), '
                          'or no bag (none)')
    run.add_argument('--no-record', dest='record', action='store_const', const='none',
                     help='do not write a rosbag (the same as --record none)')
    run.add_argument('--compression', choices=('zstd', 'none'), default='zstd',
                     help='compression of the MCAP chunks (default: zstd; every reader of rosbag2 MCAP '
                          'reads both)')
    run.add_argument('--no-picture', action='store_true', help='do not draw trajectories.png')
    run.add_argument('--quiet', action='store_true',
                     help='no progress (a bar on a terminal, else a line every 10 %% of the run)')
    run.add_argument('--stall-time', type=arg_float(0, 1e7, low_open=True), default=120.0, metavar='SECONDS',
                     help='a robot that moved less than 1 cm in this many simulated seconds is stalled (when '
                          'every robot is, the network has stopped); one that did not advance 10 cm along the '
                          'roads or leave an intersection is stuck (default: 120, analysis/stalls.STALL_TIME)')
    run.add_argument('--ros-distro', choices=('humble', 'jazzy'),
                     help="message definitions of the bag (default: the scenario's ros_distro, else jazzy)")
    from thymio_road.cli import live as cli_live
    cli_live.add_arguments(run, 'the run', None)
    run.set_defaults(func=cmd_run)

    calibrate = sub.add_parser('calibrate', help="measure each robot's speed factor (report §10)",
                               description="The report's speed calibration (§10) on the scenario's "
                                           'simulated robots: each counts events along a 60 cm strip; '
                                           'the speed factor and wheel balance are written as YAML.')
    calibrate.add_argument('--scenario', default=DEFAULT_SCENARIO,
                           help=f'shipped scenario name or a scenario file whose robots are calibrated '
                                f'(default: {DEFAULT_SCENARIO})')
    calibrate.add_argument('--robots', type=ROBOTS, help="number of robots (default: the scenario's)")
    calibrate.add_argument('--seed', type=SEED, help="random seed of the robots' wheel gains and noise "
                           "(default: the scenario's)")
    calibrate.add_argument('--out', type=Path, required=True,
                           help='YAML file of per-robot overrides; name it in the scenario as '
                                'robots: {calibration: FILE}')
    calibrate.set_defaults(func=cmd_calibrate)

    passages = sub.add_parser('passages', help='drive one robot and check every intersection passage '
                              'ended on the branch it chose (ground truth)',
                              description='One robot with random decisions; every intersection passage is '
                                          'checked against ground truth and counted by kind and choice '
                                          '(docs/intersections.md).')
    passages.add_argument('--scenario', default='simple',
                          help='shipped scenario name or a scenario file with intersections (default: simple)')
    passages.add_argument('--duration', type=DURATION,
                          help="simulated seconds (default: the scenario's)")
    passages.add_argument('--seed', type=SEED, help="random seed (default: the scenario's)")
    passages.add_argument('--out', type=Path, help='write the result as JSON to this file')
    passages.set_defaults(func=cmd_passages)

    map_cmd = sub.add_parser('map', help='work with map files')
    map_sub = map_cmd.add_subparsers(metavar='ACTION')
    check = map_sub.add_parser('check', help='validate a map file (exit 0 if usable)')
    check.add_argument('path', help='map file, the name of a shipped map, or generated:N[:SIZE]')
    check.set_defaults(func=cmd_map_check)

    if command in OWN_COMMANDS:
        return parser
    # Commands that live with their subject; each module exposes register(subparsers).
    from swarm_comm import cli as swarmcom_cli
    swarmcom_cli.register(sub)
    from thymio_road.experiments import barcodes as barcode_experiments
    barcode_experiments.register(sub)
    from thymio_road.experiments import turns as turn_experiments
    turn_experiments.register(sub)
    from thymio_road.cli import tools as cli_tools
    cli_tools.register(sub, map_sub)
    from thymio_road.cli import ros_graph
    ros_graph.register(sub)
    from thymio_road.cli import bag as cli_bag
    cli_bag.register(sub, map_sub)
    from thymio_road.cli import traffic as cli_traffic
    cli_traffic.register(sub)
    from thymio_road.cli import generate as cli_generate
    cli_generate.register(map_sub)
    cli_live.register(sub)
    # --- more command modules are registered here, one line each (they get `sub`, `map_sub`) ---
    return parser


# The scenario's limits (map/validation.py), checked on the flags so that the error names the flag.
ROBOTS = arg_int(1, MAX_ROBOTS)
DURATION = arg_float(0, MAX_DURATION, low_open=True)
SEED = arg_int(0, MAX_SEED)


def _version() -> str:
    """The installed distribution's version (setup.py), so --version matches what pip installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version('thymio_road')
    except PackageNotFoundError:  # run from a source tree that was never installed
        return 'unknown (not installed)'


def cmd_run(args: argparse.Namespace) -> int:
    from thymio_road.cli import live as cli_live
    from thymio_road.cli.outputs import check_out_dir
    from thymio_road.scenario import load_scenario
    cli_live.check_arguments(args, None)
    if args.out:
        check_out_dir(args.out)
    scenario = load_scenario(args.scenario, robots=args.robots, seed=args.seed, duration=args.duration,
                             ros_distro=args.ros_distro)
    out = args.out or Path('runs') / f'{scenario.name}-{time.strftime("%Y%m%d-%H%M%S")}'
    if not args.out:
        check_out_dir(out, 'output folder')
    from thymio_road.runtime.run import refuse_earlier_run, run_scenario  # the runtime's imports take a second
    server = None
    if args.live:  # the port is taken before anything runs, and a taken port stops the command
        refuse_earlier_run(out)
        server = cli_live.start_server(args)
    try:
        result = run_scenario(scenario, out, record=args.record, compression=args.compression,
                              progress=not args.quiet,
                              picture=not args.no_picture, stall_time=args.stall_time,
                              tap=cli_live.run_tap(server, scenario.ros_distro, args.pace) if server else None)
    finally:
        if server is not None:
            server.close()
    s = result.summary
    print(f'{"interrupted after" if result.interrupted else "simulated"} {s["simulated_s"]:.1f} s '
          f'with {s["robots_count"]} robot{"" if s["robots_count"] == 1 else "s"} in {s["wall_time_s"]:.1f} s '
          f'({s["real_time_factor"]}x real time)')
    for row in s['robots']:
        lap_text = f' ({row["laps"]:.2f} laps)' if row['laps'] is not None else ''
        print(f'  {row["robot"]}: {row["distance_m"]:.2f} m{lap_text}, on road '
              f'{100 * (row["on_road_fraction"] or 0):.1f} %, road losses {row["road_losses"]}, '
              f'state {row["final_state"]}')
    stalls = s.get('stalls')
    if stalls and stalls['stall_count']:
        stopped = f"; the network stopped at {stalls['gridlock_at_s']:.0f} s" if stalls['gridlock'] else ''
        print(f"stalls: {stalls['stall_count']} (robots that stood still for {stalls['stall_time_s']:g} s; "
              f"first at {stalls['first_stall_s']:.0f} s, longest {stalls['longest_stall_s']:.0f} s{stopped})")
        from thymio_road.analysis.stalls import end_warning
        message = end_warning(stalls, s['robots_count'])
        if message:
            print(message, file=sys.stderr)
    from thymio_road.analysis.progress import report_lines
    for line in report_lines(s.get('progress')):
        print(line)
    print(f'outputs in {out}/: ' + ', '.join(
        p for p in ('bag/', 'summary.json', 'trajectories.png') if (out / p.rstrip('/')).exists()))
    return 130 if result.interrupted else 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from thymio_road.calibration import calibrate, write_overrides
    from thymio_road.cli.outputs import check_out_file
    from thymio_road.scenario import load_scenario, world_params
    check_out_file(args.out)
    scenario = load_scenario(args.scenario, robots=args.robots, seed=args.seed)
    names = [r.name for r in scenario.robots]
    factors = calibrate(len(names), scenario.seed, world_params(scenario), parked=len(scenario.lights))
    args.out.parent.mkdir(parents=True, exist_ok=True)  # checked writable before calibrating
    write_overrides(names, factors, args.out)
    for i, name in enumerate(names):
        print(f"{name}: speed_factor {factors[i]['speed_factor']}, wheel_balance {factors[i]['wheel_balance']}")
    print(f'written to {args.out}')
    return 0


def cmd_passages(args: argparse.Namespace) -> int:
    import json

    from thymio_road.cli.outputs import check_out_file
    from thymio_road.experiments.passages import drive
    from thymio_road.map import atomic
    from thymio_road.scenario import load_scenario
    if args.out:
        check_out_file(args.out)
    scenario = load_scenario(args.scenario, robots=1, seed=args.seed, duration=args.duration)
    summary, score = drive(scenario)
    result = {'scenario': scenario.name, 'seed': scenario.seed, 'simulated_s': scenario.duration,
              'robot': summary, **score.as_dict()}
    print(f"{scenario.name}, seed {scenario.seed}, {scenario.duration:.0f} s: {summary['road_losses']} road "
          f"losses; {result['ok']}/{result['passages']} passages on the chosen branch")
    for key, count in result['by_kind_and_choice'].items():
        print(f'  {key}: {count}')
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)  # checked writable before driving
        atomic.write_text(args.out, json.dumps(result, indent=2) + '\n')
    return 0


def cmd_map_check(args: argparse.Namespace) -> int:
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
    road_map = load_map(find_config('maps', args.path))
    grey = road_map.grey  # rendering is part of the check
    rows, cols = grey.shape
    total = road_map.road_length
    print(f"{args.path}: ok: map '{road_map.name}', {road_map.width} × {road_map.height} m, "
          f"{len(road_map.roads)} road{'s' if len(road_map.roads) != 1 else ''}, {total:.2f} m of road,"
          f' raster {cols} × {rows} px '
          f'at {road_map.resolution * 1000:g} mm')
    return 0


if __name__ == '__main__':
    sys.exit(main())
