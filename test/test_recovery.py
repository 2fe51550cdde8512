"""Recovery from both sides of the road (controller `recovery`, experiments/recovery.py)."""
import pytest

from thymio_road.cli.main import main
from thymio_road.control.controller import ControllerParams, RoadController, State
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


def test_swings_on_the_edge_turn_the_robot_round_and_a_steady_follow_does_not():
    c = RoadController(ControllerParams(recovery='both'))
    for k in range(40):  # following a sharp edge backwards: the reading swings
        c.step((250 if k % 2 else 760, 900), [0] * 7)
    assert [e.kind for e in c.drain_events()] == ['wrong_way']
    assert c.step((500, 900), [0] * 7) == (150, -150) and c.state is State.ROAD
    steady = RoadController(ControllerParams(recovery='both'))
    for k in range(200):
        steady.step((500 + (40 if k % 2 else -40), 900), [0] * 7)
    assert steady.drain_events() == []


def test_bad_recovery_settings_are_refused():
    with pytest.raises(ValueError, match='recovery'):
        ControllerParams(recovery='left')
    with pytest.raises(ValueError, match='wrong_way_swings'):
        ControllerParams(wrong_way_swings=50, wrong_way_window=40)


def test_recovery_command_prints_both_settings(capsys):
    assert main(['recovery', '--trials', '2', '--duration', '20']) == 0
    out = capsys.readouterr().out
    assert out.count('| report |') == 4 and out.count('| both |') == 4
