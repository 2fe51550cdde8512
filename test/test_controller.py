import pytest

from thymio_road.controller import ControllerParams, RoadController, State, adiv, led_colour

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
    assert [e.data['to'] for e in events] == ['STOP', 'ROAD']
    assert c.drain_events() == []


def test_led_colour_shows_speed_on_the_road():
    assert led_colour(RoadController(ControllerParams(speed=150))) == (32, 24, 0)
    # Appendix A: green = (3 - (speed - LOW) / LOW) * 8, integer division
    assert led_colour(RoadController(ControllerParams(speed=410))) == (32, 16, 0)


@pytest.mark.parametrize('bad', [{'avoidance': 'v3'}, {'speed_low': 0}, {'grey_ref': 2000}, {'speed': 900}])
def test_bad_parameters_are_rejected(bad):
    with pytest.raises(ValueError, match=list(bad)[0]):
        ControllerParams(**bad)
