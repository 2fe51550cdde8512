# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road analyze`, `thymio-road render` and `thymio-road map export`.

Registered into the main parser by :func:`register`; heavy imports happen only when a command runs.
"""
from __future__ import annotations

import argparse
from pathlib import Path
import sys

from thymio_road.map.validation import arg_float, arg_int

#: The largest picture `render` draws (pixels wide); 100000 would need tens of GB.
MAX_WIDTH = 8000


def register(sub: argparse._SubParsersAction, map_sub: argparse._SubParsersAction) -> None:
    analyze = sub.add_parser('analyze', help='analyse a recording: HTML report, PNGs, CSV and JSON metrics',
                             description='Analyse any recording (rosbag2 folder, .mcap, .db3 or ROS 1 '
                                         '.bag): per robot distance, time per state, road losses, '
                                         'barcodes, decisions, collisions, waits, IR; network '
                                         'throughput and travel times. Metrics the recording does '
                                         'not allow are listed with the reason.')
    analyze.add_argument('bag', type=Path, help='rosbag2 folder or storage file')
    analyze.add_argument('--out', type=Path,
                         help='report folder (default: report/ beside a bag/ folder, else <bag>-report/)')
    _map_options(analyze)
    analyze.add_argument('--near-miss-mm', type=arg_float(0, 1000), default=20.0,
                         help='hull gap under which two robots have a near miss (default 20)')
    analyze.add_argument('--contact-mm', type=arg_float(0, 1000), default=2.0,
                         help='hull gap at or under which two robots touch (default 2)')
    analyze.add_argument('--stall-time', type=arg_float(0, 1e7, low_open=True), default=120.0, metavar='SECONDS',
                         help='a robot that moved less than 1 cm in this many seconds is stalled, one that did '
                              'not advance along the roads is stuck (default 120, as thymio-road run)')
    analyze.set_defaults(func=cmd_analyze)

    render = sub.add_parser('render', help='draw a recorded run over the map: PNG frame, GIF or MP4',
                            description='Robots are coloured by controller state; IR messages are '
                                        'drawn as links from sender to receiver.')
    render.add_argument('bag', type=Path, help='rosbag2 folder or storage file')
    render.add_argument('--out', type=Path,
                        help='.gif, .mp4 or .png (default: run.gif beside the bag)')
    seconds = arg_float(0, 1e9)
    render.add_argument('--start', type=seconds, help='window start, simulated seconds')
    render.add_argument('--end', type=seconds, help='window end, simulated seconds')
    render.add_argument('--at', type=seconds, help='time of a .png frame (default: the window end)')
    render.add_argument('--fps', type=arg_float(1, 100), default=10.0,
                        help='frames per second of video, 1..100 (a GIF counts frame times in hundredths '
                             'of a second; default 10)')
    render.add_argument('--speed', type=arg_float(0, 1e9, low_open=True),
                        help='simulated seconds per video second (default: the window in at most 30 s)')
    render.add_argument('--width', type=arg_int(16, MAX_WIDTH), default=800,
                        help='picture width in pixels (default 800)')
    _map_options(render)
    render.set_defaults(func=cmd_render)

    export = map_sub.add_parser('export', help='print-ready map at 1:1 (SVG or PDF), tiled onto pages',
                                description='Vector map: linear gradients on straights, radial '
                                            'gradients on arcs, barcodes bit by bit. With --page the '
                                            'sheet is tiled onto pages with overlap, alignment and '
                                            'cut marks, plus a one-page preview.')
    export.add_argument('map', help='map file, or the name of a shipped map')
    export.add_argument('--format', choices=('svg', 'pdf'), help='default: from --out')
    export.add_argument('--page', choices=('A4', 'A3', 'A0'),
                        help='tile onto pages of this size (default: one page the size of the sheet)')
    export.add_argument('--out', type=Path, required=True, help='output file (.svg or .pdf)')
    export.set_defaults(func=cmd_map_export)


def _map_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument('--map', help="map file the run used, or a shipped map's name (default: found "
                                     'from the bag)')
    group.add_argument('--scenario', help='scenario the run used (name or file)')


def _map_file(args: argparse.Namespace) -> Path | None:
    """--map as a file: a path, or the name of a shipped map (as everywhere a map is named)."""
    from thymio_road.scenario import find_config
    return None if args.map is None else find_config('maps', args.map)


def _default_report_dir(bag: Path) -> Path:
    bag = bag.resolve()
    if bag.is_dir() and bag.name == 'bag':
        return bag.parent / 'report'
    return bag.parent / f'{bag.stem}-report'


def cmd_analyze(args: argparse.Namespace) -> int:
    from thymio_road.cli.outputs import check_out_dir
    out = args.out or _default_report_dir(args.bag)
    check_out_dir(out, '--out' if args.out else 'report folder')
    map_file = _map_file(args)
    from thymio_road.analysis import analyze_bag, BagError, Options
    from thymio_road.cli.bag import repair_before_reading
    repair_before_reading(args.bag)
    options = Options(contact_gap=args.contact_mm / 1000, near_miss_gap=args.near_miss_mm / 1000,
                      stall_time=args.stall_time)
    from thymio_road.map.atomic import staged_folder
    try:
        # The report is written beside `out` and moved in when whole: an interrupted or failed
        # analysis (SIGTERM, a full disk) leaves `out` as it was.
        with staged_folder(out) as staging:
            result, files = analyze_bag(args.bag, staging, map_path=map_file, scenario=args.scenario,
                                        options=options)
    except BagError as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f'interrupted: no report written; {out} is as it was', file=sys.stderr)
        return 130
    files = {name: out / Path(path).name for name, path in files.items()}
    rec = result.recording
    robots, lights = len(rec['robots']), len(rec.get('traffic_lights', []))
    print(f'{rec["path"]}: {rec["duration_s"]:.1f} s, {robots} robot{"" if robots == 1 else "s"}'
          + (f' and {lights} traffic light{"" if lights == 1 else "s"}' if lights else '')
          + f'; map: {result.map["source"]}')
    for row in result.robots:
        if row.get('traffic_light'):
            continue
        parts = [f'{row["distance_m"]:.2f} m' if row.get('distance_m') is not None else 'no distance']
        if row.get('on_road_fraction') is not None:
            parts.append(f'on road {100 * row["on_road_fraction"]:.1f} %')
        for key, label in (('road_losses', 'road losses'), ('contacts', 'contacts'),
                           ('near_misses', 'near misses'), ('passages', 'passages'), ('barcode_reads', 'barcode reads'),
                           ('barcode_errors', 'barcode errors'), ('ir_received', 'IR received')):
            if row.get(key) is not None:
                parts.append(f'{label} {row[key]}')
        print(f'  {row["robot"]}: ' + ', '.join(parts))
    if lights:
        print(f'  traffic lights: {", ".join(rec["traffic_lights"])}')
    if result.passages:
        p = result.passages
        checked = p.get('checked')
        print(f"passages: {p['passages']} ({p['throughput_per_robot_minute']} per robot-minute)"
              + (f"; {checked['ok']} of {checked['passages']} ended on the chosen branch" if checked else ''))
    if result.wrong_way:
        w = result.wrong_way
        print(f"wrong-way drives: {w['episodes']}" + (f" ({w['distance_m']:.2f} m; {', '.join(w['robots'])})"
                                                      if w['episodes'] else ''))
    stalls = result.stalls
    if stalls and stalls['stall_count']:
        stopped = f"; the network stopped at {stalls['gridlock_at_s']:.0f} s" if stalls['gridlock'] else ''
        print(f"stalls: {stalls['stall_count']} (robots that stood still for {stalls['stall_time_s']:g} s; "
              f"first at {stalls['first_stall_s']:.0f} s{stopped})")
        for stall in stalls['stalls'][:10]:
            until = 'the end' if stall['until_s'] is None else f"{stall['until_s']:.0f} s"
            print(f"  {stall['robot']}: {stall['since_s']:.0f} s to {until}, {stall['where']}, held by "
                  f"{stall['held_by']}")
    if stalls.get('gridlock'):
        print(f"warning: the network stopped at {stalls['gridlock_at_s']:.0f} s: every robot stood still for "
              f"{stalls['stall_time_s']:g} s", file=sys.stderr)
    elif stalls:
        from thymio_road.analysis.stalls import end_warning
        message = end_warning(stalls, len([r for r in result.robots if not r.get('traffic_light')]))
        if message:
            print(message, file=sys.stderr)
    from thymio_road.analysis.progress import report_lines
    for line in report_lines(result.progress):
        print(line)
    for problem in rec['problems'] + result.map['notes']:
        print(f'warning: {problem}', file=sys.stderr)
    for metric, why in result.not_computed.items():
        print(f'not computed: {metric}: {why}')
    print(f'report: {files["index.html"]}')
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from thymio_road.cli.outputs import check_out_file
    from thymio_road.map.validation import ConfigError
    if args.start is not None and args.end is not None and args.start >= args.end:
        raise ConfigError(f'--start {args.start:g} is not before --end {args.end:g}: the window starts before it ends')
    out = args.out or args.bag.resolve().parent / 'run.gif'
    check_out_file(out, '--out' if args.out else 'output file')
    map_file = _map_file(args)
    from thymio_road.analysis import BagError
    from thymio_road.analysis.render import render, RenderError
    from thymio_road.cli.bag import repair_before_reading
    repair_before_reading(args.bag)
    from thymio_road.map.atomic import atomic_path
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(out) as tmp:
            result = render(args.bag, tmp, start=args.start, end=args.end, at=args.at, fps=args.fps,
                            speed=args.speed, width_px=args.width, map_path=map_file, scenario=args.scenario)
        result.path = out
    except (BagError, RenderError) as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 2
    if result.frames == 1:
        print(f'{result.path}: frame at {result.start:.1f} s')
    else:
        print(f'{result.path}: {result.frames} frames, {result.start:.1f}..{result.end:.1f} s at '
              f'{result.speed:g}x')
    return 0


def cmd_map_export(args: argparse.Namespace) -> int:
    from thymio_road.cli.outputs import check_out_file, OutputError
    from thymio_road.map.export import export_map, ExportError
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
    suffix = args.out.suffix.lower().lstrip('.')
    if args.format and suffix != args.format:
        raise OutputError(f"--out {args.out}: the file name ends in '.{suffix}' but --format is "
                          f'{args.format}; name it {args.out.stem}.{args.format}')
    if not args.format and suffix not in ('svg', 'pdf'):
        raise OutputError(f"--out {args.out}: unknown format '.{suffix}': give a file name ending in .svg "
                          'or .pdf (or --format)')
    check_out_file(args.out)
    road_map = load_map(find_config('maps', args.map))
    try:
        done = export_map(road_map, args.out, args.format, args.page)
    except ExportError as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 2
    if args.page:
        where = 'in ' + (f'{done.files[0]}' if len(done.files) == 1 else
                         f'{len(done.files) - 1} files beside {done.files[0]} (the whole sheet)')
        skipped = f', {done.blank_tiles} blank tiles not printed' if done.blank_tiles else ''
        print(f"map '{road_map.name}' at 1:1: {done.tiles + 1} {args.page} pages (a preview and "
              f'{done.tiles} tiles{skipped}) {where}')
    else:
        print(f"{done.files[0]}: map '{road_map.name}' at 1:1, one page of "
              f'{road_map.width * 100:g} x {road_map.height * 100:g} cm')
    return 0
