# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import pytest

from controller_situations import at_location, choosing, CODES, cross, fingerprint, GREY, mark, read_code
from thymio_road.control.controller import Action, adiv, ControllerParams, led_colour, RoadController, State

CLEAR = [0] * 7


def test_aseba_division_truncates_toward_zero():
    assert adiv(7, 2) == 3
    assert adiv(-7, 2) == -3
    assert adiv(7, -2) == -3
    assert adiv(-7, -2) == 3


def test_road_p_control_uses_gain_3_on_the_left_ground_sensor():
    c = RoadController(ControllerParams(speed=260))
    # 30 units whiter than GREY_REF: the follow sensor drifted left, turn right.
    assert c.step([530, 900], CLEAR) == (270, 250)
    assert c.step([470, 900], CLEAR) == (250, 270)
    assert c.step([499, 900], CLEAR) == (260, 260)  # -1/3 truncates to 0 as in Aseba


def test_spin_in_place_when_the_road_is_lost():
    c = RoadController(ControllerParams(speed=260))
    assert c.step([938, 938], CLEAR) == (109, -109)  # (938-500)/4
    assert c.step([77, 900], CLEAR) == (-105, 105)


def test_avoidance_v2_slows_in_proportion_then_stops():
    c = RoadController(ControllerParams(speed=150))
    prox = [0, 0, 1740, 0, 0, 0, 0]
    # (1740-1000) / (75 / (1 + 150/150)) = 740 / 37 = 20
    assert c.step([500, 900], prox) == (130, 130)
    assert c.step([500, 900], [0, 3100, 0, 0, 0, 0, 0]) == (0, 0)
    fast = RoadController(ControllerParams(speed=410))
    # 75 / (1 + 410/150) = 75 / 3 = 25
    assert fast.step([500, 900], prox) == (410 - 29, 410 - 29)


def test_avoidance_v1_stops_above_the_first_threshold():
    c = RoadController(ControllerParams(speed=260, avoidance='v1'))
    assert c.step([500, 900], [0, 0, 1200, 0, 0, 0, 0]) == (0, 0)


def test_stop_and_start_buttons_emit_state_events():
    c = RoadController()
    c.stop()
    assert c.step([500, 900], CLEAR) == (0, 0)
    c.start()
    assert c.state is State.ROAD
    events = c.drain_events()
    assert [e.data['to'] for e in events if e.kind == 'state'] == ['STOP', 'ROAD']
    # STOP by the button is told apart from a delivery or a light's hold by the mode.
    assert [e.data['to'] for e in events if e.kind == 'mode'] == ['stopped', 'driving']
    assert c.drain_events() == []


def test_led_colour_shows_speed_on_the_road():
    assert led_colour(RoadController(ControllerParams(speed=150))) == (32, 24, 0)
    # Appendix A: green = (3 - (speed - LOW) / LOW) * 8, integer division
    assert led_colour(RoadController(ControllerParams(speed=410))) == (32, 16, 0)


def test_led_colour_shows_the_intersection_kind():
    c = RoadController()
    read_code(c, 7)  # roundabout: actionType 1
    assert led_colour(c) == (0, 10, 20)
    c = RoadController()
    read_code(c, 6)  # location: actionType 3
    assert led_colour(c) == (0, 30, 0)


@pytest.mark.parametrize('bad', [{'avoidance': 'v3'}, {'speed_low': 0}, {'grey_ref': 2000}, {'speed': 900}])
def test_bad_parameters_are_rejected(bad):
    with pytest.raises(ValueError, match=list(bad)[0]):
        ControllerParams(**bad)


def run_events(controller, readings):
    """Feed (follow, read) pairs; return the barcode events."""
    for follow, read in readings:
        controller.step([follow, read], CLEAR)
    return [e for e in controller.drain_events() if e.kind == 'barcode']


@pytest.mark.parametrize('speed,counts', [(150, (8, 13, 18, 23)), (260, (5, 8, 11, 14)), (410, (3, 5, 7, 9))])
def test_read_schedule_is_appendix_a_integer_arithmetic(speed, counts):
    # interval = 2*410/speed: 5, 3, 2; samples at 1 + ((2k+1)i - 1)/2
    assert RoadController(ControllerParams(speed=speed)).read_schedule() == counts


@pytest.mark.parametrize('speed', [100, 150, 200, 260])
def test_centred_samples_stay_inside_their_bits_for_robots_off_eq1(speed):
    """Wherever in its first event the trigger fired, and for a robot 3 % short of eq. (1) or
    over it, each centred sample lies inside its bit with at least 3 mm to spare; READ still ends
    at the report's count. (At 410 a 1.31 cm event leaves no fixed schedule that room: the
    matched decoding's case, docs/barcodes.md.)
    """
    from thymio_road.control.reading import BIT_CM
    centred = RoadController(ControllerParams(speed=speed, read_method='centred'))
    report = RoadController(ControllerParams(speed=speed)).read_schedule()
    *samples, end = centred.read_schedule()
    assert end == report[3] and samples[-1] <= end
    for error in (-0.03, 0.0, 0.03):
        step = centred.step_cm * (1 + error)
        for phase in (0.0, 0.5, 0.999):
            for k, count in enumerate(samples, start=1):
                at = (phase + count - 1) * step   # from the start of the sync bit
                assert k * BIT_CM + 0.3 <= at <= (k + 1) * BIT_CM - 0.3, (error, phase, k, at)


@pytest.mark.parametrize('speed,counts', [(150, (8, 13, 19, 23)), (260, (5, 8, 11, 14)), (410, (4, 6, 8, 9))])
def test_inset_samples_are_the_reports_moved_on_into_their_bits(speed, counts):
    """Each of the report's counts, moved on by whole events until it lies 2 mm into its bit for
    a trigger at the sync bit's edge: at 150 only bit 3 moves, at 260 none; READ ends as the
    report's. Late triggers keep room: the third sample stays more than 2 cm before the code's
    end at 150.
    """
    from thymio_road.control.reading import BIT_CM
    c = RoadController(ControllerParams(speed=speed, read_method='inset'))
    assert c.read_schedule() == counts
    report = RoadController(ControllerParams(speed=speed)).read_schedule()
    assert counts[3] == report[3] and all(a >= b for a, b in zip(counts, report))
    for k, count in enumerate(counts[:3], start=1):
        assert (count - 1) * c.step_cm >= k * BIT_CM + 0.2
    if speed == 150:
        assert 4 * BIT_CM - (counts[2] - 1) * c.step_cm > 2.0


def test_the_reports_third_sample_at_150_is_at_the_edge_of_its_bit():
    """Why the centred samples: at 150 the report's third sample is 0.6 mm into bit 3 when the
    trigger fired at the sync bit's edge, so a robot 2 % short of eq. (1) reads bit 3 in bit 2.
    """
    from thymio_road.control.reading import BIT_CM
    c = RoadController(ControllerParams(speed=150))
    third = c.read_schedule()[2]
    assert (third - 1) * c.step_cm - 3 * BIT_CM == pytest.approx(0.06)
    assert (third - 1) * c.step_cm * 0.98 < 3 * BIT_CM


def test_read_decodes_the_samples_and_returns_to_road_with_the_new_speed():
    c = RoadController(ControllerParams(speed=260))
    first, second, third, end = c.read_schedule()
    readings = []
    for count in range(1, end + 1):
        black = count == 1 or count in (first, third)  # trigger, then bits 1 and 3 black: code 5
        readings.append((500, 100 if black else 900))
    events = run_events(c, readings)
    assert [e.data['code'] for e in events] == [5]
    assert c.state is State.ACTION and c.speed == 150  # code 5 announces a crossroad
    c2 = RoadController(ControllerParams(speed=260))
    readings = [(500, 100 if count in (1, first, second) else 900) for count in range(1, end + 1)]
    assert [e.data['code'] for e in run_events(c2, readings)] == [3]
    assert c2.speed == 410  # code 3: high speed


def test_read_state_uses_gain_6():
    c = RoadController(ControllerParams(speed=260))
    c.step([500, 100], CLEAR)  # trigger
    assert c.state is State.READ
    assert c.step([560, 900], CLEAR) == (270, 250)  # 60 / 6 = 10


def test_security_blocks_triggers_from_the_white_side():
    c = RoadController(ControllerParams(speed=260))
    c.step([700, 100], CLEAR)  # follow sensor at GREY_REF + 200: no trigger
    assert c.state is State.ROAD
    c.step([699, 100], CLEAR)
    assert c.state is State.READ


def test_strict_security_needs_printed_black():
    strict = RoadController(ControllerParams(trigger_security='strict'))
    strict.step([500, 250], CLEAR)  # dark road edge, not a black bit
    assert strict.state is State.ROAD
    strict.step([500, 90], CLEAR)
    assert strict.state is State.READ


@pytest.mark.parametrize('action', ['location', 'branching'])
def test_strict_security_at_a_locations_marks_asks_only_for_printed_black(action):
    """15 robots seed 6 at L2: the line following swung ±100 from one event to the next after a
    light's hold, and the merge mark (read 86) was missed at follow 603, 395, 600, 381.
    """
    c = RoadController(ControllerParams(trigger_security='strict'))
    read_code(choosing(c, 'continue'), CODES[Action[action.upper()]])
    mark(c)
    cross(c)
    assert c.state is State.ACTION and c.counter_continue == 1
    c.step([603, 250], CLEAR)  # the siding exit's band beside the mark: not printed black
    assert c.state is State.ACTION
    c.step([603, 86], CLEAR)
    assert c.state is (State.CONTINUE if action == 'location' else State.ACTION)


def test_strict_security_in_a_siding_triggers_the_locations_name_on_printed_black():
    """15 robots seed 29 at L5: 4 cm after the siding's S-curve the follow sensor swung 396, 600,
    331 while the reading sensor was on the name's first bit (90, 79, 88); held back until it
    settled, the trigger came 2 cm into the bits and code 5 was read as 4.
    """
    c = at_location(RoadController(ControllerParams(trigger_security='strict')), 'siding')
    c.step(GREY, CLEAR)  # past the entry mark: the next barcode names the place
    c.step((396, 250), CLEAR)  # the road's dark edge: not printed black
    assert c.state is State.EXIT
    c.step((600, 90), CLEAR)
    assert c.state is State.READ
    # On the road the strict security still asks for the follow sensor near its reference.
    road = RoadController(ControllerParams(trigger_security='strict'))
    road.step((600, 90), CLEAR)
    assert road.state is State.ROAD


def test_read_only_mode_keeps_the_speed():
    c = RoadController(ControllerParams(speed=150, barcode_actions=False))
    first, second, third, end = c.read_schedule()
    run_events(c, [(500, 100 if n in (1, first, second) else 900) for n in range(1, end + 1)])
    assert c.speed == 150


def test_speed_factor_scales_the_motor_commands():
    c = RoadController(ControllerParams(speed=260, speed_factor=1.1))
    assert c.step([500, 900], CLEAR) == (286, 286)


def enter(action_code, **params):
    """A controller that has just read an intersection code on the road."""
    c = RoadController(ControllerParams(speed=260, **params))
    read_code(c, action_code)
    c.drain_events()
    return c


def cross_mark(c):
    """The robot meets a mark: the trigger reading, then white until CONTINUE/EXIT ends."""
    c.step([500, 100], CLEAR)


def test_intersection_codes_slow_down_and_remember_the_speed():
    c = enter(7)
    assert c.state is State.ACTION and c.speed == 150 and c.saved_speed == 260
    loc = enter(6)
    assert loc.saved_speed == 150  # a location is left at the lowest speed (Appendix A)


def test_continue_drives_blind_with_the_left_bias_for_21_counts():
    c = enter(7)
    c.decide = lambda action, passed: 'continue'
    cross_mark(c)
    assert c.state is State.CONTINUE
    # roundabout: actionType 1, left wheel at (85 + 3)% of the speed, whatever the ground reads
    assert c.step([900, 900], CLEAR) == (132, 150)
    for _ in range(20):
        c.step([900, 900], CLEAR)
    assert c.state is State.CONTINUE  # Appendix A: `counter > 21`
    c.step([900, 900], CLEAR)
    assert c.state is State.ACTION and c.counter_continue == 1


def test_a_roundabout_is_left_only_on_even_counts():
    c = enter(7)
    asked = []
    c.decide = lambda action, passed: asked.append(passed) or ('continue' if passed == 0 else 'exit')
    cross_mark(c)  # the first mark (0): asked, continues
    cross(c)
    cross_mark(c)
    assert c.state is State.CONTINUE and asked == [0]  # odd: an entry, crossed without asking
    for _ in range(22):
        c.step([500, 900], CLEAR)
    cross_mark(c)
    assert asked == [0, 2] and c.state is State.EXIT
    for _ in range(42):
        c.step([500, 900], CLEAR)
    assert c.state is State.ROAD and c.speed == 260


def test_location_exit_reads_the_name_stops_two_seconds_and_leaves_slowly():
    c = enter(6)
    c.decide = lambda action, passed: 'exit'
    cross_mark(c)
    assert c.state is State.EXIT
    c.step([500, 900], CLEAR)  # past the entry mark
    # the location barcode 3 (trigger, bits 1 and 2 black), read from EXIT
    first, second, third, end = c.read_schedule()
    for n in range(1, end + 1):
        c.step([500, 100 if n in (1, first, second) else 900], CLEAR)
    assert c.location == 3 and c.state is State.EXIT
    while c.state is State.EXIT:
        c.step([500, 900], CLEAR)
    assert c.state is State.STOP and c.delivering
    stops = 0
    while c.state is State.STOP:
        assert c.step([500, 900], CLEAR) == (0, 0)
        stops += 1
    assert stops in (20, 21) and c.state is State.ROAD and c.speed == 150
    kinds = [e.kind for e in c.drain_events()]
    assert 'location' in kinds and 'stop' in kinds


def test_branching_and_location_end_after_two_continues():
    c = enter(4)
    c.decide = lambda action, passed: 'continue'
    for _ in range(2):
        cross_mark(c)
        for _ in range(22):
            c.step([500, 900], CLEAR)
    c.step([500, 900], CLEAR)
    assert c.state is State.ROAD and c.speed == 260


def test_back_off_when_another_robot_is_on_the_barcode():
    c = RoadController(ControllerParams(speed=260))
    c.step([500, 100], [0, 0, 1500, 0, 0, 0, 0])  # trigger with a robot ahead
    assert c.state is State.BACK and c.speed == -150
    left, right = c.step([500, 900], CLEAR)
    assert left == right == -150  # backwards, following the line (gain 3)
    for _ in range(11):
        c.step([500, 900], CLEAR)
    assert c.state is State.ROAD and c.speed == 150  # forwards again at the lowest speed


def test_back_stops_for_an_obstacle_behind():
    c = RoadController(ControllerParams(speed=260))
    c.step([500, 100], [0, 0, 1500, 0, 0, 0, 0])
    assert c.step([500, 900], [0, 0, 0, 0, 0, 3500, 0]) == (0, 0)


def test_continue_stops_and_freezes_its_count_for_an_obstacle():
    c = enter(7)
    c.decide = lambda action, passed: 'continue'
    cross_mark(c)
    for _ in range(30):
        assert c.step([900, 900], [0, 0, 1200, 0, 0, 0, 0]) == (0, 0)
    assert c.state is State.CONTINUE and c.counter == 0


@pytest.mark.parametrize('direction', ['right', 'straight', 'left'])
def test_crossroad_sequences_of_the_report(direction):
    c = RoadController(ControllerParams(speed=260))
    c.choose_direction = lambda: direction
    read_code(c, 5)
    assert c.action.name == 'CROSSROAD' and c.saved_speed == 150
    states = []
    for _ in range(4):
        if c.state is State.ROAD:
            break
        cross_mark(c)
        states.append(c.state)
        for _ in range(80):
            c.step([500, 900], CLEAR)
            if c.state is State.ROAD or (c.state is State.ACTION and c.counter_continue in (0, 1, 2)):
                break
    if direction == 'right':
        assert states == [State.EXIT]            # the first bit: exit as at a roundabout
    elif direction == 'straight':
        assert states == [State.CONTINUE] * 3    # the fourth continue is forced after the third
    else:
        assert states == [State.CONTINUE, State.CONTINUE, State.EXIT, State.CONTINUE]
    assert c.state is State.ROAD and c.speed == 150


# --- rest steps ------------------------------------------------------------------------------------
@pytest.mark.parametrize('rules,recovery', [('improved', 'both'), ('improved', 'report'), ('report', 'report')])
def test_rest_steps_give_the_same_robot_as_the_whole_pipeline(rules, recovery):
    """Two robots, one taking rest steps and one not, fed the same random mix of plain readings,
    a swinging follow sensor (a wrong way), barcodes, lost roads, robots in front and behind and
    IR messages: the same wheels, events and state at every step, and most steps rest steps.
    """
    import random
    from thymio_road.control.right_of_way import announce_code, blocked_code, Role
    params = ControllerParams(traffic_rules=rules, recovery=recovery, robot_id=3, seed=5)
    resting, whole = RoadController(params), RoadController(params)
    whole.rest_steps = False
    rest_step = resting._rest_step

    def counted(*args):
        nonlocal rest_steps
        rest_steps += 1
        return rest_step(*args)
    resting._rest_step = counted
    rng = random.Random(11)
    rest_steps = 0
    kind, left = 'plain', 0
    for k in range(6000):
        if left == 0:
            kind = rng.choices(['plain', 'swing', 'code', 'lost', 'front', 'behind', 'heard'],
                               [60, 8, 6, 3, 6, 3, 6])[0]
            left = rng.randint(1, 60)
        left -= 1
        follow, read, prox = 500 + rng.randint(-40, 40), 900, [0] * 7
        if kind == 'swing':
            follow = 500 + (250 if k % 2 else -250)
        elif kind == 'code':
            read = rng.choice([100, 900, 900])
        elif kind == 'lost':
            follow = rng.choice([50, 950])
        elif kind == 'front':
            prox[rng.randint(0, 4)] = rng.randint(500, 4500)
        elif kind == 'behind':
            prox[rng.randint(5, 6)] = rng.randint(500, 4500)
        elif kind == 'heard' and rng.random() < 0.3:
            code = rng.choice([announce_code(Role.ROAD, 7), announce_code(Role.PRIORITY, 8), blocked_code(3)])
            heard = [rng.choice([0, 0, 2000]) for _ in range(7)]
            for robot in (resting, whole):
                robot.on_comm(code, heard)
        wheels = resting.step([follow, read], prox)
        assert wheels == whole.step([follow, read], prox), k
        assert whole._rest is None, k   # the switch: never at rest
        assert resting.drain_events() == whole.drain_events(), k
        assert resting.tx_value() == whole.tx_value(), k
        if k % 50 == 0 or kind != 'plain':
            assert fingerprint(resting) == fingerprint(whole), k
    assert fingerprint(resting) == fingerprint(whole)
    assert rest_steps > 1000


def test_a_robot_told_to_stop_between_rest_steps_stops():
    c = RoadController(ControllerParams())
    for _ in range(5):
        c.step([500, 900], [0] * 7)
    assert c._rest is not None
    c.stop()
    assert c.step([500, 900], [0] * 7) == (0, 0)
