"""One IR medium step (every robot sends once) for 10, 100, 1000 and 5000 Thymios.

Run: python benchmarks/bench_ir_medium.py [--sizes 10 100 1000 5000] [--models enki_doc enki_code]
                                         [--naive-max 1000] [--json out.json]

Robots stand on a jittered square grid at 10 per m² (31.6 cm apart, ±5 cm, random headings) in
an arena that grows with their number. All robots have comm enabled and all send in the same
step, so this is the worst case of a 0.1 s period. The benchmark reports:

- the pruned step (k-d tree pairs and occluders, :class:`swarm_comm.prox_comm.ProxCommChannel`),
  median of several runs;
- its scaling exponent, the slope of a least-squares fit of log(time) on log(n);
- the naive all-pairs step of the same model (:func:`swarm_comm.prox_comm.naive_step`), timed in
  the same run up to ``--naive-max`` robots. Beyond that it is extrapolated from the two largest
  timed sizes with their own exponent, and marked as extrapolated. Both give the same
  receptions, which is checked;
- the ratio to Enki's C++, which takes about 0.7 s per step with 1000 communicating robots.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from swarm_comm import prox_comm as pc  # noqa: E402

ENKI_STEP_1000 = 0.7  # s per step, Enki C++ with 1000 communicating robots
DENSITY = 10.0  # robots per m²


def timed(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def slope(ns: list[int], ts: list[float]) -> float:
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def bench_model(params: pc.ProxCommParams, sizes: list[int], naive_max: int) -> dict:
    channel = pc.ProxCommChannel(params)
    rows = []
    for n in sizes:
        poses = pc.scatter_robots(n, DENSITY, np.random.default_rng(n))
        senders = np.arange(n)
        payloads = senders % pc.PAYLOAD_MAX + 1
        channel.step(poses, senders, payloads)  # warm-up
        repeat = 3 if n >= 5000 else 5 if n >= 1000 else 20
        fast, rec = timed(lambda: channel.step(poses, senders, payloads), repeat)
        row = {'n': n, 'pruned_s': fast, 'receptions': len(rec), 'paths': len(rec.links)}
        if n <= naive_max:
            slow, ref = timed(lambda: pc.naive_step(channel, poses, senders, payloads), 1 if n >= 1000 else 3)
            if ref.rows() != rec.rows():
                raise SystemExit(f'{params.name}, n={n}: the naive and the pruned step disagree')
            row.update(naive_s=slow, naive_extrapolated=False)
        rows.append(row)
        print(f'  {params.name:9s} n={n:5d}: pruned {fast * 1e3:9.2f} ms'
              + (f', naive {row["naive_s"] * 1e3:10.1f} ms' if 'naive_s' in row else '')
              + f'  ({len(rec)} receptions, {len(rec.links)} paths)', flush=True)
    timed_naive = [r for r in rows if 'naive_s' in r]
    naive_exp = slope([r['n'] for r in timed_naive[-2:]], [r['naive_s'] for r in timed_naive[-2:]]) \
        if len(timed_naive) >= 2 else 2.0
    for r in rows:
        if 'naive_s' not in r:
            last = timed_naive[-1]
            r.update(naive_s=last['naive_s'] * (r['n'] / last['n']) ** naive_exp, naive_extrapolated=True)
        r['speedup_vs_naive'] = r['naive_s'] / r['pruned_s']
    ns, ts = [r['n'] for r in rows], [r['pruned_s'] for r in rows]
    result = {'model': params.name, 'density_per_m2': DENSITY, 'rows': rows,
              'pruned_exponent': slope(ns, ts), 'naive_exponent': naive_exp}
    big = [r for r in rows if r['n'] >= 100]
    if len(big) >= 2:
        result['pruned_exponent_from_100'] = slope([r['n'] for r in big], [r['pruned_s'] for r in big])
    at_1000 = [r for r in rows if r['n'] == 1000]
    if at_1000:
        result['speedup_vs_enki_1000'] = ENKI_STEP_1000 / at_1000[0]['pruned_s']
    return result


def report(result: dict) -> None:
    print(f"\n{result['model']}: one step, every robot sending, {result['density_per_m2']:.0f} robots/m²")
    print(f"{'robots':>7} {'pruned ms':>10} {'naive ms':>12} {'naive/pruned':>13}")
    for r in result['rows']:
        mark = ' (extrapolated)' if r['naive_extrapolated'] else ''
        print(f"{r['n']:7d} {r['pruned_s'] * 1e3:10.2f} {r['naive_s'] * 1e3:12.1f} {r['speedup_vs_naive']:12.0f}x{mark}")
    line = f"pruned scaling exponent {result['pruned_exponent']:.2f} (all sizes)"
    if 'pruned_exponent_from_100' in result:
        line += f", {result['pruned_exponent_from_100']:.2f} (100 and up)"
    print(line + f"; naive {result['naive_exponent']:.2f}")
    if 'speedup_vs_enki_1000' in result:
        print(f"vs Enki C++ (~{ENKI_STEP_1000} s per step at 1000 robots): {result['speedup_vs_enki_1000']:.0f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[10, 100, 1000, 5000])
    parser.add_argument('--models', nargs='+', default=list(pc.MODELS), choices=list(pc.MODELS))
    parser.add_argument('--naive-max', type=int, default=1000,
                        help='largest size at which the naive step is timed (larger ones are extrapolated)')
    parser.add_argument('--json', type=Path, help='also write the numbers to this file')
    args = parser.parse_args()
    results = []
    for name in args.models:
        results.append(bench_model(pc.model(name), sorted(args.sizes), args.naive_max))
    for result in results:
        report(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + '\n')


if __name__ == '__main__':
    main()
