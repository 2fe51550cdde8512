# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Traffic lights: the pure core (codes, phases, lanes, battery), the controller's obedience,
map-parse checks of the addressing, the scenario wiring, and an embedded run at a location exit.
"""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from controller_situations import (at_crossroad, at_location, choosing, cross, crossing_location, leaving_siding, mark,
                                   read_code)
from prox_comm_reference import naive_step
from swarm_comm.prox_comm import ENKI_DOC, ProxCommChannel, range_with_gain
from thymio_road.control.controller import (ControllerParams, EVENT_PERIOD, Mode, RoadController, SPEED_CM_PER_UNIT,
                                            State)
from thymio_road.control.right_of_way import announce_code, priority_behind_code, Role, waiting_code
from thymio_road.control.traffic_light import Battery, decode, Timing, TrafficLight
from thymio_road.map.intersections import advance, crossroad, Intersection
from thymio_road.map.lights import ALL_STOP, GO, Lane, light_places, LightPlace, node_ids, STOP
from thymio_road.map.loader import load_map
from thymio_road.map.road_graph import RoadGraph
from thymio_road.map.road_map import MapError
from thymio_road.scenario import config_dir, load_scenario, node_specs, robot_specs, ScenarioError

# --- codes and phases -----------------------------------------------------------------------------


def test_decode_codes():
    assert decode(20) == ('stop', 0) and decode(39) == ('stop', 19)
    assert decode(40) == ('go', 0) and decode(47) == ('go', 7)
    assert decode(62) == ('all_stop', 2) and decode(79) == ('all_stop', 19)
    for code in (0, 1, 19, 80, 100, 2047, -3):
        assert decode(code) is None


def test_timing_phases_and_clearance():
    t = Timing(green=8.0, clearance=5.0)
    assert [t.phase_at(x) for x in (0.0, 7.9, 8.1, 12.9, 13.0, 20.9, 21.5, 25.9, 26.0)] == \
        [0, 0, None, None, 1, 1, None, None, 0]
    assert Timing(green=8.0, clearance=5.0, offset=13.0).phase_at(0.0) == 1
    with pytest.raises(ValueError):
        Timing(green=0.0)
    with pytest.raises(ValueError):
        Timing(clearance=-1.0)


def _location_place(node=3):
    return LightPlace('light_L', 'L', 'location', node, (0.0, 0.0, 0.0),
                      (Lane('road', (node,), 0), Lane('siding', (node,), 1)))


def test_location_light_one_code_per_phase_and_colours():
    light = TrafficLight(_location_place(3), Timing(green=8.0, clearance=5.0))
    assert light.codes(1.0) == [3 + GO]          # the road lane goes, the siding is held
    assert light.codes(10.0) == [3 + ALL_STOP]   # clearance: both held
    assert light.codes(15.0) == [3 + STOP]       # the siding goes, the road lane stops
    assert light.led(1.0) == (0, 32, 0) and light.led(15.0) == (0, 0, 32) and light.led(10.0) == (32, 0, 0)


def _actuated(extension=10.0):
    return TrafficLight(_location_place(3), Timing(green=8.0, clearance=5.0, clearance_extension=extension))


def _hear_every_period(light, t0, t1, codes):
    """The light's timer (0.1 s) from t0 to t1, hearing `codes` each period; the phases seen."""
    phases = []
    for k in range(round((t1 - t0) * 10)):
        t = t0 + k / 10
        for code in codes:
            light.hear(t, code)
        phases.append((round(t, 1), light.phase(t)))
    return phases


def test_an_actuated_location_light_keeps_the_all_red_while_a_robot_of_the_closed_lane_drives():
    """15 robots seed 6 at L2: a road robot that passed the siding's entry at the end of its green
    needed 20 s to the merge; the light heard it over its last 5 s there.
    """
    road_robot = announce_code(Role.INSIDE, 3)
    light = _actuated()
    seen = dict(_hear_every_period(light, 0.0, 8.0, []))
    seen.update(_hear_every_period(light, 8.0, 16.0, [road_robot]))  # still driving in the all red
    seen.update(_hear_every_period(light, 16.0, 30.0, []))           # gone: the siding's turn
    assert seen[12.9] is None and seen[15.9] is None  # 5 s of all red, extended
    # It opens the siding once it has not heard the robot for HEARD_FOR (0.5 s).
    assert seen[16.3] is None and seen[16.6] == 1
    assert light.extended_s == pytest.approx(3.5, abs=0.11)
    assert seen[24.3] == 1 and seen[24.6] is None     # the siding's green lasts its 8 s


@pytest.mark.parametrize('heard', ['waiting', 'siding robot', 'nobody', 'fixed time'])
def test_an_actuated_light_is_fixed_time_for_robots_that_wait_or_are_of_the_other_lane(heard):
    codes = {'waiting': [announce_code(Role.INSIDE, 3), waiting_code(3)],
             'siding robot': [announce_code(Role.ENTERING, 4)], 'nobody': [],
             'fixed time': [announce_code(Role.INSIDE, 3)]}
    light = _actuated(0.0 if heard == 'fixed time' else 10.0)
    fixed = Timing(green=8.0, clearance=5.0)
    # Heard during the road lane's green and the all red after it, then nothing.
    seen = _hear_every_period(light, 0.0, 13.0, codes[heard]) + _hear_every_period(light, 13.0, 60.0, [])
    for t, phase in seen:
        assert phase == fixed.phase_at(t), t
    assert light.extended_s == 0


def test_an_actuated_light_extends_an_all_red_by_at_most_its_extension():
    light = _actuated(4.0)
    seen = dict(_hear_every_period(light, 0.0, 40.0, [announce_code(Role.PRIORITY, 9)]))
    assert seen[16.8] is None and seen[17.1] == 1   # 5 s + 4 s of all red after the road's green
    assert seen[24.8] == 1 and seen[25.1] is None
    assert seen[33.8] is None and seen[34.1] == 0   # 9 s all red again, then the road: a 34 s cycle
    assert light.timing.longest_cycle() == 2 * (8 + 5 + 4)
    assert light.phase(10.0) is None and light.phase(14.0) == 1  # a restarted clock: fixed time again
    with pytest.raises(ValueError, match='clearance_extension'):
        Timing(clearance_extension=-1.0)


def _preempting(preemption=30.0):
    return TrafficLight(_location_place(3), Timing(green=8.0, clearance=5.0, priority_preemption=preemption))


#: The robot the light holds in its road lane / its siding, saying that an ambulance waits behind it.
ROAD_QUEUE = [announce_code(Role.INSIDE, 3), priority_behind_code(3)]
SIDING_QUEUE = [announce_code(Role.ENTERING, 4), priority_behind_code(4)]


def test_a_light_ends_the_other_lanes_green_for_a_queue_with_a_priority_vehicle_and_holds_its_own():
    light = _preempting()
    seen = dict(_hear_every_period(light, 0.0, 15.0, []))            # fixed time: the siding opens at 13
    seen.update(_hear_every_period(light, 15.0, 40.0, ROAD_QUEUE))   # the news reaches the light at 15
    seen.update(_hear_every_period(light, 40.0, 70.0, []))
    assert seen[14.9] == 1 and seen[15.1] is None   # the siding's green ends at once...
    assert seen[19.9] is None and seen[20.1] == 0   # ...its all red still runs (5 s), then the road
    assert seen[28.5] == 0 and seen[39.9] == 0      # held past its 8 s while the news keeps coming
    assert seen[40.9] == 0 and seen[41.2] is None   # until PREEMPT_FOR (1 s) after the last
    assert seen[46.2] == 1                          # and the siding has its turn
    assert light.preemptions == 1


def test_a_light_reopens_the_lane_it_just_closed_without_an_all_red():
    light = _preempting()
    seen = dict(_hear_every_period(light, 0.0, 9.0, []))             # the road's green ends at 8
    seen.update(_hear_every_period(light, 9.0, 12.0, ROAD_QUEUE))
    assert seen[8.9] is None and seen[9.0] == 0 and seen[11.9] == 0
    # The siding's robots are served too: a siding queue with an ambulance gets the siding.
    light = _preempting()
    seen = dict(_hear_every_period(light, 0.0, 4.0, SIDING_QUEUE))
    assert seen[0.0] is None and seen[3.9] is None  # the road's green ended at once: its all red
    assert dict(_hear_every_period(light, 4.0, 6.0, SIDING_QUEUE))[5.1] == 1


def test_pre_emption_runs_out_so_that_the_other_lane_is_served():
    """Priority seed 5 at L1 before the limit: the road lane was pre-empted again and again
    while the robot the light held in the siding's exit curve stood in the road robots' way.
    """
    light = _preempting(20.0)
    seen = dict(_hear_every_period(light, 0.0, 100.0, ROAD_QUEUE))
    # The road's green is held from its end at 8 s for 20 s; then the siding has a whole green.
    assert seen[27.9] == 0 and seen[28.1] is None and seen[33.1] == 1 and seen[40.9] == 1
    assert seen[41.1] is None and seen[46.1] == 0 and seen[73.9] == 0 and seen[74.1] is None  # and again
    assert light.preemptions == 2
    assert light.timing.longest_cycle(priority=True) == 2 * (8 + 20 + 5)


@pytest.mark.parametrize('heard', ['no pre-emption', 'unknown robot', 'both lanes'])
def test_priority_behind_changes_nothing_without_pre_emption_a_known_lane_or_from_both_lanes(heard):
    light = _actuated(10.0) if heard == 'no pre-emption' else _preempting()
    codes = {'no pre-emption': ROAD_QUEUE, 'unknown robot': [priority_behind_code(5)],
             'both lanes': ROAD_QUEUE + SIDING_QUEUE}[heard]
    fixed = Timing(green=8.0, clearance=5.0)
    for t, phase in _hear_every_period(light, 0.0, 60.0, codes):
        assert phase == fixed.phase_at(t), t
    assert light.preemptions == 0


def test_crossroad_light_cycles_through_its_lanes():
    place = LightPlace('light_C', 'C', 'crossroad', 0, (0.0, 0.0, 0.0),
                       (Lane('n', (4,), 0), Lane('e', (5, 6), 1)))
    light = TrafficLight(place, Timing(green=8.0, clearance=5.0))
    assert light.codes(1.0) == [4 + GO, 5 + STOP, 6 + STOP]
    assert light.codes(15.0) == [4 + STOP, 5 + GO, 6 + GO]
    assert light.codes(10.0) == [4 + STOP, 5 + STOP, 6 + STOP]   # all red: every lane is told to stop
    # One value per 0.1 s period: the lanes in turn.
    assert [light.code(1.0, k) for k in range(4)] == [44, 25, 26, 44]


# --- the battery law ------------------------------------------------------------------------------

def test_battery_law_halves_the_intensity_every_half_life():
    b = Battery(decay=True, half_life=600.0)
    assert b.charge(0) == 1.0 and b.charge(600) == pytest.approx(0.5) and b.charge(1800) == pytest.approx(0.125)
    assert Battery(decay=False, half_life=600.0).charge(1800) == 1.0
    assert b.voltage(0) == pytest.approx(4.2) and b.voltage(1e9) == pytest.approx(3.3)
    # Range with the documented channel: x0 + √g (ρ − x0).
    assert range_with_gain(ENKI_DOC, 1.0) == pytest.approx(0.23)
    assert range_with_gain(ENKI_DOC, b.charge(600)) == pytest.approx((0.02 + math.sqrt(0.5) * 22.98) / 100)
    assert range_with_gain(ENKI_DOC, b.charge(1800)) == pytest.approx(0.081, abs=0.001)
    with pytest.raises(ValueError):
        Battery(half_life=0.0)


def test_channel_gain_shrinks_the_range_as_the_law_says():
    ch = ProxCommChannel(ENKI_DOC)
    # Transmitter's centre sensor straight at the receiver's centre sensor, `d` apart.
    front = 0.0795

    def heard(d, gain):
        poses = np.array([[0.0, 0.0, 0.0], [2 * front + d, 0.0, math.pi]])
        rec = ch.step(poses, [0], [42], gains=np.array([gain, 1.0]))
        ref = naive_step(ch, poses, [0], [42], gains=np.array([gain, 1.0]))
        assert rec.rows() == ref.rows()
        return len(rec) > 0

    for gain in (1.0, 0.5, 0.125):
        r = range_with_gain(ENKI_DOC, gain)
        assert heard(r - 0.003, gain) and not heard(r + 0.003, gain)
    with pytest.raises(ValueError):
        ch.step(np.zeros((2, 3)) + [[0, 0, 0], [1, 0, 0]], [0], [1], gains=np.array([1.0]))


# --- the controller -------------------------------------------------------------------------------

def _at_location(where='road', node=2, **params):
    """A robot at location node `node`: 'approaching' (its code read, before the siding's
    entry), 'entry' (crossing the entry blind), 'road' (on the road lane past it), 'merge'
    (crossing the merge blind), 'siding' (in the siding).
    """
    c = RoadController(ControllerParams(**params))
    if where == 'approaching':
        read_code(c, 6)
    elif where == 'entry':
        read_code(choosing(c, 'continue'), 6)
        mark(c)
    elif where == 'merge':
        crossing_location(c)
    else:
        at_location(c, where)
    c.current_node = node  # the navigator's word
    return c


GROUND, PROX = [500, 900], [0] * 7


def test_road_lane_stops_on_plus20_goes_on_plus40():
    c = _at_location()
    c.on_comm(2 + GO)
    assert not c.stopped_by_light
    c.on_comm(3 + STOP)               # another location's light: not addressed
    assert not c.stopped_by_light
    c.on_comm(2 + STOP)
    assert c.stopped_by_light and c.state is State.STOP
    assert c.step(GROUND, PROX) == (0, 0)
    c.on_comm(2 + GO)
    assert not c.stopped_by_light and c.state is State.ACTION
    assert c.step(GROUND, PROX) != (0, 0)
    c.on_comm(2 + ALL_STOP)
    assert c.stopped_by_light
    kinds = [(e.kind, e.data.get('command')) for e in c.drain_events() if e.kind == 'light']
    assert kinds == [('light', 'stop'), ('light', 'go'), ('light', 'stop')]


def test_siding_lane_obeys_the_opposite_codes_with_the_stop_frozen():
    c = _at_location('siding')
    while not c.delivering:
        c.step(GROUND, PROX)
    assert c.state is State.STOP and c.mode is Mode.DELIVERING
    stopped_at = c.counter
    c.on_comm(2 + GO)                  # the road lane's green holds the siding: timer frozen
    assert c.increment_counter == 0 and not c.stopped_by_light
    for _ in range(50):
        c.step(GROUND, PROX)
    assert c.counter == stopped_at and c.delivering
    c.on_comm(2 + STOP)                # the siding's green
    for _ in range(60):
        c.step(GROUND, PROX)
    assert not c.delivering and c.state is State.ROAD
    # Driving out of the siding: held on +40 and +60, released on +20.
    c.on_comm(2 + GO)
    assert c.stopped_by_light
    c.on_comm(2 + STOP)
    assert not c.stopped_by_light and c.state is State.ROAD
    # Once it has driven light_siding_count counts it is merging: the light no longer holds it.
    for _ in range(c.params.light_siding_count + 1):
        c.step(GROUND, PROX)
    c.on_comm(2 + GO)
    assert not c.stopped_by_light and c.light_context() is None


def test_a_siding_robot_let_go_by_its_green_clears_the_merge_in_the_all_red_after_it():
    """Improved rules. Stopped by that all red in the siding's exit curve (17-21 cm before the
    merge), it stood in the road robots' way: they see it at their front right (3053).
    """
    def leaving(rules):
        c = leaving_siding(RoadController(ControllerParams(traffic_rules=rules, robot_id=3)))
        c.current_node = 2
        return c
    released = leaving('improved')
    released.on_comm(2 + STOP)          # the siding's green
    released.on_comm(2 + ALL_STOP)      # the all red after it: for this robot to clear
    assert not released.stopped_by_light
    released.on_comm(2 + GO)            # the road's green: the siding is held again
    assert released.stopped_by_light
    unreleased = leaving('improved')    # heard no go since it left the stop
    unreleased.on_comm(2 + ALL_STOP)
    assert unreleased.stopped_by_light
    report = leaving('report')          # the report's robots stop on every red
    report.on_comm(2 + STOP)
    report.on_comm(2 + ALL_STOP)
    assert report.stopped_by_light


def test_never_stopped_while_crossing_and_not_before_the_location():
    c = _at_location('entry')
    c.on_comm(2 + STOP)
    assert not c.stopped_by_light
    c = _at_location('approaching')   # approaching the siding entry
    c.on_comm(2 + STOP)
    c.on_comm(2 + GO)
    assert not c.stopped_by_light and c.increment_counter == 1
    c = _at_location('merge')         # crossing the merge
    c.on_comm(2 + STOP)
    assert not c.stopped_by_light


def test_crossroad_lane_is_addressed_by_the_node_it_came_from():
    c = at_crossroad(RoadController(ControllerParams()))
    c.previous_node, c.current_node = 4, 0  # the navigator's word: from node 4, at X1 (0)
    c.on_comm(0 + STOP)                # the crossroad's own id: not this lane
    assert not c.stopped_by_light
    c.on_comm(4 + STOP)
    assert c.stopped_by_light
    c.on_comm(5 + GO)                  # another lane's go
    assert c.stopped_by_light
    c.on_comm(4 + GO)
    assert not c.stopped_by_light and c.state is State.ACTION
    c.choose_direction = lambda: 'straight'
    mark(c)                            # it has started crossing: lights are ignored
    c.on_comm(4 + STOP)
    assert not c.stopped_by_light
    cross(c)
    assert c.state is State.ACTION and c.counter_continue == 1
    c.on_comm(4 + STOP)
    assert not c.stopped_by_light


def test_a_robot_that_does_not_know_where_it_came_from_obeys_the_loudest_crossroad_light():
    """Issue #27: a robot whose map tracking had two candidates ignored every light of X1, drove
    into a red and met the crossing lanes' green (generated:2011 and 2015). A crossroad's light
    stands beside its own in-lane: the one heard loudest on the approach is the robot's.
    """
    c = at_crossroad(RoadController(ControllerParams()))
    c.current_node = 0                 # it does not know where it came from
    far, near = [0, 0, 0, 0, 900, 0, 0], [0, 0, 0, 2500, 3800, 0, 0]
    c.on_comm(5 + STOP, far)           # another arm's light, across the crossroad
    assert c.stopped_by_light
    c.on_comm(4 + STOP, near)          # its own, beside its lane: louder
    c.on_comm(5 + GO, far)             # the other arm's go is not its own
    assert c.stopped_by_light
    c.on_comm(4 + GO, near)
    assert not c.stopped_by_light and c.state is State.ACTION
    c.on_comm(5 + STOP, far)           # the quieter light no longer stops it
    assert not c.stopped_by_light
    c.choose_direction = lambda: 'straight'
    mark(c)
    for _ in range(3):
        c.step((500, 900), [0] * 7)    # crossing: the approach is over, the loudness forgotten
    assert c.lights.arms == {}


def test_timeout_and_disobedience():
    c = _at_location(light_timeout=30)
    c.on_comm(2 + STOP)
    for _ in range(30):
        assert c.step(GROUND, PROX) == (0, 0)
    c.step(GROUND, PROX)
    assert not c.stopped_by_light and c.state is State.ACTION
    c = _at_location(obey_lights=False)
    c.on_comm(2 + STOP)
    assert not c.stopped_by_light


# --- the map: places, ids, ambiguity ----------------------------------------------------------------

def test_shipped_maps_have_location_lights_clear_of_the_roads():
    for name, n in (('simple', 1), ('final', 5)):
        m = load_map(config_dir() / 'maps' / f'{name}.yaml')
        places = [p for p in light_places(RoadGraph.build(m)) if p.kind == 'location']
        assert len(places) == n
        ids = node_ids(m)
        assert all(p.node == ids[p.intersection] <= 19 for p in places)
        assert len({p.node for p in places}) == n


def _fake_graph(intersections, roads=(), approaches=None, options=()):
    road_map = SimpleNamespace(source='fake.yaml', intersections=tuple(intersections), roads=list(roads),
                               road=lambda rid: next(r for r in roads if r.id == rid))
    return SimpleNamespace(road_map=road_map, approaches=approaches or {}, all_options=list(options))


def test_a_light_needing_a_node_id_above_19_is_refused():
    inters = [Intersection(f'B{k}', 'branching') for k in range(20)]
    inters.append(Intersection('L9', 'location', number=1, extra={'lights': [(0.0, 0.0, 0.0)]}))
    with pytest.raises(MapError, match=r"intersection 'L9' \(location\).*node id 20"):
        light_places(_fake_graph(inters))


def test_a_light_standing_on_a_road_is_refused():
    road = SimpleNamespace(id='main', sample=lambda step: np.array([[x, 0.05, 0.0] for x in np.linspace(0, 1, 50)]))
    inter = Intersection('L1', 'location', number=1, extra={'lights': [(0.5, 0.0, 0.0)]})
    with pytest.raises(MapError, match=r"'L1'.*light_L1.*5\.\d cm from road 'main'"):
        light_places(_fake_graph([inter], [road]))


def _crossroad_graph(previous):
    """A synthetic crossroad from the generator: arm in-lanes entered from the nodes `previous`."""
    g = crossroad('C1', (1.0, 1.0), ['e', 'n', 'w', 's'], 0.0)
    inter = g.intersections[0]
    inter.extra['lights'] = [(1.2, 1.2, 0.0), (0.8, 0.8, math.pi)]
    roads = []
    for d in g.roads:
        start = (d['start'][0], d['start'][1], math.radians(d['start'][2]))
        end = advance(start, d['pieces'])
        roads.append(SimpleNamespace(id=d['id'], length=1.0, pose_at=lambda s, end=end: end,
                                     sample=lambda step: np.zeros((0, 3))))
    nodes = [Intersection('R', 'roundabout'), Intersection('B', 'branching'), Intersection('X', 'branching'), inter]
    approaches, options = {}, []
    for arm, prev in zip(['e', 'n', 'w', 's'], previous):
        key = f'C1@{arm}'
        approaches[key] = SimpleNamespace(node='C1', road=inter.extra['in'][arm])
        approaches[f'{prev}@x'] = SimpleNamespace(node=prev, road='elsewhere')
        options.append(SimpleNamespace(approach=f'{prev}@x', target=key))
    return _fake_graph(nodes, roads, approaches, options)


def _stopped_at_crossroad(**params):
    c = at_crossroad(RoadController(ControllerParams(light_timeout=100, light_timeout_crossroad=1050, **params)))
    c.previous_node, c.current_node = 4, 0
    c.on_comm(4 + GO)
    c.step(GROUND, PROX)
    c.on_comm(4 + ALL_STOP)
    assert c.stopped_by_light
    return c


def test_a_robot_stopped_just_past_its_crossroad_lights_reach_backs_until_it_hears_it():
    """Priority seed 11: the all red came as thymio9 passed the last millimetre X1's light
    reaches; it stopped 1 mm beyond, heard nothing more, and the crossroad's timeout (a dead
    light's) held it, and the ambulance behind it, through two greens for 105 s.
    """
    c = _stopped_at_crossroad(light_edge=5)
    for _ in range(4):
        assert c.step(GROUND, PROX) == (0, 0)
    backing = c.step(GROUND, PROX)
    assert backing[0] < 0 and backing[1] < 0 and c.stopped_by_light  # still held: it only backs
    assert [e.kind for e in c.drain_events() if e.kind.startswith('light')] == ['light', 'light_refind']
    assert c.step(GROUND, PROX) == backing
    c.on_comm(4 + ALL_STOP)  # heard again: it waits there for the go
    for _ in range(20):
        assert c.step(GROUND, PROX) == (0, 0)
    c.on_comm(4 + GO)
    assert c.step(GROUND, PROX) != (0, 0) and c.state is State.ACTION


def test_a_robot_that_cannot_find_its_light_again_backs_3_cm_at_most_and_not_into_the_one_behind():
    c = _stopped_at_crossroad(light_edge=5)
    backed = 0.0
    for _ in range(1000):
        left, right = c.step(GROUND, PROX)
        backed -= (left + right) / 2 * SPEED_CM_PER_UNIT * EVENT_PERIOD
    assert 2.9 < backed < 3.2 and c.stopped_by_light
    close_behind = [0, 0, 0, 0, 0, 3500, 3500]
    c = _stopped_at_crossroad(light_edge=5)
    assert all(c.step(GROUND, close_behind) == (0, 0) for _ in range(50))


@pytest.mark.parametrize('then', ['heard again', 'no refinding'])
def test_a_robot_that_hears_its_light_after_the_stop_waits_for_the_go_or_a_dead_lights_timeout(then):
    c = _stopped_at_crossroad(light_edge=5 if then == 'heard again' else 0)
    if then == 'heard again':
        c.on_comm(4 + ALL_STOP)  # within the light's reach: silence now is a dead light's
    for _ in range(1050):
        assert c.step(GROUND, PROX) == (0, 0)
    assert c.step(GROUND, PROX) != (0, 0)
    assert [e.data['command'] for e in c.drain_events() if e.kind == 'light'] == ['stop', 'timeout']


def test_only_a_crossroad_robot_stopped_by_a_code_backs_to_find_its_light():
    c = _at_location('siding', light_edge=5, light_timeout=100)
    c.lights.hold_in_siding(c)  # back in the siding after making way: it waits for the light again
    for _ in range(100):
        assert c.step(GROUND, PROX) == (0, 0)
    c = _at_location(light_edge=5, light_timeout=100)
    c.on_comm(2 + STOP)  # a location's light: its timeout is short, and a mark may lie just behind
    for _ in range(100):
        assert c.step(GROUND, PROX) == (0, 0)


def test_crossroad_lanes_are_addressed_by_their_previous_nodes():
    places = light_places(_crossroad_graph(['R', 'B', 'R', 'X']))
    lanes = {lane.name: lane for p in places for lane in p.lanes}
    assert {k: (v.addresses, v.phase) for k, v in lanes.items()} == \
        {'e': ((0,), 0), 'n': ((1,), 1), 'w': ((0,), 0), 's': ((2,), 1)}
    assert sorted(len(p.lanes) for p in places) == [2, 2]   # each light commands the two nearer lanes


def test_crossroad_arms_from_one_node_in_two_phases_are_refused():
    with pytest.raises(MapError, match=r"'C1' \(crossroad\): arms 'e' and 'n' are both entered from node 'R'"):
        light_places(_crossroad_graph(['R', 'R', 'B', 'X']))


# --- scenarios -----------------------------------------------------------------------------------

def test_final_traffic_scenario_wires_lights_in_both_runtimes():
    sc = load_scenario('final_traffic')
    names = [x.name for x in sc.lights]
    assert len(sc.robots) == 10 and set(names) >= {f'light_L{k}' for k in range(1, 6)}
    specs = robot_specs(sc)
    assert [s.static for s in specs] == [False] * 10 + [True] * len(names)
    lights = [s for s in node_specs(sc) if s.executable == 'thymio_traffic_light']
    assert [(s.name, s.namespace) for s in lights] == [('traffic_light', f'/{n}') for n in names]
    clearance = {s.namespace: s.parameters['clearance'] for s in lights}
    # The crossroad's all red outlasts a left turn (15.5 s); the locations' 15
    # s let a committed road robot clear the merge.
    assert {v for k, v in clearance.items() if k.startswith('/light_X1')} == {16.0}
    assert {v for k, v in clearance.items() if not k.startswith('/light_X1')} == {15.0}
    assert lights[0].parameters['battery_decay'] is False
    # The locations' lights are actuated; a crossroad's cannot tell its lanes' robots apart.
    extension = {s.namespace: s.parameters['clearance_extension'] for s in lights}
    assert {v for k, v in extension.items() if k.startswith('/light_X1')} == {0.0}
    assert {v for k, v in extension.items() if not k.startswith('/light_X1')} == {10.0}
    # Every light pre-empts for a priority vehicle, the crossroad's as one signal group.
    assert {s.parameters['priority_preemption'] for s in lights} == {30.0}
    assert sc.controller['avoidance'] == 'v2' and sc.ir is not None
    assert sc.controller['light_timeout'] == 100  # no robot held for good at the edge of a light's range


def _scenario(tmp_path, **extra):
    data = {'map': str(config_dir() / 'maps' / 'simple.yaml'), 'robots': {'count': 1, 'road': 'outer'}, 'ir': {}}
    data.update(extra)
    path = tmp_path / 's.yaml'
    path.write_text(yaml.safe_dump(data))
    return path


def test_light_settings_are_checked(tmp_path):
    sc = load_scenario(_scenario(tmp_path, lights={'battery': {'decay': True, 'half_life': 300.0},
                                                   'overrides': {'light_L1': {'green': 4.0}}}))
    assert sc.lights[0].battery.decay and sc.lights[0].battery.half_life == 300.0 and sc.lights[0].timing.green == 4.0
    for bad, message in (({'at': ['R1']}, "no light place at 'R1'"), ({'green': -1.0}, 'green must be'),
                         ({'battery': {'decay': 'yes'}}, 'decay'),
                         ({'overrides': {'light_X': {}}}, "no light 'light_X'"),
                         ({'colour': 'red'}, "unknown field 'colour'"),
                         ({'clearance_extension': 90.0}, 'clearance_extension must be in'),
                         ({'priority_preemption': -1.0}, 'priority_preemption must be in')):
        with pytest.raises(ScenarioError, match=message):
            load_scenario(_scenario(tmp_path, lights=bad))
    path = _scenario(tmp_path, lights={})
    data = yaml.safe_load(path.read_text())
    del data['ir']
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError, match='needs the IR medium'):
        load_scenario(path)


# --- end to end: two robots at a location exit -----------------------------------------------------

def _exit_run(tmp_path, lights: bool):
    """Robot 1 enters the location (mission), robot 2 follows 20 cm behind and continues: without
    a light they reach the merge together (the report's Fig. 16). The light's offset puts the
    siding's green when they arrive, so the road lane's robot is stopped, then let go.
    """
    from thymio_road.nodes import msgs
    from thymio_road.runtime.contact_probe import ContactProbe
    from thymio_road.runtime.run import Graph
    from thymio_road.runtime.traffic_probe import TrafficProbe
    data = {'name': 'exit', 'map': str(config_dir() / 'maps' / 'simple.yaml'), 'duration': 55.0, 'seed': 1,
            'controller': {'speed': 150, 'trigger_security': 'strict'},
            'robots': {'count': 2, 'road': 'outer', 'start': 2.0, 'missions': {'thymio1': [1]},
                       'positions': {'thymio2': 1.8}, 'overrides': {'thymio2': {'seed': 2}}},
            'ir': {}}
    if lights:
        data['lights'] = {'green': 8.0, 'clearance': 5.0, 'offset': 11.0}
    path = tmp_path / f'exit_{lights}.yaml'
    path.write_text(yaml.safe_dump(data))
    sc = load_scenario(path)
    graph = Graph(sc)
    probe = TrafficProbe(graph, ContactProbe(graph))
    world = graph.world_node.world
    events: dict[str, list] = {'thymio1': [], 'thymio2': []}

    def on_event(name, msg):
        e = json.loads(msg.data)
        if e['kind'] in ('light', 'decision'):
            events[name].append((e, world.poses[world.index[name], :2].copy()))
    for name in events:
        probe.node.create_subscription(msgs.String, f'/{name}/controller/events',
                                       lambda m, n=name: on_event(n, m), msgs.qos(100))
    graph.run(sc.duration)
    return probe, events


def test_a_crossroad_light_never_extends_an_all_red(tmp_path):
    data = yaml.safe_load((config_dir() / 'scenarios' / 'final_traffic.yaml').read_text())
    data['map'] = str(config_dir() / 'maps' / 'final.yaml')
    data['lights']['overrides'] = {'light_X1_0': {'clearance_extension': 5.0}}
    path = tmp_path / 'x.yaml'
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError, match=r"overrides\.light_X1_0\.clearance_extension.*only a location's light"):
        load_scenario(path)


def test_location_light_keeps_the_two_lanes_apart(tmp_path):
    probe, events = _exit_run(tmp_path, lights=True)
    assert probe.monitor.episodes == [] and probe.summary()['hull_contacts'] == 0
    lights1 = [e['command'] for e, _ in events['thymio1'] if e['kind'] == 'light']
    lights2 = [(e['command'], e['lane'], pos) for e, pos in events['thymio2'] if e['kind'] == 'light']
    decisions2 = [e['choice'] for e, _ in events['thymio2'] if e['kind'] == 'decision']
    assert decisions2 == ['continue', 'continue']          # robot 2 went through on the road
    assert lights1 == ['hold', 'go']                        # robot 1's stop in the siding was held, then let go
    assert [c for c, _, _ in lights2] == ['stop', 'go'] and {lane for _, lane, _ in lights2} == {'road'}
    stop_at, go_at = lights2[0][2], lights2[1][2]
    assert np.hypot(*(go_at - stop_at)) < 0.01              # it really stood still while told to stop
    assert probe.passages == 2                              # and both got through


def test_a_location_light_node_hears_the_robots_through_the_ir_medium(tmp_path, monkeypatch):
    """The actuated light's ears: what the robots announce reaches the light's core by its
    node's comm/rx subscription (the medium publishes it for every Thymio, lights included).
    """
    from thymio_road.control.right_of_way import announcement
    from thymio_road.control.traffic_light import TrafficLight
    heard = []
    original = TrafficLight.hear
    monkeypatch.setattr(TrafficLight, 'hear', lambda self, t, code: (heard.append(code), original(self, t, code))[1])
    path = _scenario(tmp_path, lights={'clearance_extension': 5.0},
                     controller={'traffic_rules': 'improved', 'speed': 150})
    from thymio_road.runtime.run import Graph
    graph = Graph(load_scenario(path))
    graph.run(60.0)
    assert graph.nodes['/light_L1/traffic_light'].core.actuated
    assert {announcement(c)[1] for c in heard if announcement(c)} == {1}  # thymio1 passing L1


def test_without_the_light_the_lanes_meet(tmp_path):
    probe, _ = _exit_run(tmp_path, lights=False)
    assert len(probe.monitor.episodes) >= 1


def test_battery_state_dims_the_light_in_the_medium(tmp_path):
    from thymio_road.runtime.run import Graph
    sc = load_scenario(_scenario(tmp_path, lights={'battery': {'decay': True, 'half_life': 5.0}}))
    graph = Graph(sc)
    graph.run(10.5)
    medium = graph.nodes['/ir_medium']
    light = medium.names.index('light_L1')
    assert medium.gains[light] == pytest.approx(0.5 ** (10.1 / 5.0))   # published at t = 10.1 s
    assert medium.gains[medium.names.index('thymio1')] == 1.0
    assert graph.world_node.world.specs[graph.world_node.world.index['light_L1']].static


def test_summary_and_bag_give_the_same_traffic_measures(tmp_path):
    from thymio_road.analysis import analyze_bag
    from thymio_road.runtime.run import run_scenario
    path = tmp_path / 'two.yaml'
    path.write_text(yaml.safe_dump({
        'name': 'two', 'map': str(config_dir() / 'maps' / 'simple.yaml'), 'duration': 45.0, 'seed': 1,
        'controller': {'speed': 150, 'trigger_security': 'strict'},
        'robots': {'count': 2, 'road': 'outer', 'start': 2.0, 'missions': {'thymio1': [1]},
                   'positions': {'thymio2': 1.8}, 'overrides': {'thymio2': {'seed': 2}}},
        'ir': {}, 'lights': {'offset': 11.0}}))
    sc = load_scenario(path)
    result = run_scenario(sc, tmp_path / 'run', progress=False, picture=False)
    live = result.summary['traffic']
    assert live['light_stops'] >= 1 and live['light_hold_s'] and live['merge_conflict_episodes'] == 0
    analysis, _ = analyze_bag(tmp_path / 'run' / 'bag')
    assert analysis.traffic == live      # every figure of the block, from the bag


def test_lights_sharing_a_code_must_stand_apart():
    inters = [Intersection('L1', 'location', number=1, extra={'lights': [(0.0, 0.0, 0.0)]}),
              Intersection('L2', 'location', number=2, extra={'lights': [(0.5, 0.0, 0.0)]})]
    light_places(_fake_graph(inters))   # different ids, different codes: fine
    crossing = _crossroad_graph(['R', 'B', 'R', 'X'])
    # A location whose id (0) addresses a crossroad lane, its light 30 cm from the crossroad's.
    loc = Intersection('L0', 'location', number=1, extra={'lights': [(1.2, 1.5, 0.0)]})
    crossing.road_map.intersections = (loc,) + crossing.road_map.intersections[1:]
    crossing.approaches.pop('R@x')
    crossing.approaches['L0@x'] = SimpleNamespace(node='L0', road='elsewhere')
    for o in crossing.all_options:
        if o.approach == 'R@x':
            o.approach = 'L0@x'
    with pytest.raises(MapError, match=r"'L0'.*both send \[20, 40\].*0\.3\d m apart"):
        light_places(crossing)


def test_launch_plan_starts_the_lights_also_beside_real_robots():
    from thymio_road.ros import launch_plan as lg
    for args in ({'scenario': 'final_traffic'}, {'scenario': 'final_traffic', 'real': 'thymio2'}):
        nodes = lg.plan(args).nodes
        lights = [n for n in nodes if n.executable == 'thymio_traffic_light']
        assert {n.namespace for n in lights} >= {f'/light_L{k}' for k in range(1, 6)}
        assert all(n.parameters['light'] == n.namespace[1:] for n in lights)
    medium = next(n for n in nodes if n.executable == 'thymio_ir_medium')
    assert medium.parameters.get('real_robots') == 'thymio2'


# --- crossroad conflicts (traffic_measures.CrossroadMonitor) ---------------------------------------

def test_crossroad_conflict_needs_two_phases_inside_the_square():
    from thymio_road.analysis.traffic import crossroad_zones, CrossroadMonitor
    road_map = load_map(config_dir() / 'maps' / 'final.yaml')
    (zone,) = crossroad_zones(road_map)
    assert zone.intersection == 'X1' and zone.half == pytest.approx((0.148, 0.148))
    assert zone.phase == {'w': 0, 's': 1, 'e': 0, 'n': 1}
    # a crossroad light's stop distance is measured from the square's centre (it was never reported)
    from thymio_road.analysis.traffic import crossroad_centres
    assert crossroad_centres(road_map) == [pytest.approx((5.3, 1.55))]
    mon = CrossroadMonitor([zone])
    names = ['a', 'b', 'c', 'd']
    far = (1.0, 1.0)

    def feed(t, *poses):
        mon.update(t, names, np.array(poses, dtype=float))
    # a on the west in-lane, b on the south one, c on the east one: all before the square.
    feed(0.0, (5.0, 1.442), (5.408, 1.2), (5.6, 1.658), far)
    # a enters the square (the last 7 cm of its in-lane lie in it); c too: same phase, no conflict.
    feed(0.1, (5.25, 1.442), (5.408, 1.2), (5.36, 1.658), far)
    assert mon.episodes == [] and mon.arm_of[('X1', 'a')] == 'w'
    # b enters from the south (phase 1) while a and c are inside: a conflict.
    feed(0.2, (5.3, 1.442), (5.408, 1.48), (5.33, 1.658), far)
    # a follows the circle past the south in-lane's end: it keeps its arm, still in conflict.
    feed(0.3, (5.4, 1.5), (5.408, 1.5), (5.3, 1.658), far)
    assert mon.arm_of[('X1', 'a')] == 'w'
    assert len(mon.episodes) == 1 and mon.episodes[0].robots == ('a', 'b', 'c')
    # b leaves on the north out-lane: the episode ends; d appears inside with no known arm.
    feed(0.4, (5.4, 1.52), (5.408, 1.75), (5.25, 1.658), (5.3, 1.55))
    assert mon.open_ == {} and ('X1', 'd') not in mon.arm_of
    # a second episode: b comes back from the north in-lane (phase 1) while c is still inside.
    feed(0.5, (5.8, 1.442), (5.192, 1.8), (5.22, 1.658), far)
    feed(0.6, (5.8, 1.442), (5.192, 1.68), (5.2, 1.62), far)
    assert len(mon.episodes) == 2 and mon.episodes[1].robots == ('b', 'c')
    assert mon.conflict_time == pytest.approx(0.3)
    from thymio_road.analysis.traffic import TrafficMeasures
    measures = TrafficMeasures(road_map, names)
    measures.crossroads = mon
    s = measures.summary(60.0, {}, None)
    assert s['crossroad_conflict_episodes'] == 2 and s['crossroad_conflict_time_s'] == 0.3
    assert s['crossroad_conflicts'][0] == {'intersection': 'X1', 'start_s': 0.2, 'end_s': 0.3,
                                           'robots': ['a', 'b', 'c']}
    assert TrafficMeasures(road_map, names).summary(60.0, {}, None)['crossroad_conflict_episodes'] == 0


def test_crossroad_lights_are_not_obstacles_to_the_lanes_they_command():
    """A robot driving an in-lane of the final map's crossroad (its centre 1.2 cm right of the
    lane's centre line, where line following puts it) must not see the light beside it with the
    front sensors that drive avoidance: at the generator's 15 cm the centre-right sensor read
    over 3000 (v2's stop) and robots stood there for good.
    """
    from thymio_road.sim.sensors import ProxSensing
    road_map = load_map(config_dir() / 'maps' / 'final.yaml')
    x1 = next(i for i in road_map.intersections if i.kind == 'crossroad')
    sensing = ProxSensing(None, noise=0.0)
    quiet = SimpleNamespace(take=lambda k: np.zeros(k), reserve=lambda k: (np.zeros(k), 0), advance=lambda k: None)
    for arm, light in zip(x1.extra['arms'], x1.extra['lights']):
        road = road_map.road(x1.extra['in'][arm])
        worst = 0
        for s in np.arange(0.0, road.length, 0.005):
            x, y, h = road.pose_at(float(s))
            centre = (x + 0.012 * math.sin(h), y - 0.012 * math.cos(h), h)
            worst = max(worst, int(sensing.read(0, np.array([centre, light]), quiet)[1:4].max()))
        assert worst < ControllerParams().obs_threshold, (arm, worst)


def test_contact_episodes_pair_touching_robots_and_name_the_place():
    from thymio_road.analysis.contacts import ContactDetector
    names = ['a', 'b', 'c']
    apart = np.array([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [1.0, 0.0, 0.0]])
    touching = np.array([[0.0, 0.0, 0.0], [0.111, 0.0, 0.0], [1.0, 0.0, 0.0]])   # a's front on b's rear: 1 mm
    detector = ContactDetector(names, describe=lambda x, y: f'at {x:.2f}')
    for t, poses in ((1.0, touching), (1.1, touching), (1.2, apart), (5.0, touching)):
        detector.update(t, poses)
    summary = detector.summary()
    assert summary['hull_contacts'] == 2 and summary['contact_samples'] == 3
    assert [(e['a'], e['b'], e['start_s'], e['end_s'], e['where']) for e in summary['contact_episodes']] == [
        ('a', 'b', 1.0, 1.1, 'at 0.06'), ('a', 'b', 5.0, 5.0, 'at 0.06')]
    assert detector.per_body()['a'] == {'contacts': 2, 'near_misses': 0}
