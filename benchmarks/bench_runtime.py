# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Real-time factor of the embedded runtime for 1, 10 and 50 robots, with and without recording.

Run: python benchmarks/bench_runtime.py [--duration S]
The 50-robot case needs more road than the shipped oval, so a larger oval (same design, 12.6 m
of road) is written to a temporary folder. Only Graph.run is timed (not map rendering).
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

from thymio_road.runtime.recorder import BagRecorder  # noqa: E402
from thymio_road.runtime.run import Graph  # noqa: E402
from thymio_road.scenario import load_scenario  # noqa: E402

BIG_OVAL = """
name: big_oval
size: [5.0, 2.0]
roads:
  - id: loop
    start: [0.9, 0.2, 0]
    closed: true
    pieces:
      - straight: 3.2
      - arc: {radius: 0.8, angle_deg: 180}
      - straight: 3.2
      - arc: {radius: 0.8, angle_deg: 180}
"""
SCENARIO = """
name: bench
map: big_oval.yaml
seed: 7
controller: {speed: 260}
robots: {count: 1, road: loop, start: 0.1}
"""


def measure(folder: Path, robots: int, duration: float, record: bool) -> float:
    scenario = load_scenario(folder / 'bench.yaml', robots=robots)
    bag = folder / f'bag-{robots}-{record}'
    recorder = BagRecorder(bag) if record else None
    graph = Graph(scenario, recorder)
    t0 = time.perf_counter()
    graph.run(duration)
    wall = time.perf_counter() - t0
    if recorder:
        recorder.close()
    return duration / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--duration', type=float, default=60.0, help='simulated seconds per case')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / 'big_oval.yaml').write_text(BIG_OVAL)
        (folder / 'bench.yaml').write_text(SCENARIO)
        print(f'embedded runtime, {args.duration:.0f} simulated s per case, one process, one core')
        print(f'{"robots":>6} {"no record":>12} {"record":>12} {"ratio":>7}')
        for robots in (1, 10, 50):
            free = measure(folder, robots, args.duration, record=False)
            rec = measure(folder, robots, args.duration, record=True)
            print(f'{robots:>6} {free:>11.1f}x {rec:>11.1f}x {free / rec:>6.2f}')


if __name__ == '__main__':
    main()
