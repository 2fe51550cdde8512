# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The whole world at scale: 100, 300 and 1000 robots all sending IR on a large map (issue #28).

Run: nice python benchmarks/bench_world_scale.py [--counts 100 300 1000] [--duration 10]

Each case runs in a fresh process, every node as in a real run (the embedded runtime's graph:
the world, one controller per robot, the IR medium; no recording): a 1 km serpentine road on a
20 × 20 m floor (bench_map_scale.serpentine), the robots evenly spread along it, the improved
traffic rules (every robot announces itself by IR every 0.1 s) and the IR medium's default
model. The graph runs 1 simulated second (kernels load, first calls), then `--duration` more
seconds are timed (wall and CPU) for the largest count, and as many robot-seconds for the
others (100 robots: 10 × `--duration`). A second run of the same case times the parts: the world node's
ticks (the compiled world and its messages), the IR medium node, the controllers (their steps
and IR receptions); the rest is the executor's delivery. It also counts the controllers' rest
steps (RoadController._rest_step): spread 1 m apart on one road, nearly every robot is at rest
nearly always, which is the common step of a large run but not of dense traffic
(docs/controller.md, "Rest steps"). It prints the real-time factor, the
shares, and the exponent of the cost (CPU per simulated second) against the robot count.

With `--baseline REV` (checked out by `git worktree add` into a temporary folder) the two trees
run alternately, `--repeat` times each, and each case keeps its best run: the machine is shared,
its speed drifts by 10-20 % between minutes, and only runs side by side compare two trees.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_map_scale import exponent, serpentine  # noqa: E402

CHILD = r"""
import json, sys, time
from collections import defaultdict
from thymio_road.nodes import msgs
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario
path, duration, parts = sys.argv[1], float(sys.argv[2]), sys.argv[3] == '1'
spent = defaultdict(float)
counts = defaultdict(int)
if parts:
    from thymio_road.nodes.controller_node import ControllerNode
    from thymio_road.nodes.ir_medium_node import IrMediumNode
    from thymio_road.nodes.world_node import WorldNode

    def timed(cls, name, part):
        inner = getattr(cls, name)

        def wrapper(*args, **kwargs):
            t = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[part] += time.process_time() - t
        setattr(cls, name, wrapper)

    timed(WorldNode, '_on_tick', 'world')
    for name in ('_on_tick', '_on_tx', 'on_pose', '_on_truth', '_on_enable'):
        timed(IrMediumNode, name, 'ir_medium')
    for name in ('on_sensors', '_on_rx'):
        timed(ControllerNode, name, 'controllers')
    from thymio_road.control.controller import RoadController

    def counted(cls, name):
        inner = getattr(cls, name)

        def wrapper(*args, **kwargs):
            counts[name] += 1
            return inner(*args, **kwargs)
        setattr(cls, name, wrapper)
    counted(RoadController, 'step')
    if hasattr(RoadController, '_rest_step'):  # (a tree from before rest steps has none)
        counted(RoadController, '_rest_step')
scenario = load_scenario(path)
msgs.use_distro(scenario.ros_distro)
graph = Graph(scenario, None)
graph.run(1.0)
spent.clear()
counts.clear()
wall0, cpu0 = time.perf_counter(), time.process_time()
graph.run(1.0 + duration)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
print(json.dumps({'wall': wall, 'cpu': cpu, 'parts': dict(spent),
                  'rest_steps': counts['_rest_step'] / max(1, counts['step'])}))
"""


def case(folder: Path, count: int) -> Path:
    """The scenario file of `count` robots on the 1 km serpentine (written into `folder`)."""
    (folder / 'serpentine.yaml').write_text(yaml.safe_dump(serpentine(1000.0, 20.0)))
    path = folder / f'scale_{count}.yaml'
    path.write_text(yaml.safe_dump({
        'name': f'scale_{count}', 'map': 'serpentine.yaml', 'seed': 1,
        'controller': {'speed': 150, 'traffic_rules': 'improved'}, 'ir': {},
        'robots': {'count': count, 'road': 'serpentine', 'start': 0.5}}))
    return path


def run(path: Path, duration: float, parts: bool, tree: Path = ROOT) -> dict:
    env = {**os.environ, 'PYTHONPATH': str(tree), 'THYMIO_ROAD_EMBEDDED': '1'}
    done = subprocess.run([sys.executable, '-c', CHILD, str(path), str(duration), '1' if parts else '0'],
                          env=env, capture_output=True, text=True, cwd=path.parent)
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--counts', type=int, nargs='+', default=[100, 300, 1000])
    ap.add_argument('--duration', type=float, default=10.0,
                    help='simulated seconds timed for the largest count (smaller counts: as many robot-seconds)')
    ap.add_argument('--baseline', metavar='REV', help='git revision to run beside this tree, alternately')
    ap.add_argument('--repeat', type=int, default=1, help='runs per case and tree; the best is kept')
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {'this tree': ROOT}
        if args.baseline:
            trees[args.baseline] = Path(tmp) / 'baseline'
            subprocess.run(['git', 'worktree', 'add', '--detach', str(trees[args.baseline]), args.baseline],
                           cwd=ROOT, check=True, capture_output=True)
        try:
            measure(Path(tmp), trees, args)
        finally:
            if args.baseline:
                subprocess.run(['git', 'worktree', 'remove', '--force', str(trees[args.baseline])], cwd=ROOT,
                               capture_output=True)


def measure(folder: Path, trees: dict[str, Path], args: argparse.Namespace) -> None:
    """Each case on each tree, alternately; the best wall time of `--repeat` runs and the parts'
    shares of the first timed run; then the exponents and, with a baseline, the ratios.
    """
    costs: dict[str, list[float]] = {name: [] for name in trees}
    for count in args.counts:
        path = case(folder, count)
        # The same robot-seconds in every case: a short case is timed over as much work as the
        # largest (with 100 robots, 5 simulated seconds took 56 ms of wall time, and one pause of
        # the machine moved the cost exponent by 0.1).
        duration = args.duration * max(args.counts) / count
        best: dict[str, dict] = {}
        for _ in range(args.repeat):
            for name, tree in trees.items():
                plain = run(path, duration, False, tree)
                if name not in best or plain['wall'] < best[name]['wall']:
                    best[name] = plain
        for name, tree in trees.items():
            timed = run(path, duration, True, tree)
            parts, total = timed['parts'], timed['cpu']
            shares = {part: parts.get(part, 0.0) / total for part in ('world', 'ir_medium', 'controllers')}
            rest = 1.0 - sum(shares.values())
            plain = best[name]
            costs[name].append(plain['cpu'] / duration)
            label = f' {name}' if len(trees) > 1 else ''
            print(f"{count:5d} robots{label}: {duration / plain['wall']:6.2f}× real time (wall), "
                  f"{duration / plain['cpu']:6.2f}× (CPU); CPU shares: world {100 * shares['world']:.0f} %, "
                  f"IR medium {100 * shares['ir_medium']:.0f} %, controllers {100 * shares['controllers']:.0f} %, "
                  f'executor and the rest {100 * rest:.0f} %; rest steps {100 * timed["rest_steps"]:.0f} % of the '
                  "controllers' steps", flush=True)
        if len(trees) > 1:
            this, base = (best[name]['wall'] for name in trees)
            print(f'{count:5d} robots: this tree / {args.baseline}: {base / this:.2f}× as fast', flush=True)
    if len(args.counts) >= 2:
        for name in trees:
            label = f' ({name})' if len(trees) > 1 else ''
            print(f'cost exponent{label} (CPU per simulated second against robots, '
                  f'{args.counts[0]}..{args.counts[-1]}): {exponent(args.counts, costs[name]):.2f}')


if __name__ == '__main__':
    main()
