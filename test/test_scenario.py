from pathlib import Path

import pytest
import yaml

from thymio_road.scenario import ScenarioError, load_scenario, node_specs, robot_specs


def write(tmp_path, data, name='s.yaml'):
    (tmp_path / 'oval.yaml').write_text((Path(__file__).parent.parent / 'config/maps/oval.yaml').read_text())
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


BASE = {'map': 'oval.yaml', 'robots': {'count': 2, 'road': 'loop'}}


def test_shipped_scenario_by_name_and_overrides():
    s = load_scenario('oval', robots=5, seed=9, duration=12.5)
    assert len(s.robots) == 5 and s.seed == 9 and s.duration == 12.5
    assert [r.name for r in s.robots] == [f'thymio{k}' for k in range(1, 6)]
    starts = [r.s for r in s.robots]
    assert all(b > a for a, b in zip(starts, starts[1:]))


def test_robots_start_with_the_follow_sensor_on_the_road():
    s = load_scenario('oval', robots=4)
    import math
    from thymio_road.sim import robot_model as rm
    for spec in robot_specs(s):
        gx, gy = rm.GROUND_SENSORS[0]
        x = spec.x + math.cos(spec.theta) * gx - math.sin(spec.theta) * gy
        y = spec.y + math.sin(spec.theta) * gx + math.cos(spec.theta) * gy
        r, c = s.road_map.pixel_scalar(x, y)
        assert s.road_map.road_index[r, c] >= 0


def test_node_specs_world_then_one_controller_per_namespace(tmp_path):
    path = write(tmp_path, {**BASE, 'controller': {'speed': 410},
                            'robots': {**BASE['robots'], 'overrides': {'thymio2': {'speed': 150}}}})
    specs = node_specs(load_scenario(path))
    assert [(s.executable, s.namespace) for s in specs] == [
        ('thymio_world', '/'), ('thymio_controller', '/thymio1'), ('thymio_controller', '/thymio2')]
    assert specs[0].parameters['robot_count'] == 2
    assert specs[1].parameters['speed'] == 410 and specs[2].parameters['speed'] == 150
    assert specs[1].parameters['use_sim_time'] is True


@pytest.mark.parametrize('data,expected', [
    ({**BASE, 'controller': {'sped': 3}}, "scenario.controller: unknown parameter 'sped'"),
    ({**BASE, 'controller': {'speed': 'fast'}}, 'scenario.controller.speed: must be a number'),
    ({**BASE, 'controller': {'speed': 900}}, 'speed must be in -500..500'),
    ({**BASE, 'world': {'physics_dt': 1.0}}, 'scenario.world: physics_dt must be in'),
    ({**BASE, 'robots': {'count': 40, 'road': 'loop'}}, '40 robots do not fit'),
    ({**BASE, 'robots': {'count': 2, 'road': 'ring'}}, "no road 'ring'"),
    ({'robots': BASE['robots']}, "missing required field 'map'"),
    ({**BASE, 'map': 'nowhere'}, "no map named 'nowhere'"),
])
def test_bad_scenarios_are_rejected_before_anything_runs(tmp_path, data, expected):
    path = write(tmp_path, data)
    with pytest.raises(ScenarioError, match=None) as info:
        load_scenario(path)
    assert expected in str(info.value)


def test_missions_reach_the_controllers(tmp_path):
    simple = {'map': 'simple', 'robots': {'count': 2, 'road': 'outer'}}  # location 1 only
    path = write(tmp_path, {**simple, 'robots': {**simple['robots'], 'missions': {'thymio1': [1, 1], 'thymio2': '1'}}})
    specs = node_specs(load_scenario(path))
    assert specs[1].parameters['mission'] == '1,1' and specs[2].parameters['mission'] == '1'
    nowhere = write(tmp_path, {**simple, 'robots': {**simple['robots'], 'missions': {'thymio1': [1, 3]}}}, 'no.yaml')
    with pytest.raises(ScenarioError, match=r'scenario.robots.missions.thymio1: no location 3 on the map .*simple.yaml '
                                            r'\(locations: 1\)'):
        load_scenario(nowhere)
    bad = write(tmp_path, {**BASE, 'robots': {**BASE['robots'], 'missions': {'thymio1': 'home'}}}, 'bad.yaml')
    with pytest.raises(ScenarioError, match=r"bad.yaml: scenario.robots.missions.thymio1: mission must be location "
                                            r"numbers separated by commas, got 'home'"):
        load_scenario(bad)


@pytest.mark.parametrize('mission,expected', [
    ('²', "mission must be location numbers separated by commas, got '²'"),   # '²'.isdigit() is True
    ('1;1', "mission must be location numbers separated by commas, got '1;1'"),
    ([1, 1.0], 'mission must be location numbers, got [1, 1.0]'),
    (True, 'mission must be location numbers, got True'),
    ('8', 'no location 8 on the map '),          # no literal 1..7: the map's own locations
    ([0], 'no location 0 on the map '),
])
def test_missions_are_checked_against_the_map(tmp_path, mission, expected):
    path = write(tmp_path, {'map': 'simple', 'robots': {'count': 1, 'road': 'outer', 'missions': {'thymio1': mission}}})
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value).startswith(f'{path}: scenario.robots.missions.thymio1: {expected}')


def test_missions_as_text_number_or_list(tmp_path):
    missions = {'thymio1': ' 1 ,, 01', 'thymio2': 1, 'thymio3': [1, '1']}
    path = write(tmp_path, {'map': 'simple', 'robots': {'count': 3, 'road': 'outer', 'missions': missions}})
    assert [r.mission for r in load_scenario(path).robots] == ['1,1', '1', '1,1']
