"""The traffic experiments of issue #13: `thymio-road traffic` (does traffic keep flowing, over
seeds), `thymio-road priority` (how much traffic delays a priority vehicle) and `thymio-road
recovery` (does a lost robot find its lane again, the right way)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from thymio_road.map.validation import MAX_DURATION, MAX_ROBOTS, MAX_SEED, arg_float, arg_int


def seeds(text: str) -> list[int]:
    """'1-5' or '1,3,7' → the seeds."""
    out: list[int] = []
    try:
        for part in text.split(','):
            a, _, b = part.partition('-')
            out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must look like '1-5' or '1,3,7', got {text!r}") from None
    if not out or any(not 0 <= s <= MAX_SEED for s in out):
        raise argparse.ArgumentTypeError(f'seeds must be in 0..{MAX_SEED}, got {text!r}')
    return out


def register(sub: Any) -> None:
    traffic = sub.add_parser('traffic', help='run a traffic scenario over robot counts and seeds and judge '
                                             'whether traffic keeps flowing (docs/traffic.md)',
                             description='Runs the scenario (no recording) for every robot count and seed, '
                                         'keeps each summary.json under --out, and prints one row per run: '
                                         'passages, hull contacts, stalls not at a light, the longest light '
                                         'hold, wrong-way episodes, and the last 10 minutes\' passages against '
                                         'the first 10 minutes\'.')
    traffic.add_argument('--scenario', default='final_traffic', help='scenario (default: final_traffic)')
    traffic.add_argument('--robots', type=arg_int(1, MAX_ROBOTS), nargs='+', default=[10],
                         help='robot counts (default: 10)')
    traffic.add_argument('--seeds', type=seeds, default=[1, 2, 3, 4, 5], help="seeds, '1-5' or '1,3' (default: 1-5)")
    traffic.add_argument('--duration', type=arg_float(0, MAX_DURATION, low_open=True), default=3600.0,
                         help='simulated seconds per run (default: 3600)')
    traffic.add_argument('--out', type=Path, help='folder of the runs (default: runs/traffic-<time>)')
    traffic.set_defaults(func=cmd_traffic)

    priority = sub.add_parser('priority', help="time a priority vehicle's trip alone and in traffic",
                              description="The scenario's thymio1 (kind priority, with a mission) is timed "
                                          'from its start to its last arrival, alone and with the scenario\'s '
                                          'other robots, per seed (docs/traffic.md).')
    priority.add_argument('--scenario', default='priority', help='scenario (default: priority)')
    priority.add_argument('--robots', type=arg_int(2, MAX_ROBOTS), help="robots in traffic (default: the scenario's)")
    priority.add_argument('--seeds', type=seeds, default=[1, 2, 3, 4, 5], help="seeds (default: 1-5)")
    priority.add_argument('--limit', type=arg_float(0, MAX_DURATION, low_open=True), default=1500.0,
                          help='simulated seconds before a trip counts as not arrived (default: 1500)')
    priority.add_argument('--json', action='store_true', help='print the rows as JSON')
    priority.set_defaults(func=cmd_priority)

    recovery = sub.add_parser('recovery', help='put a robot down lost beside a lane, from each side, and count '
                                               'how often it rejoins it in the driving direction',
                              description="Trials per side (white, black, across from either side) with the "
                                          "report's recovery and with recovery 'both' (docs/navigation.md).")
    recovery.add_argument('--map', default='oval', help='map file or shipped map name (default: oval)')
    recovery.add_argument('--trials', type=arg_int(1, 100000), default=20, help='trials per side (default: 20)')
    recovery.add_argument('--seed', type=arg_int(0, MAX_SEED), default=1, help='first seed (default: 1)')
    recovery.add_argument('--recovery', choices=('report', 'both', 'compare'), default='compare',
                          help="the controller's recovery, or both one after the other (default: compare)")
    recovery.add_argument('--duration', type=arg_float(1, 3600), default=40.0,
                          help='simulated seconds per trial (default: 40)')
    recovery.add_argument('--json', action='store_true', help='print the rows as JSON')
    recovery.set_defaults(func=cmd_recovery)


def cmd_traffic(args: argparse.Namespace) -> int:
    from thymio_road.experiments.traffic_table import markdown, run_table
    from thymio_road.scenario import load_scenario
    load_scenario(args.scenario)  # a broken scenario is refused before the first run
    out = args.out or Path('runs') / f'traffic-{time.strftime("%Y%m%d-%H%M%S")}'
    out.mkdir(parents=True, exist_ok=True)
    print(f'{len(args.robots) * len(args.seeds)} runs of {args.duration:g} s; summaries in {out}/', file=sys.stderr)
    rows = run_table(args.scenario, args.robots, args.seeds, args.duration, out,
                     on_row=lambda r: print(f"  {r['robots']} robots, seed {r['seed']}: "
                                            f"{'ok' if r['ok'] else 'FAILS'}", file=sys.stderr))
    print(markdown(rows))
    return 0 if all(r['ok'] for r in rows) else 1


def cmd_priority(args: argparse.Namespace) -> int:
    from thymio_road.experiments.priority import experiment
    rows = experiment(args.scenario, tuple(args.seeds), args.robots, args.limit,
                      on_trip=lambda t: print(f'  seed {t.seed}, {t.robots} robots: '
                                              f"{'not arrived' if t.time is None else f'{t.time:.1f} s'}",
                                              file=sys.stderr))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print('| seed | robots | alone (s) | in traffic (s) | ratio | pre-emptions |\n|---|---|---|---|---|---|')
    for r in rows:
        print(f"| {r['seed']} | {r['robots']} | {r['alone_s']} | {r['traffic_s']} | {r['ratio']} | {r['preemptions']} |")
    return 0


def cmd_recovery(args: argparse.Namespace) -> int:
    from thymio_road.experiments.recovery import experiment, table
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
    road_map = load_map(find_config('maps', args.map))
    settings = ('report', 'both') if args.recovery == 'compare' else (args.recovery,)
    rows = []
    for setting in settings:
        rows += [{'recovery': setting, **row}
                 for row in table(experiment(road_map, args.trials, args.seed, setting, duration=args.duration))]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print('| recovery | side | trials | rejoined | turned back | wrong way | lost | success | median time (s) |')
    print('|---|---|---|---|---|---|---|---|---|')
    for r in rows:
        print(f"| {r['recovery']} | {r['side']} | {r['trials']} | {r['rejoined']} | {r['turned back']} | "
              f"{r['wrong way']} | {r['lost']} | {100 * r['success_rate']:.0f} % | {r['median_time_s']} |")
    return 0
