# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The threshold Monte Carlo: the compiled estimator against the numpy one it replaced, and the paper's size.

The paper evaluated 1000 × 720 × 720 = 5.184·10^8 synthetic observations per sensor (Sect. 4.2.2).
In one run this script times, as wall and CPU (one core) seconds:

1. the numpy estimator (``test/swarmcom_threshold_reference.py``) with its former chunk of 65,536
   observations and with chunks of 2,048, on a small quantile grid;
2. the compiled estimator (:func:`swarm_comm.detector.estimate_threshold`) on the same grid, and
   checks that it finds the same threshold;
3. the compiled estimator on a grid of ``--distances`` × 720 × 720 (default 100, a tenth of the
   paper's), extrapolated linearly to the paper's 5.184·10^8 observations (the cost per observation
   does not depend on the count); ``--full`` runs the paper's grid itself instead.

Plain script: python benchmarks/bench_swarmcom_montecarlo.py [--distances 100] [--full]
"""
from __future__ import annotations

import argparse
from pathlib import Path
import sys
import time

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'test'))  # the numpy reference lives with the tests

from swarm_comm.detector import estimate_threshold  # noqa: E402
import swarmcom_threshold_reference as reference  # noqa: E402

PAPER_GRID = (1000, 720, 720)
PAPER_OBSERVATIONS = 1000 * 720 * 720
SMALL_GRID = (100, 72, 72)


def timed(label: str, fn) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f'{label:<48} {result.observations:>12,d} obs  wall {wall:8.2f} s  cpu {cpu:8.2f} s  '
          f'{result.observations / cpu:>11,.0f} obs/s (cpu)  m_t = {result.threshold}', flush=True)
    return wall, cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--distances', type=int, default=100, help='n_D of the large grid (default: %(default)s)')
    parser.add_argument('--full', action='store_true', help="run the paper's 1000 x 720 x 720 grid")
    args = parser.parse_args()
    estimate_threshold(grid=(2, 2, 2))  # load (or compile) the kernels outside the timings
    print(f'small grid {SMALL_GRID}:')
    _, old_cpu, old = timed('numpy, chunk 65,536 (before #15)', lambda: reference.estimate_threshold(grid=SMALL_GRID))
    _, small_cpu, _ = timed('numpy, chunk 2,048', lambda: reference.estimate_threshold(grid=SMALL_GRID, chunk=2048))
    _, new_cpu, new = timed('compiled, chunk 2,048', lambda: estimate_threshold(grid=SMALL_GRID))
    if new.threshold != old.threshold:
        raise SystemExit(f'the compiled estimator finds m_t = {new.threshold}, the numpy one {old.threshold}')
    print(f'compiled / numpy (cpu): {old_cpu / new_cpu:.1f}x; numpy with chunks of 2,048 / 65,536: '
          f'{old_cpu / small_cpu:.2f}x')
    grid = PAPER_GRID if args.full else (args.distances, 720, 720)
    wall, cpu, big = timed(f'compiled, grid {grid}', lambda: estimate_threshold(grid=grid))
    factor = PAPER_OBSERVATIONS / big.observations
    label = 'measured' if factor == 1 else f'extrapolated linearly (x{factor:g})'
    print(f'paper grid {PAPER_GRID} = {PAPER_OBSERVATIONS:.4g} observations, {label}: '
          f'{cpu * factor:,.0f} s cpu = {cpu * factor / 60:.1f} min on one core (wall {wall * factor / 60:.1f} min); '
          f'numpy before #15 at its rate: {PAPER_OBSERVATIONS / (old.observations / old_cpu) / 3600:.2f} h')


if __name__ == '__main__':
    main()
