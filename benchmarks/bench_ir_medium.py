# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The IR medium for 10 to 5000 Thymios: the compiled step against the numpy step it replaced (issue #15).

Run: python benchmarks/bench_ir_medium.py [--sizes 10 100 300 1000 5000] [--models enki_doc enki_code]
                                         [--naive-max 100] [--json out.json]

Robots stand on a jittered square grid at 10 per m² (31.6 cm apart, ±5 cm, random headings) in
an arena that grows with their number. All robots have comm enabled and all send once per 0.1 s
period. Two cases, each timed for both paths in the same run, as the best of several runs
(the least disturbed by other jobs on a shared machine, as ``timeit`` advises):

- ``step``: every robot sends in one channel step, the worst case of a period;
- ``period``: the ir_medium node's 10 ticks of 10 ms, each robot sending at its own phase
  (every tenth robot per tick), as the node calls the medium.

A period is 0.1 s of simulated time, so the real-time factor is 0.1 s over the time of one
period (for ``step``: of the single step). The benchmark reports, per model:

- the compiled step (:class:`swarm_comm.prox_comm.ProxCommChannel`) and the numpy step it
  replaced (``test/prox_comm_reference.py``, :class:`ReferenceChannel`), their ratio, and both
  real-time factors; both give the same receptions, which is checked at every size;
- the cost exponent: the slope of a least-squares fit of log(time) on log(n), from 100 to 1000;
- Enki's C++ at 1000 communicating robots, 0.138× real time (about 0.72 s per 0.1 s step,
  issue #15), against the compiled medium's real-time factor; the acceptance is 1.4× (10× Enki)
  with an exponent of at most 1.15;
- the all-pairs model (:func:`naive_step`) up to ``--naive-max`` robots, as a check only;
- the first step of a fresh process (numba loads the kernel from its cache).
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import time

os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'test'))  # the numpy reference lives with the tests

import numpy as np  # noqa: E402

import prox_comm_reference as reference  # noqa: E402
from swarm_comm import prox_comm as pc  # noqa: E402

ENKI_REAL_TIME_1000 = 0.138  # Enki C++, 1000 robots all sending IR, 0.1 s step (issue #15)
TARGET_REAL_TIME = 1.4
TARGET_EXPONENT = 1.15
DENSITY = 10.0  # robots per m²
TICKS = 10  # the node's 10 ms ticks per 0.1 s period


def timed(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def slope(ns: list[int], ts: list[float]) -> float:
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def one_period(channel, poses: np.ndarray, payloads: np.ndarray) -> list:
    """The node's period: tick k sends the robots whose phase is k (every tenth robot)."""
    n = len(poses)
    return [channel.step(poses, np.arange(k, n, TICKS), payloads[k::TICKS]) for k in range(TICKS)]


def bench_model(params: pc.ProxCommParams, sizes: list[int], naive_max: int) -> dict:
    new, old = pc.ProxCommChannel(params), reference.ReferenceChannel(params)
    rows = []
    for n in sizes:
        poses = pc.scatter_robots(n, DENSITY, np.random.default_rng(n))
        senders = np.arange(n)
        payloads = senders % pc.PAYLOAD_MAX + 1
        row = {'n': n}
        for case, run in (('step', lambda ch: ch.step(poses, senders, payloads)),
                          ('period', lambda ch: one_period(ch, poses, payloads))):
            run(new), run(old)  # warm-up
            t_new, r_new = timed(lambda: run(new), 5 if n >= 5000 else 20)
            t_old, r_old = timed(lambda: run(old), 3 if n >= 5000 else 5 if n >= 1000 else 20)
            pairs = (r_new, r_old) if case == 'period' else ([r_new], [r_old])
            if any(a.rows() != b.rows() or not np.array_equal(a.links, b.links) for a, b in zip(*pairs)):
                raise SystemExit(f'{params.name}, n={n}, {case}: the compiled and the numpy step disagree')
            row[case] = {'compiled_s': t_new, 'numpy_s': t_old, 'speedup': t_old / t_new,
                         'compiled_real_time': pc.PERIOD / t_new, 'numpy_real_time': pc.PERIOD / t_old,
                         'receptions': int(sum(len(r) for r in pairs[0]))}
        if n <= naive_max:
            ref = reference.naive_step(new, poses, senders, payloads)
            if ref.rows() != new.step(poses, senders, payloads).rows():
                raise SystemExit(f'{params.name}, n={n}: the compiled step and the all-pairs model disagree')
            row['naive_checked'] = True
        rows.append(row)
        print(f"  {params.name:9s} n={n:5d}: step {row['step']['compiled_s'] * 1e3:8.2f} ms "
              f"(numpy {row['step']['numpy_s'] * 1e3:8.2f}), period {row['period']['compiled_s'] * 1e3:8.2f} ms "
              f"(numpy {row['period']['numpy_s'] * 1e3:8.2f}), {row['step']['receptions']} receptions", flush=True)
    result = {'model': params.name, 'density_per_m2': DENSITY, 'rows': rows}
    band = [r for r in rows if 100 <= r['n'] <= 1000]
    for case in ('step', 'period'):
        if len(band) >= 2:
            for path in ('compiled', 'numpy'):
                result[f'{case}_{path}_exponent_100_1000'] = slope([r['n'] for r in band],
                                                                   [r[case][f'{path}_s'] for r in band])
    return result


def first_step_in_a_fresh_process() -> float:
    """Seconds from a fresh interpreter's import of the medium to its first step's end (warm cache)."""
    code = ('import time; t = time.perf_counter(); import numpy as np; from swarm_comm import prox_comm as pc; '
            'pc.ProxCommChannel().step(pc.scatter_robots(10), np.arange(10), np.arange(1, 11)); '
            'print(time.perf_counter() - t)')
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def report(result: dict) -> None:
    print(f"\n{result['model']}: every robot sending once per 0.1 s, {result['density_per_m2']:.0f} robots/m²")
    for case, title in (('step', 'all in one step'), ('period', "the node's 10 ticks")):
        print(f'  {title}:')
        print(f"  {'robots':>7} {'compiled ms':>12} {'numpy ms':>10} {'ratio':>7} {'compiled RT':>12} {'numpy RT':>9}")
        for r in result['rows']:
            c = r[case]
            print(f"  {r['n']:7d} {c['compiled_s'] * 1e3:12.2f} {c['numpy_s'] * 1e3:10.2f} {c['speedup']:6.1f}x"
                  f" {c['compiled_real_time']:11.1f}x {c['numpy_real_time']:8.2f}x")
        if f'{case}_compiled_exponent_100_1000' in result:
            e = result[f'{case}_compiled_exponent_100_1000']
            print(f'  cost exponent 100-1000: compiled {e:.2f} (target <= {TARGET_EXPONENT}), '
                  f"numpy {result[f'{case}_numpy_exponent_100_1000']:.2f}")
        at_1000 = [r[case] for r in result['rows'] if r['n'] == 1000]
        if at_1000:
            rt = at_1000[0]['compiled_real_time']
            print(f"  1000 robots: compiled {rt:.1f}x real time = {rt / ENKI_REAL_TIME_1000:.0f}x Enki's "
                  f"{ENKI_REAL_TIME_1000}x (target {TARGET_REAL_TIME}x); numpy {at_1000[0]['numpy_real_time']:.2f}x; "
                  f"compiled / numpy {at_1000[0]['speedup']:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[10, 100, 300, 1000, 5000])
    parser.add_argument('--models', nargs='+', default=list(pc.MODELS), choices=list(pc.MODELS))
    parser.add_argument('--naive-max', type=int, default=100,
                        help='largest size at which the all-pairs model is checked (default: %(default)s)')
    parser.add_argument('--json', type=Path, help='also write the numbers to this file')
    args = parser.parse_args()
    # The first fresh process compiles the kernel if its cache is missing or stale; the second loads it.
    starts = [first_step_in_a_fresh_process() for _ in range(2)]
    results = [bench_model(pc.model(name), sorted(args.sizes), args.naive_max) for name in args.models]
    for result in results:
        report(result)
    print(f'\nfirst step of a fresh process (import, kernel from the cache, step): {starts[1]:.2f} s '
          f'(the one before: {starts[0]:.2f} s, which compiles if the cache was missing or stale)')
    if args.json:
        args.json.write_text(json.dumps({'first_step_s': starts, 'models': results}, indent=2) + '\n')


if __name__ == '__main__':
    main()
