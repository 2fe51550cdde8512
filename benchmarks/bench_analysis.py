# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Time `thymio-road analyze` on a recording of 10 robots driving for 30 simulated minutes.

Run: python benchmarks/bench_analysis.py [--bag PATH] [--keep DIR] [--robots N] [--duration S]

Without --bag the recording is made first with the embedded runtime (shipped oval, every topic
recorded; this takes several minutes and is not part of the timing). --keep saves it for later
runs. The analysis is timed as the command runs it: reading the bag, finding the map, the
metrics and writing the report (HTML, CSV, JSON, PNGs). The target is under 60 s.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
import sys
import tempfile
import time

os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_S = 60.0


def record(out: Path, robots: int, duration: float) -> Path:
    from thymio_road.runtime.run import run_scenario
    from thymio_road.scenario import load_scenario
    t0 = time.perf_counter()
    run_scenario(load_scenario('oval', robots=robots, duration=duration), out, progress=True,
                 picture=False)
    print(f'recorded {robots} robots × {duration:.0f} s in {time.perf_counter() - t0:.0f} s')
    return out / 'bag'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--bag', type=Path, help='analyse this recording instead of making one')
    parser.add_argument('--keep', type=Path, help='folder to keep the recording in')
    parser.add_argument('--robots', type=int, default=10)
    parser.add_argument('--duration', type=float, default=1800.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bag = args.bag
        if bag is None:
            folder = args.keep or Path(tmp) / 'run'
            bag = folder / 'bag'
            if not bag.exists():
                record(folder, args.robots, args.duration)
        size = sum(p.stat().st_size for p in bag.rglob('*') if p.is_file()) if bag.is_dir() \
            else bag.stat().st_size
        t0 = time.perf_counter()
        from thymio_road.analysis.bag import read_recording
        from thymio_road.analysis.core import analyze
        from thymio_road.analysis.mapsource import resolve_map
        from thymio_road.analysis.report import write_report
        t_import = time.perf_counter()
        rec = read_recording(bag)
        t_read = time.perf_counter()
        source = resolve_map(rec)
        t_map = time.perf_counter()
        result = analyze(rec, source)
        t_metrics = time.perf_counter()
        write_report(result, rec, source, Path(tmp) / 'report')
        t_report = time.perf_counter()
    poses = sum(len(p) for p in rec.truth.values())
    total = t_report - t0
    print(f'recording: {bag} ({size / 1e6:.0f} MB, {sum(rec.counts.values())} messages, '
          f'{len(rec.robots)} robots, {rec.duration:.0f} s, {poses} ground-truth poses)')
    print(f'  imports     {t_import - t0:6.2f} s')
    print(f'  read bag    {t_read - t_import:6.2f} s')
    print(f'  find map    {t_map - t_read:6.2f} s')
    print(f'  metrics     {t_metrics - t_map:6.2f} s')
    print(f'  report      {t_report - t_metrics:6.2f} s')
    print(f'  total       {total:6.2f} s   (target < {TARGET_S:.0f} s: {"ok" if total < TARGET_S else "MISSED"})')
    return 0 if total < TARGET_S else 1


if __name__ == '__main__':
    sys.exit(main())
