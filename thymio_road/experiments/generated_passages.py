# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""One robot on generated maps: does it drive every intersection passage it chooses correctly?

For each generator seed the map's passage scenario (generator/scenarios.py: one calibrated
robot, the final map's settings, random decisions) runs for a while, and every decision is
checked against ground truth (experiments/passages.py). A map passes when the robot never lost
its road, every decision was matched to its mark, and every passage ended on the chosen branch.
Coverage says how many of the map's ways through its intersections the robot took (a crossroad
way is an in-lane and a turn; another way is a node and the road it leaves by).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

#: Simulated seconds per map: a lone robot at low speed takes 30-50 passages in 30 minutes.
DURATION = 1800.0
#: Decisions this close to the end of a run are not scored (their passage may not be over).
TAIL = 20.0


@dataclass(frozen=True)
class Job:
    seed: int
    size: str = 'small'
    duration: float = DURATION
    robot_seed: int = 1


def ways(road_map: Any) -> set[tuple[str, str]]:
    """Every way through the map's intersections: (in-lane, turn) at a crossroad, else (node,
    road taken: an exit or the road through).
    """
    from thymio_road.map.road_graph import RoadGraph
    graph = RoadGraph.build(road_map)
    out = set()
    for option in graph.all_options:
        node = graph.node_of(option.approach)
        if node.kind == 'crossroad':
            turn = {0: 'right', None: 'straight', 2: 'left'}[option.exit_at]
            out.add((graph.approaches[option.approach].road, turn))
        else:
            out.add((node.id, option.branch))
    return out


def taken(road_map: Any, score: Any) -> set[tuple[str, str]]:
    """The ways of `ways` that a correct passage of `score` took."""
    from thymio_road.analysis.passages import mark_table
    table = mark_table(road_map)
    out = set()
    for p in score.passages:
        if not p.ok:
            continue
        if p.kind == 'crossroad':
            out.add((table[p.mark][2], p.choice))
        else:
            out.add((p.intersection, p.expected))
    return out


def drive(scenario: Any, robot: str = 'thymio1') -> tuple[dict, Any]:
    """Run the scenario and score the robot's passages (experiments/passages.py), leaving out the
    decisions of the last TAIL seconds: a passage may still be under way when the run ends (a left
    turn through a crossroad takes 15.5 s), and it would count as unmatched.
    """
    from thymio_road.experiments.passages import drive as drive_passages
    return drive_passages(scenario, robot, tail=TAIL)


def drive_map(job: Job) -> dict:
    """Run one generated map's passage scenario; plain data (it may run on a worker process)."""
    from thymio_road.generator.names import files
    from thymio_road.scenario import config_dir, load_scenario, road_capacity
    path = files(job.seed, job.size, config_dir(), road_capacity).passages
    scenario = load_scenario(str(path), duration=job.duration, seed=job.robot_seed)
    summary, score = drive(scenario)
    all_ways, done = ways(scenario.road_map), taken(scenario.road_map, score)
    by_kind: dict[str, list[int]] = {}
    for p in score.passages:
        row = by_kind.setdefault(p.kind, [0, 0])
        row[0] += p.ok
        row[1] += 1
    return {'seed': job.seed, 'size': job.size, 'map': scenario.road_map.name, 'duration': job.duration,
            'road_losses': summary['road_losses'], 'passages': len(score.passages),
            'ok': sum(p.ok for p in score.passages), 'unmatched': score.unmatched,
            'by_kind': by_kind, 'by_kind_and_choice': score.counts(),
            'ways': len(all_ways), 'ways_taken': len(done & all_ways),
            'kinds': dict(Counter(i.kind for i in scenario.road_map.intersections)),
            'failures': [{'t': p.t, 'intersection': p.intersection, 'kind': p.kind, 'choice': p.choice,
                          'expected': p.expected, 'actual': p.actual} for p in score.passages if not p.ok]}


def passed(row: dict) -> bool:
    return row['road_losses'] == 0 and row['unmatched'] == 0 and row['ok'] == row['passages']


def run(seeds: Sequence[int], size: str = 'small', duration: float = DURATION, robot_seed: int = 1,
        workers: int | None = 1, scheduler: str | None = None, progress: bool = False) -> list[Any]:
    """Outcomes (experiments/sweep.py) of every seed's map, in seed order."""
    from thymio_road.experiments import sweep

    def describe(outcome: Any) -> str:
        if not outcome.ok:
            return f'generated:{outcome.job.seed}: {outcome.error}'
        r = outcome.value
        return (f"generated:{r['seed']}: {r['ok']}/{r['passages']} passages, {r['road_losses']} road losses, "
                f"{r['ways_taken']}/{r['ways']} ways" + ('' if passed(r) else '  FAILED'))

    jobs = [Job(seed, size, duration, robot_seed) for seed in seeds]
    return sweep.run(drive_map, jobs, workers=workers, scheduler=scheduler, describe=describe,
                     progress=progress, unit='map')


def figures(rows: list[dict]) -> dict:
    """The totals over maps: maps that passed, passages by kind, the failures, the ways covered."""
    by_kind: dict[str, list[int]] = {}
    for r in rows:
        for kind, (ok, total) in r['by_kind'].items():
            row = by_kind.setdefault(kind, [0, 0])
            row[0] += ok
            row[1] += total
    return {'maps': len(rows), 'passed': sum(passed(r) for r in rows),
            'passages': sum(r['passages'] for r in rows), 'ok': sum(r['ok'] for r in rows),
            'road_losses': sum(r['road_losses'] for r in rows), 'unmatched': sum(r['unmatched'] for r in rows),
            'by_kind': dict(sorted(by_kind.items())),
            'ways': sum(r['ways'] for r in rows), 'ways_taken': sum(r['ways_taken'] for r in rows),
            'failed_maps': [r['seed'] for r in rows if not passed(r)],
            'failures': [{'seed': r['seed'], **f} for r in rows for f in r['failures']]}


def table(fig: dict) -> list[str]:
    lines = [f"{fig['passed']}/{fig['maps']} maps: every passage on the chosen branch, no road loss "
             f"({fig['ok']}/{fig['passages']} passages, {fig['road_losses']} road losses, "
             f"{fig['unmatched']} unmatched decisions)",
             f"ways through intersections taken: {fig['ways_taken']}/{fig['ways']}"]
    for kind, (ok, total) in fig['by_kind'].items():
        lines.append(f'  {kind}: {ok}/{total}')
    for f in fig['failures']:
        lines.append(f"  failed: generated:{f['seed']} {f['intersection']} ({f['kind']} {f['choice']}) at "
                     f"{f['t']:.0f} s: expected {f['expected']}, was on {f['actual']}")
    return lines
