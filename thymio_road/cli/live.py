# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The live view on the command line: `run --live [--port] [--pace]` and `play BAG --live`.

The server itself is runtime/live.py; this module has the options, their checks and the lines
a user reads (where to connect).
"""
from __future__ import annotations

import argparse
from pathlib import Path
import sys
from typing import Any

from thymio_road.map.validation import arg_float, arg_int

DEFAULT_PORT = 8765  # runtime/live.DEFAULT_PORT (not imported: the runtime's imports take a second)
#: --pace: a factor of real time; below 0.01 a 10 ms step would wait a second.
PACE = arg_float(0.01, 1000)
PORT = arg_int(1, 65535)


def add_arguments(parser: argparse.ArgumentParser, what: str, pace_default: float | None) -> None:
    """--live, --port and --pace on `parser` (`what`: 'the run' or 'the bag')."""
    parser.add_argument('--live', action='store_true',
                        help=f'serve every topic of {what} over the Foxglove WebSocket protocol, with '
                             'the ROS 2 message definitions and CDR payloads of the bag (Foxglove or '
                             'Lichtblick: Open connection → Foxglove WebSocket → ws://localhost:PORT; '
                             'docs/live_view.md). Needs the foxglove-sdk package')
    parser.add_argument('--port', type=PORT, metavar='PORT',
                        help=f'port of the live view (default: {DEFAULT_PORT}; only with --live)')
    default = 'as fast as it can' if pace_default is None else f'{pace_default:g}'
    parser.add_argument('--pace', type=PACE, metavar='X', default=pace_default,
                        help=f'{what} at X times real time (1: real time; 0.01..1000; default: '
                             f'{default}; only with --live)')


def check_arguments(args: argparse.Namespace, pace_default: float | None) -> None:
    """Refuse --port or --pace without --live (exit code 2, as any bad flag)."""
    from thymio_road.map.validation import ConfigError
    if not args.live:
        given = [flag for flag, value, default in (('--port', args.port, None), ('--pace', args.pace, pace_default))
                 if value != default]
        if given:
            raise ConfigError(f'argument {given[0]}: only with --live (it sets the live view)')


def start_server(args: argparse.Namespace) -> Any:
    """Start the live view's server before anything runs: a port in use or a missing SDK is an
    error (exit code 2) that names it, and no run starts.
    """
    from thymio_road.runtime.live import LiveServer
    server = LiveServer(args.port or DEFAULT_PORT)
    pace = f'{args.pace:g}x real time' if args.pace else 'as fast as it runs (--pace 1: real time)'
    print(f'live view on {server.url} (Foxglove or Lichtblick: Open connection → Foxglove WebSocket; '
          f'layout config/foxglove/thymio_road.json), {pace}', file=sys.stderr, flush=True)
    return server


def run_tap(server: Any, ros_distro: str, pace: float | None) -> Any:
    """The `tap` of runtime/run.run_scenario for a live run."""
    from thymio_road.runtime.live import LiveTap, Pacer

    def tap(recorder: Any, stopping: Any) -> Any:
        return LiveTap(server, recorder, ros_distro, Pacer(pace, stopping) if pace else None)
    return tap


def register(sub: argparse._SubParsersAction) -> None:
    play = sub.add_parser('play', help='serve a recorded bag to Foxglove or Lichtblick (--live), with its clock',
                          description='Serve a recording (a rosbag2 folder or .mcap file of ROS 2 '
                                      'messages) over the Foxglove WebSocket protocol, every topic with '
                                      'its message definition and CDR payloads as recorded, in log-time '
                                      'order at --pace times real time, with the log time as the '
                                      "server's clock. Stops at the bag's end or on Ctrl-C.")
    play.add_argument('bag', type=Path, help='rosbag2 folder or .mcap file')
    add_arguments(play, 'the bag', 1.0)
    play.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    from thymio_road.map.validation import ConfigError
    check_arguments(args, 1.0)
    if not args.live:
        raise ConfigError('play: nothing to do without --live (play serves the bag to Foxglove or '
                          'Lichtblick: thymio-road play BAG --live)')
    if not args.bag.exists():
        raise ConfigError(f'{args.bag}: no such file or folder')
    from thymio_road.cli.bag import repair_before_reading
    repair_before_reading(args.bag)
    server = start_server(args)
    from thymio_road.runtime.interrupt import StopRequest
    from thymio_road.runtime.live import play_bag
    stop = StopRequest()
    stop.started = True  # "SIGINT: stopping the run": the playback stops between two messages
    try:
        with stop.installed():
            try:
                result = play_bag(args.bag, server, args.pace, stopping=lambda: bool(stop.signum))
            except Exception as exc:  # noqa: BLE001 - a bag rosbags cannot read: say so, no traceback
                if isinstance(exc, (KeyboardInterrupt, ConfigError)):
                    raise
                raise ConfigError(f'{args.bag}: cannot play this recording ({type(exc).__name__}: {exc})') from None
    finally:
        server.close()
    span = (result.end_ns - result.start_ns) / 1e9
    print(f'{"interrupted after" if result.interrupted else "played"} {result.messages} messages on '
          f'{result.topics} topics, {span:.1f} s of the bag')
    if result.skipped:
        print(f'skipped (not ROS 2 CDR): {", ".join(result.skipped)}', file=sys.stderr)
    return 130 if result.interrupted else 0
