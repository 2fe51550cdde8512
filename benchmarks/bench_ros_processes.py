"""Peak memory and start-up time of each node process of a real-ROS graph (``thymio-road ros``).

    python benchmarks/bench_ros_processes.py [--scenarios oval final_traffic] [--seconds 25]

Needs rclpy (``pip install '.[ros]'`` or the kit in ../shared/ros). Each scenario's graph runs as
processes in a private DDS domain. Start-up is the wall time from the process's start until its
node shows its characteristic endpoint in the ROS graph (world: /clock publisher; controller:
cmd_vel publisher; IR medium: comm/tx subscription; traffic light: comm/tx publisher), i.e. until
its constructor has finished. Peak RSS is the kernel's high-water mark (VmHWM) after `--seconds`.
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


def measure(scenario: str, seconds: float, domain: str) -> list[tuple[str, float | None, float | None]]:
    import rclpy
    env = dict(os.environ, ROS_DOMAIN_ID=domain, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', PYTHONUNBUFFERED='1')
    env.pop('THYMIO_ROAD_EMBEDDED', None)
    exe = Path(sys.executable).parent / 'thymio-road'
    proc = subprocess.Popen([str(exe), 'ros', scenario], env=env, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    t0 = time.monotonic()
    started: dict[str, tuple[int, float]] = {}
    up: dict[str, float] = {}
    node = rclpy.create_node('bench_observer')

    def read_lines() -> None:
        for line in proc.stderr:
            match = re.search(r'started (\S+) \(pid (\d+)\)', line)
            if match:
                started.setdefault(match.group(1), (int(match.group(2)), time.monotonic()))
    threading.Thread(target=read_lines, daemon=True).start()
    try:
        while time.monotonic() - t0 < seconds:
            for name, (_, t_start) in list(started.items()):
                if name not in up and _endpoint_up(node, name):
                    up[name] = time.monotonic() - t_start
            rclpy.spin_once(node, timeout_sec=0.05)
        peaks = {name: _vm_hwm_mb(pid) for name, (pid, _) in list(started.items())}
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        node.destroy_node()
    return [(name, up.get(name), peaks.get(name)) for name in list(started)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--scenarios', nargs='+', default=['oval', 'final_traffic'])
    parser.add_argument('--seconds', type=float, default=25.0, help='wall seconds each graph runs')
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
        for scenario in args.scenarios:
            rows = measure(scenario, args.seconds, domain)
            print(f'\n{scenario}: {len(rows)} processes, {args.seconds:g} s each')
            print(f'{"process":32} {"start-up s":>10} {"peak RSS MB":>12}')
            for name, startup, rss in rows:
                print(f'{name:32} {"-" if startup is None else f"{startup:10.2f}":>10} '
                      f'{"-" if rss is None else f"{rss:12.0f}":>12}')
            total = sum(r for _, _, r in rows if r)
            print(f'{"total":32} {"":>10} {total:12.0f}')
            for name, startup, rss in rows:
                limit_s, limit_mb = FLOORS.get(_kind(name), (None, None))
                if scenario != 'oval' and limit_s is not None and (startup is None or startup > limit_s):
                    failures.append(f'{scenario} {name}: start-up {startup} s (floor {limit_s} s)')
                if limit_mb is not None and (rss is None or rss > limit_mb):
                    failures.append(f'{scenario} {name}: peak RSS {rss} MB (floor {limit_mb} MB)')
    finally:
        rclpy.try_shutdown()
    print('\nfloors: ' + ('all met' if not failures else 'NOT met:\n  ' + '\n  '.join(failures)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
