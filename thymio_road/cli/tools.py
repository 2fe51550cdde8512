"""`thymio-road analyze`, `thymio-road render` and `thymio-road map export`.

Registered into the main parser by :func:`register`; heavy imports happen only when a command runs.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


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
    analyze.add_argument('--near-miss-mm', type=float, default=20.0,
                         help='hull gap under which two robots have a near miss (default 20)')
    analyze.add_argument('--contact-mm', type=float, default=2.0,
                         help='hull gap at or under which two robots touch (default 2)')
    analyze.set_defaults(func=cmd_analyze)

    render = sub.add_parser('render', help='draw a recorded run over the map: PNG frame, GIF or MP4',
                            description='Robots are coloured by controller state; IR messages are '
                                        'drawn as links from sender to receiver.')
    render.add_argument('bag', type=Path, help='rosbag2 folder or storage file')
    render.add_argument('--out', type=Path,
                        help='.gif, .mp4 or .png (default: run.gif beside the bag)')
    render.add_argument('--start', type=float, help='window start, simulated seconds')
    render.add_argument('--end', type=float, help='window end, simulated seconds')
    render.add_argument('--at', type=float, help='time of a .png frame (default: the window end)')
    render.add_argument('--fps', type=float, default=10.0, help='frames per second of video (default 10)')
    render.add_argument('--speed', type=float,
                        help='simulated seconds per video second (default: the window in at most 30 s)')
    render.add_argument('--width', type=int, default=800, help='picture width in pixels (default 800)')
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
    group.add_argument('--map', type=Path, help='map file the run used (default: found from the bag)')
    group.add_argument('--scenario', help='scenario the run used (name or file)')


def _default_report_dir(bag: Path) -> Path:
    bag = bag.resolve()
    if bag.is_dir() and bag.name == 'bag':
        return bag.parent / 'report'
    return bag.parent / f'{bag.stem}-report'


def cmd_analyze(args: argparse.Namespace) -> int:
    from thymio_road.analysis import BagError, Options, analyze_bag
    out = args.out or _default_report_dir(args.bag)
    options = Options(contact_gap=args.contact_mm / 1000, near_miss_gap=args.near_miss_mm / 1000)
    try:
        result, files = analyze_bag(args.bag, out, map_path=args.map, scenario=args.scenario,
                                    options=options)
    except BagError as exc:
        print(f'error: {exc}', file=sys.stderr)
        return 2
    rec = result.recording
    print(f'{rec["path"]}: {rec["duration_s"]:.1f} s, {len(rec["robots"])} robots; map: {result.map["source"]}')
    for row in result.robots:
        if row.get('traffic_light'):
            print(f'  {row["robot"]}: traffic light')
            continue
        parts = [f'{row["distance_m"]:.2f} m' if row.get('distance_m') is not None else 'no distance']
        for key, label in (('road_losses', 'road losses'), ('collisions', 'collisions'),
                           ('near_misses', 'near misses'), ('barcode_reads', 'barcode reads'),
                           ('barcode_errors', 'barcode errors'), ('ir_received', 'IR received')):
            if row.get(key) is not None:
                parts.append(f'{label} {row[key]}')
        print(f'  {row["robot"]}: ' + ', '.join(parts))
    for problem in rec['problems'] + result.map['notes']:
        print(f'warning: {problem}', file=sys.stderr)
    for metric, why in result.not_computed.items():
        print(f'not computed: {metric}: {why}')
    print(f'report: {files["index.html"]}')
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from thymio_road.analysis import BagError
    from thymio_road.analysis.render import RenderError, render
    out = args.out or args.bag.resolve().parent / 'run.gif'
    try:
        result = render(args.bag, out, start=args.start, end=args.end, at=args.at, fps=args.fps,
                        speed=args.speed, width_px=args.width, map_path=args.map, scenario=args.scenario)
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
    from thymio_road.map.export import ExportError, export_map
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
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
              f"{done.tiles} tiles{skipped}) {where}")
    else:
        print(f"{done.files[0]}: map '{road_map.name}' at 1:1, one page of "
              f"{road_map.width * 100:g} x {road_map.height * 100:g} cm")
    return 0
