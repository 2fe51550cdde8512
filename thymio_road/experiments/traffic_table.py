"""Does traffic keep flowing? The acceptance table of issue #13 over robot counts and seeds.

Each run is `thymio-road run` without a recording; its summary.json is kept. A row is judged on:
no hull contact; no robot stalled (stood still 60 s) except held by a traffic light, and never
longer than that light's cycle; no wrong-way driving; the passages of the last 10 minutes at
least 90 % of the first 10 minutes' (runs of at least 20 minutes).
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from thymio_road.experiments import sweep
from thymio_road.runtime.run import refuse_earlier_run, run_scenario
from thymio_road.scenario import Scenario, load_scenario

MIN_RATIO = 0.9


def longest_cycle(scenario: Scenario) -> float:
    """The longest light cycle (s): every phase's green and all red, extended as far as it may be
    (and a green held for a priority vehicle, when the scenario has one)."""
    priority = any({**scenario.controller, **robot.controller}.get('kind') == 'priority' for robot in scenario.robots)
    cycles = [light.timing.longest_cycle(light.place.phases, priority) for light in scenario.lights]
    return max(cycles, default=0.0)


def judge(summary: dict[str, Any], cycle: float) -> dict[str, Any]:
    """The acceptance figures of one run's summary.json, and whether each holds."""
    traffic, stalls = summary.get('traffic') or {}, summary.get('stalls') or {}
    end = summary['simulated_s']
    spans = [((s['until_s'] if s['until_s'] is not None else end) - s['since_s'], 'light' in s['held_by'])
             for s in stalls.get('stalls', [])]
    other = [d for d, light in spans if not light]
    at_light = [d for d, light in spans if light]
    windows = traffic.get('throughput_windows') or {}
    wrong = (traffic.get('wrong_way') or {}).get('episodes')
    row = {
        'robots': summary['robots_count'], 'seed': summary['seed'], 'simulated_s': end,
        'passages': traffic.get('passages'), 'per_robot_minute': traffic.get('throughput_per_robot_minute'),
        'contacts': traffic.get('hull_contacts'),
        'stalls': len(other), 'longest_stall_s': round(max(other, default=0.0)),
        'longest_light_hold_s': round(max(at_light, default=0.0)),
        'wrong_way': wrong,
        'first_10min': windows.get('first'), 'last_10min': windows.get('last'), 'ratio': windows.get('ratio'),
    }
    row['ok'] = bool(row['contacts'] == 0 and not other and max(at_light, default=0.0) <= cycle
                     and wrong == 0 and (row['ratio'] is None or row['ratio'] >= MIN_RATIO))
    return row


@dataclass(frozen=True)
class TrafficJob:
    """One run of the table: plain data, so that a worker process or machine can run it."""
    scenario: str
    robots: int
    seed: int
    duration: float

    @property
    def folder(self) -> str:
        return f'r{self.robots}-s{self.seed}'


def run_job(job: TrafficJob) -> dict[str, Any]:
    """Run and judge one job; its row and its summary.json's text. The run writes into a
    temporary folder on whichever machine runs it; the caller writes summary.json under --out."""
    sc = load_scenario(job.scenario, robots=job.robots, seed=job.seed, duration=job.duration)
    with tempfile.TemporaryDirectory(prefix='thymio-road-traffic-') as tmp:
        result = run_scenario(sc, Path(tmp) / job.folder, record=False, progress=False, picture=False)
        text = (Path(tmp) / job.folder / 'summary.json').read_text()
    if result.interrupted:  # Ctrl-C in a sequential sweep: stop it, do not judge a cut run
        raise KeyboardInterrupt
    return {'row': judge(result.summary, longest_cycle(sc)), 'summary': text}


def failed_row(job: TrafficJob, error: str) -> dict[str, Any]:
    """The row of a run that raised: its parameters and error, every figure empty, not ok."""
    return {'robots': job.robots, 'seed': job.seed, 'simulated_s': None, **dict.fromkeys(COLUMNS[2:]),
            'ok': False, 'error': error}


def run_table(scenario: str, robot_counts: list[int], seeds: list[int], duration: float, out: Path,
              on_row: Callable[[dict], None] | None = None, *, workers: int | None = 1,
              scheduler: str | None = None, progress: bool = False) -> list[dict]:
    """Run every (robots, seed) and judge it; each run's summary.json is in out/r<N>-s<seed>/.

    `workers`, `scheduler`: where the runs go (experiments/sweep.py); the rows are in the same
    order and the same whatever runs them. A run that raised is a row with its `error`."""
    if Path(scenario).exists():  # a file: the same one for workers whatever their folder
        scenario = str(Path(scenario).resolve())
    jobs = [TrafficJob(scenario, robots, seed, duration) for robots in robot_counts for seed in seeds]
    for job in jobs:  # refused before the first run, not after an hour of them
        refuse_earlier_run(out / job.folder)
    out.mkdir(parents=True, exist_ok=True)

    def finished(outcome: sweep.Outcome) -> str:
        job = outcome.job
        if outcome.ok:
            row = outcome.value['row']
            (out / job.folder).mkdir(parents=True, exist_ok=True)
            (out / job.folder / 'summary.json').write_text(outcome.value['summary'])
        else:
            row = failed_row(job, outcome.error)
        if on_row is not None:
            on_row(row)
        what = 'ok' if row['ok'] else 'FAILS' if outcome.ok else f'ERROR: {outcome.error}'
        return f'{job.robots} robots, seed {job.seed}: {what}'

    outcomes = sweep.run(run_job, jobs, workers=workers, scheduler=scheduler, describe=finished,
                         progress=progress)
    rows = [o.value['row'] if o.ok else failed_row(o.job, o.error) for o in outcomes]
    (out / 'table.json').write_text(json.dumps(rows, indent=2) + '\n')
    return rows


COLUMNS = ('robots', 'seed', 'passages', 'per_robot_minute', 'contacts', 'stalls', 'longest_stall_s',
           'longest_light_hold_s', 'wrong_way', 'first_10min', 'last_10min', 'ratio', 'ok')


def markdown(rows: list[dict]) -> str:
    """The table; a run that raised is a row of dashes, and its error is listed below the table."""
    lines = ['| ' + ' | '.join(COLUMNS) + ' |', '|' + '---|' * len(COLUMNS)]
    lines += ['| ' + ' | '.join('–' if r[c] is None else str(r[c]) for c in COLUMNS) + ' |' for r in rows]
    errors = [r for r in rows if r.get('error')]
    if errors:
        lines += ['', f'{len(errors)} run{"" if len(errors) == 1 else "s"} failed:']
        lines += [f"- {r['robots']} robots, seed {r['seed']}: {r['error']}" for r in errors]
    return '\n'.join(lines)
