# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Put a controller into a situation the way a robot gets there: through `step` with the ground
readings a printed road gives (a barcode under the reading sensor, an intersection's marks) and
`on_comm` with what it hears, never by setting its fields. Tests of the traffic rules start from
these, so that a refactor of the controller's insides leaves them valid.

The readings are the report's: the follow sensor on the grey reference (500) keeps the robot on
its line; the reading sensor reads white paper (900) or a printed black bit (100).
"""
from __future__ import annotations

import collections
import enum
import random
from typing import Any

from thymio_road.control.controller import Action, RoadController, State

ON_LINE = 500
WHITE, BLACK = 900, 100
GREY = (ON_LINE, WHITE)
CLEAR = [0] * 7
#: Table 6's codes of the intersections.
CODES = {Action.BRANCHING: 4, Action.CROSSROAD: 5, Action.LOCATION: 6, Action.ROUNDABOUT: 7}


def drive(c: RoadController, steps: int, ground=GREY, prox=CLEAR) -> list[tuple[int, int]]:
    return [c.step(ground, prox) for _ in range(steps)]


def read_code(c: RoadController, code: int) -> None:
    """Drive over a barcode of `code` (Table 6) at the robot's speed: the trigger bit, then the
    three bits sampled where the report's schedule samples them (Appendix A).
    """
    assert c.state is State.ROAD, c.state
    first, second, third, end = c.read_schedule()
    bits = {first: code & 1, second: code & 2, third: code & 4}
    c.step((ON_LINE, BLACK), CLEAR)  # the trigger: READ's count 1
    assert c.state is State.READ
    for count in range(2, end + 1):
        c.step((ON_LINE, BLACK if bits.get(count) else WHITE), CLEAR)
    assert c.state is not State.READ


def mark(c: RoadController) -> None:
    """Pass one of an intersection's marks (a black bit under the reading sensor)."""
    c.step((ON_LINE, BLACK), CLEAR)


def cross(c: RoadController) -> None:
    """Drive a blind crossing (CONTINUE) to its end: back in ACTION."""
    assert c.state is State.CONTINUE, c.state
    while c.state is State.CONTINUE:
        c.step(GREY, CLEAR)


def choosing(c: RoadController, *choices: str) -> RoadController:
    """The robot decides at its marks, in order ('exit' or 'continue'), as a route would."""
    queue = list(choices)
    c.decide = lambda action, passed: queue.pop(0)
    return c


def entering_roundabout(c: RoadController) -> RoadController:
    """After a roundabout's code, before its first mark (the entering role)."""
    read_code(c, CODES[Action.ROUNDABOUT])
    assert c.state is State.ACTION and c.action is Action.ROUNDABOUT and c.role().name == 'ENTERING'
    return c


def crossing_ring(c: RoadController, marks: int = 2) -> RoadController:
    """On a roundabout's ring, crossing blind past its `marks`-th mark (an entry or exit)."""
    entering_roundabout(choosing(c, *['continue'] * marks))
    for k in range(marks):
        mark(c)
        if k < marks - 1:
            cross(c)
    assert c.state is State.CONTINUE and c.counter_continue == marks
    return c


def on_ring(c: RoadController) -> RoadController:
    """On a roundabout's ring, following it past its first mark (ACTION, inside)."""
    crossing_ring(c, marks=1)
    cross(c)
    return c


def leaving_by_link(c: RoadController) -> RoadController:
    """Taking a branching's exit: following its link (EXIT)."""
    read_code(choosing(c, 'exit'), CODES[Action.BRANCHING])
    mark(c)
    assert c.state is State.EXIT and c.action is Action.BRANCHING
    return c


def past_link(c: RoadController) -> RoadController:
    """Just past a branching's link: EXIT ended, back in ROAD, merging."""
    leaving_by_link(c)
    while c.state is State.EXIT:
        c.step(GREY, CLEAR)
    assert c.state is State.ROAD
    return c


def at_location(c: RoadController, lane: str = 'road') -> RoadController:
    """At a location: on its road lane past the siding's entry (`lane='road'`: ACTION, past the
    first mark), or in its siding (`lane='siding'`: EXIT).
    """
    read_code(choosing(c, 'continue' if lane == 'road' else 'exit'), CODES[Action.LOCATION])
    mark(c)
    if lane == 'road':
        cross(c)
        assert c.state is State.ACTION and c.counter_continue == 1
    else:
        assert c.state is State.EXIT and c.light_lane == 'siding'
    return c


def crossing_location(c: RoadController) -> RoadController:
    """Crossing a location's merge blind (CONTINUE past its second mark, on the road lane)."""
    at_location(c)
    mark(c)
    assert c.state is State.CONTINUE and c.counter_continue == 2
    return c


def at_crossroad(c: RoadController) -> RoadController:
    """After a crossroad's code, before its first mark."""
    read_code(c, CODES[Action.CROSSROAD])
    assert c.state is State.ACTION and c.action is Action.CROSSROAD and c.counter_continue == 0
    return c


def crossing_crossroad(c: RoadController) -> RoadController:
    """Crossing a crossroad straight on, blind past its first mark."""
    at_crossroad(c)
    c.choose_direction = lambda: 'straight'
    mark(c)
    assert c.state is State.CONTINUE
    return c


def leaving_siding(c: RoadController) -> RoadController:
    """Out of a location's siding after the delivery stop: ROAD, still in the siding's light
    lane (the light's siding codes command it).
    """
    at_location(c, 'siding')
    for _ in range(c.params.location_count + c.params.stop_count + 5):
        if c.state is State.ROAD:
            break
        c.step(GREY, CLEAR)
    assert c.state is State.ROAD and c.light_lane == 'siding' and c.light_lane_count == 0
    return c


def fingerprint(obj: Any, seen: set | None = None) -> Any:
    """Everything a controller holds, as plain values to compare two robots by (its rest-step
    cache, switch and a test's wrapper of its rest step left out).
    """
    seen = set() if seen is None else seen
    if isinstance(obj, (int, float, str, bool, type(None), enum.Enum)):
        return obj
    if isinstance(obj, random.Random):
        return obj.getstate()
    if isinstance(obj, (list, tuple, collections.deque)):
        return [fingerprint(v, seen) for v in obj]
    if isinstance(obj, dict):
        return {k: fingerprint(v, seen) for k, v in obj.items()}
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if callable(obj) or id(obj) in seen or not type(obj).__module__.startswith('thymio_road'):
        return type(obj).__name__
    seen.add(id(obj))
    fields = vars(obj) if hasattr(obj, '__dict__') else {s: getattr(obj, s) for s in type(obj).__slots__}
    return {k: fingerprint(v, seen) for k, v in fields.items() if k not in ('_rest', 'rest_steps', '_rest_step')}
