# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Bad inputs, as a new user types them, are refused cleanly through the real `thymio-road` command.

Each case runs `python -m thymio_road.cli ...` in a fresh folder and must: exit with code 2; say
on stderr which file, field and value (or which flag and value) is wrong; print no traceback;
and leave every file in the folder as it was (nothing written, nothing overwritten). Every case
is refused before any simulation runs, so the whole file takes well under a minute.
"""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path
import shutil
import subprocess
import sys
import tempfile

import pytest
import yaml

from thymio_road.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
OVAL = {'name': 'mine', 'map': 'oval', 'duration': 5.0, 'seed': 1, 'robots': {'count': 2, 'road': 'loop'}}
ROAD = {'id': 'a', 'start': [0.2, 0.2, 0], 'pieces': [{'straight': 0.5}]}


def scenario(**changes) -> str:
    data = {**OVAL, **changes}
    return yaml.safe_dump({k: v for k, v in data.items() if v is not None})


def robots(**changes) -> str:
    return scenario(robots={**OVAL['robots'], **changes})


def a_map(**changes) -> str:
    return yaml.safe_dump({'size': [1.0, 1.0], 'roads': [ROAD], **changes})


BOMB = ''.join(f'{k}: &{k} [' + ', '.join([f'*{p}'] * 9 if p else ['"lol"'] * 9) + ']\n'
               for p, k in zip([None, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], 'abcdefghi'))
#: Two roads that cross in an X in the middle of both, with no intersection.
CROSSING = a_map(size=[1.0, 1.0], roads=[
    {'id': 'a', 'start': [0.1, 0.5, 0], 'pieces': [{'straight': 0.8}]},
    {'id': 'b', 'start': [0.5, 0.1, 90], 'pieces': [{'straight': 0.8}]}])
TWO_LOCATIONS = yaml.safe_dump({
    'size': [2.2, 1.4],
    'intersections': [{'location': {'id': 'L1', 'number': 2, 'road': 'loop', 'at': 0.5}},
                      {'location': {'id': 'L2', 'number': 2, 'road': 'loop', 'at': 3.0}}],
    'roads': [{'id': 'loop', 'start': [0.6, 0.25, 0], 'closed': True, 'pieces': [
        {'straight': 1.0}, {'arc': {'radius': 0.45, 'angle_deg': 180}}, {'straight': 1.0},
        {'arc': {'radius': 0.45, 'angle_deg': 180}}]}],
    'barcodes': [{'road': 'loop', 'at': 0.2, 'code': 6}, {'road': 'loop', 'at': 2.7, 'code': 6}]})

RUN = ['run', '--no-record', '--no-picture', '--quiet', '--out', 'out']
# (id, arguments, files to create, what stderr must say). Paths are relative to the case folder.
CASES = [
    # --- seeds: negative ones meant "the scenario's" inside the nodes
    ('seed-flag-negative', RUN + ['--seed', '-7'], {}, ['--seed', "'-7'"]),
    ('seed-flag-word', RUN + ['--seed', 'one'], {}, ['--seed', "'one'"]),
    ('seed-file-negative', RUN + ['--scenario', 's.yaml'], {'s.yaml': scenario(seed=-1)},
     ['s.yaml', 'scenario.seed', '-1']),
    ('seed-calibrating', ['run', '--scenario', 'simple', '--seed', '-1'], {}, ['--seed', "'-1'"]),
    ('calibrate-seed', ['calibrate', '--seed', '-1', '--out', 'c.yaml'], {}, ['--seed', "'-1'"]),
    # --- names that become ROS names
    ('name-prefix-slash', RUN + ['--scenario', 's.yaml'], {'s.yaml': robots(name_prefix='my robot/')},
     ['s.yaml', 'scenario.robots.name_prefix', "'my robot/'"]),
    ('name-prefix-digit', RUN + ['--scenario', 's.yaml'], {'s.yaml': robots(name_prefix='1bot')},
     ['s.yaml', 'scenario.robots.name_prefix', "'1bot'"]),
    ('intersection-id', ['map', 'check', 'm.yaml'],
     {'m.yaml': TWO_LOCATIONS.replace('id: L1', "id: 'L 1'")}, ['m.yaml', 'id', "'L 1'"]),
    # --- map rules
    ('roads-cross', ['map', 'check', 'm.yaml'], {'m.yaml': CROSSING},
     ['m.yaml', "roads 'a' and 'b' cross", 'no intersection']),
    ('location-number-twice', ['map', 'check', 'm.yaml'], {'m.yaml': TWO_LOCATIONS},
     ['m.yaml', "location 'L2'", 'number', 'location number 2 is already']),
    ('start-beyond-road', RUN + ['--scenario', 's.yaml'], {'s.yaml': robots(start=50)},
     ['s.yaml', 'scenario.robots.start', '50']),
    ('start-negative', RUN + ['--scenario', 's.yaml'], {'s.yaml': robots(start=-2)},
     ['s.yaml', 'scenario.robots.start', '-2']),
    ('mission-nowhere', RUN + ['--scenario', 's.yaml'],
     {'s.yaml': scenario(map='simple', robots={'count': 1, 'road': 'outer', 'missions': {'thymio1': [1, 4]}})},
     ['s.yaml', 'scenario.robots.missions.thymio1', 'no location 4', 'locations: 1']),
    # --- extends: chains
    ('extends-cycle', RUN + ['--scenario', 'a.yaml'], {'a.yaml': 'extends: b\n', 'b.yaml': 'extends: a.yaml\n'},
     ['b.yaml', 'scenario.extends', "'a.yaml' closes a cycle", 'a.yaml → ']),
    ('extends-unknown', RUN + ['--scenario', 's.yaml'], {'s.yaml': 'extends: final_trafic\n'},
     ['s.yaml', 'scenario.extends', "no scenario 'final_trafic'", 'final_traffic']),
    ('extends-bad-child-field', RUN + ['--scenario', 's.yaml'],
     {'s.yaml': 'extends: final_traffic\nrobots: {count: 0}\n'}, ['s.yaml', 'scenario.robots.count', '0']),
    ('mission-superscript', RUN + ['--scenario', 's.yaml'],   # '²'.isdigit() is True, int('²') fails
     {'s.yaml': scenario(map='simple', robots={'count': 1, 'road': 'outer', 'missions': {'thymio1': '1,²'}})},
     ['s.yaml', 'scenario.robots.missions.thymio1', "'1,²'"]),
    ('mission-no-such-robot', RUN + ['--scenario', 's.yaml'],
     {'s.yaml': scenario(map='simple', robots={'count': 1, 'road': 'outer', 'missions': {'thymio7': [1]}})},
     ['s.yaml', 'scenario.robots.missions', "'thymio7'"]),
    # --- numbers
    ('duration-1e9', RUN + ['--scenario', 's.yaml'], {'s.yaml': 'name: d\nmap: oval\nduration: 1e9\n'
                                                                'robots: {road: loop}\n'},
     ['s.yaml', 'scenario.duration', '1000000000']),
    ('duration-nan', RUN + ['--scenario', 's.yaml'], {'s.yaml': scenario().replace('duration: 5.0', 'duration: .nan')},
     ['s.yaml', 'scenario.duration', 'nan']),
    ('duration-flag', RUN + ['--duration', '1e9'], {}, ['--duration', "'1e9'"]),
    ('duration-flag-nan', RUN + ['--duration', 'nan'], {}, ['--duration', "'nan'"]),
    ('robots-flag-word', RUN + ['--robots', 'abc'], {}, ['--robots', "'abc'"]),
    ('robots-flag-zero', RUN + ['--robots', '0'], {}, ['--robots', "'0'"]),
    ('robots-flag-too-many', RUN + ['--robots', '100'], {}, ['--robots 100', 'do not fit', 'at most 14']),
    ('robots-count-file', RUN + ['--scenario', 's.yaml'], {'s.yaml': robots(count=5000)},
     ['s.yaml', 'scenario.robots.count', '5000']),
    ('robots-unknown-road', RUN + ['--scenario', 's.yaml'], {'s.yaml': robots(road='ring')},
     ['s.yaml', 'scenario.robots.road', "'ring'"]),
    ('controller-unknown', RUN + ['--scenario', 's.yaml'], {'s.yaml': scenario(controller={'sped': 100})},
     ['s.yaml', 'scenario.controller', "'sped'"]),
    ('map-resolution-tiny', ['map', 'check', 'm.yaml'], {'m.yaml': a_map(resolution=1e-7)},
     ['m.yaml', 'map.resolution', '1e-07', 'pixels', 'GB', 'or coarser fits']),
    ('map-50m-too-much-road', ['map', 'check', 'm.yaml'], {'m.yaml': a_map(size=[50, 50], roads=[
        {'id': f'r{k}', 'start': [0.5, 0.5 + 0.3 * k, 0], 'pieces': [{'straight': 49}]} for k in range(70)])},
     ['m.yaml', 'map.roads', '3430 m of road', 'pixels', 'GB', 'km of road at this resolution']),
    ('map-straight-huge', ['map', 'check', 'm.yaml'],
     {'m.yaml': a_map(roads=[{**ROAD, 'pieces': [{'straight': 1e300}]}])},
     ['m.yaml', "roads[0] 'a' pieces[0]", '1e+300']),
    ('scenario-name-slash', RUN + ['--scenario', 's.yaml'], {'s.yaml': scenario(name='a/b')},
     ['s.yaml', 'scenario.name', "'a/b'"]),
    ('map-tight-turn', ['map', 'check', 'm.yaml'], {'m.yaml': a_map(size=[1.4, 1.0], roads=[
        {'id': 't', 'start': [0.1, 0.2, 0], 'pieces': [{'straight': 0.6}, {'arc': {'radius': 0.1, 'angle_deg': 90}}]}],
        barcodes=[{'road': 't', 'at': 0.1, 'code': 3}])},
     ['m.yaml', "road 't' pieces[1]", 'left turn of radius 0.1 m', 'high speed', 'at least 0.25 m']),
    ('map-barcode-on-arc', ['map', 'check', 'm.yaml'], {'m.yaml': a_map(size=[1.0, 1.0], roads=[
        {'id': 'c', 'start': [0.5, 0.1, 0], 'closed': True, 'pieces': [{'arc': {'radius': 0.3, 'angle_deg': 360}}]}],
        barcodes=[{'road': 'c', 'at': 0.4, 'code': 1}])},
     ['m.yaml', "barcodes[0] 'barcode0'.at", 'arc of radius 0.3 m', '>= 0.5 m']),
    ('map-size-word', ['map', 'check', 'm.yaml'], {'m.yaml': a_map(size='big')},
     ['m.yaml', 'map.size', "'big'"]),
    # --- files
    ('scenario-missing-map', RUN + ['--scenario', 's.yaml'], {'s.yaml': scenario(map='nowhere.yaml')},
     ['s.yaml', 'scenario.map', 'nowhere.yaml']),
    ('scenario-unknown-name', RUN + ['--scenario', 'ovall'], {}, ["no scenario named 'ovall'", 'oval']),
    ('calibration-not-mapping', RUN + ['--scenario', 's.yaml'],
     {'s.yaml': robots(calibration='cal.yaml'), 'cal.yaml': 'thymio1: 5\n'}, ['cal.yaml', 'thymio1', '5']),
    ('calibration-unknown-param', RUN + ['--scenario', 's.yaml'],
     {'s.yaml': robots(calibration='cal.yaml'), 'cal.yaml': 'thymio1: {speed_factr: 1.0}\n'},
     ['cal.yaml', 'thymio1', "'speed_factr'"]),
    ('not-utf8', RUN + ['--scenario', 's.yaml'], {'s.yaml': b'name: caf\xe9\nmap: oval\n'},
     ['s.yaml', 'not UTF-8', '0xe9']),
    ('yaml-syntax', RUN + ['--scenario', 's.yaml'], {'s.yaml': 'name: [oops\n'}, ['s.yaml', 'not valid YAML', 'line']),
    ('yaml-empty', RUN + ['--scenario', 's.yaml'], {'s.yaml': ''},
     ['s.yaml', 'scenario', 'must be a mapping, got None']),
    ('yaml-list', RUN + ['--scenario', 's.yaml'], {'s.yaml': '- 1\n- 2\n'}, ['s.yaml', 'must be a mapping', '[1, 2]']),
    ('yaml-huge-file', ['map', 'check', 'm.yaml'], {'m.yaml': '# ' + 'x' * 2_000_000 + '\n'},
     ['m.yaml', '2000003 bytes', '1000000']),
    ('yaml-deep', ['map', 'check', 'm.yaml'], {'m.yaml': '[' * 1200 + ']' * 1200}, ['m.yaml', 'nested too deeply']),
    ('yaml-nul', RUN + ['--scenario', 's.yaml'], {'s.yaml': scenario().replace('mine', 'mi\x00ne')},
     ['s.yaml', 'line', 'column', 'control character 0x00']),
    ('yaml-ansi-escape', ['map', 'check', 'm.yaml'], {'m.yaml': '\x1b[32m' + a_map() + '\x1b[0m'},
     ['m.yaml', 'line 1, column 1', '0x1b', 'coloured terminal text']),
    ('yaml-folder', RUN + ['--scenario', 'd.yaml'], {'d.yaml/x': ''}, ['d.yaml', 'is a folder, not a regular file']),
    ('yaml-device', ['map', 'check', '/dev/zero'], {}, ['/dev/zero', 'is a device, not a regular file']),
    ('yaml-recursive-alias', RUN + ['--scenario', 's.yaml'], {'s.yaml': 'a: &a [*a]\n'}, ['s.yaml', 'its own anchor']),
    ('yaml-bomb-scenario', RUN + ['--scenario', 's.yaml'], {'s.yaml': BOMB + scenario()},
     ['s.yaml', 'aliases expand to more than 100000']),
    ('yaml-bomb-map-size', ['map', 'check', 'm.yaml'], {'m.yaml': BOMB + a_map(size='*i')},
     ['m.yaml', 'aliases expand to more than 100000']),
    ('huge-key', RUN + ['--scenario', 's.yaml'], {'s.yaml': scenario() + 'x' * 1000 + ': 1\n'},
     ['s.yaml', 'unknown field', "'xxxx"]),
    ('huge-int', RUN + ['--scenario', 's.yaml'],
     {'s.yaml': scenario().replace('count: 2', 'count: [' + '9' * 5000 + ']')},
     ['s.yaml', 'cannot be read']),
    ('map-check-folder', ['map', 'check', 'sub'], {'sub/x': ''}, ['sub', 'is a folder, not a regular file']),
    ('map-check-unknown-name', ['map', 'check', 'ovl'], {}, ["no map named 'ovl'", 'oval']),
    # --- output paths: refused before anything runs
    ('run-out-is-file', ['run', '--quiet', '--out', 'keep.txt'], {'keep.txt': 'mine'}, ['--out keep.txt', 'is a file']),
    ('run-out-read-only', ['run', '--quiet', '--out', 'ro/run'], {}, ['--out ro/run', 'cannot write']),
    ('run-out-too-long', ['run', '--quiet', '--out', 'r' * 300], {}, ['--out rrr', '300 bytes', '255']),
    ('calibrate-out-folder', ['calibrate', '--out', 'sub'], {'sub/x': 'mine'}, ['--out sub', 'is a folder']),
    ('calibrate-out-read-only', ['calibrate', '--out', 'ro/c.yaml'], {}, ['--out ro/c.yaml', 'cannot write']),
    ('passages-out-read-only', ['passages', '--out', 'ro/p.json'], {}, ['--out ro/p.json', 'cannot write']),
    ('analyze-out-read-only', ['analyze', 'bag', '--out', 'ro/report'],
     {'bag/x': ''}, ['--out ro/report', 'cannot write']),
    ('render-out-read-only', ['render', 'bag', '--out', 'ro/run.gif'],
     {'bag/x': ''}, ['--out ro/run.gif', 'cannot write']),
    ('export-out-read-only', ['map', 'export', 'oval', '--out',
     'ro/oval.svg'], {}, ['--out ro/oval.svg', 'cannot write']),
    ('export-format-mismatch', ['map', 'export', 'oval', '--format', 'pdf', '--out', 'x.svg'], {'x.svg': 'mine'},
     ['--out x.svg', "'.svg'", 'pdf']),
    ('export-no-suffix', ['map', 'export', 'oval', '--out', 'x'], {}, ['--out x', '.svg or .pdf']),
    ('export-unknown-map', ['map', 'export', 'ovl', '--out', 'x.svg'], {}, ["no map named 'ovl'"]),
    # --- other commands' numbers
    ('render-speed-zero', ['render', 'bag', '--speed', '0'], {'bag/x': ''}, ['--speed', "'0'"]),
    ('render-width-zero', ['render', 'bag', '--width', '0'], {'bag/x': ''}, ['--width', "'0'"]),
    ('render-width-huge', ['render', 'bag', '--width', '100000'], {'bag/x': ''}, ['--width', "'100000'", '8000']),
    ('render-fps-zero', ['render', 'bag', '--fps', '0'], {'bag/x': ''}, ['--fps', "'0'"]),
    ('render-map-unknown', ['render', 'bag', '--map', 'ovl'], {'bag/x': ''}, ["no map named 'ovl'"]),
    ('analyze-contact-negative', ['analyze', 'bag', '--contact-mm', '-1'], {'bag/x': ''}, ['--contact-mm', "'-1'"]),
    ('sweep-step-zero', ['barcodes', 'sweep', '--speeds', '0:10:0'], {}, ['--speeds', "'0:10:0'"]),
    ('sweep-speed-low', ['barcodes', 'sweep', '--speeds', '10,20'], {}, ['--speeds', '50..500', '10']),
    ('sweep-laps-zero', ['barcodes', 'sweep', '--laps', '0'], {}, ['--laps', "'0'"]),
    ('after-turn-distances', ['barcodes', 'after-turn', '--distances', 'a,b'], {}, ['--distances', "'a,b'"]),
    ('swarmcom-repetitions', ['swarmcom', 'mobile', '--repetitions', '1'], {}, ['--repetitions', "'1'", '>= 2']),
    ('swarmcom-group-of-one', ['swarmcom', 'mobile', '--robots', '0,1'], {}, ['--robots', "'0,1'", '2..16']),
    ('swarmcom-distances-reversed', ['swarmcom', 'static', '--min-distance', '50', '--max-distance', '10'], {},
     ['--min-distance 50', '--max-distance 10']),
    ('swarmcom-step-zero', ['swarmcom', 'static', '--step', '0'], {}, ['--step', "'0'"]),
    ('swarmcom-messages-word', ['swarmcom', 'static', '--messages', 'many'], {}, ['--messages', "'many'"]),
]


# --- issue #29: every parameter in range, names that exist, text as written, every option in range
#: The shipped maps, changed one value at a time (an intersection's own parameters).
FINAL_MAP = (ROOT / 'config' / 'maps' / 'final.yaml').read_text()
SIMPLE_MAP = (ROOT / 'config' / 'maps' / 'simple.yaml').read_text()


def final_map(old: str, new: str) -> str:
    assert old in FINAL_MAP, old
    return FINAL_MAP.replace(old, new, 1)


def world(**values) -> dict:
    return {'s.yaml': scenario(world=values)}


def controller(**values) -> dict:
    return {'s.yaml': scenario(controller=values)}


def yaml_text(text: str) -> str:
    """A scenario with a value YAML must read as written (.nan, .inf): safe_dump writes floats its own way."""
    return scenario() + text


def robots_text(entry: str) -> str:
    """The scenario with one more `robots:` entry written as YAML text (.nan as the user writes it)."""
    return scenario(robots=None) + f'robots: {{count: 2, road: loop, {entry}}}\n'


def mission_text(mission: str) -> str:
    """A scenario on the simple map whose thymio1 has `mission`, written as YAML text."""
    return scenario(map='simple', robots=None) + \
        f'robots: {{count: 1, road: outer, missions: {{thymio1: {mission}}}}}\n'


SC = RUN + ['--scenario', 's.yaml']
NEW_CASES = [
    # world parameters: type, range, finiteness
    ('world-motor-noise-nan', SC, {'s.yaml': yaml_text('world: {motor_noise: .nan}\n')},
     ['s.yaml', 'scenario.world.motor_noise', 'nan', 'finite']),
    ('world-ground-noise-inf', SC, {'s.yaml': yaml_text('world: {ground_noise: .inf}\n')},
     ['s.yaml', 'scenario.world.ground_noise', 'inf']),
    ('world-gain-spread-huge', SC, world(motor_gain_spread=1e6), ['s.yaml', 'scenario.world.motor_gain_spread',
                                                                  '1000000.0', '[0, 0.5]']),
    ('world-physics-dt-zero', SC, world(physics_dt=0), ['s.yaml', 'scenario.world.physics_dt', ': 0:', '0.0005']),
    ('world-prox-noise-negative', SC, world(prox_noise=-1), ['s.yaml', 'scenario.world.prox_noise', '-1']),
    ('world-resolution-word', SC, world(map_resolution='fine'), ['s.yaml', 'scenario.world.map_resolution', "'fine'"]),
    ('world-time-constant-bool', SC, world(motor_time_constant=True),
     ['s.yaml', 'scenario.world.motor_time_constant', 'True']),
    ('world-unknown', SC, world(motor_nois=0.1), ['s.yaml', 'scenario.world', "'motor_nois'"]),
    ('world-wheel-spread-huge', SC, world(wheel_imbalance_spread=3.0),
     ['s.yaml', 'scenario.world.wheel_imbalance_spread', '3.0']),
    # controller parameters
    ('controller-gain-road-zero', SC, controller(gain_road=0), ['s.yaml', 'scenario.controller.gain_road', ': 0:',
                                                                'divide by zero']),
    ('controller-spin-divisor-zero', SC, controller(spin_divisor=0),
     ['s.yaml', 'scenario.controller.spin_divisor', '0']),
    ('controller-gain-read-negative', SC, controller(gain_read=-6), ['s.yaml', 'scenario.controller.gain_read', '-6']),
    ('controller-obs-negative', SC, controller(obs_threshold=-1),
     ['s.yaml', 'scenario.controller.obs_threshold', '-1']),
    ('controller-speed-fraction', SC, controller(speed=150.5), ['s.yaml', 'scenario.controller.speed', '150.5',
                                                                'integer']),
    ('controller-speed-factor-nan', SC, {'s.yaml': yaml_text('controller: {speed_factor: .nan}\n')},
     ['s.yaml', 'scenario.controller.speed_factor', 'nan']),
    ('controller-avoidance-word', SC, controller(avoidance='v3'), ['s.yaml', 'scenario.controller.avoidance', "'v3'",
                                                                   "'v1', 'v2' or 'off'"]),
    ('controller-black-ratio-one', SC, controller(black_ratio=1.0),
     ['s.yaml', 'scenario.controller.black_ratio', '(0, 1)']),
    ('controller-bias-low', SC, controller(bias_roundabout=10),
     ['s.yaml', 'scenario.controller.bias_roundabout', '10']),
    ('controller-light-timeout-huge', SC, controller(light_timeout=10 ** 9),
     ['s.yaml', 'scenario.controller.light_timeout', '1000000000']),
    ('controller-robot-id-64', SC, controller(robot_id=64), ['s.yaml', 'scenario.controller.robot_id', '64']),
    ('controller-seed-negative', SC, controller(seed=-1), ['s.yaml', 'scenario.controller.seed', '-1']),
    ('controller-bool-word', SC, controller(obey_lights='sometimes'),
     ['s.yaml', 'scenario.controller.obey_lights', "'sometimes'", 'true or false']),
    # robots.overrides: values and names
    ('override-gain-road-zero', SC, {'s.yaml': robots(overrides={'thymio1': {'gain_road': 0}})},
     ['s.yaml', 'scenario.robots.overrides.thymio1.gain_road', '0']),
    ('override-unknown-robot', SC, {'s.yaml': robots(overrides={'thymo1': {'gain_road': 3}})},
     ['s.yaml', 'scenario.robots.overrides.thymo1', "no robot 'thymo1'", 'thymio1..thymio2']),
    ('override-beyond-count', SC, {'s.yaml': robots(overrides={'thymio3': {'speed': 200}})},
     ['s.yaml', 'scenario.robots.overrides.thymio3', "'thymio3'"]),
    ('override-unknown-param', SC, {'s.yaml': robots(overrides={'thymio1': {'sped': 1}})},
     ['s.yaml', 'scenario.robots.overrides.thymio1', "'sped'"]),
    ('override-not-mapping', SC, {'s.yaml': robots(overrides={'thymio1': 5})},
     ['s.yaml', 'scenario.robots.overrides.thymio1', '5']),
    ('override-nan', SC, {'s.yaml': robots_text('overrides: {thymio2: {wheel_balance: .nan}}')},
     ['s.yaml', 'scenario.robots.overrides.thymio2.wheel_balance', 'nan']),
    # robots.positions: names and overlaps
    ('positions-unknown-robot', SC, {'s.yaml': robots(positions={'thymo1': 0.5})},
     ['s.yaml', 'scenario.robots.positions.thymo1', "no robot 'thymo1'"]),
    ('positions-same', SC, {'s.yaml': robots(positions={'thymio1': 0.5, 'thymio2': 0.5})},
     ['s.yaml', 'scenario.robots.positions.thymio2', '0.5', 'overlap']),
    ('positions-overlap', SC, {'s.yaml': robots(positions={'thymio1': 0.5, 'thymio2': 0.55})},
     ['s.yaml', 'scenario.robots.positions.thymio2', '0.55', '0.050 m from thymio1', 'overlap']),
    ('positions-overlap-placed', SC, {'s.yaml': robots(count=1, positions={'thymio1': 0.5}, start=0.45)},
     None),  # one robot: nothing to overlap; replaced below by a real overlap with a placed robot
    ('positions-nan', SC, {'s.yaml': robots_text('positions: {thymio1: .nan}')},
     ['s.yaml', 'scenario.robots.positions.thymio1', 'nan']),
    ('positions-beyond-road', SC, {'s.yaml': robots(positions={'thymio1': 99})},
     ['s.yaml', 'scenario.robots.positions.thymio1', '99']),
    ('positions-word', SC, {'s.yaml': robots(positions={'thymio1': 'front'})},
     ['s.yaml', 'scenario.robots.positions.thymio1', "'front'"]),
    # calibration files: values in range
    ('calibration-nan', SC, {'s.yaml': robots(calibration='cal.yaml'), 'cal.yaml': 'thymio1: {speed_factor: .nan}\n'},
     ['cal.yaml', 'thymio1.speed_factor', 'nan']),
    ('calibration-out-of-range', SC,
     {'s.yaml': robots(calibration='cal.yaml'), 'cal.yaml': 'thymio1: {wheel_balance: 3}\n'},
     ['cal.yaml', 'thymio1.wheel_balance', '3', '[0.8, 1.25]']),
    # a YAML key given twice
    ('dup-key-top', SC, {'s.yaml': 'name: a\nmap: oval\nmap: final\nrobots: {road: loop}\n'},
     ['s.yaml', 'line 3', "duplicate key 'map'", 'first at line 2']),
    ('dup-key-nested', SC, {'s.yaml': 'name: a\nmap: oval\nrobots: {road: loop, count: 1, count: 2}\n'},
     ['s.yaml', 'line 3', "duplicate key 'count'"]),
    ('dup-key-map', ['map', 'check', 'm.yaml'], {'m.yaml': a_map() + 'size: [2.0, 2.0]\n'},
     ['m.yaml', "duplicate key 'size'", 'first at line']),
    ('dup-key-calibration', SC, {'s.yaml': robots(calibration='cal.yaml'),
                                 'cal.yaml': 'thymio1: {speed_factor: 1.0}\nthymio1: {speed_factor: 1.1}\n'},
     ['cal.yaml', 'line 2', "duplicate key 'thymio1'"]),
    # missions written with digits that are not ASCII (str.isdigit() is True, the map has no such number)
    ('mission-arabic-indic', SC, {'s.yaml': mission_text('"١"')},
     ['s.yaml', 'scenario.robots.missions.thymio1', "'١'"]),
    ('mission-fullwidth', SC, {'s.yaml': mission_text('"1,３"')},
     ['s.yaml', 'scenario.robots.missions.thymio1', "'1,３'"]),
    ('mission-devanagari-list', SC, {'s.yaml': mission_text('["१"]')},
     ['s.yaml', 'scenario.robots.missions.thymio1', '१']),
    # generated intersections name their own parameters, not a road they would generate
    ('crossroad-approach-zero', ['map', 'check', 'm.yaml'], {'m.yaml': final_map('approach: 0.75', 'approach: 0')},
     ['m.yaml', "crossroad 'X1'", 'approach: 0.0:', 'room for the right turn']),
    ('crossroad-turn-straight-negative', ['map', 'check', 'm.yaml'],
     {'m.yaml': final_map('heading_deg: 0, approach', 'heading_deg: 0, turn_straight: -1, approach')},
     ['m.yaml', "crossroad 'X1'", 'turn_straight: -1']),
    ('crossroad-light-offset-far', ['map', 'check', 'm.yaml'],
     {'m.yaml': final_map('light_offset: 0.21', 'light_offset: 5')},
     ['m.yaml', "crossroad 'X1'", 'light_offset: 5']),
    ('crossroad-leave-short', ['map', 'check', 'm.yaml'], {'m.yaml': final_map('leave: 0.5', 'leave: 0.05')},
     ['m.yaml', "crossroad 'X1'", 'leave: 0.05']),
    ('roundabout-stub-negative', ['map', 'check', 'm.yaml'],
     {'m.yaml': SIMPLE_MAP.replace('roundabout: {', 'roundabout: {stub: -1, ', 1)},
     ['m.yaml', 'roundabout', 'stub: -1']),
    ('roundabout-radius-tiny', ['map', 'check', 'm.yaml'],
     {'m.yaml': SIMPLE_MAP.replace('roundabout: {', 'roundabout: {radius: 0.01, ', 1)},
     ['m.yaml', 'roundabout', 'radius: 0.01']),
    ('location-parallel-zero', ['map', 'check', 'm.yaml'],
     {'m.yaml': SIMPLE_MAP.replace('location: {', 'location: {parallel: 0, ', 1)},
     ['m.yaml', 'location', 'parallel: 0']),
    ('branching-gap-zero', ['map', 'check', 'm.yaml'], {'m.yaml': final_map('gap: 0.3', 'gap: 0')},
     ['m.yaml', "branching 'B1'", 'gap: 0']),
    ('barcode-gap-huge', ['map', 'check', 'm.yaml'],
     {'m.yaml': a_map(barcodes=[{'road': 'a', 'at': 0.1, 'code': 1, 'gap': 1e300}])},
     ['m.yaml', 'gap', '1e+300', '[0, 0.05]']),
    # other commands: every option has a range
    ('render-fps-tiny', ['render', 'bag', '--fps', '0.0001'], {'bag/x': ''}, ['--fps', "'0.0001'", '[1, 100]']),
    ('render-start-after-end', ['render', 'bag', '--start', '8', '--end', '2'], {'bag/x': ''},
     ['--start 8', '--end 2', 'not before']),
    ('render-empty-window', ['render', 'bag', '--start', '5', '--end', '5'], {'bag/x': ''}, ['--start 5', '--end 5']),
    ('render-at-negative', ['render', 'bag', '--at', '-1'], {'bag/x': ''}, ['--at', "'-1'"]),
    ('analyze-near-miss-nan', ['analyze', 'bag', '--near-miss-mm', 'nan'], {'bag/x': ''}, ['--near-miss-mm', "'nan'"]),
    ('priority-scenario-oval', ['priority', '--scenario', 'oval', '--seeds', '1', '--workers', '1'], {},
     ['--scenario oval', 'thymio1 has no mission']),
    ('priority-seeds-huge', ['priority', '--seeds', '1-99999'], {}, ['--seeds', '99999 seeds', '10000']),
    ('traffic-seeds-huge', ['traffic', '--seeds', '0-2147483647', '--out', 'o'], {},
     ['--seeds', '2147483648 seeds']),
    ('traffic-seeds-reversed', ['traffic', '--seeds', '5-1', '--out', 'o'], {}, ['--seeds', "'5-1'", 'ends before']),
    ('traffic-seeds-beyond', ['traffic', '--seeds', '1-2147483648', '--out', 'o'], {}, ['--seeds', '0..2147483647']),
    ('traffic-robots-1000', ['traffic', '--robots', '1000', '--seeds', '1', '--out', 'o'], {},
     ['--robots 1000', 'do not fit']),
    ('traffic-duration-nan', ['traffic', '--duration', 'nan', '--out', 'o'], {}, ['--duration', "'nan'"]),
    ('map-passages-seeds-huge', ['map', 'passages', '0-2147483647'], {}, ['seeds', '2147483648 seeds']),
    ('recovery-trials-zero', ['recovery', '--trials', '0'], {}, ['--trials', "'0'"]),
    ('generate-seed-negative', ['map', 'generate', '--seed', '-1'], {}, ['--seed', "'-1'"]),
    ('swarmcom-time-constant-nan', ['swarmcom', 'static', '--time-constant', 'nan', '--out', 'o'], {},
     ['--time-constant', "'nan'"]),
    ('swarmcom-time-constant-negative', ['swarmcom', 'static', '--time-constant', '-1', '--out', 'o'], {},
     ['--time-constant', "'-1'"]),
    ('swarmcom-step-tiny', ['swarmcom', 'static', '--step', '0.0001', '--out', 'o'], {},
     ['--step 0.0001', 'more than 10000 distances']),
    ('swarmcom-counts-zero', ['swarmcom', 'scalability', '--counts', '0', '--out', 'o'], {},
     ['--counts', "'0'", '1..1000']),
    ('swarmcom-radius-inf', ['swarmcom', 'scalability', '--radius', 'inf', '--out', 'o'], {}, ['--radius', "'inf'"]),
    ('swarmcom-samples-huge', ['swarmcom', 'threshold', '--samples', '1000000000000', '--out', 'o'], {},
     ['--samples', "'1000000000000'"]),
    ('swarmcom-repetitions-huge', ['swarmcom', 'mobile', '--repetitions', '1000000', '--out', 'o'], {},
     ['--repetitions', "'1000000'"]),
    # an --out that holds an earlier run
    ('run-out-earlier-run', ['run', '--quiet', '--out', 'out'], {'out/summary.json': '{}'},
     ['out holds an earlier run', 'summary.json']),
    ('run-out-cut-bag', ['run', '--quiet', '--out', 'out'], {'out/bag/bag.mcap': 'cut'},
     ['out holds an earlier run', 'bag repair']),
]
#: A robot given a position inside one placed evenly (thymio2 of two on the oval starts half a lap on).
NEW_CASES = [c for c in NEW_CASES if c[3] is not None] + [
    ('positions-overlap-placed', SC, {'s.yaml': robots(positions={'thymio1': 1.8})},
     ['s.yaml', 'scenario.robots.positions.thymio1', '1.8', 'from thymio2', 'overlap']),
]
CASES += NEW_CASES


@pytest.fixture
def folder(tmp_path, request):
    """A case folder, with `ro/`, a folder nobody can write (root too: chattr +i where it works),
    when the case names it.
    """
    args = getattr(getattr(request.node, 'callspec', None), 'params', {}).get('args', ['ro/'])
    if not any('ro/' in a for a in args):
        yield tmp_path
        return
    ro = tmp_path / 'ro'
    ro.mkdir()
    (ro / 'keep.txt').write_text('mine')
    ro.chmod(0o555)
    immutable = os.geteuid() == 0 and shutil.which('chattr') and \
        subprocess.run(['chattr', '+i', str(ro)], capture_output=True).returncode == 0
    try:
        yield tmp_path
    finally:
        if immutable:
            subprocess.run(['chattr', '-i', str(ro)], check=True)
        ro.chmod(0o755)


def _writable(path: Path) -> bool:
    try:
        (path / 'probe').touch()
    except OSError:
        return False
    (path / 'probe').unlink()
    return True


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob('*'))}


class _Cli:
    """`thymio-road ARGS` in a process of its own, forked from one that imported the command once
    (test/cli_server.py): the same main() as the console script, without 2-4 s of imports a case.
    """

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(ROOT / 'test' / 'cli_server.py')], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, cwd=ROOT,
                                     env={**os.environ, 'PYTHONPATH': str(ROOT)})
        assert self.proc.stdout.readline().strip() == 'ready'
        self.logs = Path(tempfile.mkdtemp(prefix='thymio-road-cli-'))

    def __call__(self, args: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
        out, err = self.logs / 'stdout', self.logs / 'stderr'
        self.proc.stdin.write(json.dumps({'args': args, 'cwd': str(cwd), 'out': str(out), 'err': str(err),
                                          'timeout': timeout}) + '\n')
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        assert not answer['timed_out'], f'{args} did not finish in {timeout} s'
        return subprocess.CompletedProcess(args, answer['code'], out.read_text(), err.read_text())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        shutil.rmtree(self.logs, ignore_errors=True)


@pytest.fixture(scope='module')
def cli():
    runner = _Cli()
    yield runner
    runner.close()


@pytest.mark.parametrize('args, files, expected', [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_cleanly(cli, folder, args, files, expected):
    if any('ro/' in a for a in args) and _writable(folder / 'ro'):
        pytest.skip('cannot make a read-only folder here')
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = _snapshot(folder)
    proc = cli(args, folder)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert 'Traceback' not in output
    assert '_positive_int' not in output and 'invalid ' not in output  # no internal names
    assert len(proc.stderr) < 2000  # values cut before they are rendered
    for text in expected:
        assert text in proc.stderr, f'{text!r} not in {proc.stderr!r}'
    assert _snapshot(folder) == before  # nothing written, nothing overwritten


def test_a_fifo_given_as_a_scenario_or_map_is_refused_at_once(tmp_path):
    """Reading a named pipe blocks until something writes to it: it is refused without opening."""
    fifo = tmp_path / 'pipe.yaml'
    os.mkfifo(fifo)
    for args in (RUN + ['--scenario', str(fifo)], ['map', 'check', str(fifo)]):
        proc = subprocess.run([sys.executable, '-m', 'thymio_road.cli', *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60, env={**os.environ, 'PYTHONPATH': str(ROOT)})
        assert proc.returncode == 2 and 'is a FIFO (named pipe), not a regular file' in proc.stderr, proc.stderr
        assert 'Traceback' not in proc.stderr


def test_at_least_fifty_cases():
    assert len(CASES) >= 50 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize('kind, text', [('scenario', BOMB + scenario()), ('map', BOMB + a_map(size='*i'))])
def test_yaml_bomb_refused_fast_and_small(tmp_path, kind, text):
    """A billion-laughs file is refused from its node count, before anything is built: measured in
    a fresh process (peak of Python allocations while loading) with a generous bound on the time.
    """
    path = tmp_path / f'{kind}.yaml'
    path.write_text(text)
    loader = ('from thymio_road.scenario import load_scenario as load' if kind == 'scenario'
              else 'from thymio_road.map.loader import load_map as load')
    code = f"""
import sys, time, tracemalloc
{loader}
from thymio_road.map.validation import ConfigError
tracemalloc.start()
start = time.perf_counter()
try:
    load(sys.argv[1])
except ConfigError as exc:
    message = str(exc)
seconds = time.perf_counter() - start
print(seconds, tracemalloc.get_traced_memory()[1], len(message))
"""
    # tracemalloc, not ru_maxrss: a child started by vfork inherits the parent's peak through exec.
    proc = subprocess.run([sys.executable, '-c', code, str(path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, 'PYTHONPATH': str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    seconds, peak_bytes, message_length = proc.stdout.split()
    assert float(seconds) < 1.0
    assert int(peak_bytes) < 200e6
    assert int(message_length) < 300


def test_shipped_names_accepted_wherever_a_map_is_named(tmp_path, capsys):
    assert main(['map', 'check', 'oval']) == 0
    assert main(['map', 'export', 'oval', '--out', str(tmp_path / 'oval.svg')]) == 0
    assert 'oval' in capsys.readouterr().out


def test_full_disk_while_writing_is_a_clean_error(tmp_path, monkeypatch, capsys):
    """ENOSPC from the writer: exit 2 naming the file, no traceback, the old file kept."""
    import thymio_road.map.export as export
    out = tmp_path / 'oval.svg'
    out.write_text('previous')

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
    monkeypatch.setattr(export.Path, 'write_text', full)
    assert main(['map', 'export', 'oval', '--out', str(out)]) == 2
    err = capsys.readouterr().err
    assert f'error: {out}: No space left on device' in err
    assert out.read_text() == 'previous'


def test_yaml_1_2_floats_are_numbers(tmp_path):
    from thymio_road.map.validation import load_yaml
    path = tmp_path / 'f.yaml'
    path.write_text('a: 1e9\nb: 2.5e-3\nc: -1E+2\nd: 1.0\ne: 12\nf: 1e\ng: e9\n')
    assert load_yaml(path) == {'a': 1e9, 'b': 2.5e-3, 'c': -100.0, 'd': 1.0, 'e': 12, 'f': '1e', 'g': 'e9'}


def test_shipped_maps_still_pass_the_crossing_and_number_rules():
    from thymio_road.map.loader import load_map
    for path in sorted((ROOT / 'config' / 'maps').glob('*.yaml')):
        load_map(path)


def test_at_least_sixty_cases_of_issue_29():
    assert len(NEW_CASES) >= 60 and len({c[0] for c in NEW_CASES}) == len(NEW_CASES)


def test_an_out_whose_bag_another_run_writes_is_named_so(cli, tmp_path):
    """Two runs on one --out: the second must not suggest repairing the bag the first still writes."""
    import fcntl
    bag = tmp_path / 'out' / 'bag'
    bag.mkdir(parents=True)
    with (bag / 'bag.mcap').open('wb') as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        proc = cli(['run', '--quiet', '--out', 'out'], tmp_path)
    assert proc.returncode == 2 and 'another run is still writing its bag there' in proc.stderr, proc.stderr
    assert 'bag repair' not in proc.stderr


# --- a full disk: a real small file system where the machine allows mounting one, else a file-size limit

@pytest.fixture(scope='module')
def recorded_bag(tmp_path_factory):
    """A closed bag of a short oval run (analysis profile)."""
    folder = tmp_path_factory.mktemp('recorded')
    proc = subprocess.run([sys.executable, '-m', 'thymio_road.cli', 'run', '--quiet', '--no-picture', '--duration', '4',
                           '--record', 'analysis', '--out', str(folder / 'run')], capture_output=True, text=True,
                          timeout=300, env={**os.environ, 'PYTHONPATH': str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    return folder / 'run' / 'bag'


class SmallDisk:
    """A tmpfs of `size` mounted for the test (root, where mount is permitted), filled up to `room`
    free bytes once the earlier files are in place; or, where it cannot be mounted, a plain folder
    and a file-size limit of `room` bytes on the command (RLIMIT_FSIZE: writes past it fail).
    """

    def __init__(self, path: Path, size: int = 4 << 20) -> None:
        self.path = path
        path.mkdir()
        self.mounted = not os.environ.get('THYMIO_ROAD_TEST_NO_MOUNT') and os.geteuid() == 0 and \
            shutil.which('mount') is not None and subprocess.run(
            ['mount', '-t', 'tmpfs', '-o', f'size={size}', 'tmpfs', str(path)], capture_output=True).returncode == 0

    def fill(self, room: int) -> None:
        self.room = room
        if self.mounted:
            stats = os.statvfs(self.path)
            with (self.path / 'filler').open('wb') as f:
                f.write(b'\0' * max(0, stats.f_bavail * stats.f_frsize - room))

    def run(self, args: list[str]) -> subprocess.CompletedProcess:
        limit = None if self.mounted else self.room

        def set_limit() -> None:
            if limit is not None:
                import resource
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        return subprocess.run([sys.executable, '-m', 'thymio_road.cli', *args], capture_output=True, text=True,
                              timeout=300, cwd=self.path, preexec_fn=set_limit,
                              env={**os.environ, 'PYTHONPATH': str(ROOT)})

    def close(self) -> None:
        if self.mounted:
            subprocess.run(['umount', str(self.path)], check=True)


@pytest.fixture
def disk(tmp_path):
    d = SmallDisk(tmp_path / 'disk')
    yield d
    d.close()


FULL = ('No space left on device', 'File too large')


def _left_over(folder: Path) -> list[str]:
    """Temporary files or folders a failed write left behind."""
    return [p.name for p in folder.rglob('.*') if '.tmp' in p.name or p.name.endswith('.repair')]


def test_full_disk_during_a_run_keeps_earlier_files_and_names_the_bag(disk):
    earlier = {'earlier/summary.json': b'{"previous": true}\n', 'earlier/trajectories.png': b'\x89PNG previous'}
    for name, data in earlier.items():
        (disk.path / name).parent.mkdir(parents=True, exist_ok=True)
        (disk.path / name).write_bytes(data)
    disk.fill(48_000)
    proc = disk.run(['run', '--quiet', '--no-picture', '--duration', '60', '--out', 'new'])
    assert proc.returncode == 2 and 'Traceback' not in proc.stderr, proc.stderr
    assert 'new/bag/bag.mcap' in proc.stderr and any(f in proc.stderr for f in FULL), proc.stderr
    assert 'the run stopped at' in proc.stderr and 'bag repair new/bag' in proc.stderr
    for name, data in earlier.items():
        assert (disk.path / name).read_bytes() == data
    assert not _left_over(disk.path)


def test_full_disk_during_map_export_keeps_the_earlier_file(disk):
    (disk.path / 'final.svg').write_bytes(b'<svg>previous</svg>')
    disk.fill(24_000)
    proc = disk.run(['map', 'export', 'final', '--out', 'final.svg'])
    assert proc.returncode == 2 and 'Traceback' not in proc.stderr, proc.stderr
    assert 'error: final.svg: ' in proc.stderr and 'the earlier file is kept' in proc.stderr, proc.stderr
    assert (disk.path / 'final.svg').read_bytes() == b'<svg>previous</svg>'
    assert not _left_over(disk.path)


def test_full_disk_during_analyze_keeps_the_earlier_report(disk, recorded_bag):
    shutil.copytree(recorded_bag, disk.path / 'bag')
    report = disk.path / 'report'
    report.mkdir()
    (report / 'index.html').write_text('previous')
    (report / 'metrics.json').write_text('{"previous": true}')
    disk.fill(8_000)
    proc = disk.run(['analyze', 'bag', '--out', 'report'])
    assert proc.returncode == 2 and 'Traceback' not in proc.stderr, proc.stderr
    assert 'report' in proc.stderr and any(f in proc.stderr for f in FULL), proc.stderr
    assert 'its earlier files are kept in report' in proc.stderr
    assert (report / 'index.html').read_text() == 'previous'
    assert (report / 'metrics.json').read_text() == '{"previous": true}'
    assert sorted(p.name for p in report.iterdir()) == ['index.html', 'metrics.json']
    assert not _left_over(disk.path)


def test_full_disk_during_bag_repair_leaves_the_cut_bag_as_it_was(disk, recorded_bag):
    bag = disk.path / 'bag'
    shutil.copytree(recorded_bag, bag)
    (bag / 'metadata.yaml').unlink()
    mcap = bag / 'bag.mcap'
    cut = mcap.read_bytes()[:int(mcap.stat().st_size * 0.8)]
    mcap.write_bytes(cut)
    disk.fill(4_000)
    proc = disk.run(['bag', 'repair', 'bag'])
    assert proc.returncode == 2 and 'Traceback' not in proc.stderr, proc.stderr
    assert 'bag/bag.mcap' in proc.stderr and 'the bag is as it was' in proc.stderr, proc.stderr
    assert mcap.read_bytes() == cut and sorted(p.name for p in bag.iterdir()) == ['bag.mcap']
    assert not _left_over(disk.path)
