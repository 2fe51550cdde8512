# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The traffic experiments of issue #13: `thymio-road traffic` (does traffic keep flowing, over
seeds), `thymio-road priority` (how much traffic delays a priority vehicle) and `thymio-road
recovery` (does a lost robot find its lane again, the right way).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
import re
import sys
import time
from typing import Any

from thymio_road.experiments import sweep
from thymio_road.map.validation import arg_float, arg_int, ConfigError, MAX_DURATION, MAX_ROBOTS, MAX_SEED, parse_seeds

#: A seed or a range of seeds, as a part of a list.
_SEEDS = re.compile(r'[0-9]+(-[0-9]+)?')
#: Most simulations one sweep command runs (maps × robot counts × seeds).
MAX_RUNS = 100_000


def seeds(text: str) -> list[int]:
    """'1-5' or '1,3,7' → the seeds, at most MAX_SEEDS (counted before they are listed)."""
    try:
        return parse_seeds(text, '1-5')
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def scenario_list(text: str) -> list[str]:
    """'generated:1-30,final_traffic' → the scenarios: shipped names, files, generated maps. Seeds
    right after a generated part are more generated maps ('generated:4,9,12-14'), as --seeds reads
    them: a scenario's name starts with a letter.
    """
    out: list[str] = []
    generated = False
    for part in filter(None, (p.strip() for p in text.split(','))):
        if generated and _SEEDS.fullmatch(part):
            part = f'generated:{part}'
        generated = part.startswith('generated:')
        if generated:
            try:
                numbers = seeds(part.split(':', 1)[1])
            except argparse.ArgumentTypeError:
                raise argparse.ArgumentTypeError(f"generated maps look like 'generated:1-30' or 'generated:4', "
                                                 f'got {part!r}') from None
            out += [f'generated:{n}' for n in numbers]
        else:
            out.append(part)
    if not out:
        raise argparse.ArgumentTypeError(f'no scenario in {text!r}')
    return out


def register(sub: Any) -> None:
    traffic = sub.add_parser('traffic', help='run a traffic scenario over robot counts and seeds and judge '
                                             'whether traffic keeps flowing (docs/traffic.md)',
                             description='Runs the scenario (no recording) for every robot count and seed, '
                                         'keeps each summary.json under --out, and prints one row per run: '
                                         'passages, hull contacts, stalls not at a light, the longest light '
                                         "hold, wrong-way episodes, and the last 10 minutes' passages against "
                                         "the first 10 minutes'.")
    traffic.add_argument('--scenario', default='final_traffic', help='scenario (default: final_traffic)')
    traffic.add_argument('--maps', type=scenario_list, metavar='LIST',
                         help='several scenarios instead of --scenario: generated maps and shipped or file '
                              "scenarios, e.g. 'generated:1-30' or 'generated:4,final_traffic'; the tables then "
                              'add runs per failure class and the throughput per scenario against a lone robot')
    traffic.add_argument('--robots', type=arg_int(1, MAX_ROBOTS), nargs='+', help='robot counts (default: 10)')
    traffic.add_argument('--seeds', type=seeds, help="seeds, '1-5' or '1,3' (default: 1-5; 1 with --fundamental)")
    traffic.add_argument('--duration', type=arg_float(0, MAX_DURATION, low_open=True),
                         help='simulated seconds per run (default: 3600; 600 with --fundamental)')
    traffic.add_argument('--fundamental', action='store_true',
                         help="the scenario's fundamental diagram instead: flow (passages and metres per minute) "
                              'and speed against density (robots per metre of road), --robots counts (default: '
                              'ten from 1 to as many as the scenario places) over --seeds (default: 1); '
                              'fundamental.png and fundamental.json in --out')
    traffic.add_argument('--out', type=Path, help='folder of the runs (default: runs/traffic-<time>)')
    traffic.add_argument('--resume', action='store_true',
                         help='keep the runs an interrupted sweep left in --out (each summary.json of the same '
                              'robots, seed and duration) and run only the others; run the sweep from the same '
                              'code, or the table mixes two versions')
    sweep.add_arguments(traffic)
    traffic.set_defaults(func=cmd_traffic)

    priority = sub.add_parser('priority', help="time a priority vehicle's trip alone and in traffic",
                              description="The scenario's thymio1 (kind priority, with a mission) is timed "
                                          "from its start to its last arrival, alone and with the scenario's "
                                          'other robots, per seed (docs/traffic.md).')
    priority.add_argument('--scenario', default='priority', help='scenario (default: priority)')
    priority.add_argument('--robots', type=arg_int(2, MAX_ROBOTS), help="robots in traffic (default: the scenario's)")
    priority.add_argument('--seeds', type=seeds, default=[1, 2, 3, 4, 5], help='seeds (default: 1-5)')
    priority.add_argument('--limit', type=arg_float(0, MAX_DURATION, low_open=True), default=1500.0,
                          help='simulated seconds before a trip counts as not arrived (default: 1500)')
    priority.add_argument('--json', action='store_true', help='print the rows as JSON')
    sweep.add_arguments(priority, 'trips')
    priority.set_defaults(func=cmd_priority)

    recovery = sub.add_parser('recovery', help='put a robot down lost beside a lane, from each side, and count '
                                               'how often it rejoins it in the driving direction',
                              description='Trials per side (white, black, across from either side) with the '
                                          "report's recovery and with recovery 'both' (docs/navigation.md).")
    recovery.add_argument('--map', default='oval', help='map file or shipped map name (default: oval)')
    recovery.add_argument('--trials', type=arg_int(1, 100000), default=20, help='trials per side (default: 20)')
    recovery.add_argument('--seed', type=arg_int(0, MAX_SEED), default=1, help='first seed (default: 1)')
    recovery.add_argument('--recovery', choices=('report', 'both', 'compare'), default='compare',
                          help="the controller's recovery, or both one after the other (default: compare)")
    recovery.add_argument('--duration', type=arg_float(1, 3600), default=40.0,
                          help='simulated seconds per trial (default: 40)')
    recovery.add_argument('--json', action='store_true', help='print the rows as JSON')
    sweep.add_arguments(recovery, 'trials')
    recovery.set_defaults(func=cmd_recovery)


def cmd_traffic(args: argparse.Namespace) -> int:
    from thymio_road.experiments.traffic_table import classes, markdown, run_table, throughput
    from thymio_road.scenario import load_scenario
    if args.fundamental:
        return _fundamental(args)
    args.robots, args.seeds = args.robots or [10], args.seeds or [1, 2, 3, 4, 5]
    args.duration = args.duration or 3600.0
    scenarios = args.maps or [args.scenario]
    if len(scenarios) * len(args.robots) * len(args.seeds) > MAX_RUNS:
        raise ConfigError(f'--maps, --robots and --seeds give {len(scenarios) * len(args.robots) * len(args.seeds)} '
                          f'runs, more than the {MAX_RUNS} one command runs: split the sweep')
    for name in scenarios:
        for count in sorted(set(args.robots)):
            # a broken scenario, or a robot count that does not fit, is refused before any folder is made
            load_scenario(name, robots=count)
    out = args.out or Path('runs') / f'traffic-{time.strftime("%Y%m%d-%H%M%S")}'
    runs = len(scenarios) * len(args.robots) * len(args.seeds)
    print(f'{runs} runs of {args.duration:g} s; summaries in {out}/', file=sys.stderr)
    rows = run_table(scenarios, args.robots, args.seeds, args.duration, out, lone=bool(args.maps),
                     workers=args.workers, scheduler=args.scheduler, progress=True, resume=args.resume)
    print(markdown(rows))
    print()
    print(classes(rows, args.duration))
    if args.maps:
        print()
        print(throughput(rows))
    return 0 if all(r['ok'] for r in rows) else 1


def _fundamental(args: argparse.Namespace) -> int:
    from thymio_road.experiments import fundamental
    from thymio_road.map.validation import ConfigError
    from thymio_road.scenario import load_scenario
    if args.maps:
        raise ConfigError("--fundamental draws one scenario's diagram: give --scenario, not --maps")
    load_scenario(args.scenario)  # a broken scenario is refused before the first run
    counts = sorted(set(args.robots)) if args.robots else \
        fundamental.counts(fundamental.capacity(args.scenario, MAX_ROBOTS))
    seed_list, duration = args.seeds or [1], args.duration or 600.0
    out = args.out or Path('runs') / f'fundamental-{time.strftime("%Y%m%d-%H%M%S")}'
    print(f'{len(counts) * len(seed_list)} runs of {duration:g} s with {", ".join(map(str, counts))} robots; '
          f'summaries in {out}/', file=sys.stderr)
    curve = fundamental.diagram(args.scenario, counts, seed_list, duration, out, workers=args.workers,
                                scheduler=args.scheduler, progress=True)
    if not curve:
        print('error: every run failed (no point to draw)', file=sys.stderr)
        return 1
    print(fundamental.markdown(curve))
    print(f'\n{out / "fundamental.png"}', file=sys.stderr)
    return 0


def cmd_priority(args: argparse.Namespace) -> int:
    from thymio_road.experiments.priority import experiment, PRIORITY_ROBOT
    from thymio_road.scenario import load_scenario
    scenario = load_scenario(args.scenario, robots=args.robots)
    timed = next((r for r in scenario.robots if r.name == PRIORITY_ROBOT), None)
    if timed is None or not timed.mission:
        raise ConfigError(f'--scenario {args.scenario}: {PRIORITY_ROBOT} has no mission to time: give a scenario '
                          f'whose {PRIORITY_ROBOT} has robots.missions (as the shipped priority)')
    rows = experiment(args.scenario, tuple(args.seeds), args.robots, args.limit,
                      workers=args.workers, scheduler=args.scheduler, progress=True)
    failed = [r for r in rows if r.get('error')]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 1 if failed else 0
    print('| seed | robots | alone (s) | in traffic (s) | ratio | pre-emptions |\n|---|---|---|---|---|---|')
    for r in rows:
        print(f"| {r['seed']} | {r['robots']} | {r['alone_s']} | {r['traffic_s']} | {r['ratio']} "
              f"| {r['preemptions']} |")
    _print_failures([f"seed {r['seed']}: {r['error']}" for r in failed], 'seed')
    return 1 if failed else 0


def cmd_recovery(args: argparse.Namespace) -> int:
    from thymio_road.experiments.recovery import sweep_trials, table
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
    load_map(find_config('maps', args.map))  # a broken map is refused before the first trial
    settings = ('report', 'both') if args.recovery == 'compare' else (args.recovery,)
    results, failures = sweep_trials(args.map, args.trials, args.seed, settings, duration=args.duration,
                                     workers=args.workers, scheduler=args.scheduler, progress=True)
    rows = [{'recovery': setting, **row} for setting in settings for row in table(results[setting])]
    for row in rows:  # a trial that raised is not among `trials`: its seed and error are
        failed = [f'seed {o.job.seed}: {o.error}' for o in failures
                  if (o.job.recovery, o.job.side) == (row['recovery'], row['side'])]
        if failed:
            row['errors'] = failed
    errors = [f'{o.job.recovery}, {o.job.side}, seed {o.job.seed}: {o.error}' for o in failures]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 1 if errors else 0
    print('| recovery | side | trials | rejoined | turned back | wrong way | lost | success | median time (s) |')
    print('|---|---|---|---|---|---|---|---|---|')
    for r in rows:
        success = '–' if r['success_rate'] is None else f"{100 * r['success_rate']:.0f} %"
        print(f"| {r['recovery']} | {r['side']} | {r['trials']} | {r['rejoined']} | {r['turned back']} | "
              f"{r['wrong way']} | {r['lost']} | {success} | {r['median_time_s']} |")
    _print_failures(errors, 'trial')
    return 1 if errors else 0


def _print_failures(lines: list[str], what: str) -> None:
    """Runs that raised, below the table (stdout, with it) and counted on stderr."""
    if not lines:
        return
    print(f'\n{len(lines)} {what}{"" if len(lines) == 1 else "s"} failed:')
    for line in lines:
        print(f'- {line}')
    print(f'error: {len(lines)} failed {what}{"" if len(lines) == 1 else "s"} (above)', file=sys.stderr)
