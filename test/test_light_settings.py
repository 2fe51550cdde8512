# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Timing and Battery are declared once (control/traffic_light.py): the scenario's `lights:` keys,
the traffic_light node's parameters and their range checks all come from their fields.
"""
from __future__ import annotations

import dataclasses
import math

import pytest
import yaml

from thymio_road.control.traffic_light import Battery, from_node_parameters, LOCATION_ONLY, node_parameters, Timing
from thymio_road.nodes.traffic_light_node import TrafficLightNode
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.scenario import config_dir, load_scenario, node_specs, ScenarioError

#: The node's parameter names as launch files, test/ros and recorded runs know them.
NODE_PARAMETERS = {'green': float, 'clearance': float, 'offset': float, 'clearance_extension': float,
                   'priority_preemption': float, 'battery_decay': bool, 'battery_half_life': float,
                   'battery_initial': float}


def _scenario(tmp_path, lights):
    data = {'map': str(config_dir() / 'maps' / 'simple.yaml'), 'robots': {'count': 1, 'road': 'outer'},
            'ir': {}, 'lights': lights}
    path = tmp_path / 's.yaml'
    path.write_text(yaml.safe_dump(data))
    return path


def test_node_parameters_keep_their_names_and_types():
    params = node_parameters(Timing(green=8), Battery())   # an int from YAML becomes the field's float
    assert {k: type(v) for k, v in params.items()} == NODE_PARAMETERS
    assert list(params) == list(NODE_PARAMETERS)
    timing, battery = Timing(3.0, 4.0, 5.0, 6.0, 7.0), Battery(True, 30.0, 0.5)
    assert from_node_parameters(node_parameters(timing, battery)) == (timing, battery)
    assert LOCATION_ONLY == ('clearance_extension',)   # a crossroad's lights pre-empt too, as one group


@pytest.mark.parametrize('make,message', [
    (lambda: Timing(green=0.1), r'green must be in \[0.5, 600\] s, got 0.1'),
    (lambda: Timing(clearance=61.0), r'clearance must be in \[0, 60\] s, got 61.0'),
    (lambda: Timing(offset=math.inf), 'offset must be finite, got inf'),
    (lambda: Timing(clearance_extension=math.nan), r'clearance_extension must be in \[0, 60\] s, got nan'),
    (lambda: Timing(priority_preemption=121.0), r'priority_preemption must be in \[0, 120\] s, got 121.0'),
    (lambda: Battery(half_life=0.5), r'half_life must be in \[1, 1e\+07\] s, got 0.5'),
    (lambda: Battery(initial=1.5), r'initial must be in \[0, 1\], got 1.5'),
])
def test_ranges_are_checked_once_naming_the_field_and_value(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_every_field_is_a_scenario_key_and_a_node_parameter(tmp_path):
    """A value for each field, given in the scenario, reaches the node's parameters and its core."""
    timing = {f.name: f.default + 1.0 for f in dataclasses.fields(Timing)}
    battery = {'decay': True, 'half_life': 42.0, 'initial': 0.75}
    sc = load_scenario(_scenario(tmp_path, {**timing, 'battery': battery}))
    [light] = sc.lights
    assert light.timing == Timing(**timing) and light.battery == Battery(**battery)
    [spec] = [s for s in node_specs(sc) if s.executable == 'thymio_traffic_light']
    assert {k: spec.parameters[k] for k in NODE_PARAMETERS} == node_parameters(light.timing, light.battery)
    node = TrafficLightNode(EmbeddedNode(Executor(), spec.name, spec.namespace, spec.parameters))
    assert node.core.timing == light.timing and node.battery == light.battery


def test_a_node_parameter_overrides_the_scenario_and_is_range_checked(tmp_path):
    path = _scenario(tmp_path, {'green': 8.0})
    params = {'scenario_file': str(path), 'light': 'light_L1', 'green': 4, 'battery_half_life': 30}
    node = TrafficLightNode(EmbeddedNode(Executor(), 'traffic_light', '/light_L1', params))
    assert node.core.timing.green == 4.0 and node.battery.half_life == 30.0
    with pytest.raises(ValueError, match=r'/light_L1/traffic_light: bad parameter: initial must be in \[0, 1\], '
                                         r'got 2.0'):
        TrafficLightNode(EmbeddedNode(Executor(), 'traffic_light', '/light_L1', {**params, 'battery_initial': 2.0}))
    with pytest.raises(ValueError, match='parameter battery_decay: must be a boolean'):
        TrafficLightNode(EmbeddedNode(Executor(), 'traffic_light', '/light_L1', {**params, 'battery_decay': 1}))


@pytest.mark.parametrize('lights,message', [
    ({'battery': {'half_life': 0.5}}, r's.yaml: scenario.lights.battery: half_life must be in \[1, 1e\+07\] s, '
                                      'got 0.5'),
    ({'battery': {'decay': 1}}, 's.yaml: scenario.lights.battery.decay: must be true or false, got 1'),
    ({'battery': {'colour': 1}}, "s.yaml: scenario.lights.battery: unknown field 'colour' "
                                 r'\(known: decay, half_life, initial\)'),
    ({'green': 'long'}, "s.yaml: scenario.lights.green: must be a number, got 'long'"),
    ({'overrides': {'light_L1': {'offset': 1e400}}}, 's.yaml: scenario.lights.overrides.light_L1.offset: '
     'must be a number, got inf'),
    ({'overrides': {'light_L1': {'clearance': 70}}}, r's.yaml: scenario.lights.overrides.light_L1: clearance '
     r'must be in \[0, 60\] s, got 70'),
])
def test_scenario_light_errors_name_file_field_and_value(tmp_path, lights, message):
    with pytest.raises(ScenarioError, match=message):
        load_scenario(_scenario(tmp_path, lights))


def _final_traffic(tmp_path, overrides):
    data = yaml.safe_load((config_dir() / 'scenarios' / 'final_traffic.yaml').read_text())
    data['map'] = str(config_dir() / 'maps' / 'final.yaml')
    data['lights']['overrides'] = overrides
    path = tmp_path / 'x.yaml'
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_crossroads_lights_pre_empt_with_the_common_setting_and_refuse_their_own(tmp_path):
    """A crossroad's lights pre-empt as one signal group: a member that disagreed would open
    conflicting arms, so `priority_preemption` is set under `lights:` for all of them.
    """
    sc = load_scenario(_final_traffic(tmp_path, {'light_L1': {'priority_preemption': 10.0}}))
    timings = {light.name: light.timing for light in sc.lights}
    assert {timings[f'light_X1_{k}'] for k in range(4)} == \
        {Timing(green=8.0, clearance=16.0, clearance_extension=0.0, priority_preemption=30.0)}
    assert timings['light_L1'].priority_preemption == 10.0   # a location's light decides alone
    for value in (0.0, 30.0):
        with pytest.raises(ScenarioError, match=r'x.yaml: scenario.lights.overrides.light_X1_2.priority_preemption: '
                                                r"a crossroad's lights pre-empt together, so set it under lights: "
                                                rf'for all of them, got {value}'):
            load_scenario(_final_traffic(tmp_path, {'light_X1_2': {'priority_preemption': value}}))
