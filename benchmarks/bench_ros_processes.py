"""Peak memory and start-up time of each node process of a real-ROS graph (``thymio-road ros``).

    python benchmarks/bench_ros_processes.py [--scenarios oval final_traffic] [--seconds 25]

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
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--scenarios', nargs='+', default=['oval', 'final_traffic'])
    parser.add_argument('--seconds', type=float, default=25.0, help='wall seconds each graph runs')
    parser.add_argument('--world-alone', action='store_true',
                        help='also start the world by itself (its start-up without 20 others competing)')
    args = parser.parse_args()
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
            print(f'\n{scenario}' + (f' ({alone} alone)' if alone else f': {len(rows)} processes, {args.seconds:g} s each'))
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
