# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""``swarmcom`` command: run the SwarmCom experiments and write CSV + PNG (+ JSON summary) files;
print the summary rounded for reading, and the paths written.

Registered into a host CLI with :func:`register`, or run alone: ``python -m swarm_comm.cli static --out DIR``.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
import sys
import time

import numpy as np

from thymio_road.map.validation import arg_float, arg_int

from .scalability import CHANNEL_RULES, DEFAULT_CHANNEL, DEFAULT_LAYOUT, LAYOUTS

#: Ranges of the options: each bounds the time and memory of one command (the defaults and the
#: paper's settings lie well inside).
SAMPLES, GRID_AXIS, MESSAGES, TRIALS, REPETITIONS = arg_int(1, 10_000_000), arg_int(1, 1000), arg_int(1, 100_000), \
    arg_int(1, 1_000_000), 10_000
#: Distances and the communication radius (cm), the bit rate (symbols/s), the time constant (s).
DISTANCE, BIT_RATE = arg_float(0, 1000, low_open=True), arg_float(0, 1e6, low_open=True)
TIME_CONSTANT = arg_float(0, 10)
#: Most distances one static run measures, and most robots around one in the scalability run.
MAX_DISTANCES, MAX_COUNT = 10_000, 1000


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2 ** 32:
        raise argparse.ArgumentTypeError(f'must be an integer in 0..{2 ** 32 - 1}, got {text!r:.60}')
    return value


def _group_sizes(text: str) -> tuple[int, ...]:
    """Mobile group sizes: 2..16 robots (a message's origin has 4 bits)."""
    try:
        values = tuple(int(v) for v in text.split(',') if v.strip())
    except ValueError:
        values = ()
    if not values or not all(2 <= v <= 16 for v in values):
        raise argparse.ArgumentTypeError(f'expected comma-separated group sizes in 2..16, got {text!r:.60}')
    return values


def _at_least_two(text: str) -> int:
    """Repetitions: the confidence intervals need two runs or more."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 2 <= value <= REPETITIONS:
        raise argparse.ArgumentTypeError(f'must be an integer in 2..{REPETITIONS} (>= 2: confidence intervals '
                                         f'need two runs), got {text!r:.60}')
    return value


def _int_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(',') if v.strip())
    except ValueError as error:
        raise argparse.ArgumentTypeError(f'expected comma-separated integers, got {text!r:.60}') from error
    if not values or not all(1 <= v <= MAX_COUNT for v in values):
        raise argparse.ArgumentTypeError(f'expected comma-separated robot counts in 1..{MAX_COUNT}, got {text!r:.60}')
    return values


def _number(value) -> str:
    """Three significant digits: the experiments' sampling error is far above the fourth."""
    if isinstance(value, (bool, np.bool_)):
        return 'yes' if value else 'no'
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f'{float(value):.3g}' if abs(value) < 1e4 else f'{float(value):.0f}'
    return str(value)


def _plain(value) -> str:
    """One line: scalars rounded, a flat mapping as 'key value, ...'; deeper tables point to the CSV."""
    if isinstance(value, dict):
        if any(isinstance(v, (dict, list, tuple)) for v in value.values()):
            return f'{len(value)} entries (see the CSV file)'
        return ', '.join(f'{k} {_plain(v)}' for k, v in value.items()) or 'none'
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, (dict, list, tuple)) for v in value):
            return f'{len(value)} rows (see the CSV file)'
        return ', '.join(_plain(v) for v in value) or 'none'
    return 'none' if value is None else _number(value)


def summary_lines(summary: dict, files: Sequence[Path]) -> list[str]:
    """The summary as a reader wants it on the terminal; the JSON file keeps every digit."""
    lines = []
    for key, value in summary.items():
        label = key.replace('_', ' ')
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            lines.append(f'  {label}:')
            lines += [f'    {k}: {_plain(v)}' for k, v in value.items()]
        else:
            lines.append(f'  {label}: {_plain(value)}')
    return lines + ['written:'] + [f'  {path}' for path in files]


def _report(summary: dict, out: str, started: float) -> int:
    written = sorted(p for p in Path(out).iterdir() if p.is_file() and p.stat().st_mtime >= started)
    print('\n'.join(summary_lines(summary, written)))
    return 0


def _threshold(args: argparse.Namespace) -> int:
    from .experiments import run_threshold
    grid = tuple(args.grid) if args.grid else None
    started = time.time()
    return _report(run_threshold(args.out, args.seed, samples=args.samples, grid=grid), args.out, started)


def _static(args: argparse.Namespace) -> int:
    if args.min_distance > args.max_distance:
        print(f'error: --min-distance {args.min_distance:g} is above --max-distance {args.max_distance:g}',
              file=sys.stderr)
        return 2
    if (args.max_distance - args.min_distance) / args.step >= MAX_DISTANCES:
        print(f'error: --step {args.step:g} from --min-distance {args.min_distance:g} to --max-distance '
              f'{args.max_distance:g} gives more than {MAX_DISTANCES} distances', file=sys.stderr)
        return 2
    from .experiments import run_static
    distances = np.arange(args.min_distance, args.max_distance + 1e-9, args.step)
    started = time.time()
    return _report(run_static(args.out, args.seed, messages=args.messages, distances=distances,
                              bit_rate=args.bit_rate, time_constant=args.time_constant), args.out, started)


def _mobile(args: argparse.Namespace) -> int:
    from .experiments import run_mobile_experiments
    started = time.time()
    return _report(run_mobile_experiments(args.out, args.seed, messages=args.messages, robots=args.robots,
                                          repetitions=args.repetitions), args.out, started)


def _scalability(args: argparse.Namespace) -> int:
    from .experiments import run_scalability
    started = time.time()
    return _report(run_scalability(args.out, args.seed, trials=args.trials, counts=args.counts, radius=args.radius,
                                   channel=args.channel, occlusion=args.occlusion, layout=args.layout),
                   args.out, started)


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``swarmcom`` command (subcommands threshold, static, mobile, scalability) to ``subparsers``."""
    parser = subparsers.add_parser('swarmcom', help='SwarmCom e-puck IR communication experiments',
                                   description=__doc__)
    commands = parser.add_subparsers(dest='swarmcom_command', required=True)

    def common(sub: argparse.ArgumentParser, out: str) -> None:
        sub.add_argument('--out', default=out, help='output directory (default: %(default)s)')
        sub.add_argument('--seed', type=_seed, default=1, help='random seed (default: %(default)s)')

    sub = commands.add_parser('threshold', help='decision threshold m_t from the channel model (Fig. 9)')
    common(sub, 'out/swarmcom/threshold')
    sub.add_argument('--samples', type=SAMPLES, default=200_000, help='random poses (default: %(default)s)')
    sub.add_argument('--grid', type=GRID_AXIS, nargs=3, metavar=('N_D', 'N_THETA', 'N_O'),
                     help='quantile grid instead of random poses; the paper used 1000 720 720')
    sub.set_defaults(func=_threshold)

    sub = commands.add_parser('static', help='static pair: P_e, P_l, ranges, codes (Figs. 10-13)')
    common(sub, 'out/swarmcom/static')
    sub.add_argument('--messages', type=MESSAGES, default=200, help='messages per distance (default: %(default)s)')
    sub.add_argument('--min-distance', type=DISTANCE, default=7.0, help='cm (default: %(default)s)')
    sub.add_argument('--max-distance', type=DISTANCE, default=107.0, help='cm (default: %(default)s)')
    sub.add_argument('--step', type=DISTANCE, default=1.0, help='cm (default: %(default)s)')
    sub.add_argument('--bit-rate', type=BIT_RATE, default=310.0, help='symbols per second (default: %(default)s)')
    sub.add_argument('--time-constant', type=TIME_CONSTANT, default=0.0,
                     help='measuring-circuit low-pass time constant in s, 0 = ideal (default: %(default)s)')
    sub.set_defaults(func=_static)

    sub = commands.add_parser('mobile', help='random walk in a 72x72 cm arena: broadcast vs flooding (Figs. 16-18)')
    common(sub, 'out/swarmcom/mobile')
    sub.add_argument('--messages', type=MESSAGES, default=25,
                     help='messages per run (default: %(default)s; the paper sent 1000 per configuration)')
    sub.add_argument('--repetitions', type=_at_least_two, default=20,
                     help='independent runs per configuration, >= 2, for the confidence intervals '
                          '(default: %(default)s)')
    sub.add_argument('--robots', type=_group_sizes, default=(2, 3, 4, 5, 6, 7), help='group sizes, e.g. 2,3,4')
    sub.set_defaults(func=_mobile)

    sub = commands.add_parser('scalability', help='channels n_C against density (Fig. 20a)')
    common(sub, 'out/swarmcom/scalability')
    sub.add_argument('--trials', type=TRIALS, default=100,
                     help='placements per density (default: %(default)s; the paper ran 10000)')
    sub.add_argument('--counts', type=_int_list, default=None, help='numbers of surrounding robots, e.g. 1,10,272')
    sub.add_argument('--radius', type=DISTANCE, default=61.0, help='communication range in cm (default: %(default)s)')
    sub.add_argument('--channel', choices=CHANNEL_RULES, default=DEFAULT_CHANNEL,
                     help='range: at least the signal of facing robots at --radius (default); detect: below m_t = 4075')
    sub.add_argument('--occlusion', choices=('paths', 'centre', 'none'), default='paths',
                     help='paths: per emitter-detector path (default); centre: centre line of sight; none')
    sub.add_argument('--layout', choices=LAYOUTS, default=DEFAULT_LAYOUT,
                     help='e-puck sensor layout of a public model (default: %(default)s; see docs/swarmcom.md)')
    sub.set_defaults(func=_scalability)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='swarm_comm')
    register(parser.add_subparsers(dest='command', required=True))
    args = parser.parse_args(['swarmcom', *(sys.argv[1:] if argv is None else argv)])
    try:
        return args.func(args)
    except ValueError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
