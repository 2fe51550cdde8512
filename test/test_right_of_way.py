# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The right of way between robots by IR (control/right_of_way.py) and the controller's use of it."""
import pytest

from controller_situations import (at_crossroad, at_location, crossing_crossroad, crossing_location, crossing_ring,
                                   entering_roundabout, leaving_by_link, leaving_siding, on_ring, past_link)
from swarm_comm.prox_comm import PAYLOAD_MAX
from thymio_road.control.controller import Action, ControllerParams, Mode, RoadController, State
from thymio_road.control.right_of_way import (announce_code, back_up_code, blocked_code, MAX_ID,
                                              outranks, priority_behind_code, RightOfWay, Role, waiting_code)
from thymio_road.control.traffic_light import decode
from thymio_road.map.lights import CODE_MAX, CODE_MIN, GO, STOP

FRONT = [0, 0, 2000, 0, 0, 0, 0]
REAR = [0, 0, 0, 0, 0, 1500, 1500]
#: The ambulance closed up behind (15 cm), and in the lane beside, diagonally behind (priority seed 5 at L1).
RIGHT_BEHIND = [0, 0, 0, 0, 0, 3920, 3930]
DIAGONALLY_BEHIND = [0, 0, 0, 0, 0, 0, 1445]
GREY = (500, 900)  # on the line, the reading sensor on white paper
CLEAR = [0] * 7
BLOCKED = [0, 0, 3500, 0, 0, 0, 0]


def test_codes_fit_ten_bits_and_never_read_as_light_codes():
    codes = [announce_code(r, i) for r in Role for i in range(1, MAX_ID + 1)] + \
            [blocked_code(i) for i in range(1, MAX_ID + 1)] + [waiting_code(i) for i in range(1, MAX_ID + 1)] + \
            [back_up_code(i) for i in range(1, MAX_ID + 1)] + [priority_behind_code(i) for i in range(1, MAX_ID + 1)]
    assert max(codes) <= 1023 <= PAYLOAD_MAX
    assert len(set(codes)) == len(codes)
    assert not any(CODE_MIN <= c <= CODE_MAX for c in codes)
    assert all(decode(c) is None for c in codes)


def test_priority_is_a_total_order_role_first_then_lower_id():
    assert outranks(Role.INSIDE, 9, Role.ROAD, 1)
    assert outranks(Role.ROAD, 1, Role.ROAD, 2)
    assert not outranks(Role.ROAD, 2, Role.ROAD, 1)
    pairs = [(r, i) for r in Role for i in (1, 2, 3)]
    for a in pairs:
        for b in pairs:
            if a != b:
                assert outranks(*a, *b) != outranks(*b, *a)


def test_hears_announcements_but_not_itself_and_forgets_them():
    row = RightOfWay(4)
    assert row.hear(announce_code(Role.INSIDE, 7), FRONT)
    assert row.hear(announce_code(Role.ROAD, 4), FRONT)  # its own, reflected: consumed, ignored
    assert not row.hear(20 + 3, FRONT)  # a light's code is not for the right of way
    assert set(row.heard) == {7} and row.ahead() == 7
    assert row.higher_ahead(Role.ENTERING) == 7 and row.higher_ahead(Role.INSIDE) is None
    for _ in range(4):
        row.tick(False)
    assert row.heard == {} and row.ahead() is None


def test_says_whom_it_is_blocked_by_every_other_period_after_blocked_count():
    row = RightOfWay(2, blocked_count=5)
    sent = []
    for _ in range(10):
        row.hear(announce_code(Role.ROAD, 9), FRONT)
        sent.append(row.tx(Role.ROAD))
        row.tick(True)
    assert sent[:5] == [announce_code(Role.ROAD, 2)] * 5
    assert blocked_code(9) in sent[5:] and announce_code(Role.ROAD, 2) in sent[5:]
    row.tick(False)
    assert row.tx(Role.ROAD) == announce_code(Role.ROAD, 2)


def test_makes_way_only_for_a_higher_robot_in_front_that_says_it_is_blocked_by_it():
    low = RightOfWay(5)
    low.hear(announce_code(Role.INSIDE, 8), FRONT)
    assert low.must_make_way(Role.ENTERING) is None  # not blocked by it
    low.hear(blocked_code(5), FRONT)
    assert low.must_make_way(Role.ENTERING) == 8
    high = RightOfWay(8)
    high.hear(announce_code(Role.ENTERING, 5), FRONT)
    high.hear(blocked_code(8), FRONT)
    assert high.must_make_way(Role.INSIDE) is None
    behind = RightOfWay(5)  # a robot behind in a queue says so: heard on the rear sensors only
    behind.hear(announce_code(Role.INSIDE, 1), REAR)
    behind.hear(blocked_code(5), REAR)
    assert behind.must_make_way(Role.ROAD) is None


def test_improved_rules_need_an_id_and_check_their_fields():
    with pytest.raises(ValueError, match='robot_id'):
        ControllerParams(traffic_rules='improved')
    with pytest.raises(ValueError, match='traffic_rules'):
        ControllerParams(traffic_rules='polite', robot_id=1)
    with pytest.raises(ValueError, match='kind'):
        ControllerParams(kind='bus')
    with pytest.raises(ValueError, match='robot_id'):
        ControllerParams(robot_id=64)
    assert RoadController(ControllerParams()).tx_value() == 0  # the report's robots send nothing


def _face_off(entering: RoadController, ring: RoadController, steps: int) -> list[tuple[int, int]]:
    """Two robots that drove 2 s, then see each other in front; each hears what the other sent
    last period.
    """
    for _ in range(20):
        entering.step(GREY, CLEAR)
        ring.step(GREY, CLEAR)
    wheels = []
    for _ in range(steps):
        a, b = entering.tx_value(), ring.tx_value()
        entering.on_comm(b, FRONT)
        ring.on_comm(a, FRONT)
        wheels.append(entering.step(GREY, BLOCKED))
        ring.step(GREY, BLOCKED)
    return wheels


def _improved(robot_id: int, **kw) -> RoadController:
    return RoadController(ControllerParams(traffic_rules='improved', robot_id=robot_id, **kw))


def test_of_two_robots_blocking_each_other_the_lower_backs_up_then_waits():
    entering, ring = entering_roundabout(_improved(1)), on_ring(_improved(2))
    assert entering.role() is Role.ENTERING and ring.role() is Role.INSIDE
    wheels = _face_off(entering, ring, 60)
    kinds = [e.kind for e in entering.drain_events()]
    assert 'make_way' in kinds and 'make_way' not in [e.kind for e in ring.drain_events()]
    backing = [w for w in wheels if w[0] < 0 and w[1] < 0]
    # The entering robot (lower role, though lower id) backs up the last 3 s it drove (its code
    # and the 2 s after it), retracing them.
    assert backing == [(-150, -150)] * entering.params.make_way_count
    assert entering.state is State.ACTION  # still entering the same roundabout
    # The marks on the way back are not counted twice: for the distance backed (20 events at 150).
    assert entering.marks_suppressed()
    driven = 0
    while entering.marks_suppressed():
        left, right = entering.step(GREY, CLEAR)
        driven += (left + right) // 2
    assert driven == entering.params.make_way_count * 150  # back where it stood


def test_asked_again_a_robot_backs_further_the_way_it_came():
    """15 robots seed 1 at R2's south-east entry: it had backed its trail once, and asked again
    by a ring robot it could not back at all; the ring robot stood 115 s.
    """
    c = entering_roundabout(_improved(10))
    for k in range(90):  # 9 s of driving: 3 s straight, 3 s turning, 3 s straight
        c.step((500 + (60 if 30 <= k < 60 else 0), 900), CLEAR)
    backed = []
    for _ in range(2):  # asked twice by a ring robot that keeps saying it is blocked
        this_time = []
        while True:  # the second time after the longest hold (make_way_hold_max), standing
            c.on_comm(announce_code(Role.INSIDE, 7), FRONT)
            c.on_comm(blocked_code(10), FRONT)
            wheels = c.step(GREY, BLOCKED)
            if wheels[0] < 0:
                this_time.append(wheels)
            elif this_time and c.mode is not Mode.MAKING_WAY:
                break
        backed += this_time
    assert len(backed) == 2 * c.params.make_way_count
    assert set(backed[:30]) == {(-150, -150)}        # the last 3 s: straight
    assert len(set(backed[30:])) == 1 and backed[30] != (-150, -150)  # then the turn before


def test_after_making_way_a_robot_that_comes_back_faster_reads_from_where_it_stood():
    """10 robots seed 7: it backed a queue's crawl, came back at full speed, and the reading of
    X1's code woke up in its middle when the count was in steps.
    """
    c = _improved(4)
    for _ in range(c.params.make_way_count):
        crawl = c.step(GREY, [0, 0, 1500, 0, 0, 0, 0])  # crawling behind a robot (v2 slows it)
    assert 0 < crawl[0] < 150
    c.on_comm(announce_code(Role.INSIDE, 7), FRONT)  # a ring robot it blocks: it makes way
    c.on_comm(blocked_code(4), FRONT)
    while c.mode is not Mode.HOLDING:
        c.step(GREY, CLEAR)
    while c.mode is Mode.HOLDING:
        wheels = c.step(GREY, CLEAR)  # the step that ends the hold drives on
    backed = c.params.make_way_count * crawl[0]
    driven = wheels[0]
    while c.marks_suppressed():
        wheels = c.step((500, 100), CLEAR)
        assert wheels != (0, 0) and c.state is State.ROAD  # a code under the reading sensor: not read
        driven += wheels[0]
    assert backed <= driven < backed + 150
    c.step((500, 100), CLEAR)
    assert c.state is State.READ


def test_equal_roles_the_higher_id_makes_way():
    a, b = _improved(3), _improved(6)
    _face_off(a, b, 40)
    assert 'make_way' not in [e.kind for e in a.drain_events()]
    assert 'make_way' in [e.kind for e in b.drain_events()]


def test_entering_robot_yields_to_a_ring_robot_it_hears_in_front():
    c = entering_roundabout(_improved(4))
    c.on_comm(announce_code(Role.INSIDE, 9), FRONT)
    assert c.step(GREY, CLEAR) == (0, 0)
    assert [e.kind for e in c.drain_events() if e.kind != 'mode'][-1] == 'yield'
    assert c.mode is Mode.YIELDING
    for _ in range(4):
        c.step(GREY, CLEAR)  # nothing heard since: it drives on
    assert c.step(GREY, CLEAR) != (0, 0)


def test_a_robot_turning_into_a_siding_does_not_yield_to_the_road_but_one_leaving_it_does():
    """Priority seed 11: on L1's S-curve into the siding thymio2 yielded 15 s to a robot held on
    the road lane beside it, and the ambulance, crossing the entry blind behind it, waited as long.
    """
    entering = at_location(_improved(4), 'siding')
    entering.on_comm(announce_code(Role.ROAD, 9), FRONT)
    assert entering.step(GREY, CLEAR) != (0, 0) and entering.mode is not Mode.YIELDING
    leaving = leaving_siding(_improved(4))
    leaving.on_comm(announce_code(Role.ROAD, 9), FRONT)
    assert leaving.step(GREY, CLEAR) == (0, 0) and leaving.mode is Mode.YIELDING


def test_at_a_crossroads_entry_a_robot_yields_to_one_inside_not_to_one_on_the_road():
    """Held-out generated:7096 (15 robots, seed 1, 594 s): two arms of one phase drove in behind
    robots still inside X1, and four robots stood in the square waiting for each other.
    """
    c = at_crossroad(_improved(4))
    c.on_comm(announce_code(Role.ROAD, 9), FRONT)  # one that has left, or not yet in
    assert c.step(GREY, CLEAR) != (0, 0)
    c.on_comm(announce_code(Role.INSIDE, 9), FRONT)
    assert c.step(GREY, CLEAR) == (0, 0) and c.mode is Mode.YIELDING
    for _ in range(4):
        c.step(GREY, CLEAR)  # nothing heard since: it drives on
    assert c.step(GREY, CLEAR) != (0, 0)
    # Past its first mark it is inside itself and drives on.
    inside = crossing_crossroad(_improved(5))
    inside.on_comm(announce_code(Role.INSIDE, 9), FRONT)
    assert inside.step(GREY, CLEAR) != (0, 0)


@pytest.mark.parametrize('where', [leaving_by_link, past_link])
def test_leaving_a_branching_by_its_link_a_robot_yields_to_one_crossing_it(where):
    """Held-out generated:7097 (10 robots, seed 1, 746 s): a robot on B1's link heard the robot
    crossing B1 blind in front of it for 3 s (up to 4082) and drove on into its flank.
    """
    c = where(_improved(4))
    c.on_comm(announce_code(Role.ROAD, 9), FRONT)  # another robot on the road: no yield
    assert c.step(GREY, CLEAR) != (0, 0)
    c.on_comm(announce_code(Role.INSIDE, 8), FRONT)
    assert c.step(GREY, CLEAR) == (0, 0) and c.mode is Mode.YIELDING


def test_a_yielding_robot_backs_out_of_the_ring_when_the_ring_robot_closes_in_on_its_nose():
    """Issue #27: the entry joins the ring tangentially, and a robot that heard the ring robot
    only at the end of its entry stood with its nose in the ring's lane; the ring robot, crossing
    the entry blind, pushed it on its right flank for 6 s (15 robots seed 14, R2's south-east
    entry). Once the ring robot is as close as a stop in front, the yielding robot backs the way
    it came and holds; nearer than that it only yields.
    """
    c = entering_roundabout(_improved(4))
    driven = [c.step(GREY, CLEAR) for _ in range(10)]
    passing = [0, 1500, 2500, 0, 0, 0, 0]  # the ring robot across its nose, not yet as close as a stop
    for _ in range(10):
        c.on_comm(announce_code(Role.INSIDE, 9), passing)
        assert c.step(GREY, passing) == (0, 0) and c.mode is Mode.YIELDING
    closing = [0, 2400, 3300, 0, 0, 0, 0]
    wheels = []
    for _ in range(4):
        c.on_comm(announce_code(Role.INSIDE, 9), closing)
        wheels.append(c.step(GREY, closing))
    assert [e.data for e in c.drain_events() if e.kind == 'make_way'] == \
        [{'for': 9, 'reason': 'in_the_ring_path', 'role': 'entering'}]
    backed = [w for w in wheels if w != (0, 0)]
    assert backed and backed == [(-left, -right) for left, right in driven[::-1][:len(backed)]]
    assert c.mode is Mode.MAKING_WAY


def test_after_making_way_at_an_entry_the_robot_yields_again():
    """generated:7068 (15 robots, 864 s): a robot that spent its yield (yield_max) on a ring robot
    standing in front of the entry made way for it and then drove into the ring at once, in
    front of the next ring robot. Driving on after making way is a new attempt to enter.
    """
    c = entering_roundabout(_improved(7))
    for _ in range(c.params.yield_max):
        c.on_comm(announce_code(Role.INSIDE, 14), FRONT)
        assert c.step(GREY, CLEAR) == (0, 0)
    c.on_comm(announce_code(Role.INSIDE, 14), FRONT)
    assert c.step(GREY, CLEAR) != (0, 0), 'its yield is spent: heard but not in the way'
    c.drain_events()
    for _ in range(c.params.make_way_count + c.params.make_way_hold_max + 5):
        if 'resume' in [e.kind for e in c.drain_events()]:
            break
        driving = c.mode is Mode.DRIVING
        if driving:  # until it makes way, the ring robot in front says "blocked by 7"
            c.on_comm(blocked_code(7), FRONT)
            c.on_comm(announce_code(Role.INSIDE, 14), FRONT)
        c.step(GREY, BLOCKED if driving else CLEAR)
    else:
        raise AssertionError('it never made way and resumed')
    c.on_comm(announce_code(Role.INSIDE, 11), FRONT)  # the next ring robot
    assert c.step(GREY, CLEAR) == (0, 0) and c.mode is Mode.YIELDING


def test_left_names_the_branching():
    """Action.BRANCHING is 0: the 'left' event named no action for a branching."""
    c = past_link(_improved(4))
    assert c.action is None
    assert [e.data['action'] for e in c.drain_events() if e.kind == 'left'] == ['branching']


def test_a_robot_on_the_barcode_ahead_makes_the_improved_robot_wait_not_back_up():
    ground = (500, 100)  # the reading sensor on a black bit: a trigger
    report = RoadController(ControllerParams())
    report.step(ground, BLOCKED)
    assert report.state is State.BACK
    improved = _improved(1)
    assert improved.step(ground, BLOCKED) == (0, 0)
    assert improved.state is State.ROAD
    improved.step(ground, CLEAR)
    assert improved.state is State.READ


def test_a_reading_cut_short_by_making_way_goes_on_where_it_stopped():
    """Held-out generated:7094 (15 robots, seed 2, 699 s): a robot whose reading of a code 7 (one
    black band, 10.8 cm) paused 5 s behind a robot was asked to back; it read the code again
    from where the suppression of marks ended, inside the band, and read 3.
    """
    from thymio_road.control.reading import EVENT_PERIOD, SPEED_CM_PER_UNIT
    c = _improved(4)
    x = 0.0  # cm driven by the reading sensor; the code 7 spans 20.0..30.8 cm

    def step(prox):
        nonlocal x
        ground = (500, 100 if 20.0 <= x < 30.8 else 900)
        wheels = c.step(ground, prox)
        x += (wheels[0] + wheels[1]) / 2 * SPEED_CM_PER_UNIT * EVENT_PERIOD
        return wheels

    while c.state is not State.READ:
        step(CLEAR)
    for _ in range(12):  # 5.8 cm into the band, then a robot in front
        step(CLEAR)
    step(BLOCKED)
    assert c.mode is Mode.PAUSED_READING
    c.on_comm(announce_code(Role.INSIDE, 7), FRONT)  # a ring robot it blocks: it makes way
    c.on_comm(blocked_code(4), FRONT)
    backed = False
    for _ in range(400):
        wheels = step(CLEAR)
        backed = backed or wheels[0] < 0
        if c.state is not State.READ:
            break
    assert backed
    codes = [e.data['code'] for e in c.drain_events() if e.kind == 'barcode']
    assert codes == [7]


def test_reading_pauses_while_a_robot_is_in_front():
    c = _improved(1)
    c.step((500, 100), CLEAR)
    assert c.state is State.READ
    count = c.counter_read
    assert c.step((500, 100), BLOCKED) == (0, 0)
    assert c.counter_read == count  # the timed reading is frozen
    c.step((500, 100), CLEAR)
    assert c.counter_read == count + 1


FACING_THE_LIGHT = [2390, 2480, 0, 0, 0, 0, 0]  # L4's siding exit, 15 robots seed 1


@pytest.mark.parametrize('heard', ['light', 'robot', 'nothing'])
def test_a_reading_paused_facing_a_light_is_abandoned_after_2_s(heard):
    """A false trigger turned the robot towards the light across the road; it never moves. A
    robot it hears in front, or an obstacle with no light near, keeps the reading paused.
    """
    c = _improved(1)
    c.step((500, 100), CLEAR)
    assert c.state is State.READ
    light_code = 20 + 5  # a location light's "stop the road lane" (node 5)
    for _ in range(c.params.facing_light_count):
        if heard == 'light':
            c.on_comm(light_code, [2000, 2000, 0, 0, 0, 0, 0])
        elif heard == 'robot':
            c.on_comm(light_code, [2000, 2000, 0, 0, 0, 0, 0])
            c.on_comm(announce_code(Role.ROAD, 7), [2000, 2000, 0, 0, 0, 0, 0])
        assert c.step((880, 290), FACING_THE_LIGHT) == (0, 0)
    wheels = c.step((880, 290), FACING_THE_LIGHT)
    if heard == 'light':
        assert c.state is State.ROAD
        assert wheels[0] > 0 > wheels[1]  # the road lost on its white side: it spins right
        assert 'read_abandoned' in [e.kind for e in c.drain_events()]
    else:
        assert c.state is State.READ and wheels == (0, 0)


AT_THE_MERGE_FACING_THE_LIGHT = [2386, 2255, 0, 0, 0, 0, 0]  # L5's merge mark, 15 robots seed 4


@pytest.mark.parametrize('heard', ['light', 'robot', 'nothing'])
def test_a_blind_crossing_of_a_locations_merge_facing_its_light_ends_after_2_s(heard):
    """The mark's event turned the road robot towards the light beside the merge, and the blind
    drive held that heading; following the line turns it back to the road. A robot it hears in
    front, or an obstacle with no light near, keeps the crossing stopped.
    """
    c = crossing_location(_improved(1))
    c.drain_events()
    light_code = 40 + 6  # L5's light opens the road lane (node 6)
    for _ in range(c.params.facing_light_count):
        if heard in ('light', 'robot'):
            c.on_comm(light_code, [2000, 2000, 0, 0, 0, 0, 0])
        if heard == 'robot':
            c.on_comm(announce_code(Role.ROAD, 7), [2000, 2000, 0, 0, 0, 0, 0])
        assert c.step((692, 138), AT_THE_MERGE_FACING_THE_LIGHT) == (0, 0)
    wheels = c.step((692, 138), AT_THE_MERGE_FACING_THE_LIGHT)
    if heard == 'light':
        assert c.state is State.ROAD and c.action is None  # past the merge's mark: it has left L5
        assert wheels[0] > wheels[1] >= 0  # on the white side of its line: it turns right, slowly
        assert [e.kind for e in c.drain_events() if e.kind in ('crossing_abandoned', 'left')] == \
            ['crossing_abandoned', 'left']
    else:
        assert c.state is State.CONTINUE and wheels == (0, 0)


def test_the_priority_vehicle_also_ends_a_blind_crossing_that_faces_a_locations_light():
    """It passes reds, yet it knows a light when it hears one: after making way at L1's merge the
    ambulance stood 600 s facing the light beside the road (priority seed 19 before the fix).
    """
    c = crossing_location(_improved(1, kind='priority'))
    c.drain_events()
    for _ in range(c.params.facing_light_count + 1):
        c.on_comm(40 + 6, [2000, 2000, 0, 0, 0, 0, 0])
        c.step((692, 138), AT_THE_MERGE_FACING_THE_LIGHT)
    assert c.state is State.ROAD
    assert 'crossing_abandoned' in [e.kind for e in c.drain_events()]


MERGING_AT_THE_FRONT_RIGHT = [493, 0, 0, 4397, 4502, 0, 0]  # thymio2 out of L1's siding (priority seed 19)


@pytest.mark.parametrize('kind', ['car', 'priority'])
def test_crossing_a_locations_merge_a_silent_robot_at_the_front_right_is_given_way_after_5_s(kind):
    """The robot leaving the siding on its green has the crossing robot at its left, beyond its
    front receivers; it waited 78 s for the ambulance, which passes reds, before giving up. Near
    the light, the crossing does not take that robot for the light either: it backs.
    """
    c = crossing_location(_improved(1, kind=kind))
    driven = [c.step(GREY, CLEAR) for _ in range(10)]
    c.drain_events()
    wheels = []
    for _ in range(c.params.crossing_give_up_count + 5):
        c.on_comm(40 + 6, [0, 0, 0, 0, 2000, 0, 0])  # the light across the road, heard
        wheels.append(c.step(GREY, MERGING_AT_THE_FRONT_RIGHT))
    assert set(wheels[:c.params.crossing_give_up_count]) == {(0, 0)}
    assert wheels[-4:] == [(-left, -right) for left, right in driven[-4:]]
    events = c.drain_events()
    assert [e.data['reason'] for e in events if e.kind == 'make_way'] == ['crossing']
    assert 'crossing_abandoned' not in [e.kind for e in events]


def test_after_making_way_in_a_siding_a_robot_waits_for_its_lights_go_again():
    """10 robots seed 1 at L3: let go by the timeout (a road robot hid the light), it gave up
    its way beside that robot, and came forward again into the next one.
    """
    c = leaving_siding(_improved(4))
    c.current_node = 5  # the navigator's word: the location it is leaving
    made, _ = _blocked(c, c.params.give_up_count + 2 * (63 - 4) + 10)
    assert [e.data['reason'] for e in made] == ['gave_up']
    for _ in range(200):
        if c.stopped_by_light:
            break
        c.step(GREY, CLEAR)
    assert c.stopped_by_light and c.state is State.STOP
    assert [e.data['command'] for e in c.drain_events() if e.kind == 'light'] == ['stop']
    for _ in range(c.params.light_timeout or 50):
        c.on_comm(40 + 5, FRONT)  # the road lane's go: the siding's stop
        assert c.step(GREY, CLEAR) == (0, 0)
    c.on_comm(20 + 5, FRONT)  # the siding's go
    assert c.step(GREY, CLEAR) != (0, 0) and c.state is State.ROAD
    # Not in a light's lane, it drives on after making way, as before.
    free = _improved(4)
    _blocked(free, free.params.give_up_count + 50 + 2 * (63 - 4) + 10)
    for _ in range(200):
        free.step(GREY, CLEAR)
    assert not free.stopped_by_light and free.state is State.ROAD


def test_exit_counts_distance_so_they_stand_still_while_blocked():
    report, improved = RoadController(ControllerParams()), _improved(1)
    for c in (report, improved):
        at_location(c, 'siding')
        assert c.counter == 0
        for _ in range(10):
            c.step(GREY, BLOCKED)
    assert report.counter == 10 and improved.counter == 0


def test_a_road_robot_near_the_merge_is_committed_and_drives_through_the_locations_red():
    report, improved, slowed = RoadController(ControllerParams()), _improved(1), _improved(2)
    for c in (report, improved, slowed):
        at_location(c)  # past the siding's entry mark and its blind crossing
    assert improved.light_context() == ('road', None)  # before: it obeys
    near = [0, 0, 1500, 0, 0, 0, 0]  # a robot ahead: v2 slows it down
    events = 0
    while improved.light_context() is not None:
        improved.step(GREY, CLEAR)
        report.step(GREY, CLEAR)
        slowed.step(GREY, near)
        events += 1
        assert events < 200
    # Committed after crossing + 1 + light_road_count events at the lowest speed from the mark,
    # the blind crossing (slightly slower: its left bias) included.
    assert events == improved.params.light_road_count
    assert report.light_context() == ('road', None)
    assert slowed.light_context() == ('road', None)  # it has not come as far


def test_a_robot_queued_in_the_siding_keeps_obeying_its_light():
    c = leaving_siding(_improved(1))
    for _ in range(100):  # 10 s queued behind another robot in the siding
        c.step(GREY, BLOCKED)
    assert c.light_context() == ('siding', None)
    report = leaving_siding(RoadController(ControllerParams()))
    for _ in range(100):
        report.step(GREY, BLOCKED)
    assert report.light_context() is None


AT_THE_FRONT_LEFT = [3600, 0, 0, 0, 0, 0, 0]  # a robot passing B1 beside the link's merge (15 robots seed 4)


def _leaving_by_the_link(c: RoadController) -> None:
    past_link(c)
    assert 'left' in [e.kind for e in c.drain_events()]


def test_merging_from_a_branchings_link_a_robot_stops_for_one_at_its_front_left():
    c = _improved(3)
    _leaving_by_the_link(c)
    assert c.step(GREY, AT_THE_FRONT_LEFT) == (0, 0)
    for _ in range(c.params.link_merge_count):
        c.step(GREY, CLEAR)  # merged: past the join, the front-left sensor is a side one again
    assert c.step(GREY, AT_THE_FRONT_LEFT) != (0, 0)
    report = RoadController(ControllerParams())
    _leaving_by_the_link(report)
    assert report.step(GREY, AT_THE_FRONT_LEFT) != (0, 0)


def test_past_its_sidings_light_lane_a_merging_robot_still_stops_for_one_at_its_front_left():
    """10 robots seed 9 at L3: the light lane ended 22 cm before the merge, and the road robot
    beside it, seen on the front-left sensor only (3937), was ignored.
    """
    c = leaving_siding(_improved(6))
    for _ in range(c.params.light_siding_count + 1):
        c.step(GREY, CLEAR)
    assert c.light_lane is None
    assert c.step(GREY, AT_THE_FRONT_LEFT) == (0, 0)
    for _ in range(c.params.link_merge_count):
        c.step(GREY, CLEAR)
    assert c.step(GREY, AT_THE_FRONT_LEFT) != (0, 0)


#: A robot in a location's siding 10 cm ahead of a road robot, 13 cm to its right, as the road
#: robot's sensors saw it at generated:7018 (15 robots, 84 s): the right sensor at 3392.
SIDING_ROBOT_AHEAD = [0, 0, 0, 2309, 3392, 0, 0]


def test_a_robot_on_a_locations_road_lane_keeps_behind_a_robot_in_the_siding():
    """Improved rules: it stops behind the siding robot rather than draw level with it (the
    siding curves into the road within a robot's length); near a location's light, past the
    merge's mark, for a priority vehicle and for the report's rules, the right sensor is a side one.
    """
    c = at_location(_improved(3))
    assert c.step(GREY, SIDING_ROBOT_AHEAD) == (0, 0)
    assert c.step(GREY, CLEAR) != (0, 0)
    lit = at_location(_improved(3))
    lit.on_comm(2 + GO)                 # a light manages this merge: its go for the road lane
    assert lit.step(GREY, SIDING_ROBOT_AHEAD) != (0, 0)
    crossing = crossing_location(_improved(3))
    assert crossing.step(GREY, [0, 0, 0, 0, 3392, 0, 0]) != (0, 0)
    report = at_location(RoadController(ControllerParams()))
    assert report.step(GREY, SIDING_ROBOT_AHEAD) != (0, 0)
    ambulance = at_location(_improved(1, kind='priority'))
    assert ambulance.step(GREY, SIDING_ROBOT_AHEAD) != (0, 0)


def test_a_committed_road_robot_keeps_behind_a_siding_robot_when_the_light_no_longer_opens_the_road():
    """final_traffic 15 robots seed 14 at L3: a road robot past its merge commitment, slowed
    by a siding queue, came within hearing of the light during the siding's green and drew level
    with the siding robot the green had let go; they met at the merge. Once the light says the
    road lane is not green (the siding's green, the all red), the siding robot beside it at the
    front right stops it as before the light; its own green (node+40) lets it pass.
    """
    for code, stops in ((2 + STOP, True), (2 + 60, True), (2 + GO, False)):
        c = at_location(_improved(3))
        c.current_node = 2
        while not c.policy.merge_committed(c):
            c.step(GREY, CLEAR)
        c.on_comm(code)
        assert not c.stopped_by_light
        assert (c.step(GREY, SIDING_ROBOT_AHEAD) == (0, 0)) is stops, code
        if stops:
            assert c.step(GREY, CLEAR) != (0, 0)


#: A ring robot the entering robot yielded to, gone on along the ring past the entry and
#: standing in a queue there, at its front right only (generated:7032, 15 robots, 112.6 s).
RING_ROBOT_AT_THE_FRONT_RIGHT = [0, 0, 0, 897, 3679, 0, 0]


def test_a_robot_entering_a_roundabout_stops_for_a_ring_robot_at_its_front_right():
    """Improved rules: the entry turns right into the ring, where only the right sensor sees the
    ring robot; on the ring, and for the report's rules, that sensor is a side one.
    """
    c = entering_roundabout(_improved(1))
    assert c.step(GREY, RING_ROBOT_AT_THE_FRONT_RIGHT) == (0, 0)
    assert c.step(GREY, CLEAR) != (0, 0)
    ring = on_ring(_improved(1))
    assert ring.step(GREY, RING_ROBOT_AT_THE_FRONT_RIGHT) != (0, 0)
    report = entering_roundabout(RoadController(ControllerParams()))
    assert report.step(GREY, RING_ROBOT_AT_THE_FRONT_RIGHT) != (0, 0)


def test_a_robot_held_by_a_light_drives_on_for_a_priority_vehicle_behind_it():
    c = at_crossroad(_improved(2))
    c.previous_node = 1  # the navigator's word: the node it came from
    c.on_comm(21)  # node 1 + 20: stop
    assert c.stopped_by_light and c.step(GREY, CLEAR) == (0, 0)
    c.on_comm(announce_code(Role.PRIORITY, 9), DIAGONALLY_BEHIND)  # in the lane beside: not for it
    assert c.step(GREY, CLEAR) == (0, 0) and c.stopped_by_light
    c.on_comm(announce_code(Role.PRIORITY, 9), RIGHT_BEHIND)
    assert c.step(GREY, CLEAR) != (0, 0) and not c.stopped_by_light
    c.on_comm(announce_code(Role.PRIORITY, 9), RIGHT_BEHIND)
    c.on_comm(21)
    assert not c.stopped_by_light  # not stopped again while it is behind
    ambulance = at_crossroad(_improved(9, kind='priority'))
    ambulance.previous_node = 1
    ambulance.on_comm(21)
    assert not ambulance.stopped_by_light and ambulance.role() is Role.PRIORITY


def test_the_ambulance_closes_up_on_a_robot_it_hears_until_that_robot_can_hear_it():
    """Priority seed 3: stopped at 17 cm (front 3111) behind a robot held by L4's light, it heard
    that robot but was not heard: the rear receivers reach 15.5 cm. A car stops there.
    """
    at_17_cm = [0, 269, 3111, 269, 0, 0, 0]
    ambulance, car = _improved(1, kind='priority'), _improved(2)
    for c in (ambulance, car):
        c.on_comm(announce_code(Role.ROAD, 9), FRONT)
    left, right = ambulance.step(GREY, at_17_cm)
    assert 0 < left < 150 and 0 < right < 150   # creeping
    assert car.step(GREY, at_17_cm) == (0, 0)
    assert ambulance.step(GREY, [0, 208, 3767, 208, 0, 0, 0]) == (0, 0)  # 14 cm: it stops
    unknown = _improved(1, kind='priority')  # nobody heard: an obstacle, the usual distance
    assert unknown.step(GREY, at_17_cm) == (0, 0)


def _queued_at_a_light(robot_id: int, hear_behind: int, held: bool = False) -> RoadController:
    """A road robot in a location's road lane, in a queue at the light (held by it, or behind one
    that says it waits), hearing `hear_behind` right behind it.
    """
    c = at_location(_improved(robot_id))
    c.current_node = 2  # the navigator's word: location node 2
    if held:
        c.on_comm(2 + STOP)
    else:
        c.on_comm(announce_code(Role.INSIDE, 7), FRONT)
        c.on_comm(waiting_code(7), FRONT)
        c.step(GREY, BLOCKED)
    c.on_comm(hear_behind, RIGHT_BEHIND)
    return c


def _sent(c: RoadController, events: int = 2) -> set[int]:
    sent = set()
    for _ in range(events):
        c.right_of_way.tick(c.obstructed)
        sent.add(c.tx_value())
    return sent


def test_a_queue_at_a_light_passes_priority_behind_forward_to_the_robot_the_light_holds():
    """Queues stand 17 cm apart, and a robot's rear receivers hear the one behind only up to
    15.5 cm: each robot that has the news closes up and says it, instead of "waiting".
    """
    ambulance = announce_code(Role.PRIORITY, 1)
    last = _queued_at_a_light(2, ambulance)          # right in front of the ambulance
    assert _sent(last) == {announce_code(Role.INSIDE, 2), priority_behind_code(2)}
    middle = _queued_at_a_light(3, priority_behind_code(2))
    assert middle.right_of_way.closes_up_for_priority()
    assert _sent(middle) == {announce_code(Role.INSIDE, 3), priority_behind_code(3)}
    # It drives on from 17 cm (front 3111) to 15 cm, where the robot in front hears it.
    middle.on_comm(announce_code(Role.INSIDE, 7), FRONT)
    middle.on_comm(priority_behind_code(7), FRONT)   # the one in front waits too: still a queue
    left, right = middle.step(GREY, [0, 269, 3111, 269, 0, 0, 0])
    assert 0 < left and 0 < right
    assert middle.step(GREY, [0, 208, 3767, 208, 0, 0, 0]) == (0, 0)
    # The robot the light holds says it too (for the light), but does not run the red: only the
    # one right in front of the ambulance does (a whole queue that ran it met the siding's robots).
    head = _queued_at_a_light(4, priority_behind_code(3), held=True)
    assert priority_behind_code(4) in _sent(head)
    assert head.stopped_by_light and head.step(GREY, CLEAR) == (0, 0)
    # Heard from the lane beside, the news is not for it.
    beside = _improved(5)
    beside.on_comm(priority_behind_code(3), DIAGONALLY_BEHIND)
    assert beside.right_of_way.priority_passed_on is None
    # Without an ambulance nothing of it is said.
    plain = _queued_at_a_light(6, announce_code(Role.ROAD, 9))
    assert _sent(plain) == {announce_code(Role.INSIDE, 6), waiting_code(6)}
    assert not plain.right_of_way.closes_up_for_priority()


def test_the_ambulance_closes_up_at_a_barcodes_trigger_too():
    """Priority seed 3: on the trigger of X1's code, 23 cm behind a robot held at X1's south
    arm (front 1400), it waited at the usual threshold and was not heard for 39 s.
    """
    ambulance, car = _improved(1, kind='priority'), _improved(2)
    for c in (ambulance, car):
        c.on_comm(announce_code(Role.ROAD, 9), FRONT)
        assert c.policy.front_limit(c) == (3700 if c is ambulance else c.params.obs_threshold)
    lone = _improved(1, kind='priority')
    assert lone.policy.front_limit(lone) == ControllerParams().obs_threshold  # nobody heard


def test_a_queued_robot_with_the_news_closes_up_at_a_barcodes_trigger_too():
    """Priority seed 11: with the news of the ambulance behind it, a robot waited on the trigger
    of X1's code 23.5 cm behind the robot X1's light held, which never heard it; the ambulance
    waited behind both for the light's own cycle.
    """
    middle = _queued_at_a_light(3, priority_behind_code(2))
    middle.on_comm(waiting_code(7), FRONT)
    middle.on_comm(announce_code(Role.ROAD, 7), FRONT)
    assert middle.policy.front_limit(middle) == middle.params.priority_close_threshold
    plain = _queued_at_a_light(6, announce_code(Role.ROAD, 9))
    plain.on_comm(waiting_code(7), FRONT)
    plain.on_comm(announce_code(Role.ROAD, 7), FRONT)
    assert plain.policy.front_limit(plain) == plain.params.obs_threshold


def _blocked(robot, steps, hear=()):
    """Drive 2 s, then stand blocked in front for `steps` events, hearing `hear` each event;
    returns the make_way events and what the robot sent.
    """
    for _ in range(20):
        robot.step(GREY, CLEAR)
    sent = []
    for _ in range(steps):
        for code in hear:
            robot.on_comm(code, FRONT)
        robot.step(GREY, BLOCKED)
        sent.append(robot.tx_value())
    return [e for e in robot.drain_events() if e.kind == 'make_way'], sent


def test_blocked_long_a_robot_gives_up_its_way_later_in_a_queue_at_a_light():
    """Away from lights a robot blocked give_up_count (30 s) makes way itself; in a queue at a
    light (a light heard lately, or a robot in front that says it waits) only after 60 s.
    """
    alone, _ = _blocked(_improved(5, give_up_stagger=0), 320)
    assert [e.data['reason'] for e in alone] == ['gave_up']
    for hear in ([STOP + 7], [waiting_code(9)]):
        early, _ = _blocked(_improved(5, give_up_stagger=0), 590, hear)
        assert early == []
        late, _ = _blocked(_improved(5, give_up_stagger=0), 620, hear)
        assert [e.data['reason'] for e in late] == ['gave_up']


def test_of_two_robots_blocked_together_the_lower_in_priority_gives_up_first():
    """15 robots seed 4 at R2's north-east entry: a ring robot and an entering one that did not
    hear each other's "blocked by" gave up at the same event, and came back together.
    """
    def gives_up_after(c):
        events = 0
        while not any(e.kind == 'make_way' for e in c.drain_events()):
            c.step(GREY, BLOCKED)
            events += 1
        return events
    # The ring robot follows the ring (not the blind crossing's rule).
    ring, entering = on_ring(_improved(6)), entering_roundabout(_improved(11))
    assert (ring.role(), entering.role()) == (Role.INSIDE, Role.ENTERING)
    first, then = gives_up_after(entering), gives_up_after(ring)
    # The count reaches its mark at the end of an event; the robot backs at the next.
    assert first == 300 + 2 * (63 - 11) + 1         # 40.5 s
    assert then == 300 + 2 * 50 + 2 * (63 - 6) + 1  # 51.5 s: 11 s later; the other has backed by then
    # Equal roles: the higher id gives up first.
    assert gives_up_after(_improved(9)) < gives_up_after(_improved(8))


def test_a_queue_at_a_light_says_so_down_the_line_and_asks_nobody_to_make_way():
    held = at_location(_improved(2))
    held.current_node = 2
    held.on_comm(STOP + 2)  # the location's light stops its road lane
    assert held.stopped_by_light
    codes = set()
    for _ in range(4):
        held.right_of_way.tick(False)
        codes.add(held.tx_value())
    assert codes == {announce_code(held.role(), 2), waiting_code(2)}
    # Behind it: blocked, it hears "waiting" and passes it on instead of "blocked by".
    _, sent = _blocked(_improved(5), 40, [announce_code(Role.ROAD, 2), waiting_code(2)])
    assert waiting_code(5) in sent and blocked_code(2) not in sent
    # Blocked behind a robot that does not wait, it asks it to make way.
    _, sent = _blocked(_improved(5), 40, [announce_code(Role.ROAD, 2)])
    assert blocked_code(2) in sent and waiting_code(5) not in sent


def test_a_robot_that_must_make_way_asks_the_one_close_behind_it_to_back_up_too():
    """15 robots seeds 1 and 6 at R2's south-east entry: the entering robot, asked by a ring robot
    to make way, could not back with the next robot 17 cm behind it; the three stood 63 and 116 s.
    """
    entering, behind = _improved(4), _improved(11)
    for c in (entering, behind):
        entering_roundabout(c)
        for _ in range(20):
            c.step(GREY, CLEAR)
    close_behind = [0, 0, 0, 0, 0, 3484, 0]
    sent = set()
    for _ in range(6):
        entering.on_comm(announce_code(Role.INSIDE, 12), FRONT)
        entering.on_comm(blocked_code(4), FRONT)        # the ring robot: "blocked by 4"
        entering.on_comm(announce_code(Role.ENTERING, 11), REAR)
        assert entering.step(GREY, close_behind) == (0, 0)  # making way, it cannot back
        sent.add(entering.tx_value())
    assert back_up_code(11) in sent
    assert [e.data['reason'] for e in entering.drain_events() if e.kind == 'make_way'] == ['outranked']
    # Behind it: it hears "back up" addressed to it on its front sensors, and backs the way it came.
    behind.on_comm(back_up_code(11), FRONT)
    wheels = behind.step(GREY, CLEAR)
    assert wheels[0] < 0 and wheels[1] < 0
    assert [e.data for e in behind.drain_events() if e.kind == 'make_way'] == \
        [{'for': 0, 'reason': 'asked_back', 'role': 'entering'}]
    # Addressed to another robot, or heard from behind, it is not for this one.
    for code, where in ((back_up_code(12), FRONT), (back_up_code(11), REAR)):
        other = _improved(11)
        for _ in range(20):
            other.step(GREY, CLEAR)
        other.on_comm(code, where)
        assert other.step(GREY, CLEAR)[0] > 0


AT_THE_FRONT_RIGHT = [0, 0, 0, 1305, 4200, 0, 0]  # the ambulance pushed in at R2 (priority seed 4)


def _crossing_ring(robot_id: int, marks: int = 2, action: Action = Action.ROUNDABOUT) -> RoadController:
    """Crossing blind: on a roundabout's ring past its `marks`-th mark, or a crossroad straight."""
    c = _improved(robot_id)
    return crossing_crossroad(c) if action is Action.CROSSROAD else crossing_ring(c, marks)


@pytest.mark.parametrize('action', [Action.ROUNDABOUT, Action.CROSSROAD])
def test_a_blind_crossing_stopped_by_a_silent_robot_at_its_front_right_makes_way_after_5_s(action):
    """Driving on brings it closer to the robot that came in there (R2's entries; the ambulance
    passing X1's red); only backing frees the way.
    """
    c = _crossing_ring(10, action=action)
    driven = [c.step(GREY, CLEAR) for _ in range(10)]
    wheels = [c.step(GREY, AT_THE_FRONT_RIGHT) for _ in range(c.params.crossing_give_up_count + 5)]
    assert set(wheels[:c.params.crossing_give_up_count]) == {(0, 0)}
    assert wheels[-4:] == [(-left, -right) for left, right in driven[-4:]]  # backing up the way it came
    made = [e.data for e in c.drain_events() if e.kind == 'make_way']
    assert made == [{'for': 0, 'reason': 'crossing', 'role': 'inside'}]


@pytest.mark.parametrize('where', ['ring', 'link', 'ambulance'])
def test_a_robot_blocked_by_one_that_cannot_back_backs_itself_after_5_s(where):
    """The robot in front makes way for this one, but asks the robot behind it to back up, which
    does not hear it: 113 s at R2's south-east entry (15 robots seeds 2 and 6: the ring robot
    crossing the entry, the entering robot with the next one behind it); 48 s at B1, and then a
    wrong-way drive (10 robots seed 2: two robots on the crossing links).
    """
    if where == 'ring':
        c = _crossing_ring(14)
    else:
        c = leaving_by_link(_improved(2, kind='priority' if where == 'ambulance' else 'car'))
    for _ in range(10):
        c.step(GREY, CLEAR)
    facing = [0, 0, 3300, 2900, 0, 0, 0]
    for _ in range(c.params.crossing_give_up_count + 2):
        c.on_comm(announce_code(Role.ENTERING if where == 'ring' else Role.ROAD, 5), facing)
        c.on_comm(back_up_code(8), facing)  # to the robot behind it
        c.step(GREY, facing)
    made = [e.data for e in c.drain_events() if e.kind == 'make_way']
    if where == 'ambulance':
        assert made == []  # a priority vehicle never gives up its way
    else:
        assert made == [{'for': 5, 'reason': 'cannot_back', 'role': c.role().name.lower()}]


@pytest.mark.parametrize('where', ['exit', 'link'])
def test_on_a_branchings_link_a_silent_robot_at_the_front_right_is_given_way_after_5_s(where):
    """B1's links cross each other: leaving by one, a robot met one coming up the other at its
    front right, neither heard the other, and they stood 47 s (15 robots seed 8).
    """
    c = _improved(6)
    if where == 'link':
        past_link(c)
    else:
        leaving_by_link(c)
    for _ in range(10):
        c.step(GREY, CLEAR)
    at_the_crossing = [0, 0, 0, 3400, 4200, 0, 0]
    for _ in range(c.params.crossing_give_up_count + 2):
        c.step(GREY, at_the_crossing)
    assert [e.data['reason'] for e in c.drain_events() if e.kind == 'make_way'] == ['crossing']
    # Past the link's merge it is on the road again: the usual 30 s.
    c = _improved(6)
    _leaving_by_the_link(c)
    for _ in range(c.params.link_merge_count + 10):
        c.step(GREY, CLEAR)
    for _ in range(c.params.crossing_give_up_count + 2):
        c.step(GREY, at_the_crossing)
    assert 'make_way' not in [e.kind for e in c.drain_events()]


#: A robot nose to nose with another where B1's links cross (15 robots seed 12, 289 s: 21 cm
#: apart, thymio14 heard thymio2, thymio2 never heard thymio14): its middle sensors above v2's stop.
NOSE_TO_NOSE = [0, 1200, 3400, 3100, 0, 0, 0]


@pytest.mark.parametrize('heard', ['higher', 'lower', 'nobody'])
def test_on_crossing_links_the_lower_robot_makes_way_without_being_asked(heard):
    """thymio14 said "blocked by 2" for 43 s at B1; thymio2 never heard it, and both stood until
    thymio14 gave up (15 robots seed 12). On a link the robot that hears a higher one in front
    makes way after 5 s unasked; one that hears nobody makes way a stagger later (lower ranks
    first); one that hears a lower robot waits for it.
    """
    c = leaving_by_link(_improved(14))
    for _ in range(10):
        c.step(GREY, CLEAR)
    other = {'higher': 2, 'lower': 20, 'nobody': None}[heard]
    patience = c.params.crossing_give_up_count + (0 if heard == 'higher' else 2 * (MAX_ID - 14))
    steps = patience + 2
    for _ in range(steps):
        if other is not None:
            c.on_comm(announce_code(Role.ROAD, other), NOSE_TO_NOSE)
        c.step(GREY, NOSE_TO_NOSE)
    made = [(e.data['reason'], e.data['for']) for e in c.drain_events() if e.kind == 'make_way']
    if heard == 'higher':
        assert made == [('crossing_links', 2)]
    elif heard == 'nobody':
        assert made == [('crossing_links', 0)]
    else:
        assert made == []
    # On the road, the same robots wait to be asked (or the usual 30 s).
    road = _improved(14)
    for _ in range(10):
        road.step(GREY, CLEAR)
    for _ in range(steps):
        if other is not None:
            road.on_comm(announce_code(Role.ROAD, other), NOSE_TO_NOSE)
        road.step(GREY, NOSE_TO_NOSE)
    assert 'make_way' not in [e.kind for e in road.drain_events()]


def test_on_crossing_links_a_robot_unheard_makes_way_only_after_its_stagger():
    """Two robots that hear nobody do not back, hold and come back together: the higher rank
    (lower id) waits 2 events longer per id.
    """
    def blocked_until_made_way(robot_id):
        c = leaving_by_link(_improved(robot_id))
        for _ in range(10):
            c.step(GREY, CLEAR)
        for n in range(1, 400):
            c.step(GREY, NOSE_TO_NOSE)
            if any(e.kind == 'make_way' for e in c.drain_events()):
                return n
    assert blocked_until_made_way(2) - blocked_until_made_way(14) == 2 * 12


def test_turning_onto_a_branchings_link_watches_the_front_right_sensor():
    """A robot standing at the link's start, 41° to the right of the next robot leaving by the
    same link, was driven into for 6.4 s (15 robots seed 12, 308 s).
    """
    at_the_links_start = [0, 0, 0, 300, 3600, 0, 0]
    c = leaving_by_link(_improved(13))
    assert c.step(GREY, at_the_links_start) == (0, 0)
    road = _improved(13)
    assert road.step(GREY, at_the_links_start) != (0, 0)


@pytest.mark.parametrize('rules', ['improved', 'report'])
def test_a_codes_last_bit_under_the_sensor_when_the_read_ends_is_not_a_mark(rules):
    """X1's light stopped a robot 0.01 s after it read code 5, its reading sensor still on the
    last bit; on the go it took the bit for the first mark, left X1 on its circle and the
    crossroad jammed (15 robots seed 16, 912 s). The report's robots take it (its warning, §5).
    """
    c = _improved(4) if rules == 'improved' else RoadController(ControllerParams())
    first, second, third, end = c.read_schedule()
    c.step((500, 100), CLEAR)  # the trigger
    for count in range(2, end + 1):
        c.step((500, 100 if count in (first, third, end) else 900), CLEAR)  # code 5, ends on its last bit
    assert c.state is State.ACTION and c.action is Action.CROSSROAD
    c.step((500, 100), CLEAR)  # still on the last bit
    decided = [e for e in c.drain_events() if e.kind == 'decision']
    if rules == 'report':
        assert len(decided) == 1
        return
    assert decided == [] and c.state is State.ACTION
    c.step(GREY, CLEAR)  # white: past the code
    c.step((500, 100), CLEAR)  # the crossroad's first mark
    assert [e.kind for e in c.drain_events()].count('decision') == 1


@pytest.mark.parametrize('why', ['ahead', 'heard', 'own entry'])
def test_the_ring_rule_waits_the_usual_30_s_for_a_robot_ahead_heard_or_at_its_own_entry(why):
    c = _crossing_ring(10, 1 if why == 'own entry' else 2)
    prox = [0, 0, 2000, 1305, 0, 0, 0] if why == 'ahead' else AT_THE_FRONT_RIGHT
    for _ in range(2 * c.params.crossing_give_up_count):
        if why == 'heard':
            c.on_comm(announce_code(Role.ENTERING, 3), [0, 0, 0, 3100, 0, 0, 0])
        assert c.step(GREY, prox) == (0, 0)
    assert 'make_way' not in [e.kind for e in c.drain_events()]


@pytest.mark.parametrize('state', ['road', 'entering', 'crossing', 'link', 'siding'])
def test_no_reason_to_make_way_fires_for_a_quiet_robot(state):
    """The selector skips the reasons for a robot that is not blocked and asked nothing
    (RightOfWay.quiet): every registered reason must agree, whatever the robot hears besides.
    """
    from thymio_road.control.percept import Percept
    from thymio_road.control.rules import Reason, REGISTRY
    c = _improved(5)
    {'road': lambda c: None, 'entering': entering_roundabout, 'crossing': crossing_ring, 'link': leaving_by_link,
     'siding': leaving_siding}[state](c)
    c.on_comm(announce_code(Role.INSIDE, 9), FRONT)   # heard, but asking nothing
    c.on_comm(waiting_code(9), FRONT)
    assert c.right_of_way.quiet()
    for prox in (CLEAR, BLOCKED, AT_THE_FRONT_RIGHT):
        percept = Percept(GREY, prox)
        for name, cls in REGISTRY.items():
            if issubclass(cls, Reason):
                assert c.policy.rules[name].fires(c, c.role(), percept) is None, name


def test_making_way_inside_a_crossroad_is_undone_exactly_before_the_crossing_goes_on():
    """Issue #27: backed out of its crossing and driven on by its count, a robot ended on X1's
    circle with its passage counted as done. Inside an intersection the counts stand still while
    it backs and holds, and it drives the commands it backed forwards again (waiting while
    something is in front) before the crossing's count runs on from where it stopped.
    """
    c = _crossing_ring(10, action=Action.CROSSROAD)
    driven = [c.step(GREY, CLEAR) for _ in range(10)]
    counter, marks = c.counter, c.counter_continue
    wheels = []
    while c.mode is not Mode.HOLDING:
        wheels.append(c.step(GREY, AT_THE_FRONT_RIGHT))
        assert (c.state, c.counter, c.counter_continue) == (State.CONTINUE, counter, marks)
    backed = [w for w in wheels if w != (0, 0)]
    assert backed[:10] == [(-left, -right) for left, right in driven[::-1]]  # the way it came, the last step first
    w = (0, 0)
    while w == (0, 0):  # holding; the step that ends the hold drives the first command back
        w = c.step(GREY, CLEAR)
        assert c.counter == counter
    assert c.mode is Mode.RETURNING
    assert c.step(GREY, BLOCKED) == (0, 0) and c.mode is Mode.RETURNING  # something in front: it waits
    returned = [w] + [c.step(GREY, CLEAR) for _ in backed[1:]]
    assert returned == [(-left, -right) for left, right in backed[::-1]] and returned[-10:] == driven
    assert c.counter == counter and c.mode is not Mode.RETURNING
    c.step(GREY, CLEAR)
    assert c.counter == counter + 1  # the crossing's count runs on
    assert [e.kind for e in c.drain_events() if e.kind in ('make_way', 'resume', 'returned')] == \
        ['make_way', 'resume', 'returned']


def test_making_way_on_a_road_still_drives_on_by_line_following():
    """Outside intersections the robot finds its line again: no exact return there."""
    c = _improved(3)
    for _ in range(10):
        c.step(GREY, CLEAR)
    c.policy.make_way.start(c, 5, 'outranked', c.role())
    while c.policy.make_way.active():
        c.step(GREY, CLEAR)
    assert c.policy.make_way.owed == [] and c.mode is Mode.DRIVING
