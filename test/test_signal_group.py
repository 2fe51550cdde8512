# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A crossroad's lights pre-empt for a priority vehicle as one signal group (control/traffic_light.py:
Demand, share, GROUP_DELAY), the traffic_light nodes sharing the demands on
/traffic_lights/priority_demand; without a demand they are exactly the fixed-time lights.
"""
from __future__ import annotations

from functools import lru_cache
import json
import random

import pytest

from thymio_road.control.right_of_way import announce_code, priority_behind_code, Role, waiting_code
from thymio_road.control.traffic_light import Demand, GROUP_DELAY, Timing, TrafficLight
from thymio_road.map.lights import GO, Lane, LightPlace
from thymio_road.nodes import msgs
from thymio_road.nodes.traffic_light_node import DEMAND_TOPIC, TrafficLightNode
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.scenario import load_scenario, node_specs

#: The robot X1's light holds, saying that an ambulance waits behind it (every other period).
ROBOT = 5
#: Arms of final's X1 by their lights: light_X1_0 (w) and _2 (e) command phase 0, _1 (s) and _3 (n) phase 1.
WEST, SOUTH, EAST, NORTH = range(4)


@lru_cache(maxsize=1)
def _x1():
    """final_traffic's four lights at X1, one per arm: green 8 s, all red 16 s, pre-emption 30 s."""
    lights = [light for light in load_scenario('final_traffic').lights if light.place.intersection == 'X1']
    assert [len(light.place.lanes) for light in lights] == [1, 1, 1, 1]
    return lights


def _group(timing=None):
    return [TrafficLight(light.place, timing or light.timing) for light in _x1()]


def _open_phases(lights, t):
    """The phases whose lanes the lights let go at t (from the codes they send)."""
    out = set()
    for light in lights:
        codes = light.codes(t)
        out |= {lane.phase for lane in light.place.lanes for a in lane.addresses if a + GO in codes}
    return out


def _drive(lights, t1, heard, late=()):
    """The group's timers, every 0.1 s from 0 to t1: the light `heard(t)` names (None: none) hears
    "priority behind" every other period and the robot's announcement in between; every member
    gets each demand by share(), those in `late` 0.1 s later. Checks at every step that the
    members agree and that arms of both phases are never open together; the phases seen.
    """
    seen, delayed = {}, []
    for k in range(round(t1 * 10)):
        t = k / 10
        for member, demand in [d for d in delayed if d[1].t + 0.1 <= t]:
            member.share(demand)
        delayed = [d for d in delayed if d[1].t + 0.1 > t]
        who = heard(t)
        if who is not None:
            code = priority_behind_code(ROBOT) if k % 2 == 0 else announce_code(Role.ROAD, ROBOT)
            demand = lights[who].hear(t, code)
            assert (demand is not None) == (k % 2 == 0)
            if demand is not None:
                assert demand == Demand('X1', lights[who].place.lanes[0].phase, t)
                for i, member in enumerate(lights):
                    if i in late:
                        delayed.append((member, demand))
                    else:
                        member.share(demand)
        phases = {light.phase(t) for light in lights}
        assert len(phases) == 1, (t, phases)
        assert len(_open_phases(lights, t)) <= 1, t
        seen[round(t, 1)] = phases.pop()
    return seen


def _first(seen, phase, after):
    return min(t for t, p in seen.items() if t >= after and p == phase)


def _reds(seen, phase):
    """The reds of `phase`: from the end of each of its greens to its next green (s)."""
    reds, end, before = [], None, None
    for t, p in sorted(seen.items()):
        if before == phase and p != phase:
            end = t
        elif p == phase and before != phase and end is not None:
            reds.append(t - end)
        before = p
    return reds


def test_without_a_demand_a_crossroads_lights_are_exactly_fixed_time():
    """What robots at X1 say without a priority vehicle changes nothing, to the bit."""
    lights = _group()
    assert all(light.group for light in lights)
    fixed = _x1()[0].timing
    for k in range(3000):
        t = k / 10
        for light in lights:
            for code in (announce_code(Role.ROAD, 3), waiting_code(3), announce_code(Role.PRIORITY, 9)):
                assert light.hear(t, code) is None
        assert [light.phase(t) for light in lights] == [fixed.phase_at(t)] * 4, t
    assert [light.preemptions for light in lights] == [0] * 4


def test_a_crossroads_lights_end_the_other_arms_green_together_for_a_queue_with_a_priority_vehicle():
    """Fixed time: arms w and e green 0-8 s, all red to 24, s and n 24-32, all red to 48, and so on.
    A robot held at the north arm says "priority behind" from 50 s to 90 s, in w and e's green.
    """
    lights = _group()
    fixed = _x1()[0].timing
    seen = _drive(lights, 300.0, lambda t: NORTH if 50.0 <= t < 90.0 else None)
    assert all(seen[t] == fixed.phase_at(t) for t in seen if t < 50.2)   # fixed time until it counts
    assert seen[50.1] == 0 and seen[50.3] is None    # w and e's green ends once the demand counts...
    assert seen[66.1] is None and seen[66.3] == 1    # ...its all red still runs (16 s), then s and n
    assert _first(seen, 1, 50.0) < _first({t: fixed.phase_at(t) for t in seen}, 1, 50.0) == 72.0
    assert seen[80.1] == 1 and seen[80.3] is None    # held past its 8 s, 30 s from the change at most
    assert seen[96.1] is None and seen[96.3] == 0 and seen[104.1] == 0  # then w and e have a whole green
    assert [light.preemptions for light in lights] == [1] * 4


def test_a_crossroads_lights_reopen_the_arms_they_just_closed_without_an_all_red():
    lights = _group()
    seen = _drive(lights, 60.0, lambda t: SOUTH if 34.0 <= t < 36.0 else None)
    assert seen[34.1] is None and seen[34.3] == 1 and seen[42.1] == 1   # s and n again, for a whole green
    assert seen[42.4] is None and seen[58.1] is None                      # no robot of w or e let go since


def test_the_crossroads_order_changes_for_a_phase_at_most_its_pre_emption_then_the_other_arms_go():
    """A queue that asks for ever: s and n are held 30 s from the change, then w and e have a whole
    green, and so on; no arm waits longer than the light's longest red with a priority vehicle.
    """
    lights = _group()
    seen = _drive(lights, 400.0, lambda t: NORTH if t >= 1.0 else None)
    greens = [t for t in sorted(seen) if seen[t] == 0 and seen.get(round(t - 0.1, 1)) != 0]
    assert len(greens) >= 4
    for start in greens[1:]:
        assert all(seen[round(start + k / 10, 1)] == 0 for k in range(80) if start + k / 10 < 400)
    timing = _x1()[0].timing
    assert max(_reds(seen, 0)) <= timing.longest_red(priority=True) == 2 * (8 + 30 + 16) - 8
    assert max(_reds(seen, 1)) <= timing.longest_red(priority=True)


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_no_arm_waits_longer_than_the_longest_red_with_a_priority_vehicle(seed):
    """Queues with an ambulance come and go at arms of one phase at a time (one ambulance): the
    bound the crossroad's timeout is built on (scenario.crossroad_light_timeout) holds.
    """
    rng = random.Random(seed)
    bursts, t = [], 0.0
    while t < 900.0:
        t += rng.uniform(0.0, 40.0)
        bursts.append((t, t + rng.uniform(0.2, 50.0), rng.choice((WEST, EAST) if len(bursts) % 2 else (SOUTH, NORTH))))
    lights = _group()

    def heard(t):
        return next((arm for start, end, arm in bursts if start <= t < end), None)
    seen = _drive(lights, 900.0, heard)
    longest = _x1()[0].timing.longest_red(priority=True)
    assert max(_reds(seen, 0) + _reds(seen, 1)) <= longest
    assert lights[0].preemptions > 0


def test_a_demand_counts_from_the_group_delay_so_late_members_agree():
    """Members that get the demand 0.1 s after the sender (within GROUP_DELAY) change together."""
    assert GROUP_DELAY == 0.2
    lights = _group()
    seen = _drive(lights, 120.0, lambda t: WEST if 10.0 <= t < 11.0 else None, late=(EAST, SOUTH, NORTH))
    assert seen[10.1] is None and seen[10.3] == 0   # w and e reopened in their all red


def test_what_is_no_demand_of_the_group():
    place = _x1()[0].place
    both = LightPlace('light_X_0', 'X', 'crossroad', 0, (0.0, 0.0, 0.0), (Lane('w', (6,), 0), Lane('n', (1,), 1)))
    timing = Timing(green=8.0, clearance=16.0, priority_preemption=30.0)
    # A light that commands lanes of both phases (the report's pair) cannot tell the queue's.
    assert TrafficLight(both, timing).group and TrafficLight(both, timing).hear(1.0, priority_behind_code(5)) is None
    # Without pre-emption a crossroad's light is no member; a location's light decides alone.
    assert not TrafficLight(place, Timing(green=8.0, clearance=16.0)).group
    location = LightPlace('light_L', 'L', 'location', 3, (0.0, 0.0, 0.0),
                          (Lane('road', (3,), 0), Lane('siding', (3,), 1)))
    assert TrafficLight(location, timing).hear(1.0, priority_behind_code(5)) is None
    # Another crossroad's demand is not this group's.
    light = TrafficLight(place, timing)
    light.share(Demand('X2', 1, 1.0))
    assert [light.phase(k / 10) for k in range(100)] == [timing.phase_at(k / 10) for k in range(100)]


# --- the nodes ------------------------------------------------------------------------------------

def _nodes(executor, **parameters):
    specs = [s for s in node_specs(load_scenario('final_traffic'))
             if s.executable == 'thymio_traffic_light' and s.namespace.startswith('/light_X1')]
    return [TrafficLightNode(EmbeddedNode(executor, s.name, s.namespace, {**s.parameters, **parameters}))
            for s in specs]


def test_a_demand_one_light_publishes_changes_all_four_lights_phase_records_at_once():
    executor = Executor()
    nodes = _nodes(executor)
    probe = EmbeddedNode(executor, 'probe')
    records = {node.name: [] for node in nodes}
    demands = []
    for name in records:
        probe.create_subscription(msgs.String, f'/{name}/traffic_light/phase',
                                  lambda m, n=name: records[n].append(json.loads(m.data)), msgs.qos(100))
    probe.create_subscription(msgs.String, DEMAND_TOPIC, lambda m: demands.append(json.loads(m.data)), msgs.qos(100))
    rx = probe.create_publisher(msgs.Int16MultiArray, '/light_X1_3/comm/rx', msgs.qos(100))

    def hear(timer=[]):
        rx.publish(msgs.Int16MultiArray(data=msgs.int16_array([priority_behind_code(ROBOT)] + [0] * 14)))
        timer[0].cancel()
    timer = executor.add_timer(50_000_000_000, lambda: hear([timer]))
    executor.run_until(100_000_000_000)
    assert demands == [{'intersection': 'X1', 'light': 'light_X1_3', 'phase': 1, 't': 50.0}]
    changes = {name: [(r['t'], r['phase']) for r in rs] for name, rs in records.items()}
    assert len({tuple(c) for c in changes.values()}) == 1     # the four lights change at the same times
    after = [(t, phase) for t, phase in changes['light_X1_0'] if t >= 50.0]
    # w and e's green ends at once (fixed time: at 56 s); s and n open at 66.2 instead of 72.
    assert after[:2] == [(50.2, None), (66.2, 1)]
    assert {r['preemptions'] for rs in records.values() for r in rs if r['t'] >= 50.2} == {1}


def test_lights_that_do_not_pre_empt_share_no_topic():
    executor = Executor()
    _nodes(executor, priority_preemption=0.0)
    assert DEMAND_TOPIC not in executor.topics
    executor = Executor()
    _nodes(executor)
    assert executor.topics[DEMAND_TOPIC].publishers == 4 and len(executor.topics[DEMAND_TOPIC].subscriptions) == 4
