# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

from pathlib import Path

import pytest
import yaml

from thymio_road.scenario import (config_dir, crossroad_light_timeout, has_priority_vehicle, load_scenario, node_specs,
                                  robot_specs, ScenarioError)


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
    ({**BASE, 'controller': {'speed': 'fast'}}, "scenario.controller.speed: 'fast': must be an integer"),
    ({**BASE, 'controller': {'speed': 900}}, 'scenario.controller.speed: 900: must be an integer in -500..500'),
    ({**BASE, 'world': {'physics_dt': 1.0}}, 'scenario.world.physics_dt: 1.0: must be a number in [0.0005, 0.05] s'),
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
    with pytest.raises(ScenarioError, match=r'bad.yaml: scenario.robots.missions.thymio1: mission must be location '
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


# --- extends: ------------------------------------------------------------------------------------

CONFIG = Path(__file__).parent.parent / 'config'
#: config/scenarios/priority.yaml as it was before it extended final_traffic (comments left out).
PRIORITY_BEFORE = {
    'name': 'priority', 'map': '../maps/final.yaml', 'duration': 1800.0, 'seed': 1,
    'controller': {'speed': 150, 'trigger_security': 'strict', 'read_method': 'inset', 'bias_crossroad': 100,
                   'bias_crossroad_left': 80, 'avoidance': 'v2', 'recovery': 'both', 'traffic_rules': 'improved',
                   'light_timeout': 100, 'light_edge': 5},
    'robots': {'count': 16, 'road': 'north', 'start': 3.3, 'calibrate': True,
               'overrides': {'thymio1': {'kind': 'priority'}}, 'missions': {'thymio1': [4]}},
    'ir': {'model': 'enki_doc'},
    'lights': {'at': 'all', 'green': 8.0, 'clearance': 15.0, 'clearance_extension': 10.0,
               'priority_preemption': 30.0, 'crossroad_clearance': 16.0,
               'battery': {'decay': False, 'half_life': 600.0}},
}


def _fields(scenario):
    return {name: getattr(scenario, name) for name in scenario.__dataclass_fields__ if name != 'road_map'}


def test_priority_is_final_traffic_and_its_differences():
    from thymio_road.scenario import _read_scenario
    path = CONFIG / 'scenarios' / 'priority.yaml'
    assert set(yaml.safe_load(path.read_text())) == {'extends', 'robots'}
    merged = _read_scenario(path)
    assert 'name' not in merged                          # the file's stem, as the old name: said
    before = {k: v for k, v in PRIORITY_BEFORE.items() if k != 'name'}
    assert merged == {**before, 'map': str(path.parent / '../maps/final.yaml')}


def test_priority_loads_as_before(tmp_path):
    old = tmp_path / 'scenarios' / 'priority.yaml'
    old.parent.mkdir()
    # The shipped maps where load_scenario finds them: the checkout, or the install's share folder.
    old.write_text(yaml.safe_dump({**PRIORITY_BEFORE, 'map': str(config_dir() / 'maps' / 'final.yaml')}))
    now, before = load_scenario('priority'), load_scenario(old)
    assert now.road_map.source == before.road_map.source
    assert {**_fields(now), 'source': None} == {**_fields(before), 'source': None}

    def specs(scenario):      # the nodes that read the scenario are given its file
        return [(s.executable, s.namespace, {k: v for k, v in s.parameters.items() if k != 'scenario_file'})
                for s in node_specs(scenario)]
    assert specs(now) == specs(before)


def _controller_params(scenario):
    return [s.parameters for s in node_specs(scenario) if s.executable == 'thymio_controller']


def test_a_crossroad_lights_timeout_outlasts_their_longest_red(tmp_path):
    # final_traffic: X1's 2 phases x (8 s green + 16 s all red) - 8 s = 40 s of red, and 5 s more.
    assert {p['light_timeout_crossroad'] for p in _controller_params(load_scenario('final_traffic'))} == {450}
    # Longer all reds lengthen it: a robot that drove on after 45 s would meet a green across it.
    data = yaml.safe_load((CONFIG / 'scenarios' / 'final_traffic.yaml').read_text())
    data['map'] = str(config_dir() / 'maps' / 'final.yaml')
    data['lights']['crossroad_clearance'] = 30.0
    slow = load_scenario(_yaml(tmp_path / 'slow.yaml', data))
    assert {p['light_timeout_crossroad'] for p in _controller_params(slow)} == {(2 * (8 + 30) - 8 + 5) * 10}
    # A value the scenario gives is kept; without a light_timeout a robot waits for its go anyway.

    def timeouts(name):
        scenario = load_scenario(_yaml(tmp_path / name, data))
        return {p['light_timeout_crossroad'] for p in _controller_params(scenario)}
    data['controller']['light_timeout_crossroad'] = 600
    assert timeouts('given.yaml') == {600}
    del data['controller']['light_timeout'], data['controller']['light_timeout_crossroad']
    assert timeouts('none.yaml') == {0}


def test_a_crossroad_lights_timeout_outlasts_the_red_a_pre_emption_lengthens():
    """With a priority vehicle, X1's lights may hold the crossing arms' green for it (30 s each
    phase): a robot held there waits 2 x (8 s + 30 s + 16 s) - 8 s = 100 s, and 5 s more.
    """
    priority, final_traffic = load_scenario('priority'), load_scenario('final_traffic')
    assert has_priority_vehicle(priority) and not has_priority_vehicle(final_traffic)
    assert crossroad_light_timeout(priority) == (2 * (8 + 30 + 16) - 8 + 5) * 10
    assert crossroad_light_timeout(final_traffic) == (2 * (8 + 16) - 8 + 5) * 10
    assert {p['light_timeout_crossroad'] for p in _controller_params(priority)} == {1050}
    assert {p['light_timeout'] for p in _controller_params(priority)} == {100}   # the locations' is kept


def _yaml(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))
    return path


def test_extends_merges_mappings_and_replaces_the_rest(tmp_path):
    # The base is in another folder, with its map beside it: the map is found there.
    (tmp_path / 'bases').mkdir()
    (tmp_path / 'bases' / 'loop.yaml').write_text((CONFIG / 'maps' / 'oval.yaml').read_text())
    _yaml(tmp_path / 'bases' / 'base.yaml', {
        'name': 'base', 'map': 'loop.yaml', 'duration': 30.0, 'seed': 3,
        'controller': {'speed': 150, 'avoidance': 'v2'}, 'world': {'ground_noise': 2.0},
        'robots': {'count': 2, 'road': 'loop', 'overrides': {'thymio1': {'speed': 100}}}, 'ir': {}})
    child = _yaml(tmp_path / 'child.yaml', {
        'extends': 'bases/base.yaml', 'seed': 4, 'world': None,
        'controller': {'speed': 200}, 'robots': {'count': 3, 'overrides': {'thymio2': {'speed': 120}}}})
    sc = load_scenario(child)
    assert sc.name == 'child' and sc.duration == 30.0 and sc.seed == 4 and sc.world == {}
    assert sc.road_map.source == str((tmp_path / 'bases' / 'loop.yaml').resolve())
    assert sc.controller == {'speed': 200, 'avoidance': 'v2'}
    assert [r.controller['speed'] for r in sc.robots] == [100, 120, 200]
    assert sc.ir is not None
    named = _yaml(tmp_path / 'named.yaml', {'extends': 'child', 'name': 'mine'})   # .yaml optional
    assert load_scenario(named).name == 'mine' and load_scenario(named).seed == 4


@pytest.mark.parametrize('files,top,expected', [
    ({'a.yaml': {'extends': 'a'}}, 'a.yaml', "scenario.extends: 'a' closes a cycle: {a} → {a}"),
    ({'a.yaml': {'extends': 'b.yaml'}, 'b.yaml': {'extends': 'a'}}, 'a.yaml',
     "b.yaml: scenario.extends: 'a' closes a cycle: {a} → {b} → {a}"),
    ({f'f{k}.yaml': {'extends': f'f{k + 1}'} for k in range(12)}, 'f0.yaml',
     'scenario.extends: more than 8 scenarios extend one another: {f0} → '),
    ({'a.yaml': {'extends': 'nowhere'}}, 'a.yaml',
     "a.yaml: scenario.extends: no scenario 'nowhere': not a file beside this one"),
    ({'a.yaml': {'extends': ['final_traffic']}}, 'a.yaml',
     "a.yaml: scenario.extends: must name a shipped scenario or a file relative to this one, got ['final_traffic']"),
    ({'a.yaml': {'extends': 'b'}, 'b.yaml': [1]}, 'a.yaml', 'b.yaml: scenario: must be a mapping (it is extended by'),
])
def test_extends_chains_that_cannot_be_read(tmp_path, files, top, expected):
    for name, data in files.items():
        _yaml(tmp_path / name, data)
    with pytest.raises(ScenarioError) as info:
        load_scenario(tmp_path / top)
    names = {Path(n).stem: (tmp_path / n).resolve() for n in files}
    assert expected.format(**names) in str(info.value)


@pytest.mark.parametrize('change,expected', [
    ({'duration': -5.0}, 'scenario.duration: must be in'),
    ({'durration': 5.0}, "scenario: unknown field 'durration' (known: controller, duration, extends,"),
    ({'robots': {'count': 'many'}}, 'scenario.robots.count: must be an integer'),
    ({'lights': {'green': 0.1}}, r'scenario.lights: green must be in [0.5, 600] s, got 0.1'),
    ({'robots': {'missions': {'thymio1': [9]}}}, 'scenario.robots.missions.thymio1: no location 9 on the map'),
])
def test_a_bad_field_in_a_child_names_the_child(tmp_path, change, expected):
    child = _yaml(tmp_path / 'child.yaml', {'extends': 'final_traffic', **change})
    with pytest.raises(ScenarioError) as info:
        load_scenario(child)
    assert str(info.value).startswith(f'{child}: {expected}')


def test_a_base_beside_a_child_given_by_a_relative_path(tmp_path, monkeypatch):
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'm.yaml').write_text((CONFIG / 'maps' / 'oval.yaml').read_text())
    _yaml(tmp_path / 'sub' / 'b.yaml', {'map': 'm.yaml', 'robots': {'count': 2, 'road': 'loop'}})
    _yaml(tmp_path / 'sub' / 'c.yaml', {'extends': 'b', 'seed': 2})
    monkeypatch.chdir(tmp_path)
    sc = load_scenario('sub/c.yaml')
    assert sc.road_map.source == str(tmp_path / 'sub' / 'm.yaml') and sc.seed == 2 and sc.name == 'c'
