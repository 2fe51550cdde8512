# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Cost of one controller step (the robot's mind alone), optionally beside a git revision.

Run: python benchmarks/bench_controller.py [--baseline REV] [--repeat K] [--steps N]

Ten controllers, with the report's rules and with the improved ones (recovery 'both', strict
trigger security, as in `final_traffic`), step through the same deterministic stream of readings:
the follow sensor wandering about the grey reference, now and then a black bit under the reading
sensor (a barcode or a mark), now and then a robot in front; the improved robots also hear an
announcement each step and say what they send. Each tree runs in its own process (with
`--baseline REV`, REV is checked out with `git worktree add` into a temporary folder), the two
alternating, and the best of `--repeat` runs is kept: the machine may be shared, and the best
run is the one least disturbed. Prints microseconds per step and the ratio this/REV.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
import subprocess
import sys
import tempfile

ROOT = Path(__file__).resolve().parent.parent

MEASURE = r"""
import json, random, sys, time
from thymio_road.control.controller import ControllerParams, RoadController
rules, steps = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
improved = rules == 'improved'
robots = [RoadController(ControllerParams(traffic_rules=rules, robot_id=k + 1 if improved else 0, recovery='both',
                                          trigger_security='strict', speed_factor=1.02, wheel_balance=0.99))
          for k in range(10)]
stream = [((500 + rng.randint(-80, 80), 100 if rng.random() < 0.02 else 900),
           [0, 0, rng.choice((0, 0, 0, 1500)), 0, 0, 0, 0]) for _ in range(steps)]
heard = 256 + 64 + 40  # a road robot, id 40, in front
front = [0, 0, 2000, 0, 0, 0, 0]
start = time.perf_counter()
for ground, prox in stream:
    for c in robots:
        if improved:
            c.on_comm(heard, front)
        c.step(ground, prox)
        c.tx_value()
        c.drain_events()
elapsed = time.perf_counter() - start
print(json.dumps({'us_per_step': elapsed / (steps * len(robots)) * 1e6}))
"""


def measure(tree: Path, rules: str, steps: int) -> float:
    out = subprocess.run([sys.executable, '-c', MEASURE, rules, str(steps)], cwd=tree, capture_output=True,
                         text=True, env={'PYTHONPATH': str(tree), 'PATH': '/usr/bin:/bin'}, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])['us_per_step']


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--baseline', metavar='REV', help='git revision to measure beside this tree')
    parser.add_argument('--repeat', type=int, default=5, help='runs per case and tree; the best is kept')
    parser.add_argument('--steps', type=int, default=3000, help='events per run (each for ten robots)')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        trees = {'this tree': ROOT}
        if args.baseline:
            base = Path(folder) / 'baseline'
            subprocess.run(['git', 'worktree', 'add', '--detach', str(base), args.baseline], cwd=ROOT, check=True,
                           capture_output=True)
            trees[args.baseline] = base
        try:
            print(f'one controller step, ten robots, {args.steps} events, best of {args.repeat} runs (µs per step)')
            print(f"{'rules':<12}" + ''.join(f'{name:>14}' for name in trees)
                  + ('      ratio' if args.baseline else ''))
            for rules in ('report', 'improved'):
                best = {name: float('inf') for name in trees}
                for _ in range(args.repeat):
                    for name, tree in trees.items():
                        best[name] = min(best[name], measure(tree, rules, args.steps))
                row = f'{rules:<12}' + ''.join(f'{best[name]:>14.2f}' for name in trees)
                if args.baseline:
                    row += f"{best['this tree'] / best[args.baseline]:>10.3f}x"
                print(row)
        finally:
            if args.baseline:
                subprocess.run(['git', 'worktree', 'remove', '--force', str(trees[args.baseline])], cwd=ROOT,
                               capture_output=True)


if __name__ == '__main__':
    main()
