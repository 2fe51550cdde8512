# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The fundamental diagram of a road network: flow against density, from one robot to as many as
the scenario places.

Traffic engineers read a road by it first: at low density every vehicle drives at its free speed
and the flow grows with the density; past the density of maximum flow the vehicles hinder each
other and the flow falls, down to a jam. Here a point is one run of the scenario with N robots
(traffic_table.run_table, so each is also judged for contacts, stuck robots and lost flow):
density is N over the length of the map's roads, flow is the passages through intersections per
minute and the metres driven per minute, and speed is the robots' mean speed against a lone
robot's.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
import json
from pathlib import Path
from typing import Any, Sequence

from thymio_road.experiments.traffic_table import run_table
from thymio_road.map.atomic import save_figure, write_text


@dataclass(frozen=True)
class Point:
    robots: int
    #: Robots per metre of road.
    density: float
    #: Runs averaged (seeds).
    runs: int
    #: None where not measured: a run counts passages only with two robots or more
    #: (runtime/run.py's traffic probe).
    passages_per_min: float | None
    metres_per_min: float
    speed_m_s: float
    #: Against a lone robot's mean speed.
    relative_speed: float | None
    #: Runs that met every criterion of the traffic table.
    ok: int


def counts(capacity: int, steps: int = 10) -> list[int]:
    """Robot counts from 1 to `capacity`, `steps` of them at most, evenly spread."""
    if capacity < 1:
        raise ValueError(f'capacity must be at least 1, got {capacity}')
    steps = max(2, min(steps, capacity))
    return sorted({1 + round(k * (capacity - 1) / (steps - 1)) for k in range(steps)})


def capacity(scenario: str, most: int) -> int:
    """The most robots the scenario places (its placement rule refuses more), up to `most`."""
    from thymio_road.scenario import load_scenario, ScenarioError
    low, high = 1, most
    while low < high:
        mid = (low + high + 1) // 2
        try:
            load_scenario(scenario, robots=mid)
            low = mid
        except ScenarioError:
            high = mid - 1
    return low


def points(rows: Sequence[dict[str, Any]], length: float) -> list[Point]:
    """One point per robot count, its runs (seeds) averaged; runs that raised are left out."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        if not row.get('error') and row.get('simulated_s'):
            groups.setdefault(row['robots'], []).append(row)
    out = []
    for robots, group in sorted(groups.items()):
        minutes = [r['simulated_s'] / 60.0 for r in group]
        passages = [r['passages'] / m for r, m in zip(group, minutes) if r.get('passages') is not None]
        speeds = [r['speed_m_s'] or 0.0 for r in group]
        relative = [r['relative_speed'] for r in group if r.get('relative_speed') is not None]
        out.append(Point(robots, round(robots / length, 4), len(group),
                         round(_mean(passages), 2) if passages else None,
                         round(60.0 * robots * _mean(speeds), 2), round(_mean(speeds), 4),
                         round(_mean(relative), 3) if relative else None, sum(bool(r['ok']) for r in group)))
    return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def peak(curve: Sequence[Point]) -> Point:
    """The point of maximum flow: metres driven per minute (density times speed, defined on every
    map, also one without intersections), then passages per minute, then the lower density.
    """
    return max(curve, key=lambda p: (p.metres_per_min, p.passages_per_min or 0.0, -p.density))


def markdown(curve: Sequence[Point]) -> str:
    lines = ['| robots | density (robots/m) | passages/min | m/min | speed (m/s) | relative speed | ok |',
             '|---|---|---|---|---|---|---|']
    for p in curve:
        lines.append(f'| {p.robots} | {p.density:.3f} | {_show(p.passages_per_min, 2)} | {p.metres_per_min:.1f} | '
                     f'{p.speed_m_s:.4f} | {_show(p.relative_speed, 3)} | {p.ok}/{p.runs} |')
    top = peak(curve)
    lines += ['', f'Maximum flow: {top.metres_per_min:.1f} m/min ({_show(top.passages_per_min, 2)} passages/min) with '
                  f'{top.robots} robot{"" if top.robots == 1 else "s"}, a density of {top.density:.3f} robots per '
                  'metre of road.']
    return '\n'.join(lines)


def _show(value: float | None, digits: int) -> str:
    return '–' if value is None else f'{value:.{digits}f}'


def plot(curve: Sequence[Point], path: Path, title: str) -> None:
    """Flow (passages and metres per minute) and relative speed against density."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    density = [p.density for p in curve]
    fig, (flow, speed) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    flow.plot(density, [p.metres_per_min for p in curve], 'o-', label='metres per minute')
    flow.set_xlabel('density (robots per metre of road)')
    flow.set_ylabel('metres driven per minute')
    passages = flow.twinx()
    counted = [p for p in curve if p.passages_per_min is not None]
    passages.plot([p.density for p in counted], [p.passages_per_min for p in counted], 's--', color='tab:orange',
                  label='passages per minute')
    passages.set_ylabel('intersection passages per minute')
    top = peak(curve)
    flow.axvline(top.density, color='grey', lw=0.8, ls=':')
    flow.annotate(f'max flow: {top.robots} robots', (top.density, top.metres_per_min),
                  textcoords='offset points', xytext=(5, -12), fontsize=8)
    handles = flow.get_legend_handles_labels()[0] + passages.get_legend_handles_labels()[0]
    flow.legend(handles, [h.get_label() for h in handles], loc='lower right', fontsize=8)
    flow.set_title('flow against density')
    speed.plot(density, [p.relative_speed for p in curve], 'o-')
    speed.set_xlabel('density (robots per metre of road)')
    speed.set_ylabel('speed relative to a lone robot')
    speed.set_ylim(0, max([1.1] + [1.05 * p.relative_speed for p in curve if p.relative_speed is not None]))
    speed.set_title('speed against density')
    fig.suptitle(title)
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def diagram(scenario: str, robot_counts: Sequence[int], seeds: Sequence[int], duration: float, out: Path, *,
            workers: int | None = 1, scheduler: str | None = None, progress: bool = False) -> list[Point]:
    """Run the counts × seeds, and write out/fundamental.json and out/fundamental.png."""
    from thymio_road.scenario import load_scenario
    sc = load_scenario(scenario)
    rows = run_table(scenario, list(robot_counts), list(seeds), duration, out, lone=True,
                     workers=workers, scheduler=scheduler, progress=progress)
    curve = points(rows, sc.road_map.road_length)
    if not curve:
        return curve
    data = {'scenario': scenario, 'road_length_m': round(sc.road_map.road_length, 3), 'duration_s': duration,
            'seeds': list(seeds), 'points': [asdict(p) for p in curve]}
    write_text(out / 'fundamental.json', json.dumps(data, indent=2) + '\n')
    plot(curve, out / 'fundamental.png', f'{sc.name}: {len(seeds)} seed(s) of {duration:g} s per point')
    return curve
