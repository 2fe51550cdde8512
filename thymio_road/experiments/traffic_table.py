"""Does traffic keep flowing? The acceptance table of issue #13 over robot counts and seeds.

Each run is `thymio-road run` without a recording; its summary.json is kept. A row is judged on:
no hull contact; no robot stalled (stood still 60 s) except held by a traffic light, and never
longer than that light's cycle; no wrong-way driving; the passages of the last 10 minutes at
least 90 % of the first 10 minutes' (runs of at least 20 minutes).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from thymio_road.runtime.run import run_scenario
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


def run_table(scenario: str, robot_counts: list[int], seeds: list[int], duration: float, out: Path,
              on_row: Callable[[dict], None] | None = None) -> list[dict]:
    """Run every (robots, seed) and judge it; each run's summary.json is in out/r<N>-s<seed>/."""
    rows = []
    for robots in robot_counts:
        for seed in seeds:
            sc = load_scenario(scenario, robots=robots, seed=seed, duration=duration)
            result = run_scenario(sc, out / f'r{robots}-s{seed}', record=False, progress=False, picture=False)
            row = judge(result.summary, longest_cycle(sc))
            rows.append(row)
            if on_row is not None:
                on_row(row)
    (out / 'table.json').write_text(json.dumps(rows, indent=2) + '\n')
    return rows


COLUMNS = ('robots', 'seed', 'passages', 'per_robot_minute', 'contacts', 'stalls', 'longest_stall_s',
           'longest_light_hold_s', 'wrong_way', 'first_10min', 'last_10min', 'ratio', 'ok')


def markdown(rows: list[dict]) -> str:
    lines = ['| ' + ' | '.join(COLUMNS) + ' |', '|' + '---|' * len(COLUMNS)]
    lines += ['| ' + ' | '.join('–' if r[c] is None else str(r[c]) for c in COLUMNS) + ' |' for r in rows]
    return '\n'.join(lines)
