# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road map generate` (a random valid road network and its traffic scenario) and
`thymio-road map passages` (one robot on generated maps: every passage checked).

Without --out, `map generate` prints the map on stdout (so `> my_map.yaml` keeps it) and says on
stderr what it made; the names generated:N and generated:N:SIZE give the same map and its traffic
scenario wherever a shipped one is named, with no file to keep (docs/generated_maps.md).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
import sys
from typing import Any

from thymio_road.map.validation import arg_float, arg_int, MAX_DURATION, MAX_SEED, parse_seeds

SIZE_CHOICES = ('small', 'medium', 'large')


def register(map_sub: Any) -> None:
    gen = map_sub.add_parser('generate', help='a random, valid road network and its traffic scenario',
                             description="Draws a road network from the project's pieces (roundabouts with "
                                         '2-4 arms, crossroads, branchings, locations, balloons and loops, '
                                         'speed codes), checks it as `map check` does and that every road is '
                                         'reachable from every other, and writes it with a traffic scenario '
                                         "(final_traffic's settings). The same seed gives the same bytes. "
                                         'Without --out the map goes to stdout; generated:N (generated:N:SIZE) '
                                         'names the same map and scenario anywhere a shipped one is named.')
    gen.add_argument('--seed', type=arg_int(0, MAX_SEED), required=True, help='generator seed')
    gen.add_argument('--size', choices=SIZE_CHOICES, default='small',
                     help="small (at most 7.8 x 4.9 m, the final map's floor; the default), medium "
                          '(10 x 7.5 m) or large (12 x 8 m)')
    gen.add_argument('--out', type=Path, metavar='FILE',
                     help='write the map to FILE (.yaml) and its traffic scenario beside it as '
                          '<FILE stem>_traffic.yaml; an existing folder gets generated_<seed>.yaml and '
                          'generated_<seed>_traffic.yaml')
    gen.set_defaults(func=cmd_generate)

    passages = map_sub.add_parser('passages', help='one robot on each generated map: every passage checked '
                                                   'against ground truth',
                                  description='For each generator seed, one calibrated robot with random '
                                              "decisions drives the map (the final scenario's settings); each "
                                              'passage is checked against ground truth. Prints how many maps '
                                              'passed (every passage on the chosen branch, no road loss), the '
                                              'passages by intersection kind, the ways through intersections '
                                              'taken, and every failure; exit 1 if a map failed.')
    passages.add_argument('seeds', type=seed_list, help="generator seeds, '1-200' or '1,5,9'")
    passages.add_argument('--size', choices=SIZE_CHOICES, default='small', help='map size (default: small)')
    passages.add_argument('--duration', type=arg_float(0, MAX_DURATION, low_open=True), default=1800.0,
                          help='simulated seconds per map (default: 1800)')
    passages.add_argument('--seed', type=arg_int(0, MAX_SEED), default=1,
                          help="the robot's random seed (default: 1)")
    passages.add_argument('--json', type=Path, metavar='FILE', help="also write every map's row and the totals")
    from thymio_road.experiments import sweep
    sweep.add_arguments(passages, 'maps')
    passages.set_defaults(func=cmd_passages)


def seed_list(text: str) -> list[int]:
    """'1-200' or '1,5,9' → the seeds (at most MAX_SEEDS, counted before they are listed)."""
    try:
        return parse_seeds(text, '1-200')
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _targets(out: Path, name: str) -> tuple[Path, Path]:
    from thymio_road.cli.outputs import OutputError
    if out.is_dir():
        return out / f'{name}.yaml', out / f'{name}_traffic.yaml'
    if out.suffix.lower() not in ('.yaml', '.yml'):
        raise OutputError(f'--out {out}: give a map file name ending in .yaml (its scenario goes beside it) '
                          'or an existing folder')
    return out, out.with_name(f'{out.stem}_traffic.yaml')


def cmd_generate(args: argparse.Namespace) -> int:
    from thymio_road.cli.outputs import check_out_file
    from thymio_road.generator.generate import generate_map, map_name
    from thymio_road.generator.scenarios import TRAFFIC_ROBOTS, traffic_text
    from thymio_road.map import atomic
    from thymio_road.scenario import config_dir, road_capacity
    name = map_name(args.seed, args.size)
    targets = None
    if args.out is not None:
        targets = _targets(args.out, name)
        for path in targets:
            check_out_file(path)
    made = generate_map(args.seed, args.size)
    m = made.road_map
    kinds = ', '.join(f'{n} {k}{"s" if n != 1 else ""}' for k, n in _kinds(m))
    what = (f'generated:{args.seed}' + ('' if args.size == 'small' else f':{args.size}') +
            f' ({args.size}): {m.width:g} x {m.height:g} m, {kinds}')
    if targets is None:
        sys.stdout.write(made.text)
        print(f'{what}\nthe map is above; --out FILE also writes its traffic scenario, or name both '
              f'generated:{args.seed}' + ('' if args.size == 'small' else f':{args.size}') +
              ' (thymio-road run --scenario ..., map check ..., map export ...)', file=sys.stderr)
        return 0
    map_file, scenario_file = targets
    scenario, count = traffic_text(m, name, map_file.name, config_dir(), road_capacity)
    map_file.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(map_file, made.text)
    atomic.write_text(scenario_file, scenario)
    print(what)
    print(f'map: {map_file}')
    print(f'scenario: {scenario_file} ({count} robots' +
          ('' if count >= TRAFFIC_ROBOTS else f': its roads hold no more than {count}, not {TRAFFIC_ROBOTS}')
          + f'); run it with thymio-road run --scenario {scenario_file}')
    return 0


def _kinds(road_map: Any) -> list[tuple[str, int]]:
    from collections import Counter
    counts = Counter(i.kind for i in road_map.intersections)
    return [(k, counts[k]) for k in ('roundabout', 'crossroad', 'branching', 'location') if counts[k]]


def cmd_passages(args: argparse.Namespace) -> int:
    from thymio_road.cli.outputs import check_out_file
    from thymio_road.experiments import generated_passages as gp
    from thymio_road.map import atomic
    if args.json:
        check_out_file(args.json)
    outcomes = gp.run(args.seeds, args.size, args.duration, args.seed, workers=args.workers,
                      scheduler=args.scheduler, progress=True)
    rows = [o.value for o in outcomes if o.ok]
    broken = [o for o in outcomes if not o.ok]
    fig = gp.figures(rows)
    for line in gp.table(fig):
        print(line)
    for o in broken:
        print(f'  error: generated:{o.job.seed}: {o.error}')
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(args.json, json.dumps({'rows': rows, 'figures': fig,
                                                 'errors': [{'seed': o.job.seed, 'error': o.error}
                                                            for o in broken]}, indent=1) + '\n')
    return 0 if fig['passed'] == fig['maps'] and not broken else 1
