# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Loading a large map: time and memory against the length of road (issue #28).

Run: python benchmarks/bench_map_scale.py [--lengths 30 300 1000] [--floor 20] [--repeat 1]

Each case is a serpentine road (lanes 30 cm apart joined by 0.15 m U-turns, closed by a return
leg, a low-speed barcode at its start) on a square floor, loaded in a fresh process: the map
file is read and checked (``load_map``), then the world's rasters are built (the ground
sensors' blurred response, the road and barcode indices, the blind area), as a run does before
its first step. It prints the wall time of each part, the peak of Python's traced allocations
(numpy's arrays included) and the process's peak resident memory, then the exponent of a
power law fitted to time and traced memory against road length: 1 is linear.
"""
from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path
import subprocess
import sys

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPACING = 0.3
RADIUS = 0.15
#: Margin between the serpentine's outer lanes and the sheet's edge (m).
MARGIN = 0.2


def serpentine(length: float, floor: float, lanes: int | None = None) -> dict:
    """A map (as a dict, the YAML's structure) of one closed serpentine road of `length` metres on
    a `floor` × `floor` m sheet: an even number of lanes along x, SPACING apart, joined by U-turns
    of RADIUS turning alternately left and right, and a return leg down the left side.

    Each lane plus its U-turn and its share of the return leg is SPACING + π·RADIUS + its length,
    so `lanes` lanes of L metres make lanes · (L + π·RADIUS + SPACING) metres of road.
    """
    if lanes is None:
        lanes = 4
        while length / lanes - math.pi * RADIUS - SPACING > floor - 2 * MARGIN - 2 * SPACING - RADIUS:
            lanes += 2
    lane = length / lanes - math.pi * RADIUS - SPACING
    top = MARGIN + (lanes - 1) * SPACING
    if lane <= 1.0 or top + MARGIN > floor or lanes % 2:
        raise ValueError(f'{length} m of road in {lanes} lanes does not fit a {floor} m floor')
    x0, y0 = MARGIN + 2 * SPACING, MARGIN
    pieces: list[dict] = []
    for k in range(lanes):
        pieces.append({'straight': round(lane if k < lanes - 1 else lane + SPACING, 9)})
        if k < lanes - 1:
            pieces.append({'arc': {'radius': RADIUS, 'angle_deg': 180.0 if k % 2 == 0 else -180.0}})
    pieces += [{'arc': {'radius': RADIUS, 'angle_deg': 90.0}},
               {'straight': round((lanes - 1) * SPACING - 2 * RADIUS, 9)},
               {'arc': {'radius': RADIUS, 'angle_deg': 90.0}}]
    return {'name': f'serpentine_{length:g}m', 'size': [floor, floor],
            'roads': [{'id': 'serpentine', 'start': [x0, y0, 0.0], 'closed': True, 'pieces': pieces}],
            'barcodes': [{'road': 'serpentine', 'at': 0.3, 'code': 1}]}


CHILD = r"""
import json, resource, sys, time
limit = float(sys.argv[2])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (int(limit * 2 ** 30),) * 2)
import numpy as np
from thymio_road.map.loader import load_map
from thymio_road.sim.sensors import noiseless_response
import thymio_road.sim.world  # the simulator's imports, as a run has them before it loads a map


def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2 ** 20


base = rss()
t0, c0 = time.perf_counter(), time.process_time()
m = load_map(sys.argv[1])
t1, c1 = time.perf_counter(), time.process_time()
rasters = [noiseless_response(m), m.road_index, m.blind_area, m.barcode_index]
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({'road_m': sum(r.length for r in m.roads), 'load_s': t1 - t0, 'load_cpu': c1 - c0,
                  'rasters_s': t2 - t1, 'rasters_cpu': c2 - c1, 'raster_mb': sum(r.nbytes for r in rasters) / 2 ** 20,
                  'pixels': sum(r.tiles.size for r in rasters[:2]), 'base_mb': base,
                  'peak_mb': int(next(l.split()[1] for l in open('/proc/self/status')
                                      if l.startswith('VmHWM:'))) / 1024}))
"""


def measure(path: Path, limit_gb: float = 0.0) -> dict:
    """Load a map file and build its rasters in a fresh process (under an address-space limit in GB)."""
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([str(ROOT), os.environ.get('PYTHONPATH', '')]),
           'THYMIO_ROAD_RASTER_CACHE': '0'}  # built, not read from the cache
    out = subprocess.run([sys.executable, '-c', CHILD, str(path), str(limit_gb)], capture_output=True, text=True,
                         env=env)
    if out.returncode:
        raise RuntimeError(f'{path}: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}')
    return json.loads(out.stdout.strip().splitlines()[-1])


def exponent(xs: list[float], ys: list[float]) -> float:
    """The slope of log y against log x (least squares): y ∝ x^slope."""
    import numpy as np
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def main() -> None:
    import tempfile

    import yaml
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--lengths', type=float, nargs='+', default=[30.0, 300.0, 1000.0], help='metres of road')
    ap.add_argument('--floor', type=float, default=20.0, help='side of the square floor (m)')
    ap.add_argument('--repeat', type=int, default=1, help='runs per case (the fastest is kept)')
    ap.add_argument('--limit', type=float, default=0.0, help='address-space limit of each run (GB; 0: none)')
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for length in args.lengths:
            path = Path(tmp) / f'serpentine_{length:g}.yaml'
            path.write_text(yaml.safe_dump(serpentine(length, args.floor)))
            runs = [measure(path, args.limit) for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r['load_s'] + r['rasters_s'])
            best['peak_mb'] = min(r['peak_mb'] for r in runs)
            rows.append(best)
            print(f"{best['road_m']:7.0f} m of road on {args.floor:g} × {args.floor:g} m: load {best['load_s']:6.2f} s "
                  f"(CPU {best['load_cpu']:.2f}), rasters {best['rasters_s']:6.2f} s (CPU {best['rasters_cpu']:.2f}), "
                  f"rasters {best['raster_mb']:7.1f} MB, peak RSS {best['peak_mb']:7.0f} MB "
                  f"({best['peak_mb'] - best['base_mb']:6.0f} MB over the imports' {best['base_mb']:.0f} MB)",
                  flush=True)
    if len(rows) >= 2:
        lengths = [r['road_m'] for r in rows]
        for name, values in (('time (load + rasters)', [r['load_s'] + r['rasters_s'] for r in rows]),
                             ('raster memory', [r['raster_mb'] for r in rows]),
                             ('peak RSS over the imports', [r['peak_mb'] - r['base_mb'] for r in rows])):
            ratios = ', '.join(f'{b / a:.1f}×' for a, b in zip(values, values[1:]))
            print(f'{name}: exponent {exponent(lengths, values):.2f} (ratios {ratios} for road '
                  f"{', '.join(f'{b / a:.1f}×' for a, b in zip(lengths, lengths[1:]))})")


if __name__ == '__main__':
    main()
