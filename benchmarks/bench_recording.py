# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""What recording costs: real-time factor and bag size of a scenario per recording profile.

Run: python benchmarks/bench_recording.py [--scenario final_traffic] [--robots 10] [--duration 60] [--repeat K]
[--no-breakdown]

Cases, each the same run (scenario, seed) from the start: no bag; `--record analysis` and
`--record full`, each with zstd and with uncompressed chunks. Only the simulation loop and the
recorder's close are timed (Graph.run + BagRecorder.close), not scenario loading or pictures,
in CPU time of this process (as issue #15's figures): on a machine shared with other jobs the
wall time varied 2x from run to run. File writes are left to the OS, as in a run.

The breakdown (a further full, zstd run) says where the recorder's time goes:
- message build: a run whose recorder asks for every topic and throws the messages away, less
  the run without a bag (the nodes build a message only for a topic someone takes);
- CDR serialisation (the recorder's serialisers: runtime/cdr.py's, else rosbags'), MCAP write
  (the records and indexes, less compression) and zstd compression, timed around those calls.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
import sys
import tempfile
import time
from types import SimpleNamespace

os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mcap.writer  # noqa: E402

from thymio_road.nodes import msgs  # noqa: E402
from thymio_road.runtime.recorder import BagRecorder  # noqa: E402
from thymio_road.runtime.run import Graph  # noqa: E402
from thymio_road.scenario import load_scenario  # noqa: E402


class Timed:
    """A callable that adds up the time spent in `fn` (:meth:`wrap`: in several functions)."""

    def __init__(self, fn=None):
        self.fn, self.seconds, self.calls = fn, 0.0, 0

    def __call__(self, *args, **kwargs):
        return self.wrap(self.fn)(*args, **kwargs)

    def wrap(self, fn):
        def timed(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - t0
                self.calls += 1
        return timed


class DiscardingRecorder:
    """Takes every topic, as a full recorder does, so that every message is built; keeps none."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def records(self, topic: str) -> bool:
        return True

    def add_topic(self, name, msg_type, qos) -> None:
        self.counts[name] = 0

    def write(self, topic, msg, time_ns) -> None:
        self.counts[topic] += 1


def run_case(args, folder: Path, profile: str, compression: str = 'zstd', timed: bool = False):
    scenario = load_scenario(args.scenario, robots=args.robots, duration=args.duration, seed=args.seed)
    msgs.use_distro(scenario.ros_distro)
    recorder = None
    bag = folder / f'{profile}-{compression}-{timed}'
    if profile == 'discard':
        recorder = DiscardingRecorder()
    elif profile != 'none':
        recorder = BagRecorder(bag, scenario.ros_distro, profile=profile, compression=compression)
    graph = Graph(scenario, recorder)
    parts = {}
    if timed:
        storage = recorder.writer.storage
        parts['cdr'] = Timed()
        for name, (conn, serialize, period) in recorder.connections.items():
            recorder.connections[name] = (conn, parts['cdr'].wrap(serialize), period)
        parts['write'] = storage.write = Timed(storage.write)
        parts['seal'] = storage.mcap.flush = Timed(storage.mcap.flush)
        zstd = mcap.writer.zstandard
        parts['zstd'] = Timed(zstd.compress)
        mcap.writer.zstandard = SimpleNamespace(compress=parts['zstd'])
    t0 = time.process_time()
    try:
        graph.run(args.duration)
        if isinstance(recorder, BagRecorder):
            recorder.close()
    finally:
        wall = time.process_time() - t0
        if timed:
            mcap.writer.zstandard = zstd
    size = (bag / f'{bag.name}.mcap').stat().st_size if isinstance(recorder, BagRecorder) else 0
    messages = sum(recorder.counts.values()) if recorder is not None else 0
    return SimpleNamespace(wall=wall, rtf=args.duration / wall, size=size, messages=messages, parts=parts)


def best_case(args, folder: Path, profile: str, compression: str = 'zstd'):
    """The fastest of `args.repeat` runs (each into its own folder): a shared machine's
    neighbours slow some runs down, never speed one up.
    """
    runs = []
    for k in range(args.repeat):
        sub = folder / f'run{k}'
        sub.mkdir(exist_ok=True)
        runs.append(run_case(args, sub, profile, compression))
    return min(runs, key=lambda r: r.wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--scenario', default='final_traffic', help='scenario name or file')
    parser.add_argument('--robots', type=int, default=10)
    parser.add_argument('--duration', type=float, default=60.0, help='simulated seconds per case')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--no-breakdown', action='store_true', help='skip the two breakdown runs')
    parser.add_argument('--repeat', type=int, default=1, help='runs per case; the fastest is kept')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        warm_up = SimpleNamespace(scenario=args.scenario, robots=args.robots, duration=1.0, seed=args.seed)
        run_case(warm_up, folder, 'none')
        print(f'{args.scenario}, {args.robots} robots, {args.duration:.0f} simulated s, '
              f'seed {args.seed}; one process; x real = simulated s per CPU s')
        print(f'{"recording":<20} {"x real":>10} {"vs none":>8} {"messages":>10} {"bag MB":>9} '
              f'{"MB/min":>7} {"zstd gain":>9}')
        none = best_case(args, folder, 'none')
        print(f'{"none":<20} {none.rtf:>9.1f}x {1:>8.2f}')
        results = {}
        for profile in ('analysis', 'full'):
            for compression in ('none', 'zstd'):
                r = results[profile, compression] = best_case(args, folder, profile, compression)
                gain = (f'{results[profile, "none"].size / r.size:>8.1f}x' if compression == 'zstd' else '')
                print(f'{f"{profile}, {compression}":<20} {r.rtf:>9.1f}x {none.rtf / r.rtf:>8.2f} '
                      f'{r.messages:>10} {r.size / 1e6:>9.2f} {r.size / 1e6 / args.duration * 60:>7.2f} {gain:>9}')
        full, small = results['full', 'zstd'], results['analysis', 'zstd']
        print(f'full / analysis (zstd): {full.size / small.size:.1f}x the bytes, '
              f'{full.messages / small.messages:.1f}x the messages, {small.rtf / full.rtf:.2f}x slower')
        print(f'uncompressed full / zstd analysis: {results["full", "none"].size / small.size:.1f}x the bytes')
        if args.no_breakdown:
            return
        built = run_case(args, folder, 'discard')
        timed = run_case(args, folder, 'full', 'zstd', timed=True)
        p = timed.parts
        per = 1e6 / timed.messages
        build = built.wall - none.wall
        mcap_write = p['write'].seconds + p['seal'].seconds - p['zstd'].seconds
        rows = [('message build', build), ('CDR serialisation', p['cdr'].seconds),
                ('MCAP write (records, indexes)', mcap_write), ('zstd compression', p['zstd'].seconds)]
        recorder_total = timed.wall - none.wall
        print(f'\nwhere full, zstd spends its {recorder_total:.1f} s more than no bag '
              f'({timed.messages} messages; the timed run took {timed.wall:.1f} s):')
        for name, seconds in rows:
            print(f'  {name:<32} {seconds:>6.2f} s {100 * seconds / recorder_total:>5.1f} % '
                  f'{seconds * per:>6.1f} us/message')
        rest = recorder_total - sum(s for _, s in rows)
        print(f'  {"rest (recorder glue, executor)":<32} {rest:>6.2f} s {100 * rest / recorder_total:>5.1f} %')


if __name__ == '__main__':
    main()
