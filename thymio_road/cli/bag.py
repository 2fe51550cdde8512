# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road bag repair BAG`, and the repair `analyze` and `render` do before reading a cut bag."""
from __future__ import annotations

import argparse
from pathlib import Path
import sys


def register(sub: argparse._SubParsersAction, map_sub: argparse._SubParsersAction) -> None:
    bag = sub.add_parser('bag', help='work with recordings')
    bag_sub = bag.add_subparsers(metavar='ACTION')
    bag.set_defaults(func=lambda args: bag.print_help() or 2)
    repair = bag_sub.add_parser(
        'repair', help="rebuild a cut MCAP recording's summary and metadata.yaml (like ros2 bag reindex)",
        description='A run killed outright (SIGKILL, power loss) leaves an MCAP file without its '
                    'summary and no metadata.yaml, which readers refuse. This reads the complete '
                    'records before the cut, writes them again with a summary and writes '
                    'metadata.yaml (version 8). The original file is kept as <name>.mcap.cut.')
    repair.add_argument('bag', type=Path, help='rosbag2 folder or .mcap file')
    repair.set_defaults(func=cmd_bag_repair)


def cmd_bag_repair(args: argparse.Namespace) -> int:
    from thymio_road.runtime.bag_repair import repair, RepairError
    try:
        result = repair(args.bag)
    except RepairError as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 2
    print(result.describe())
    for note in result.notes:
        print(f'  {note}')
    return 0


def repair_before_reading(path: Path) -> None:
    """Repair a cut MCAP recording in place before `analyze` or `render` reads it, and say so.

    A bag still being written, or one that cannot be repaired, is left as it is: the reader
    then reads it as far as it goes and reports what it could not read.
    """
    from thymio_road.runtime.bag_repair import being_written, damage, repair, RepairError, storage_file
    reason = damage(path)
    if reason is None:
        return
    if being_written(storage_file(path)):
        print(f'note: {path} is still being written; reading what is in the file so far', file=sys.stderr)
        return
    print(f'note: {path}: {reason}; repairing it first (thymio-road bag repair)', file=sys.stderr)
    try:
        result = repair(path)
    except RepairError as exc:
        print(f'note: the repair failed: {exc}', file=sys.stderr)
        return
    print(f'note: {result.describe()}', file=sys.stderr)
