# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Recovery from both sides of the road (controller `recovery`, experiments/recovery.py)."""
import math

import pytest

from controller_situations import choosing, mark, read_code
from thymio_road.cli.main import main
from thymio_road.control.controller import Action, ControllerParams, Mode, RoadController, State
from thymio_road.experiments.recovery import experiment, table
from thymio_road.map.loader import load_map
from thymio_road.scenario import find_config


@pytest.fixture(scope='module')
def oval():
    return load_map(find_config('maps', 'oval'))


def _rates(road_map, recovery):
    return {r['side']: r for r in table(experiment(road_map, 10, 1, recovery, duration=40.0))}


def test_the_reports_recovery_drives_the_wrong_way_from_the_black_side_and_across(oval):
    rows = _rates(oval, 'report')
    assert rows['white']['rejoined'] >= 8
    assert rows['black']['wrong way'] >= 6  # §4: "it will drive on it in the wrong direction"
    assert rows['across_white']['wrong way'] >= 8


def test_recovery_both_rejoins_from_every_side(oval):
    rows = _rates(oval, 'both')
    assert all(r['success_rate'] >= 0.9 for r in rows.values()), rows
    assert rows['black']['wrong way'] == rows['across_white']['wrong way'] == 0


def test_jumps_of_the_reading_on_the_edge_turn_the_robot_round_and_the_gradient_does_not():
    c = RoadController(ControllerParams(recovery='both'))
    for k in range(40):  # following a sharp edge backwards: the reading jumps event to event
        c.step((250 if k % 2 else 760, 900), [0] * 7)
    events = c.drain_events()
    assert [e.kind for e in events if e.kind != 'mode'] == ['wrong_way']
    assert c.mode is Mode.UTURN
    assert c.step((500, 900), [0] * 7) == (150, -150) and c.state is State.ROAD
    steady = RoadController(ControllerParams(recovery='both'))
    for k in range(200):
        steady.step((500 + (40 if k % 2 else -40), 900), [0] * 7)
    assert steady.drain_events() == []


def test_a_smooth_swing_across_the_gradient_is_not_a_wrong_way_drive():
    """Merging from a siding or re-finding the line after a crossing, the reading sweeps far
    from the reference, smoothly: the count of readings beyond ±220 that the test used before
    could not tell that from the edge's jumps, the change between successive readings can.
    """
    c = RoadController(ControllerParams(recovery='both'))
    for k in range(400):
        c.step((500 + round(280 * math.sin(k / 6)), 900), [0] * 7)  # ±280, a period of 3.8 s
    assert c.drain_events() == []


def test_the_jitter_window_restarts_after_a_reading():
    """A barcode read in between (READ) clears the window: the jumps of its bits are not the edge's."""
    def edge(c, n):
        for k in range(n):
            c.step((250 if k % 2 else 760, 900), [0] * 7)

    c = RoadController(ControllerParams(recovery='both'))
    edge(c, 30)
    c.step((500, 100), [0] * 7)  # a code's first bit
    assert c.state is State.READ
    while c.state is State.READ:
        c.step((500, 900), [0] * 7)
    edge(c, 30)
    assert 'wrong_way' not in [e.kind for e in c.drain_events()]
    edge(c, 10)
    assert 'wrong_way' in [e.kind for e in c.drain_events()]


#: The follow sensor across L4's entry (15 robots seed 9): onto the black, then beyond the edge.
ACROSS_THE_ROAD = [348, 288, 224, 219, 209, 168, 284, 456, 472, 630]


@pytest.mark.parametrize('case', ['across', 'on the gradient', 'report'])
def test_lost_on_white_after_a_locations_crossing_over_black_the_robot_spins_left(case):
    """Beyond the road's right edge, the report's right spin finds the road backwards."""
    c = RoadController(ControllerParams(recovery='report' if case == 'report' else 'both'))
    read_code(choosing(c, 'continue'), 6)  # a location: the robot crosses its siding's entry
    mark(c)
    assert c.state is State.CONTINUE and c.action is Action.LOCATION
    readings = ACROSS_THE_ROAD if case != 'on the gradient' else [500] * len(ACROSS_THE_ROAD)
    for k in range(c.params.crossing + 1):
        c.step((readings[min(k, len(readings) - 1)] if case != 'on the gradient' else 480, 900), [0] * 7)
    assert c.state is State.ACTION
    left, right = c.step((936, 931), [0] * 7)  # white under both sensors: lost
    if case == 'across':
        assert left < 0 < right and 'spin_left' in [e.kind for e in c.drain_events()]
        assert c.step((15, 931), [0] * 7)[0] < 0  # over the edge's black: still turning left
        c.step((520, 931), [0] * 7)  # found
        assert c.step((936, 931), [0] * 7)[0] > 0  # lost again later: the report's spin
    else:
        assert left > 0 > right and 'spin_left' not in [e.kind for e in c.drain_events()]


def test_bad_recovery_settings_are_refused():
    with pytest.raises(ValueError, match='recovery'):
        ControllerParams(recovery='left')
    with pytest.raises(ValueError, match='wrong_way_window'):
        ControllerParams(wrong_way_window=1)
    with pytest.raises(ValueError, match='wrong_way_jitter'):
        ControllerParams(wrong_way_jitter=0)


def test_recovery_command_prints_both_settings(capsys):
    assert main(['recovery', '--trials', '2', '--duration', '20']) == 0
    out = capsys.readouterr().out
    assert out.count('| report |') == 4 and out.count('| both |') == 4
