# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Wall time of a traffic sweep run one after another against the same sweep on local worker
processes (experiments/sweep.py, issue #28), and whether the two give the same table.

Run: python benchmarks/bench_sweep.py [--seeds 1-4] [--robots 10] [--duration 120] [--workers 2]
     [--repeat 1]
Each case is `thymio-road traffic` in a fresh process, timed from its start to its exit, so the
parallel case pays for what a user pays: starting the cluster, and each worker importing the
package, loading the compiled kernels and rendering the map. The sequential and parallel cases
alternate when repeated (a load that changes meanwhile hits both). The CPU time is that of the
command and its worker processes; the load average says what else the machine ran (a shared
machine's other work takes cores from the sweep). The summaries are compared without their two
wall-clock fields (wall_time_s, real_time_factor), which no two runs share.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import resource
import subprocess
import sys
import tempfile
import time

ROOT = Path(__file__).resolve().parent.parent
WALL_FIELDS = ('wall_time_s', 'real_time_factor')


def sweep(out: Path, workers: int, args: argparse.Namespace) -> tuple[float, float]:
    """Seconds from the command's start to its exit, and the CPU seconds of it and its worker
    processes (its table goes to out/table.json).
    """
    command = [sys.executable, '-m', 'thymio_road.cli', 'traffic', '--scenario', args.scenario,
               '--robots', str(args.robots), '--seeds', args.seeds, '--duration', str(args.duration),
               '--out', str(out), '--workers', str(workers)]
    env = {**os.environ, 'PYTHONPATH': str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode not in (0, 1):  # 1: a row fails the table's criteria, still a table
        sys.exit(f'{" ".join(command)} exited {done.returncode}:\n{done.stderr}')
    return wall, cpu


def summaries(out: Path) -> dict[str, dict]:
    found = {}
    for path in sorted(out.glob('r*-s*/summary.json')):
        summary = json.loads(path.read_text())
        for field in WALL_FIELDS:
            summary.pop(field, None)
        found[path.parent.name] = summary
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--scenario', default='final_traffic')
    parser.add_argument('--seeds', default='1-4')
    parser.add_argument('--robots', type=int, default=10)
    parser.add_argument('--duration', type=float, default=120.0, help='simulated seconds per run')
    parser.add_argument('--workers', type=int, default=2, help='worker processes of the parallel case')
    parser.add_argument('--repeat', type=int, default=1, help='pairs of (sequential, parallel) sweeps')
    args = parser.parse_args()

    print(f'traffic --scenario {args.scenario} --seeds {args.seeds} --robots {args.robots} '
          f'--duration {args.duration:g}; {os.cpu_count()} cores, load average '
          f'{" ".join(f"{x:.2f}" for x in os.getloadavg())}')
    times: dict[int, list[float]] = {1: [], args.workers: []}
    same = True
    with tempfile.TemporaryDirectory(prefix='bench-sweep-') as tmp:
        for k in range(args.repeat):
            outs = {}
            for workers in (1, args.workers):
                outs[workers] = Path(tmp) / f'{k}-w{workers}'
                wall, cpu = sweep(outs[workers], workers, args)
                times[workers].append(wall)
                print(f'  round {k + 1}, --workers {workers}: {wall:.1f} s wall, {cpu:.1f} s CPU '
                      f'(load average {os.getloadavg()[0]:.2f})', flush=True)
            tables = [json.loads((o / 'table.json').read_text()) for o in outs.values()]
            sums = [summaries(o) for o in outs.values()]
            same &= tables[0] == tables[1] and sums[0] == sums[1] and len(sums[0]) == len(tables[0])
    best = {w: min(t) for w, t in times.items()}
    print(f'sequential (--workers 1): {best[1]:.1f} s; --workers {args.workers}: {best[args.workers]:.1f} s '
          f'(best of {args.repeat}); speed-up {best[1] / best[args.workers]:.2f}x')
    print(f'tables and summaries (less {", ".join(WALL_FIELDS)}) identical: {"yes" if same else "NO"}')
    if not same:
        sys.exit(1)


if __name__ == '__main__':
    main()
