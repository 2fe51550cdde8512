# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd
"""Peak memory and start-up time of each node process of a real-ROS graph (``thymio-road ros``), or
the memory of each node of a real ``ros2 launch`` in steady state (``--launch``).

    python benchmarks/bench_ros_processes.py [--scenarios oval final_traffic] [--seconds 25]
    python benchmarks/bench_ros_processes.py --launch [--scenarios final] [--seconds 30]

``--launch`` runs ``ros2 launch thymio_road road_network.launch.py scenario:=NAME`` (the ``ros2``
beside this interpreter, else on PATH; thymio_road in its ament index: a pip install into the kit's
venv, or a sourced colcon install space), waits `--seconds` and prints each node process's
resident memory then (VmRSS: steady state) and its peak (VmHWM). Floor (issue #30): a controller
under 150 MB of VmRSS after 30 s on the final map.

Needs rclpy (``pip install '.[ros]'`` or the kit in ../shared/ros). Each scenario's graph runs as
processes in a private DDS domain. Start-up is the wall time from the process's start until its
node shows its characteristic endpoint in the ROS graph (world: /clock publisher; controller:
cmd_vel publisher; IR medium: comm/tx subscription; traffic light: comm/tx publisher), i.e. until
its constructor has finished, in wall time and in the CPU time the process had used by then (all
processes start at once, so on a 2-core machine the wall time mostly measures the others). Peak
RSS is the kernel's high-water mark (VmHWM) after `--seconds`.
Floors from issue #14: world on the final map under 3 s and 500 MB, each controller under 150 MB.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
import re
import signal
import subprocess
import sys
import threading
import time

FLOORS = {'world': (3.0, 500.0), 'controller': (None, 150.0)}


def _kind(name: str) -> str:
    return 'world' if name == '/world' else name.rsplit('/', 1)[-1] if '/' in name else name


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        text = Path(f'/proc/{pid}/status').read_text()
    except OSError:
        return None
    match = re.search(r'VmHWM:\s+(\d+) kB', text)
    return int(match.group(1)) / 1024 if match else None


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds the process has used so far."""
    try:
        fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def _endpoint_up(node, name: str) -> bool:
    kind = _kind(name)
    ns = name.rsplit('/', 1)[0]
    if kind == 'world':
        return node.count_publishers('/clock') > 0
    if kind == 'controller':
        return node.count_publishers(f'{ns}/cmd_vel') > 0 and any(
            i.node_name == 'controller' for i in node.get_publishers_info_by_topic(f'{ns}/cmd_vel'))
    if kind == 'ir_medium':
        return any(i.node_name == 'ir_medium' for t, _ in node.get_topic_names_and_types()
                   if t.endswith('/comm/tx') for i in node.get_subscriptions_info_by_topic(t))
    return any(i.node_name == kind for i in node.get_publishers_info_by_topic(f'{ns}/comm/tx'))


def measure(scenario: str, seconds: float, domain: str, alone: str | None = None
            ) -> list[tuple[str, float | None, float | None, float | None]]:
    """Every process of the scenario's graph, or only the node named `alone` (e.g. /world)."""
    import rclpy
    env = dict(os.environ, ROS_DOMAIN_ID=domain, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', PYTHONUNBUFFERED='1')
    env.pop('THYMIO_ROAD_EMBEDDED', None)
    exe = Path(sys.executable).parent / 'thymio-road'
    started: dict[str, tuple[int, float]] = {}
    if alone:
        import tempfile

        from thymio_road.ros.launch_plan import plan
        from thymio_road.ros.process_graph import processes
        (only,) = [p for p in processes(plan({'scenario': scenario}), Path(tempfile.mkdtemp())) if p.name == alone]
        proc = subprocess.Popen(list(only.cmd), env=env, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        started[alone] = (proc.pid, time.monotonic())
    else:
        proc = subprocess.Popen([str(exe), 'ros', scenario], env=env, stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL)
    t0 = time.monotonic()
    up: dict[str, float] = {}
    cpu: dict[str, float | None] = {}
    node = rclpy.create_node('bench_observer')

    def read_lines() -> None:
        for line in proc.stderr:
            match = re.search(r'started (\S+) \(pid (\d+)\)', line)
            if match:
                started.setdefault(match.group(1), (int(match.group(2)), time.monotonic()))
    threading.Thread(target=read_lines, daemon=True).start()
    try:
        while time.monotonic() - t0 < seconds:
            for name, (pid, t_start) in list(started.items()):
                if name not in up and _endpoint_up(node, name):
                    up[name] = time.monotonic() - t_start
                    cpu[name] = _cpu_s(pid)
            rclpy.spin_once(node, timeout_sec=0.05)
        peaks = {name: _vm_hwm_mb(pid) for name, (pid, _) in list(started.items())}
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        node.destroy_node()
    return [(name, up.get(name), cpu.get(name), peaks.get(name)) for name in list(started)]


def _status_mb(pid: int, field: str) -> float | None:
    """A memory field of /proc/PID/status (VmRSS, VmHWM) in MB."""
    try:
        match = re.search(rf'{field}:\s+(\d+) kB', Path(f'/proc/{pid}/status').read_text())
    except OSError:
        return None
    return int(match.group(1)) / 1024 if match else None


def _node_name(pid: int) -> str | None:
    """The fully qualified node name from a node process's `-r __ns:=… -r __node:=…`."""
    try:
        args = Path(f'/proc/{pid}/cmdline').read_bytes().decode(errors='replace').split('\0')
    except OSError:
        return None
    found = dict(a.split(':=', 1) for a in args if a.startswith(('__ns:=', '__node:=')))
    if '__node' not in found:
        return None
    return f"{found.get('__ns', '/').rstrip('/')}/{found['__node']}"


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        try:
            children = [int(c) for c in Path(f'/proc/{todo[0]}/task/{todo[0]}/children').read_text().split()]
        except OSError:
            children = []
        todo = todo[1:] + children
        out += children
    return out


def measure_launch(scenario: str, seconds: float,
                   domain: str) -> tuple[list[tuple[str, float | None, float | None]], int]:
    """[(node, VmRSS MB, VmHWM MB)] of every node process of ``ros2 launch`` after `seconds`, and
    the launch's exit code after Ctrl-C (SIGINT).
    """
    import shutil
    ros2 = Path(sys.executable).parent / 'ros2'
    ros2 = str(ros2) if ros2.is_file() else shutil.which('ros2')
    if ros2 is None:
        raise SystemExit('--launch needs the ros2 command line (../shared/ros/install.sh installs it)')
    env = dict(os.environ, ROS_DOMAIN_ID=domain, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', PYTHONUNBUFFERED='1')
    env.pop('THYMIO_ROAD_EMBEDDED', None)
    launch = subprocess.Popen([ros2, 'launch', 'thymio_road', 'road_network.launch.py', f'scenario:={scenario}'],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        time.sleep(seconds)
        rows = [(name, _status_mb(pid, 'VmRSS'), _status_mb(pid, 'VmHWM'))
                for pid in _descendants(launch.pid) if (name := _node_name(pid))]
    finally:
        launch.send_signal(signal.SIGINT)
        try:
            code = launch.wait(timeout=60)
        except subprocess.TimeoutExpired:
            launch.kill()
            code = launch.wait()
    return sorted(rows), code


def main_launch(scenarios: list[str], seconds: float) -> int:
    domain = str(20 + os.getpid() % 70)
    failures = []
    for scenario in scenarios:
        rows, code = measure_launch(scenario, seconds, domain)
        print(f'\nros2 launch thymio_road road_network.launch.py scenario:={scenario}: '
              f'{len(rows)} node processes after {seconds:g} s (exit code after Ctrl-C: {code})')
        print(f'{"process":32} {"RSS MB":>8} {"peak MB":>8}')
        for name, rss, peak in rows:
            print(f'{name:32} {"-" if rss is None else f"{rss:8.0f}":>8} {"-" if peak is None else f"{peak:8.0f}":>8}')
        print(f'{"total":32} {sum(r for _, r, _ in rows if r):8.0f}')
        if not rows:
            failures.append(f'{scenario}: no node process running after {seconds:g} s')
        limit = FLOORS['controller'][1]
        failures += [f'{scenario} {name}: RSS {rss} MB (floor {limit:g} MB)' for name, rss, _ in rows
                     if _kind(name) == 'controller' and (rss is None or rss > limit)]
    print('\nfloor (controller RSS under 150 MB): '
          + ('met' if not failures else 'NOT met:\n  ' + '\n  '.join(failures)))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--scenarios', nargs='+', default=None,
                        help='default: oval final_traffic (--launch: final)')
    parser.add_argument('--seconds', type=float, default=None, help='wall seconds each graph runs (25; --launch: 30)')
    parser.add_argument('--launch', action='store_true',
                        help="run ros2 launch (road_network.launch.py) and print each node's RSS after --seconds")
    parser.add_argument('--world-alone', action='store_true',
                        help='also start the world by itself (its start-up without 20 others competing)')
    args = parser.parse_args()
    if args.launch:
        return main_launch(args.scenarios or ['final'], args.seconds or 30.0)
    args.scenarios = args.scenarios or ['oval', 'final_traffic']
    args.seconds = args.seconds or 25.0
    try:
        import rclpy
    except ImportError:
        print("needs rclpy: pip install '.[ros]' (or ../shared/ros/install.sh)", file=sys.stderr)
        return 2
    domain = str(20 + os.getpid() % 70)
    os.environ['ROS_DOMAIN_ID'] = domain
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    rclpy.init()
    failures = []
    try:
        runs = [(scenario, None) for scenario in args.scenarios]
        if args.world_alone:
            runs += [(scenario, '/world') for scenario in args.scenarios]
        for scenario, alone in runs:
            rows = measure(scenario, min(args.seconds, 15.0) if alone else args.seconds, domain, alone)
            print(f'\n{scenario}'
                  + (f' ({alone} alone)' if alone else f': {len(rows)} processes, {args.seconds:g} s each'))
            print(f'{"process":32} {"start-up wall s":>16} {"start-up CPU s":>15} {"peak RSS MB":>12}')
            for name, startup, cpu, rss in rows:
                print(f'{name:32} {"-" if startup is None else f"{startup:16.2f}":>16} '
                      f'{"-" if cpu is None else f"{cpu:15.2f}":>15} {"-" if rss is None else f"{rss:12.0f}":>12}')
            if not rows:
                failures.append(f'{scenario}: no process started within {args.seconds:g} s')
            total = sum(r for _, _, _, r in rows if r)
            print(f'{"total":32} {"":>16} {"":>15} {total:12.0f}')
            for name, startup, cpu, rss in rows:
                limit_s, limit_mb = FLOORS.get(_kind(name), (None, None))
                # All processes start at once on a shared machine: the floor is on the CPU the
                # process spent to get there, the wall time is printed beside it.
                if scenario != 'oval' and limit_s is not None and (cpu is None or cpu > limit_s):
                    failures.append(f'{scenario} {name}: start-up {cpu} CPU s (floor {limit_s} s)')
                if limit_mb is not None and (rss is None or rss > limit_mb):
                    failures.append(f'{scenario} {name}: peak RSS {rss} MB (floor {limit_mb} MB)')
    finally:
        rclpy.try_shutdown()
    print('\nfloors: ' + ('all met' if not failures else 'NOT met:\n  ' + '\n  '.join(failures)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
