# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Real-time factor of the simulation core without recording, optionally beside a git revision.

Run: python benchmarks/bench_core.py [--duration S] [--baseline REV] [--repeat K] [--case TEXT]

Cases: `final_traffic` (the final map, traffic lights, IR) with 1 and 10 robots, the plain
`final` map with 10 robots, and 50 robots on a larger oval (the final map's longest road holds
26). Each case runs in a fresh process: the graph is built and run for 1 simulated second
(numba's cached kernels load, first calls), then `Graph.run` is timed for `--duration` more
seconds, in wall and in CPU time of the process (the machine may be shared: CPU time is the
steadier figure). With `--baseline REV` the same cases run on REV, checked out with
`git worktree add` into a temporary folder and imported from there, run by run alternating
with this tree's (so that a change in the machine's load falls on both), and the ratio this/REV
is printed. The best of `--repeat` runs is kept. `--case final` runs only the cases whose label
contains "final" (repeatable).
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile

ROOT = Path(__file__).resolve().parent.parent

BIG_OVAL = """
name: big_oval
size: [7.0, 2.0]
roads:
  - id: loop
    start: [0.9, 0.2, 0]
    closed: true
    pieces:
      - straight: 5.2
      - arc: {radius: 0.8, angle_deg: 180}
      - straight: 5.2
      - arc: {radius: 0.8, angle_deg: 180}
"""
BIG_SCENARIO = """
name: bench_oval
map: big_oval.yaml
seed: 7
controller: {speed: 260}
robots: {count: 1, road: loop, start: 0.1}
"""
#: (label, scenario, robots)
CASES = [('final_traffic, 1 robot', 'final_traffic', 1),
         ('final_traffic, 10 robots', 'final_traffic', 10),
         ('final, 10 robots', 'final', 10),
         ('big oval, 50 robots', 'BIG', 50)]

#: Runs in the measured tree (PYTHONPATH): only API that existed before the compiled core.
MEASURE = r"""
import json, os, sys, time
os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
from thymio_road.nodes import msgs
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario
name, robots, duration = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
scenario = load_scenario(name, robots=robots, seed=1)
msgs.use_distro(scenario.ros_distro)
graph = Graph(scenario, None)
graph.run(1.0)
wall0, cpu0 = time.perf_counter(), time.process_time()
graph.run(1.0 + duration)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
print(json.dumps({'wall': wall, 'cpu': cpu, 'module': __import__('thymio_road').__file__}))
"""


def measure(tree: Path, scenario: str, robots: int, duration: float, folder: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, '-c', MEASURE, scenario, str(robots), str(duration)],
                         cwd=folder, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f'{tree}: {scenario} with {robots} robots failed:\n{out.stderr[-2000:]}')
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not result['module'].startswith(str(tree)):
        raise SystemExit(f'measured {result["module"]}, not the tree {tree}')
    return result


def best(trees: list[Path], scenario: str, robots: int, duration: float, folder: Path, repeat: int) -> list[dict]:
    """Each tree's fastest (CPU) of `repeat` runs, the trees' runs alternating."""
    runs = [[] for _ in trees]
    for _ in range(repeat):
        for tree, kept in zip(trees, runs):
            kept.append(measure(tree, scenario, robots, duration, folder))
    return [min(kept, key=lambda r: r['cpu']) for kept in runs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--duration', type=float, default=60.0, help='simulated seconds timed per case')
    parser.add_argument('--baseline', metavar='REV', help='git revision to measure beside this tree')
    parser.add_argument('--repeat', type=int, default=1, help='runs per case and tree; the best is kept')
    parser.add_argument('--case', action='append', metavar='TEXT',
                        help='only the cases whose label contains TEXT (e.g. "final, 10"); repeatable')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / 'big_oval.yaml').write_text(BIG_OVAL)
        (folder / 'BIG.yaml').write_text(BIG_SCENARIO)
        baseline = None
        if args.baseline:
            baseline = folder / 'baseline'
            subprocess.run(['git', '-C', str(ROOT), 'worktree', 'add', '--detach', '--quiet', str(baseline),
                            args.baseline], check=True)
        try:
            print(f'simulation core without recording, {args.duration:.0f} simulated s per case, '
                  f'one process per case; real-time factor = simulated / wall (CPU) time')
            head = f'{"case":<26} {"this tree":>22}'
            if baseline:
                head += f' {args.baseline[:12]:>22} {"ratio":>14}'
            print(head)
            for label, scenario, robots in CASES:
                if args.case and not any(text in label for text in args.case):
                    continue
                name = str(folder / 'BIG.yaml') if scenario == 'BIG' else scenario
                new, *old = best([ROOT] + ([baseline] if baseline else []), name, robots, args.duration, folder,
                                 args.repeat)
                line = f'{label:<26} {_rtf(args.duration, new):>22}'
                if old:
                    old = old[0]
                    line += (f' {_rtf(args.duration, old):>22} {old["wall"] / new["wall"]:>6.2f}x '
                             f'({old["cpu"] / new["cpu"]:.2f}x)')
                print(line, flush=True)
        finally:
            if baseline:
                subprocess.run(['git', '-C', str(ROOT), 'worktree', 'remove', '--force', str(baseline)],
                               check=False)


def _rtf(duration: float, run: dict) -> str:
    return f'{duration / run["wall"]:.0f}x ({duration / run["cpu"]:.0f}x cpu)'


if __name__ == '__main__':
    main()
