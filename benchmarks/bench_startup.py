# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Start-up: the CPU time of a short run, this tree beside another (issue #28).

Run: python benchmarks/bench_startup.py --baseline /tmp/base [--scenario final] [--duration 1]
                                        [--repeat 5] [--phases]

`--baseline` is a checkout of the code to compare with (e.g. ``git worktree add --detach
/tmp/base 90f5205``, the code of 2026-11-26). Each run is the command a user types,
``thymio-road run --scenario final --duration 1`` (a full bag and the picture), in a fresh
process with that tree first on PYTHONPATH; the two trees' runs alternate, and the CPU time
(user + system) of each process is read from the operating system. It prints the fastest and the
median of each and their ratio. Both trees keep their caches (numba's kernels, and this tree's
rasters) warm from a first run that is not counted; `--cold` also times this tree with an empty
raster cache (the first run on a map). `--phases` prints where this tree's start-up goes.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = Path(__file__).resolve().parent.parent

PHASES = r"""
import resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
marks = [('interpreter', cpu())]
from thymio_road.cli.main import build_parser
build_parser()
marks.append(('imports and the command line', cpu()))
from thymio_road.scenario import load_scenario
scenario = load_scenario(sys.argv[1], duration=float(sys.argv[2]))
marks.append(('scenario and map (with calibration)', cpu()))
from thymio_road.runtime.run import run_scenario
from thymio_road.sim.sensors import noiseless_response
m = scenario.road_map
noiseless_response(m), m.road_index, m.blind_area, m.barcode_index, m.occupancy(0.005)
marks.append(('rasters and /map', cpu()))
run_scenario(scenario, __import__('pathlib').Path(sys.argv[3]) / 'out', record='none', picture=False, progress=False)
marks.append(('the run (no bag, no picture)', cpu()))
last = 0.0
for name, t in marks:
    print(f'  {name:38s} {t - last:6.2f} s')
    last = t
"""


def child_cpu(argv: list[str], env: dict) -> float:
    """CPU time (user + system) of one child process running argv."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # cwd elsewhere: `python -m` puts the working folder first on sys.path, before PYTHONPATH's tree
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          cwd=tempfile.gettempdir())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f'{argv}: {done.stderr[-2000:]}')
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_once(tree: Path, scenario: str, duration: float, extra_env: dict | None = None,
             options: tuple[str, ...] = ()) -> float:
    env = {**os.environ, 'PYTHONPATH': str(tree), 'THYMIO_ROAD_EMBEDDED': '1', **(extra_env or {})}
    check = subprocess.run([sys.executable, '-c', 'import thymio_road; print(thymio_road.__file__)'], env=env,
                           capture_output=True, text=True, cwd=tempfile.gettempdir()).stdout
    if not check.startswith(str(tree)):
        raise RuntimeError(f'{tree}: python imports thymio_road from {check.strip()}')
    with tempfile.TemporaryDirectory() as tmp:
        return child_cpu([sys.executable, '-m', 'thymio_road.cli.main', 'run', '--scenario', scenario,
                          '--duration', str(duration), '--out', str(Path(tmp) / 'out'), '--quiet', *options], env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--baseline', type=Path, required=True, help='a checkout of the code to compare with')
    ap.add_argument('--scenario', default='final')
    ap.add_argument('--duration', type=float, default=1.0)
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--options', default='', help="more options of thymio-road run, e.g. '--no-picture --no-record'")
    ap.add_argument('--cold', action='store_true', help='also time this tree with an empty raster cache')
    ap.add_argument('--phases', action='store_true', help="print where this tree's start-up goes")
    args = ap.parse_args()
    trees = {'this tree': ROOT, 'baseline': args.baseline.resolve()}
    options = tuple(args.options.split())
    for tree in trees.values():  # warm numba's caches and the rasters
        run_once(tree, args.scenario, args.duration, options=options)
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, tree in trees.items():
            times[name].append(run_once(tree, args.scenario, args.duration, options=options))
    print(f'thymio-road run --scenario {args.scenario} --duration {args.duration:g} {args.options}: '
          f'CPU time of the process '
          f'(user + system), {args.repeat} runs each, alternating')
    for name, values in times.items():
        print(f'  {name:10s} fastest {min(values):5.2f} s, median {statistics.median(values):5.2f} s  '
              f"({', '.join(f'{v:.2f}' for v in values)})")
    print(f"  ratio (baseline / this tree): fastest {min(times['baseline']) / min(times['this tree']):.2f}×, "
          f"median {statistics.median(times['baseline']) / statistics.median(times['this tree']):.2f}×")
    if args.cold:
        with tempfile.TemporaryDirectory() as cache:
            cold = run_once(ROOT, args.scenario, args.duration, {'THYMIO_ROAD_CACHE': cache}, options)
        print(f"  this tree with an empty raster cache (a map's first run): {cold:.2f} s")
    if args.phases:
        print('this tree, phase by phase (CPU):')
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, '-c', PHASES, args.scenario, str(args.duration), tmp],
                           env={**os.environ, 'PYTHONPATH': str(ROOT)}, check=True, cwd=tmp)


if __name__ == '__main__':
    main()
