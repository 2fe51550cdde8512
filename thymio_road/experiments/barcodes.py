# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The report's barcode-reading experiments, rerun in simulation (report §5 Fig. 8, §7 Figs. 13/15, §9).

Each experiment builds its test track as a map file (validated like any map, and kept in the
output folder so it can be printed), runs the full node graph in the embedded runtime with the
controller in read-only mode (`barcode_actions: false`, so the speed under test is kept), and
scores every pass with :mod:`thymio_road.experiments.barcode_scores`. Results go to CSV and PNG.
"""
from __future__ import annotations

import argparse
import csv
from dataclasses import dataclass
import json
import math
from pathlib import Path
from typing import Any

import yaml

from thymio_road.experiments.barcode_scores import ReadScore, score
from thymio_road.map import atomic
from thymio_road.map.barcode import BARCODE_BITS, BIT_LENGTH
from thymio_road.map.validation import arg_float, arg_int, show
from thymio_road.sim import robot_model as rm

ROBOT = 'thymio1'
SPEED_HIGH = 410
#: Speeds the experiments accept: below 50 units a lap takes simulated hours; 500 is the motors' top.
MIN_SPEED, MAX_SPEED = 50, rm.MOTOR_UNITS_MAX


# --- theory (report §5, equations 2-4) -------------------------------------------------------------

def interval(speed: int, speed_high: int = SPEED_HIGH) -> int:
    """Eq. (2) in integer arithmetic: events per bit."""
    return (2 * speed_high) // speed


def window(i: int) -> tuple[float, float]:
    """Eqs. (3)-(4): command range in which a reading with `i` events per bit fits the barcode."""
    length_cm = BARCODE_BITS * BIT_LENGTH * 100
    per_unit = rm.SPEED_PER_UNIT * 100 * rm.PROX_EVENT_PERIOD  # cm per event per unit
    return length_cm / (4.5 * i * per_unit), length_cm / (3.5 * i * per_unit)


def predicted_success(speed: int) -> bool:
    lo, hi = window(interval(speed))
    return lo <= speed <= hi


# --- tracks ------------------------------------------------------------------------------------------

def oval_track(straight: float = 2.0, radius: float = 0.6, spacing: float = 0.3,
               margin: float = 0.25, direction: str = 'left') -> dict:
    """An oval with barcodes of every code 1..7 along both straights, away from the turns.

    The turns are wide (60 cm) so that even at 410 units the outer wheel stays below the motor
    plateau (report Fig. 1) and the robot keeps the road: this track measures reading only.
    """
    turn = 180 if direction == 'left' else -180
    y0 = 0.2 if direction == 'left' else 0.2 + 2 * radius
    data: dict[str, Any] = {
        'name': f'barcode_oval_{direction}',
        'size': [round(straight + 2 * radius + 0.4, 3), round(2 * radius + 0.4, 3)],
        'roads': [{'id': 'loop', 'start': [0.2 + radius, y0, 0], 'closed': True,
                   'pieces': [{'straight': straight}, {'arc': {'radius': radius, 'angle_deg': turn}},
                              {'straight': straight}, {'arc': {'radius': radius, 'angle_deg': turn}}]}],
    }
    half = straight + math.pi * radius
    barcodes, k = [], 0
    for base in (0.0, half):
        at = margin
        while at + BARCODE_BITS * BIT_LENGTH <= straight - margin:
            barcodes.append({'id': f'b{k}', 'road': 'loop', 'at': round(base + at, 4), 'code': k % 7 + 1})
            at += spacing
            k += 1
    data['barcodes'] = barcodes
    return data


def arc_track(radius: float, direction: str = 'left', spacing: float = 0.3) -> dict:
    """A circle of `radius` with barcodes of codes 1..7 all round it: every read is on the arc.

    Left turns put the bits on the outside of the turn, right turns on the inside. The map lowers
    `barcode_min_arc_radius` to 0, since measuring below the loader's limit is the point.
    """
    turn = 360 if direction == 'left' else -360
    y0 = 0.2 if direction == 'left' else 0.2 + 2 * radius
    lap = 2 * math.pi * radius
    count = max(1, int(lap // spacing))
    step = lap / count
    return {
        'name': f'barcode_arc_{direction}_{radius * 100:g}cm',
        'size': [round(2 * radius + 0.4, 3), round(2 * radius + 0.4, 3)],
        'barcode_min_arc_radius': 0.0,
        'roads': [{'id': 'loop', 'start': [0.2 + radius, y0, 0], 'closed': True,
                   'pieces': [{'arc': {'radius': radius, 'angle_deg': turn}}]}],
        'barcodes': [{'id': f'b{k}', 'road': 'loop', 'at': round(k * step + 0.05, 4), 'code': k % 7 + 1}
                     for k in range(count) if k * step + 0.05 + BARCODE_BITS * BIT_LENGTH < lap - 0.01],
    }


def turn_track(distance: float, radius: float = 0.12, leg: float = 0.6, direction: str = 'right'
               ) -> dict:
    """A square loop of four 90° turns, a barcode `distance` after the end of each turn.

    Right turns by default: the exits of the report's roundabout (Fig. 14) and its location
    entries turn right, and a barcode placed after them is what Figs. 13 and 15 measure.
    """
    angle = 90 if direction == 'left' else -90
    pieces = []
    for _ in range(4):
        pieces += [{'straight': leg}, {'arc': {'radius': radius, 'angle_deg': angle}}]
    side = leg + 2 * radius
    y0 = 0.2 if direction == 'left' else 0.2 + side
    data: dict[str, Any] = {
        'name': f'barcode_after_{direction}_turn_{distance * 100:g}cm',
        'size': [round(side + 0.4, 3), round(side + 0.4, 3)],
        'roads': [{'id': 'loop', 'start': [0.2 + radius, y0, 0], 'closed': True, 'pieces': pieces}],
    }
    # The road starts on a leg, just after a turn; each leg follows a turn.
    quarter = leg + radius * math.pi / 2
    data['barcodes'] = [{'id': f'b{k}', 'road': 'loop', 'at': round(k * quarter + distance, 4),
                         'code': (3, 5, 6, 7)[k]} for k in range(4)]
    return data


def turn_track_start(radius: float = 0.12, leg: float = 0.6) -> float:
    """Start on the last leg, 0.3 m before the last turn, so the first barcode follows a turn."""
    return round(4 * (leg + radius * math.pi / 2) - radius * math.pi / 2 - 0.3, 4)


def right_turn_track(radius: float = 0.05, leg: float = 0.5) -> dict:
    """A clockwise square loop: four sharp right turns and no barcode at all."""
    pieces = []
    for _ in range(4):
        pieces += [{'straight': leg}, {'arc': {'radius': radius, 'angle_deg': -90}}]
    side = leg + 2 * radius
    return {'name': 'right_turns', 'size': [round(side + 0.4, 3), round(side + 0.4, 3)],
            'roads': [{'id': 'loop', 'start': [0.2 + radius, 0.2 + side, 0], 'closed': True,
                       'pieces': pieces}]}


# --- running -----------------------------------------------------------------------------------------

@dataclass
class TrackRun:
    score: ReadScore
    laps: float
    road_losses: int


def run_track(map_data: dict, folder: Path, speed: int, laps: float, seed: int,
              controller: dict | None = None, world: dict | None = None, start: float = 0.05,
              short: float = 0.0) -> TrackRun:
    """One robot on a track for `laps` laps at a command speed, read-only; returns the score.
    `short`: the calibrated robot then drives this fraction short of eq. (1), as one whose
    calibration was off by that much (the strip's count has a resolution of 1.5 %, §10).
    """
    from thymio_road.runtime.node import EmbeddedNode
    from thymio_road.runtime.run import Graph
    from thymio_road.scenario import load_scenario

    folder.mkdir(parents=True, exist_ok=True)
    map_file = folder / f'{map_data["name"]}.yaml'
    text = yaml.safe_dump(map_data, sort_keys=False)
    if not map_file.exists() or map_file.read_text() != text:
        atomic.write_text(map_file, text)
    scenario_file = folder / f'{map_data["name"]}_scenario.yaml'
    atomic.write_text(scenario_file, yaml.safe_dump({
        'name': map_data['name'], 'map': map_file.name, 'seed': seed, 'world': world or {},
        'controller': {'barcode_actions': False, **(controller or {})},
        'robots': {'count': 1, 'road': 'loop', 'start': start}},
        sort_keys=False))
    from thymio_road.calibration import calibrate
    from thymio_road.scenario import world_params
    scenario = load_scenario(scenario_file, controller={'speed': speed}, seed=seed)
    if 'speed_factor' not in (controller or {}):
        # Calibrate the robot first, as the report did before every test (§10).
        factors = calibrate(1, seed, world_params(scenario))[0]
        factors['speed_factor'] = round(factors['speed_factor'] * (1 - short), 4)
        scenario = load_scenario(scenario_file, controller={'speed': speed, **factors}, seed=seed)
    lap = scenario.road_map.road('loop').length
    duration = laps * lap / max(rm.wheel_speed_scalar(speed), 1e-3)
    graph = Graph(scenario)
    world_events: list[dict] = []
    robot_events: list[dict] = []
    observer = EmbeddedNode(graph.executor, 'observer')
    observer.create_subscription(_string(), '/world/events',
                                 lambda m: world_events.append(json.loads(m.data)), 100)
    observer.create_subscription(_string(), f'/{ROBOT}/controller/events',
                                 lambda m: robot_events.append(json.loads(m.data)), 100)
    graph.run(duration)
    world = graph.world_node.world
    return TrackRun(score(world_events, robot_events, ROBOT), world.distance[0] / lap,
                    int(world.road_losses[0]))


def _string() -> Any:
    from thymio_road.nodes import msgs
    return msgs.String


@dataclass(frozen=True)
class TrackJob:
    """One run_track call as plain data, so that a worker process or machine can run it."""

    map_data: dict
    speed: int
    laps: float
    seed: int
    controller: dict | None = None
    start: float = 0.05
    short: float = 0.0
    #: What the progress line and a failure name it by ('speed 150, seed 3').
    label: str = ''


def track_job(job: TrackJob) -> TrackRun:
    """run_track in a temporary folder: workers on other machines have no --out, and runs side by
    side must not write the same scenario file.
    """
    import tempfile
    with tempfile.TemporaryDirectory(prefix='thymio-road-track-') as tmp:
        return run_track(job.map_data, Path(tmp), job.speed, job.laps, job.seed, job.controller,
                         start=job.start, short=job.short)


def _run_tracks(jobs: list[TrackJob], out: Path, sweep_options: dict | None) -> list[TrackRun | None]:
    """Every job's run (None where it raised: its label and error go to sweep_options['failed']),
    in job order, on the workers that `sweep_options` names (experiments/sweep.py). The tracks'
    map files are kept in out/tracks/ so that they can be printed.
    """
    from thymio_road.experiments import sweep
    options = dict(sweep_options or {})
    failed = options.pop('failed', None)
    folder = out / 'tracks'
    folder.mkdir(parents=True, exist_ok=True)
    for data in {job.map_data['name']: job.map_data for job in jobs}.values():
        atomic.write_text(folder / f'{data["name"]}.yaml', yaml.safe_dump(data, sort_keys=False))

    def finished(outcome: Any) -> str:
        if not outcome.ok:
            return f'{outcome.job.label}: ERROR: {outcome.error}'
        return f'{outcome.job.label}: {100 * outcome.value.score.success_rate:.0f} % read right'

    outcomes = sweep.run(track_job, jobs, describe=finished, **options)
    if failed is not None:
        failed += [f'{o.job.label}: {o.error}' for o in outcomes if not o.ok]
    return [o.value if o.ok else None for o in outcomes]


# --- experiments -------------------------------------------------------------------------------------

def speed_sweep(out: Path, speeds: list[int], laps: float, seed: int, **sweep_options: Any) -> list[dict]:
    """Fig. 8: read success against command speed, with the window of eqs. (3)-(4).

    `sweep_options`: workers, scheduler, progress (experiments/sweep.py) and `failed`, a list
    that gets each run that raised (its row is left out), as for every experiment here.
    """
    rows = []
    track = oval_track()
    runs = _run_tracks([TrackJob(track, speed, laps, seed + k, label=f'speed {speed}, seed {seed + k}')
                        for k, speed in enumerate(speeds)], out, sweep_options)
    for speed, run in zip(speeds, runs):
        if run is None:
            continue
        lo, hi = window(interval(speed))
        rows.append({'speed': speed, 'interval': interval(speed), **run.score.as_dict(),
                     'road_losses': run.road_losses, 'window_low': round(lo, 1),
                     'window_high': round(hi, 1), 'predicted': predicted_success(speed)})
    _write_csv(out / 'speed_sweep.csv', rows)
    if rows:
        _plot_sweep(out / 'speed_sweep.png', rows)
    return rows


#: How far short of eq. (1) the nominal speeds' robot drives: calibrated, then off by one and by
#: two of the strip's counts at 260 (about 1.5 % each, §10).
SHORTS = (0.0, 0.015, 0.03)


def nominal_speeds(out: Path, laps: float, seed: int, **sweep_options: Any) -> list[dict]:
    """Trigger and decode rates at the report's three speeds, for each read method, with the
    robot calibrated and with its calibration off (SHORTS).
    """
    rows = []
    cases = [(method, speed, short) for short in SHORTS for method in ('report', 'inset', 'centred', 'matched')
             for speed in (150, 260, 410)]
    runs = _run_tracks([TrackJob(oval_track(), speed, laps, seed, {'read_method': method}, short=short,
                                 label=f'{method} read at {speed}, {100 * short:g} % short, seed {seed}')
                        for method, speed, short in cases], out, sweep_options)
    for (method, speed, short), run in zip(cases, runs):
        if run is not None:
            rows.append({'read_method': method, 'speed': speed, 'short': short, **run.score.as_dict(),
                         'errors': [[p.expected, p.read] for p in run.score.passes if not p.correct]})
    atomic.write_text(out / 'nominal_speeds.json', json.dumps(rows, indent=2) + '\n')
    return rows


def measured_windows(rows: list[dict], threshold: float = 0.9) -> list[dict]:
    """Per interval value: the measured speed range where success >= threshold vs eqs. (3)-(4)."""
    found = []
    for i in sorted({r['interval'] for r in rows}, reverse=True):
        ok = [r['speed'] for r in rows if r['interval'] == i and r['success_rate'] >= threshold]
        lo, hi = window(i)
        speeds_i = [r['speed'] for r in rows if r['interval'] == i]
        valid = (min(speeds_i), max(speeds_i))
        predicted = (max(lo, valid[0]), min(hi, valid[1]))
        found.append({'interval': i, 'tested': list(valid), 'predicted': [round(v, 1) for v in predicted]
                      if predicted[0] <= predicted[1] else None,
                      'measured': [min(ok), max(ok)] if ok else None})
    return found


def after_turn(out: Path, distances_cm: list[float], speeds: list[int], laps: float, seed: int,
               **sweep_options: Any) -> list[dict]:
    """Figs. 13/15: read success against the barcode's distance after the end of a turn."""
    rows = []
    cases = [(speed, k, d) for speed in speeds for k, d in enumerate(distances_cm)]
    runs = _run_tracks([TrackJob(turn_track(d / 100), speed, laps, seed + k, start=turn_track_start(),
                                 label=f'speed {speed}, {d:g} cm, seed {seed + k}') for speed, k, d in cases],
                       out, sweep_options)
    for (speed, k, d), run in zip(cases, runs):
        if run is not None:
            rows.append({'speed': speed, 'distance_cm': d, **run.score.as_dict(),
                         'road_losses': run.road_losses})
    _write_csv(out / 'after_turn.csv', rows)
    if rows:
        _plot_after_turn(out / 'after_turn.png', rows)
    return rows


def on_arc(out: Path, radii_cm: list[float], speeds: list[int], laps: float, seed: int,
           directions: tuple[str, ...] = ('left', 'right'), **sweep_options: Any) -> list[dict]:
    """Read success on arcs against their radius (issue #13: the loader's BARCODE_MIN_ARC_RADIUS)."""
    rows = []
    cases = [(direction, speed, k, r) for direction in directions for speed in speeds for k, r in enumerate(radii_cm)]
    runs = _run_tracks([TrackJob(arc_track(r / 100, direction), speed, laps, seed + k,
                                 label=f'{direction} arc, radius {r:g} cm, speed {speed}, seed {seed + k}')
                        for direction, speed, k, r in cases], out, sweep_options)
    for (direction, speed, k, r), run in zip(cases, runs):
        if run is not None:
            rows.append({'direction': direction, 'speed': speed, 'radius_cm': r, **run.score.as_dict(),
                         'road_losses': run.road_losses})
    _write_csv(out / 'on_arc.csv', rows)
    return rows


def false_triggers(out: Path, speed: int, laps: float, seed: int, robots: int = 5,
                   **sweep_options: Any) -> list[dict]:
    """§9: triggers on sharp right turns (no barcode on the track), report security vs strict."""
    rows = []
    # Robots differ: their own motor gains (seed) and grey references from 500 up, as the
    # report's robots whose sensors read the same grey ever whiter (§9).
    cases = [(security, k, 500 + k * 30) for security in ('report', 'strict') for k in range(robots)]
    runs = _run_tracks([TrackJob(right_turn_track(), speed, laps, seed + k,
                                 {'trigger_security': security, 'grey_ref': grey_ref},
                                 label=f'{security} security, GREY_REF {grey_ref}, seed {seed + k}')
                        for security, k, grey_ref in cases], out, sweep_options)
    for (security, k, grey_ref), run in zip(cases, runs):
        if run is not None:
            rows.append({'security': security, 'robot': k, 'grey_ref': grey_ref, 'speed': speed,
                         'laps': round(run.laps, 2), 'false_triggers': len(run.score.false_triggers),
                         'per_lap': round(len(run.score.false_triggers) / max(run.laps, 1e-9), 3),
                         'road_losses': run.road_losses})
    _write_csv(out / 'false_triggers.csv', rows)
    if rows:
        _plot_false_triggers(out / 'false_triggers.png', rows)
    return rows


# --- output ------------------------------------------------------------------------------------------

def _write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:  # every run failed: the command lists them, there is nothing to write
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic.atomic_path(path) as tmp, tmp.open('w', newline='') as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _plt() -> Any:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def _plot_sweep(path: Path, rows: list[dict]) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(10, 4))
    speeds = [r['speed'] for r in rows]
    ax.plot(speeds, [100 * r['success_rate'] for r in rows], 'o-', label='correct decodes (simulated)')
    ax.plot(speeds, [100 * r['trigger_rate'] for r in rows], '.', color='grey', label='triggers')
    for i in sorted({r['interval'] for r in rows}):
        lo, hi = window(i)
        ax.axvspan(lo, hi, color='tab:green', alpha=0.12)
        ax.text((lo + hi) / 2, 103, f'i={i}', ha='center', fontsize=8)
    ax.axvspan(0, 0, color='tab:green', alpha=0.12, label='window of eqs. (3)-(4)')
    for s in (150, 260, 410):
        ax.axvline(s, color='k', ls=':', lw=0.8)
    ax.set_xlim(min(speeds) - 5, max(speeds) + 5)
    ax.set_ylim(0, 110)
    ax.set_xlabel('command speed [Aseba units]')
    ax.set_ylabel('%')
    ax.set_title('Barcode reading against speed (report Fig. 8)')
    ax.legend(loc='lower right', fontsize='small')
    fig.tight_layout()
    atomic.save_figure(fig, path, dpi=110)
    plt.close(fig)


def _plot_after_turn(path: Path, rows: list[dict]) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    for speed in sorted({r['speed'] for r in rows}):
        sel = [r for r in rows if r['speed'] == speed]
        ax.plot([r['distance_cm'] for r in sel], [100 * r['success_rate'] for r in sel], 'o-',
                label=f'speed {speed}')
    ax.set_xlabel('distance of the barcode after the end of the turn [cm]')
    ax.set_ylabel('correct decodes [%]')
    ax.set_ylim(0, 105)
    ax.set_title('Reading after a turn (report Figs. 13 and 15)')
    ax.legend()
    fig.tight_layout()
    atomic.save_figure(fig, path, dpi=110)
    plt.close(fig)


def _plot_false_triggers(path: Path, rows: list[dict]) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    for k, security in enumerate(('report', 'strict')):
        sel = [r for r in rows if r['security'] == security]
        ax.bar([r['robot'] + 0.4 * k for r in sel], [r['per_lap'] for r in sel], width=0.4,
               label=f'{security} security')
    ax.set_xticks([r['robot'] + 0.2 for r in rows if r['security'] == 'report'],
                  [f"GREY_REF {r['grey_ref']}" for r in rows if r['security'] == 'report'], fontsize=8)
    ax.set_ylabel('false triggers per lap')
    ax.set_title('False triggers on sharp right turns (report §9)')
    ax.legend()
    fig.tight_layout()
    atomic.save_figure(fig, path, dpi=110)
    plt.close(fig)


# --- CLI ---------------------------------------------------------------------------------------------

def register(sub: Any) -> None:
    """`thymio-road barcodes sweep|after-turn|on-arc|false-triggers` (CSV + PNG + JSON in --out)."""
    parser = sub.add_parser('barcodes', help="rerun the report's barcode-reading experiments")
    commands = parser.add_subparsers(metavar='EXPERIMENT')
    sweep = commands.add_parser('sweep', help='read success against speed (Fig. 8)')
    speeds = number_list(MIN_SPEED, MAX_SPEED, integer=True)
    laps = arg_float(0, 1000, low_open=True)
    sweep.add_argument('--speeds', type=speeds, default='100:500:10', help='START:STOP:STEP or a comma list')
    sweep.add_argument('--laps', type=laps, default=1.0, help='laps per speed (10 barcodes a lap)')
    sweep.add_argument('--nominal-laps', type=arg_float(0, 1000), default=12.0,
                       help='laps at each of 150, 260, 410 for the trigger/decode rates (0: skip)')
    sweep.set_defaults(func=_cmd_sweep)
    turn = commands.add_parser('after-turn', help='read success against distance after a turn (Figs. 13/15)')
    turn.add_argument('--distances', type=number_list(0, 50), default='0,1,2,3,4,5,6,8',
                      help='cm after the end of the turn')
    turn.add_argument('--speeds', type=speeds, default='150,260')
    turn.add_argument('--laps', type=laps, default=6.0, help='laps per point (4 barcodes a lap)')
    turn.set_defaults(func=_cmd_after_turn)
    arc = commands.add_parser('on-arc', help='read success on arcs against their radius')
    arc.add_argument('--radii', type=number_list(5, 500), default='15,20,30,40,50,65,80,100',
                     help='arc radii [cm]')
    arc.add_argument('--speeds', type=speeds, default='150,260,410')
    arc.add_argument('--laps', type=laps, default=3.0)
    arc.set_defaults(func=_cmd_on_arc)
    false = commands.add_parser('false-triggers', help='triggers on sharp right turns (§9)')
    false.add_argument('--speed', type=arg_int(MIN_SPEED, MAX_SPEED), default=150)
    false.add_argument('--laps', type=laps, default=5.0)
    false.add_argument('--robots', type=arg_int(1, 100), default=5, help='robots with different grey references')
    false.set_defaults(func=_cmd_false)
    from thymio_road.experiments import sweep as sweeps
    for p in (sweep, turn, arc, false):
        p.add_argument('--out', type=Path, default=Path('runs/barcodes'))
        p.add_argument('--seed', type=arg_int(0, 2 ** 31 - 1), default=1)
        sweeps.add_arguments(p)


def _numbers(text: str) -> list[float]:
    if ':' in text:
        start, stop, step = (float(v) for v in text.split(':'))
        n = int(round((stop - start) / step)) + 1
        return [start + k * step for k in range(n)]
    return [float(v) for v in text.split(',') if v.strip()]


#: The most points one list option may ask for (each is a simulated run).
MAX_POINTS = 1000


def number_list(low: float, high: float, integer: bool = False) -> Any:
    """An argparse type for START:STOP:STEP or a comma list, every value in [low, high]."""
    def parse(text: str) -> list[float]:
        form = 'START:STOP:STEP (STEP > 0, STOP >= START) or a comma list'
        try:
            if ':' in text:
                start, stop, step = (float(v) for v in text.split(':'))
                if not step > 0 or stop < start or (stop - start) / step >= MAX_POINTS:
                    raise ValueError
            values = _numbers(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f'must be {form}, got {show(text)}') from None
        if not values or len(values) > MAX_POINTS:
            raise argparse.ArgumentTypeError(f'must give 1..{MAX_POINTS} values, got {show(text)}')
        bad = [v for v in values if not (math.isfinite(v) and low <= v <= high)
               or (integer and v != int(v))]
        if bad:
            kind = 'integers' if integer else 'numbers'
            raise argparse.ArgumentTypeError(f'values must be {kind} in {low:g}..{high:g}, got {bad[0]:g} '
                                             f'in {show(text)}')
        return values
    parse.__name__ = 'list'
    return parse


def _sweep_options(args: argparse.Namespace) -> dict:
    return {'workers': args.workers, 'scheduler': args.scheduler, 'progress': True, 'failed': []}


def _failures(options: dict) -> int:
    """The runs that raised (their rows are not in the CSV), and the exit code: 1 if any."""
    failed = options['failed']
    if failed:
        print(f'{len(failed)} run{"" if len(failed) == 1 else "s"} failed:')
        for line in failed:
            print(f'- {line}')
    return 1 if failed else 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    options = _sweep_options(args)
    rows = speed_sweep(args.out, [int(v) for v in args.speeds], args.laps, args.seed, **options)
    windows = measured_windows(rows)
    atomic.write_text(args.out / 'speed_sweep_windows.json', json.dumps(windows, indent=2) + '\n')
    for w in windows:
        print(f"interval {w['interval']}: predicted {w['predicted']}, measured {w['measured']}")
    if args.nominal_laps > 0:
        for r in nominal_speeds(args.out, args.nominal_laps, args.seed, **options):
            print(f"{r['read_method']:>7} read at {r['speed']}, {100 * r['short']:g} % short: "
                  f"triggers {r['triggered']}/{r['passes']}, "
                  f"correct {r['correct']}/{r['passes']} ({100 * r['success_rate']:.1f} %)")
    return _failures(options)


def _cmd_after_turn(args: argparse.Namespace) -> int:
    options = _sweep_options(args)
    rows = after_turn(args.out, args.distances, [int(v) for v in args.speeds],
                      args.laps, args.seed, **options)
    for r in rows:
        print(f"speed {r['speed']}, {r['distance_cm']:g} cm: {100 * r['success_rate']:.0f} % "
              f"of {r['passes']} passes")
    return _failures(options)


def _cmd_on_arc(args: argparse.Namespace) -> int:
    options = _sweep_options(args)
    rows = on_arc(args.out, args.radii, [int(v) for v in args.speeds], args.laps, args.seed, **options)
    for r in rows:
        print(f"{r['direction']:>5} turn, radius {r['radius_cm']:g} cm, speed {r['speed']}: "
              f"{100 * r['success_rate']:.0f} % of {r['passes']} passes, {r['road_losses']} road losses")
    return _failures(options)


def _cmd_false(args: argparse.Namespace) -> int:
    options = _sweep_options(args)
    rows = false_triggers(args.out, args.speed, args.laps, args.seed, args.robots, **options)
    for r in rows:
        print(f"{r['security']:>6} GREY_REF {r['grey_ref']}: {r['false_triggers']} false triggers "
              f"in {r['laps']} laps, road losses {r['road_losses']}")
    return _failures(options)
