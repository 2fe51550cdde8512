# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""How tight a turn a robot follows at each speed: the limits behind :mod:`thymio_road.map.turns`.

One calibrated robot drives a track of the radius for some laps at a command speed, for every
seed, and the road losses are counted. Two tracks: a square of four 90° turns (most turns on a
map are at most 90°) and a circle (a long turn). The tracks lower the map's own turn limits
(`turn_limits: false`), since measuring them is the point.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from thymio_road.experiments.barcodes import arc_track, MAX_SPEED, MIN_SPEED, number_list, run_track, turn_track
from thymio_road.map import atomic
from thymio_road.map.validation import arg_float


def track(shape: str, radius: float, direction: str) -> dict:
    """A barcode-free square (four 90° turns, 40 cm legs) or circle of `radius`."""
    data = turn_track(0.1, radius=radius, leg=0.4, direction=direction) if shape == 'square' \
        else arc_track(radius, direction)
    data.update(name=f'turns_{shape}_{direction}_{radius * 100:g}cm', barcodes=[], turn_limits=False)
    return data


def measure(out: Path, shape: str, direction: str, speed: int, radii_cm: list[float], laps: float,
            seeds: list[int]) -> list[dict]:
    """One row per radius: the road losses summed over the seeds."""
    rows = []
    for r in radii_cm:
        losses = sum(run_track(track(shape, r / 100, direction), out / 'tracks', speed, laps, seed).road_losses
                     for seed in seeds)
        rows.append({'shape': shape, 'direction': direction, 'speed': speed, 'radius_cm': r,
                     'laps': laps, 'seeds': len(seeds), 'road_losses': losses})
    return rows


def smallest_without_loss(rows: list[dict]) -> float | None:
    """The smallest radius from which every larger one measured had no road loss."""
    best = None
    for row in sorted(rows, key=lambda r: -r['radius_cm']):
        if row['road_losses']:
            break
        best = row['radius_cm']
    return best


def register(sub: Any) -> None:
    parser = sub.add_parser('turns', help="road losses on turns of each radius, per speed (the map loader's limits)")
    parser.add_argument('--shape', choices=('square', 'circle'), default='square',
                        help='four 90° turns, or a full circle (default: square)')
    parser.add_argument('--direction', choices=('left', 'right'), default='left')
    parser.add_argument('--speeds', type=number_list(MIN_SPEED, MAX_SPEED, integer=True), default='150,260,410')
    parser.add_argument('--radii', type=number_list(2.5, 100), default='4,5,6,8,10,12,14,15,20,25,30',
                        help='turn radii [cm]')
    parser.add_argument('--laps', type=arg_float(0, 1000, low_open=True), default=10.0)
    parser.add_argument('--seeds', type=number_list(0, 2 ** 31 - 1, integer=True), default='1,2,3')
    parser.add_argument('--out', type=Path, default=Path('runs/turns'))
    parser.set_defaults(func=_cmd_turns)


def _cmd_turns(args: argparse.Namespace) -> int:
    found = []
    for speed in (int(v) for v in args.speeds):
        rows = measure(args.out, args.shape, args.direction, speed, args.radii, args.laps,
                       [int(s) for s in args.seeds])
        limit = smallest_without_loss(rows)
        found.append({'speed': speed, 'smallest_radius_cm': limit, 'rows': rows})
        print(f'{args.direction} {args.shape}, speed {speed}: ' +
              ', '.join(f"{r['radius_cm']:g} cm {r['road_losses']}" for r in rows) +
              f"  -> smallest without a road loss: {'none' if limit is None else f'{limit:g} cm'}")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic.write_text(args.out / f'turns_{args.shape}_{args.direction}.json', json.dumps(found, indent=2) + '\n')
    return 0
