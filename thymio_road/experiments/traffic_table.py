# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Does traffic keep flowing? The acceptance tables of issues #13 and #27 over scenarios (shipped,
files or generated maps), robot counts and seeds.

Each run is `thymio-road run` without a recording; its summary.json is kept. A run fails in one
or more classes (:data:`CLASSES`): a hull contact; a robot stuck (no progress along the network
for the run's stall time, or confined to an intersection), except held by a traffic light no
longer than that light's cycle; a wrong-way drive; two robots from conflicting arms inside a
crossroad; a misread code acted on; the passages of the last 10 minutes below 90 % of the first
10 minutes' (lost flow; runs of at least 20 minutes). The tables list the runs per class with
the worst ones and the command that replays each, and the throughput per scenario and robot
count against a lone robot's speed.
"""
from __future__ import annotations

from dataclasses import dataclass
import json
from pathlib import Path
import tempfile
from typing import Any, Callable

from thymio_road.experiments import sweep
from thymio_road.map.atomic import write_text
from thymio_road.runtime.run import OutputExists, refuse_earlier_run, run_scenario
from thymio_road.scenario import has_priority_vehicle, load_scenario, Scenario

MIN_RATIO = 0.9


def longest_cycle(scenario: Scenario) -> float:
    """The longest light cycle (s): every phase's green and all red, extended as far as it may be
    (and a green held for a priority vehicle, when the scenario has one).
    """
    priority = has_priority_vehicle(scenario)
    cycles = [light.timing.longest_cycle(light.place.phases, priority) for light in scenario.lights]
    return max(cycles, default=0.0)


#: The failure classes of a run (issue #27), in the order the table lists them.
CLASSES = ('contact', 'stuck', 'wrong way', 'crossroad conflict', 'misread acted on', 'lost flow')


def _stuck(summary: dict[str, Any], cycle: float) -> tuple[list[float], list[float]]:
    """Durations (s) of robots stuck, not at a light, and of holds at a light. Stuck is judged by
    progress along the network where the run measured it (summary.json's ``progress``), else by
    the older stall rule (moved less than 1 cm).
    """
    end = summary['simulated_s']
    progress = summary.get('progress') or {}
    episodes = progress.get('stuck') if progress else (summary.get('stalls') or {}).get('stalls')
    spans = [((s['until_s'] if s.get('until_s') is not None else end) - s['since_s'],
              'light' in (s.get('held_by') or '')) for s in episodes or []]
    return [d for d, light in spans if not light], [d for d, light in spans if light]


def judge(summary: dict[str, Any], cycle: float) -> dict[str, Any]:
    """The acceptance figures of one run's summary.json, and the failure classes it shows."""
    traffic = summary.get('traffic') or {}
    end = summary['simulated_s']
    other, at_light = _stuck(summary, cycle)
    windows = traffic.get('throughput_windows') or {}
    wrong = (traffic.get('wrong_way') or {}).get('episodes')
    confined = (summary.get('progress') or {}).get('confined') or []
    row = {
        'scenario': summary.get('scenario'),
        'robots': summary['robots_count'], 'seed': summary['seed'], 'simulated_s': end,
        'passages': traffic.get('passages'), 'per_robot_minute': traffic.get('throughput_per_robot_minute'),
        'speed_m_s': mean_speed(summary),
        'contacts': traffic.get('hull_contacts'),
        'stalls': len(other), 'longest_stall_s': round(max(other, default=0.0)),
        'longest_light_hold_s': round(max(at_light, default=0.0)),
        'confined': len(confined),
        'wrong_way': wrong,
        'wrong_way_m': (traffic.get('wrong_way') or {}).get('distance_m'),
        'crossroad_conflicts': traffic.get('crossroad_conflict_episodes'),
        'misreads_acted_on': (traffic.get('misreads') or {}).get('acted_on'),
        'first_10min': windows.get('first'), 'last_10min': windows.get('last'), 'ratio': windows.get('ratio'),
    }
    failures = []
    if row['contacts']:
        failures.append('contact')
    if other or confined or max(at_light, default=0.0) > cycle:
        failures.append('stuck')
    if wrong:
        failures.append('wrong way')
    if row['crossroad_conflicts']:
        failures.append('crossroad conflict')
    if row['misreads_acted_on']:
        failures.append('misread acted on')
    if row['ratio'] is not None and row['ratio'] < MIN_RATIO:
        failures.append('lost flow')
    row['failures'] = failures
    row['ok'] = not failures
    return row


def mean_speed(summary: dict[str, Any]) -> float | None:
    """The robots' mean speed (m/s): distance driven over time, all robots together."""
    robots = summary.get('robots') or []
    time_s = sum(r.get('time_s') or 0.0 for r in robots)
    return round(sum(r.get('distance_m') or 0.0 for r in robots) / time_s, 4) if time_s else None


@dataclass(frozen=True)
class TrafficJob:
    """One run of the table: plain data, so that a worker process or machine can run it.
    `scenario` is a shipped name, a file or `generated:N`; `folder` is where its summary goes
    (the scenario's own folder first when the table runs several).
    """

    scenario: str
    robots: int
    seed: int
    duration: float
    folder: str = ''
    #: A lone robot's run: the speed the others are compared with, not judged.
    lone: bool = False


def _folder(scenario: str, robots: int, seed: int, several: bool, lone: bool = False) -> str:
    run = 'alone' if lone else f'r{robots}-s{seed}'
    return f'{slug(scenario)}/{run}' if several else run


def slug(scenario: str) -> str:
    """A folder name for a scenario: 'generated:7' → 'generated-7', a file → its stem."""
    name = Path(scenario).stem if scenario.endswith(('.yaml', '.yml')) else scenario
    return ''.join(c if c.isalnum() or c in '-_' else '-' for c in name)


def run_job(job: TrafficJob) -> dict[str, Any]:
    """Run and judge one job; its row and its summary.json's text. The run writes into a
    temporary folder on whichever machine runs it; the caller writes summary.json under --out.
    """
    sc = load_scenario(job.scenario, robots=job.robots, seed=job.seed, duration=job.duration)
    with tempfile.TemporaryDirectory(prefix='thymio-road-traffic-') as tmp:
        result = run_scenario(sc, Path(tmp) / 'run', record=False, progress=False, picture=False)
        text = (Path(tmp) / 'run' / 'summary.json').read_text()
    if result.interrupted:  # Ctrl-C in a sequential sweep: stop it, do not judge a cut run
        raise KeyboardInterrupt
    row = judge(result.summary, longest_cycle(sc))
    row['scenario'] = job.scenario
    return {'row': row, 'summary': text}


def failed_row(job: TrafficJob, error: str) -> dict[str, Any]:
    """The row of a run that raised: its parameters and error, every figure empty, not ok."""
    return {'scenario': job.scenario, 'robots': job.robots, 'seed': job.seed, 'simulated_s': None,
            **dict.fromkeys(COLUMNS[3:]), 'failures': ['error'], 'ok': False, 'error': error}


def _kept_outcome(job: TrafficJob, path: Path) -> sweep.Outcome:
    """A run an earlier, interrupted sweep left under --out, judged again from its summary.json;
    refused when it is not this job's run (another scenario, robot count, seed or duration).
    """
    text = path.read_text()
    try:
        summary = json.loads(text)
        found = (summary['robots_count'], summary['seed'], summary['requested_s'])
    except (ValueError, KeyError, TypeError) as exc:
        raise OutputExists(f"{path}: not a run's summary ({exc}); remove it to run it again") from None
    wanted = (job.robots, job.seed, job.duration)
    if found != wanted or summary.get('interrupted'):
        raise OutputExists(f'{path}: a run of {found[0]} robots, seed {found[1]}, {found[2]:g} s'
                           f'{" (interrupted)" if summary.get("interrupted") else ""}, not this sweep\'s '
                           f'{wanted[0]} robots, seed {wanted[1]}, {wanted[2]:g} s; choose another --out or remove it')
    row = judge(summary, longest_cycle(load_scenario(job.scenario, robots=job.robots, seed=job.seed,
                                                     duration=job.duration)))
    row['scenario'] = job.scenario
    return sweep.Outcome(job, {'row': row, 'summary': text})


def run_table(scenario: str | list[str], robot_counts: list[int], seeds: list[int], duration: float, out: Path,
              on_row: Callable[[dict], None] | None = None, *, workers: int | None = 1,
              scheduler: str | None = None, progress: bool = False, lone: bool = False,
              resume: bool = False) -> list[dict]:
    """Run every (scenario, robots, seed) and judge it; each run's summary.json is in
    out/r<N>-s<seed>/ (out/<scenario>/r<N>-s<seed>/ when there are several scenarios).

    `lone`: also one lone robot's run per scenario (out/…/alone/, seed LONE_SEED), the speed each row's
    `relative_speed` compares with. `workers`, `scheduler`: where the runs go
    (experiments/sweep.py); the rows are in the same order and the same whatever runs them. A
    run that raised is a row with its `error`. `resume`: runs already under `out` (an interrupted
    sweep's) are judged from their summary.json instead of run again.
    """
    scenarios = [scenario] if isinstance(scenario, str) else list(scenario)
    scenarios = [str(Path(s).resolve()) if Path(s).exists() else s for s in scenarios]  # the same file for workers
    several = len(scenarios) > 1
    jobs = [TrafficJob(sc, robots, seed, duration, _folder(sc, robots, seed, several))
            for sc in scenarios for robots in robot_counts for seed in seeds]
    lone_jobs = [TrafficJob(sc, 1, LONE_SEED, min(duration, LONE_DURATION), _folder(sc, 1, LONE_SEED, several, True),
                            lone=True) for sc in scenarios] if lone else []
    kept = {}
    for job in jobs + lone_jobs:  # refused before the first run, not after an hour of them
        if resume and (out / job.folder / 'summary.json').is_file():
            kept[job] = _kept_outcome(job, out / job.folder / 'summary.json')
        else:
            refuse_earlier_run(out / job.folder)
    out.mkdir(parents=True, exist_ok=True)

    def finished(outcome: sweep.Outcome) -> str:
        job = outcome.job
        if outcome.ok:
            row = outcome.value['row']
            (out / job.folder).mkdir(parents=True, exist_ok=True)
            write_text(out / job.folder / 'summary.json', outcome.value['summary'])
        else:
            row = failed_row(job, outcome.error)
        if on_row is not None and not job.lone:
            on_row(row)
        what = 'ok' if row['ok'] or job.lone else 'FAILS: ' + ', '.join(row['failures']) if outcome.ok \
            else f'ERROR: {outcome.error}'
        name = f'{job.scenario}, ' if several else ''
        robots = 'a lone robot' if job.lone else f'{job.robots} robot{"" if job.robots == 1 else "s"}'
        return f'{name}{robots}, seed {job.seed}: {what}'

    ran = iter(sweep.run(run_job, [j for j in lone_jobs + jobs if j not in kept], workers=workers,
                         scheduler=scheduler, describe=finished, progress=progress))
    outcomes = [kept[j] if j in kept else next(ran) for j in lone_jobs + jobs]
    alone = {o.job.scenario: o.value['row']['speed_m_s'] for o in outcomes[:len(lone_jobs)] if o.ok}
    rows = [o.value['row'] if o.ok else failed_row(o.job, o.error) for o in outcomes[len(lone_jobs):]]
    for row in rows:
        lone_speed = alone.get(row['scenario'])
        row['relative_speed'] = round(row['speed_m_s'] / lone_speed, 3) \
            if lone_speed and row.get('speed_m_s') is not None else None
    write_text(out / 'table.json', json.dumps(rows, indent=2) + '\n')
    return rows


#: A lone robot's reference run is at most this long (s): its speed settles within minutes.
LONE_DURATION = 600.0
#: ... and always of this seed: the map's reference, the same whichever seeds a sweep runs, so
#: that sweeps of seed 1 and then of seed 2 into one folder (--resume) share it.
LONE_SEED = 1

COLUMNS = ('scenario', 'robots', 'seed', 'passages', 'per_robot_minute', 'relative_speed', 'contacts', 'stalls',
           'longest_stall_s', 'longest_light_hold_s', 'confined', 'wrong_way', 'crossroad_conflicts',
           'misreads_acted_on', 'first_10min', 'last_10min', 'ratio', 'ok')


def _cell(row: dict, column: str) -> str:
    value = row.get(column)
    return '–' if value is None else str(value)


def markdown(rows: list[dict]) -> str:
    """The table (a column only where it says something: the scenario when there are several, the
    relative speed when it was measured); a run that raised is a row of dashes, and its error is
    listed below the table.
    """
    columns = [c for c in COLUMNS if c != 'scenario' or len({r['scenario'] for r in rows}) > 1]
    columns = [c for c in columns if c != 'relative_speed' or any(r.get(c) is not None for r in rows)]
    lines = ['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
    lines += ['| ' + ' | '.join(_cell(r, c) for c in columns) + ' |' for r in rows]
    errors = [r for r in rows if r.get('error')]
    if errors:
        lines += ['', f'{len(errors)} run{"" if len(errors) == 1 else "s"} failed:']
        lines += [f"- {_name(r)}: {r['error']}" for r in errors]
    return '\n'.join(lines)


def _name(row: dict) -> str:
    return f"{row['scenario']}, {row['robots']} robots, seed {row['seed']}"


#: How bad a failure of each class is, to list the worst runs first.
_SEVERITY: dict[str, Callable[[dict], float]] = {
    'contact': lambda r: r['contacts'] or 0,
    'stuck': lambda r: (r['longest_stall_s'] or 0) + 1000 * (r['confined'] or 0),
    'wrong way': lambda r: r['wrong_way_m'] or r['wrong_way'] or 0,
    'crossroad conflict': lambda r: r['crossroad_conflicts'] or 0,
    'misread acted on': lambda r: r['misreads_acted_on'] or 0,
    'lost flow': lambda r: -(r['ratio'] or 0.0),
    'error': lambda r: 0,
}


def classes(rows: list[dict], duration: float, worst: int = 3) -> str:
    """Runs per failure class, with the worst of each and the command that replays it."""
    lines = ['| failure class | runs | share | worst runs |', '|---|---|---|---|']
    for cls in CLASSES + ('error',):
        failed = sorted((r for r in rows if cls in r['failures']), key=_SEVERITY[cls], reverse=True)
        if cls == 'error' and not failed:
            continue
        shown = '; '.join(_name(r) for r in failed[:worst]) or '–'
        lines.append(f'| {cls} | {len(failed)} | {100 * len(failed) / len(rows):.0f} % | {shown} |')
    ok = sum(r['ok'] for r in rows)
    lines += ['', f'{ok} of {len(rows)} runs ({100 * ok / len(rows):.0f} %) meet every criterion.']
    failing = sorted((r for r in rows if not r['ok'] and not r.get('error')),
                     key=lambda r: (r['scenario'], r['robots'], r['seed']))
    if failing:
        lines += ['', 'Replay a failing run (with its recording):']
        lines += [f"- `thymio-road run --scenario {r['scenario']} --robots {r['robots']} --seed {r['seed']} "
                  f"--duration {duration:g}` ({', '.join(r['failures'])})" for r in failing[:20]]
    return '\n'.join(lines)


def throughput(rows: list[dict]) -> str:
    """Passages per robot-minute and speed relative to a lone robot, per scenario and robot count."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for r in rows:
        if not r.get('error'):
            groups.setdefault((r['scenario'], r['robots']), []).append(r)
    lines = ['| scenario | robots | runs | passages per robot-minute | speed relative to a lone robot | ok |',
             '|---|---|---|---|---|---|']
    for (scenario, robots), group in groups.items():
        rate = [r['per_robot_minute'] for r in group if r['per_robot_minute'] is not None]
        speed = [r['relative_speed'] for r in group if r.get('relative_speed') is not None]
        lines.append(f'| {scenario} | {robots} | {len(group)} | {_mean(rate)} | {_mean(speed)} | '
                     f"{sum(r['ok'] for r in group)}/{len(group)} |")
    return '\n'.join(lines)


def _mean(values: list[float]) -> str:
    return f'{sum(values) / len(values):.3f}' if values else '–'
