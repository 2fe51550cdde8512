# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Did each intersection passage end on the branch the robot chose? (ground truth vs decisions)

The robot publishes a `decision` event ('exit' or 'continue') at every mark it acts on (at a
crossroad one, 'right', 'straight' or 'left', on its barcode). The world
publishes `barcode_enter` when the robot's reading sensor enters a mark. The map knows, per mark,
the branch an exit takes. The road the robot is on a little later comes from ground truth (its
follow sensor over the printed map). :func:`score_passages` serves a live run
(``thymio-road passages``, experiments/passages.py) and a bag (:func:`passage_score`,
``thymio-road analyze``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from thymio_road.map.road_map import RoadMap
from thymio_road.sim import robot_model as rm

#: A decision belongs to the mark entered at most this long before it.
MARK_WINDOW = 1.0
#: The road is checked this long after the decision: past the split, still on the branch.
SETTLE = 3.0


@dataclass
class Passage:
    t: float
    intersection: str
    kind: str
    mark: str
    choice: str
    expected: str
    actual: str | None

    @property
    def ok(self) -> bool:
        return self.actual == self.expected


@dataclass
class PassageScore:
    passages: list[Passage] = field(default_factory=list)
    unmatched: int = 0

    @property
    def success_rate(self) -> float:
        return sum(p.ok for p in self.passages) / len(self.passages) if self.passages else float('nan')

    def counts(self) -> dict[str, int]:
        """Passages per intersection kind and choice, e.g. 'roundabout exit'."""
        return dict(sorted(Counter(f'{p.kind} {p.choice}' for p in self.passages).items()))

    def as_dict(self) -> dict:
        return {'passages': len(self.passages), 'ok': sum(p.ok for p in self.passages),
                'success_rate': self.success_rate, 'unmatched_decisions': self.unmatched,
                'by_kind_and_choice': self.counts(),
                'failures': [p.__dict__ for p in self.passages if not p.ok]}


def mark_table(road_map: RoadMap) -> dict[str, tuple[str, str, str, str | None]]:
    """Mark id → (intersection id, kind, road the mark is on, road an exit there takes)."""
    table = {}
    for inter in road_map.intersections:
        for road, marks in inter.marks.items():
            for mark, branch in marks:
                table[mark] = (inter.id, inter.kind, road, branch)
    return table


def score_passages(road_map: RoadMap, robot: str, world_events: list[dict], robot_events: list[dict],
                   road_at: Callable[[float], str | None], until: float = float('inf')) -> PassageScore:
    """Compare every decision with the road the robot is on SETTLE seconds later."""
    table = mark_table(road_map)
    entered = [(e['t'], e['barcode']) for e in world_events
               if e.get('kind') == 'barcode_enter' and e.get('robot') == robot and e['barcode'] in table]
    score = PassageScore()
    crossroads = {i.id: i for i in road_map.intersections if i.kind == 'crossroad'}
    for e in robot_events:
        if e.get('kind') != 'decision' or e['t'] + SETTLE > until:
            continue
        if e.get('action') == 'crossroad':
            _score_crossroad(e, crossroads, table, entered, robot_events, road_at, until, score)
            continue
        marks = [m for t, m in entered if e['t'] - MARK_WINDOW <= t <= e['t']]
        if not marks:
            score.unmatched += 1
            continue
        inter, kind, road, branch = table[marks[-1]]
        expected = branch if e['choice'] == 'exit' else road
        score.passages.append(Passage(e['t'], inter, kind, marks[-1], e['choice'], expected or road,
                                      road_at(e['t'] + SETTLE)))
    return score


def _score_crossroad(e: dict, crossroads: dict, table: dict, entered: list[tuple[float, str]],
                     robot_events: list[dict], road_at: Callable[[float], str | None], until: float,
                     score: PassageScore) -> None:
    """A crossroad's way is chosen at its first mark (§7.4): the arm is that mark's, and the outcome is the road
    SETTLE seconds after it
    leaves the crossroad: the out-lane of the arm to its right, ahead or to its left.
    """
    first = next(((t, m) for t, m in entered if t >= e['t'] - MARK_WINDOW and table[m][1] == 'crossroad'
                  and table[m][3] is not None), None)
    left = next((r['t'] for r in robot_events if r.get('kind') == 'left' and r['t'] >= e['t']), None)
    if first is None or left is None or left + SETTLE > until:
        score.unmatched += 1
        return
    inter_id, _, in_lane, _ = table[first[1]]
    extra = crossroads[inter_id].extra
    arms = extra['arms']
    k = next(i for i, arm in enumerate(arms) if extra['in'][arm] == in_lane)
    turn = {'right': -1, 'straight': 0, 'left': 1}[e['choice']]
    expected = extra['out'][arms[(k + turn) % 4]]
    score.passages.append(Passage(e['t'], inter_id, 'crossroad', first[1], e['choice'], expected,
                                  road_at(left + SETTLE)))


def passage_score(road_map: RoadMap, robots: list[str], world_events: list[dict], events: dict[str, list[dict]],
                  truth: dict[str, Any], until: float) -> dict:
    """Every robot's passages scored from a recording: the road under its follow sensor at its last
    ground-truth pose at or before a time (sampling.at_or_before's rule). The totals, as
    ``thymio-road passages`` reports one robot's.
    """
    total = PassageScore()
    failures = []
    for robot in robots:
        poses = truth.get(robot)
        if poses is None or not len(poses):
            continue
        score = score_passages(road_map, robot, world_events, events.get(robot, []),
                               _road_at(road_map, poses), until)
        total.passages += score.passages
        total.unmatched += score.unmatched
        failures += [{'robot': robot, **p.__dict__} for p in score.passages if not p.ok]
    out = total.as_dict()
    out['success_rate'] = None if not total.passages else round(total.success_rate, 4)
    out['failures'] = sorted(failures, key=lambda f: f['t'])[:50]
    return out


def _road_at(road_map: RoadMap, poses: Any) -> Callable[[float], str | None]:
    gx, gy = rm.GROUND_SENSORS_TUPLE[0]
    c, s = np.cos(poses.yaw), np.sin(poses.yaw)
    sx, sy = poses.x + c * gx - s * gy, poses.y + s * gx + c * gy
    rows, cols = road_map.road_index.shape
    r = np.clip((sy / road_map.resolution).astype(np.int64), 0, rows - 1)
    k = np.clip((sx / road_map.resolution).astype(np.int64), 0, cols - 1)
    index = road_map.road_index[r, k]

    def road_at(t: float) -> str | None:
        j = int(np.searchsorted(poses.t, t + 1e-9, side='right')) - 1
        return road_map.roads[int(index[j])].id if j >= 0 and index[j] >= 0 else None
    return road_at
