# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Map tracking and routing: scripted event streams, then the simple map end to end."""
import json
import os
from pathlib import Path

import pytest

from thymio_road.control.controller import Action, ControllerParams, Event, RoadController
from thymio_road.control.navigation import Navigator, parse_mission
from thymio_road.map.loader import load_map
from thymio_road.map.road_graph import RoadGraph

ROOT = Path(__file__).resolve().parent.parent
FROM_OUTER, FROM_INNER, AT_L1 = 'R1@R1.exit_mark.e', 'R1@R1.exit_mark.w', 'L1@L1.entry_mark'


@pytest.fixture(scope='module')
def graph():
    return RoadGraph.build(load_map(ROOT / 'config' / 'maps' / 'simple.yaml'))


def feed(nav, *events):
    out = []
    for kind, data in events:
        out += nav.on_events([Event(kind, data)])
    return [(e.kind, e.data) for e in out]


# The controller's events for the simple map's drives (Table 6 codes, marks counted from 0).
TO_L1 = [('barcode', {'code': 2}), ('barcode', {'code': 6}), ('intersection', {'action': 'location'})]
INTO_SIDING = [('decision', {'action': 'location', 'mark': 0, 'choice': 'exit'}),
               ('barcode', {'code': 1}), ('location', {'number': 1}), ('stop', {'location': 1}),
               ('left', {'action': 'location'})]
THROUGH_L1 = [('decision', {'action': 'location', 'mark': 0, 'choice': 'continue'}),
              ('decision', {'action': 'location', 'mark': 1, 'choice': 'continue'}),
              ('left', {'action': 'location'})]
TO_R1 = [('barcode', {'code': 7}), ('intersection', {'action': 'roundabout'})]


def ring(exit_at):
    return [('decision', {'action': 'roundabout', 'mark': k, 'choice': 'exit' if k == exit_at else 'continue'})
            for k in range(exit_at + 1)] + [('left', {'action': 'roundabout'})]


def test_parse_mission():
    assert parse_mission('3, 1,5') == [3, 1, 5] and parse_mission('') == []
    with pytest.raises(ValueError, match='location numbers'):
        parse_mission('3;1')


def test_the_road_a_robot_is_put_down_on_narrows_its_start_to_the_ways_that_drive_it():
    """Issue #27: put down on a road out of a crossroad and told only the crossroad, a robot had
    every way out of it as a candidate; it did not know its arm when it came back, and ignored the
    crossroad's lights (generated:2011 and 2015).
    """
    final = RoadGraph.build(load_map(ROOT / 'config' / 'maps' / 'final.yaml'))
    anywhere = Navigator(final, start_node='X1')
    assert {o.target_node for o in anywhere.edges} == {'B1', 'L4', 'L5', 'X1'} and anywhere.node == 'X1'
    on_west_loop = Navigator(final, start_node='X1', start_road='west_loop')
    assert {o.target_node for o in on_west_loop.edges} == {'L4'}
    assert all('west_loop' in o.roads for o in on_west_loop.edges)
    # A road none of the node's ways drives (a wrong start) leaves every way a candidate.
    assert len(Navigator(final, start_node='X1', start_road='north').edges) == len(anywhere.edges)


def test_tracks_nodes_from_a_known_start(graph):
    nav = Navigator(graph, start_node='R1')
    out = feed(nav, *TO_L1)
    assert out == [('node', {'node': 'L1', 'expected': None, 'mismatch': False, 'type': 'location',
                             'candidates': 1})]
    feed(nav, *THROUGH_L1)
    assert nav.node == 'L1' and [o.label for o in nav.edges] == ['through']
    assert feed(nav, *TO_R1)[0][1] == {'node': 'R1', 'expected': 'R1', 'mismatch': False, 'type': 'roundabout',
                                       'candidates': 1}
    assert nav.inside == [FROM_OUTER]
    feed(nav, *ring(2))  # out by the west exit: inner, back into R1 by its east entry
    assert feed(nav, *TO_R1)[0][1]['node'] == 'R1' and nav.inside == [FROM_INNER]


def test_unknown_start_is_located_by_the_codes_read(graph):
    nav = Navigator(graph)
    assert nav.node is None
    out = feed(nav, *TO_R1)  # code 7 alone: R1, but entered from outer or from inner?
    assert out[0][1]['node'] == 'R1' and out[0][1]['candidates'] == 2 and not out[0][1]['mismatch']
    feed(nav, *ring(0))
    assert nav.node == 'R1' and nav.inside is None
    nav2 = Navigator(graph)
    feed(nav2, *TO_L1)
    assert nav2.node == 'L1' and nav2.inside == [AT_L1]


def test_mismatch_is_detected_and_recovered(graph):
    # Told it last passed L1 (so R1 comes next), the robot is really on outer heading for L1.
    nav = Navigator(graph, start_node='L1')
    out = feed(nav, *TO_L1)
    assert out == [('node', {'node': 'L1', 'expected': 'R1', 'mismatch': True, 'type': 'location',
                             'candidates': 1})]
    feed(nav, *INTO_SIDING)
    assert feed(nav, *TO_R1)[0][1] == {'node': 'R1', 'expected': 'R1', 'mismatch': False,
                                       'type': 'roundabout', 'candidates': 1}


def test_a_location_number_that_differs_is_a_mismatch(graph):
    nav = Navigator(graph, start_node='R1')
    feed(nav, *TO_R1)  # believes R1 although the robot is entering L1's siding
    out = feed(nav, ('decision', {'action': 'location', 'mark': 0, 'choice': 'exit'}), ('location', {'number': 1}))
    assert out == [('node', {'node': 'L1', 'expected': 'R1', 'mismatch': True, 'type': 'location',
                             'candidates': 1})]
    assert nav.node == 'L1'
    out = feed(nav, ('location', {'number': 6}))  # misread: no location 6
    assert out[0][1]['mismatch'] and out[0][1]['misread'] == 6 and nav.node == 'L1'


def test_route_decisions_reach_the_location(graph):
    nav = Navigator(graph, mission=[1, 1], start_node='L1')
    assert nav.decide(Action.ROUNDABOUT, 0) in ('exit', 'continue')  # nowhere yet: random
    feed(nav, *TO_R1)  # from outer: the east exit (the first) leads to L1
    assert nav.plan.label == 'exit 0' and nav.decide(Action.ROUNDABOUT, 0) == 'exit'
    feed(nav, *ring(0), *TO_L1)
    assert nav.decide(Action.LOCATION, 0) == 'exit'
    out = feed(nav, *INTO_SIDING)
    assert ('arrival', {'location': 1, 'target': True, 'next': 1, 'remaining': 1}) in out
    nav3 = Navigator(graph, mission=[1])
    nav3.inside, nav3.exit_at = [FROM_INNER], None
    nav3._plan()
    # From the east entry the west exit (0) comes first; the east exit to L1 is two marks on.
    assert [nav3.decide(Action.ROUNDABOUT, k) for k in (0, 2)] == ['continue', 'exit']
    assert nav3.decide(Action.ROUNDABOUT, 6) == 'exit'  # a lap later, the same exit


def test_mission_done_then_random_and_checked_numbers(graph):
    nav = Navigator(graph, mission='1', start_node='R1')
    feed(nav, *TO_L1, *INTO_SIDING)
    assert nav.mission == [] and nav.plan is None and nav.arrivals == [1]
    with pytest.raises(ValueError, match=r'mission location 3 is not on map .*locations: \[1\]'):
        nav.set_mission('1,3')
    with pytest.raises(ValueError, match="start_node 'R9' is not a node"):
        Navigator(graph, start_node='R9')


def test_attach_keeps_the_controllers_seeded_random_choices(graph):
    a, b = RoadController(), RoadController()
    Navigator(graph).attach(b)
    assert [a.decide(Action.ROUNDABOUT, 0) for _ in range(20)] == [b.decide(Action.ROUNDABOUT, 0) for _ in range(20)]


# --- end to end on the simple map ---------------------------------------------------------------

def _run(duration, mission='', start_node=None, seed=1):
    os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
    from thymio_road.nodes import msgs
    from thymio_road.runtime.node import EmbeddedNode
    from thymio_road.runtime.run import Graph
    from thymio_road.scenario import load_scenario
    graph = Graph(load_scenario('simple', duration=duration, seed=seed))
    events = []
    probe = EmbeddedNode(graph.executor, 'probe')
    probe.create_subscription(msgs.String, '/thymio1/controller/events',
                              lambda m: events.append(json.loads(m.data)), 100)
    pub = probe.create_publisher(msgs.String, '/thymio1/mission', msgs.qos(10))
    graph.run(0.1)  # the latched map description reaches the controller
    nav = graph.controller('thymio1').navigator
    assert nav is not None, 'the controller builds its navigator from /world/map_description'
    if start_node is not None:
        nav.set_start(start_node)
    if mission:
        pub.publish(msgs.String(data=mission))
    graph.run(duration)
    return events, nav


def test_the_controller_knows_its_node_from_the_navigator_without_events():
    """The node tells the controller the navigator's node after a step without events too: the
    belief the navigator starts with, and one set anew (set_start), not only after an event.
    """
    os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
    from thymio_road.runtime.run import Graph
    from thymio_road.scenario import load_scenario
    graph = Graph(load_scenario('simple', duration=2, seed=1))
    graph.run(0.3)
    node = graph.controller('thymio1')
    assert node.navigator.node == 'R1' and node.core.current_node == node._ids['R1']  # the scenario's start
    node.navigator.set_start('L1')
    graph.run(0.5)  # a few steps on the road: no event
    assert node.navigator.node == 'L1' and node.core.current_node == node._ids['L1']
    node.navigator.set_start('')
    graph.run(0.7)
    assert node.navigator.node is None and node.core.current_node is None


def test_end_to_end_mission_reaches_location_1():
    events, nav = _run(520, mission='1,1')
    arrivals = [e for e in events if e['kind'] == 'arrival']
    assert [(a['location'], a['target']) for a in arrivals][:2] == [(1, True), (1, True)]
    assert nav.mission == []
    # The route was followed: from R1 the east exit (decision at mark 0), never a lap.
    ring_exits = [e['mark'] for e in events if e['kind'] == 'decision' and e['action'] == 'roundabout'
                  and e['choice'] == 'exit']
    assert ring_exits and set(ring_exits) == {0}
    assert all(not e['mismatch'] for e in events if e['kind'] == 'node')


def test_end_to_end_misinitialised_robot_is_back_on_track_within_two_intersections():
    events, nav = _run(300, start_node='L1')  # really it last passed R1
    nodes = [e for e in events if e['kind'] == 'node']
    assert nodes[0]['mismatch'] and nodes[0]['expected'] == 'R1' and nodes[0]['node'] == 'L1'
    later = nodes[1:3]
    assert later and all(not e['mismatch'] and e['node'] is not None for e in later)
    assert nav.node is not None


FINAL = ROOT / 'config' / 'scenarios' / 'final.yaml'


@pytest.mark.slow
@pytest.mark.skipif(not FINAL.exists(), reason='the final map is not there yet')
def test_end_to_end_twenty_random_destinations_on_the_final_map():
    import random
    rng = random.Random(0)
    destinations = []
    while len(destinations) < 20:
        n = rng.randint(1, 5)
        if not destinations or destinations[-1] != n:
            destinations.append(n)
    os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
    from thymio_road.nodes import msgs
    from thymio_road.runtime.node import EmbeddedNode
    from thymio_road.runtime.run import Graph
    from thymio_road.scenario import load_scenario
    graph = Graph(load_scenario('final', duration=5400, seed=1, robots=1))
    events = []
    probe = EmbeddedNode(graph.executor, 'probe')
    probe.create_subscription(msgs.String, '/thymio1/controller/events',
                              lambda m: events.append(json.loads(m.data)), 100)
    pub = probe.create_publisher(msgs.String, '/thymio1/mission', msgs.qos(10))
    graph.run(0.1)
    pub.publish(msgs.String(data=','.join(map(str, destinations))))
    graph.run(5400)
    arrivals = [e for e in events if e['kind'] == 'arrival' and e['target']]
    assert [a['location'] for a in arrivals] == destinations
    mean = arrivals[-1]['t'] / len(arrivals)
    assert mean < 260, f'mean travel time per destination {mean:.1f} s'
    assert not any(e['mismatch'] for e in events if e['kind'] == 'node')


def test_random_choices_on_a_ring_end_after_one_lap_with_the_improved_rules(graph):
    """Issue #27: at 50 % per exit a robot stayed on final_traffic's R2 for four laps (15 robots
    seed 13). With the improved rules, past one lap of the ring's marks it takes the next exit;
    the report's robots keep choosing at random.
    """
    for rules, expected in (('improved', 'exit'), ('report', None)):
        c = RoadController(ControllerParams(traffic_rules=rules, seed=3, robot_id=1))
        c.decide = lambda action, passed: 'continue'  # the unluckiest coin
        nav = Navigator(graph, start_node='L1')
        nav.attach(c)
        feed(nav, *TO_R1)
        lap = len(graph.approaches[nav.inside[0]].marks)
        choices = [nav.decide(Action.ROUNDABOUT, k) for k in range(lap + 1)]
        assert choices[:lap] == ['continue'] * lap
        assert choices[lap] == (expected or 'continue')


def test_a_ring_robot_far_past_where_its_next_mark_should_be_has_left_the_ring_unawares(graph):
    """Issue #27, generated:2012 with 10 robots: a ring robot whose blind crossing was cut short by
    making way followed an exit out and counted a balloon's barcodes as ring marks. With the
    improved rules, twice the ring's longest gap between marks (and 20 cm) past its last mark
    it drives on as on a road, and the navigator holds every exit of the ring as the way it
    took; the report's robots count on.
    """
    from controller_situations import GREY, on_ring
    for rules in ('improved', 'report'):
        c = RoadController(ControllerParams(traffic_rules=rules, seed=3, robot_id=1))
        nav = Navigator(graph, start_node='L1')
        nav.attach(c)
        c.decide = lambda action, passed: 'continue'
        on_ring(c)
        nav.on_events(c.drain_events())
        events = []
        approach = graph.approaches[nav.inside[0]]
        at = [m[2] for m in approach.marks] + [graph.road_map.road(approach.road).length]
        overdue = 2 * max(b - a for a, b in zip(at, at[1:])) + 0.2
        driven = 0.0
        while driven < 1.5 * overdue and not events:
            left, right = c.step(GREY, [0] * 7)
            driven += (left + right) / 2 * 0.032 * 0.1 / 100
            events = [e for e in c.drain_events() if e.kind == 'left_unawares']
            nav.on_events(events)
        if rules == 'report':
            assert not events and c.action is Action.ROUNDABOUT
            continue
        # Counted from the last mark: the blind crossing after it, then the ring.
        assert events and events[0].data['driven_m'] == pytest.approx(overdue, abs=0.01) and driven < overdue
        assert c.action is None and c.state.name == 'ROAD'
        assert nav.inside is None and {o.exit_at for o in nav.edges} == {
            o.exit_at for o in graph.options[approach.key] if o.exit_at is not None}


def test_a_ring_mark_with_a_black_first_bit_after_it_was_a_road_code_and_is_read(graph):
    """final_traffic, 10 robots, seeds 22 and 29: a blind crossing left a ring robot on an exit's
    band; it took the next road code's sync bit for its next mark, crossed blind again and turned
    round onto the oncoming lane. With the improved rules, a "mark" whose first bit's place is
    black is that code's sync bit: the robot leaves the ring, reads the code on the READ's own
    schedule and enters the roundabout it announces, and the navigator holds every exit of the
    ring as the way it took. The report's robots cross on; a real mark (white after it) changes
    nothing.
    """
    from controller_situations import BLACK, CLEAR, cross, mark, ON_LINE, on_ring, WHITE
    for rules in ('improved', 'report'):
        c = RoadController(ControllerParams(traffic_rules=rules, seed=3, robot_id=1))
        nav = Navigator(graph, start_node='L1')
        nav.attach(c)
        on_ring(c)
        c.decide = lambda action, passed: 'continue'
        nav.on_events(c.drain_events())
        approach = graph.approaches[nav.inside[0]]
        mark(c)  # a real mark: white where a first bit would be
        cross(c)
        assert c.action is Action.ROUNDABOUT and c.counter_continue == 2
        first, second, third, end = c.read_schedule()
        code = 7  # a roundabout's code: every bit black
        c.step((ON_LINE, BLACK), CLEAR)  # its sync bit, counted as the next mark
        assert c.state.name == 'CONTINUE'
        for count in range(2, end + 1):
            c.step((ON_LINE, BLACK if count in (first, second, third) and code else WHITE), CLEAR)
        events = c.drain_events()
        kinds = [e.kind for e in events]
        nav.on_events(events)
        if rules == 'report':
            assert 'left_unawares' not in kinds and c.action is Action.ROUNDABOUT
            continue
        assert kinds.index('left_unawares') < kinds.index('left') < kinds.index('barcode') < kinds.index('intersection')
        assert next(e for e in events if e.kind == 'barcode').data['code'] == 7
        assert c.action is Action.ROUNDABOUT and c.state.name == 'ACTION' and c.counter_continue == 0
        assert [e.data['reason'] for e in events if e.kind == 'left_unawares'] == ['code']
        assert nav.inside and all(graph.approaches[a].node == approach.node for a in nav.inside)


def test_unsure_which_ring_a_robot_takes_an_exit_within_a_lap_of_the_smallest():
    """A robot that does not know which roundabout it entered (on generated:2016, R1 of 8 marks
    or R2 of 4) ends its random choices after a lap of the smaller ring, not laps of it.
    """
    from thymio_road.scenario import load_scenario
    graph = RoadGraph.build(load_scenario('generated:2016').road_map)
    c = RoadController(ControllerParams(traffic_rules='improved', seed=3, robot_id=1))
    c.decide = lambda action, passed: 'continue'
    nav = Navigator(graph)
    nav.attach(c)
    feed(nav, ('intersection', {'action': 'roundabout'}))
    laps = {len(graph.approaches[a].marks) for a in nav.inside}
    assert len(laps) > 1
    choices = [nav.decide(Action.ROUNDABOUT, k) for k in range(max(laps) + 1)]
    assert choices.index('exit') == min(laps)
