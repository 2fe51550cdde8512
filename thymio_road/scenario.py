# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Scenarios: one description (map, robots, parameters) that drives both runtimes.

`node_specs` is the single pure function from a scenario to the node graph: the embedded
runtime instantiates its specs in one process and the launch files turn the same specs into
``launch_ros`` Node actions, so the two can never disagree.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
import math
import os
from pathlib import Path
import re
import sys
from typing import Any

from thymio_road.control.controller import ControllerParams
from thymio_road.control.navigation import map_locations, MissionError, parse_mission
from thymio_road.control.right_of_way import MAX_ID
from thymio_road.control.traffic_light import (Battery, BATTERY_KEY, LOCATION_ONLY, node_parameters, setting_types,
                                               Timing)
from thymio_road.map import starts
from thymio_road.map.map_cache import load_checked_map
from thymio_road.map.road_graph import RoadGraph
from thymio_road.map.road_map import RoadMap
from thymio_road.map.schema import check_values
from thymio_road.map.validation import ConfigError, Fields, load_yaml, MAX_DURATION, MAX_ROBOTS, MAX_SEED, show
from thymio_road.sim import robot_model as rm
from thymio_road.sim.world import RobotSpec, start_pose_on_road, WorldParams

PACKAGE = 'thymio_road'
#: Robots start at least this far apart along a road (centre to centre), so that each can move:
#: the centre proximity sensor, 7.95 cm ahead of the centre, sees 14 cm and the robot ahead reaches
#: 3 cm behind its centre, so closer robots see each other and slow down or stop (§6, v2); a closed
#: road full of robots that close never moves (issue #13: 23 robots on the oval drove 0.00 m).
MIN_SPACING = round(float(rm.PROX_SENSORS[2][0]) + rm.PROX_RANGE - rm.HULL_REAR_X, 3)
#: ROS 2 distros a recording can be made for (the last is the default).
ROS_DISTROS = ('humble', 'jazzy')
#: A ROS name token (REP-144, ROS 2 topic and node name rules): robot names become namespaces
#: and topic prefixes (/<robot>/cmd_vel), so anything else would record unusable topics.
ROS_NAME = re.compile(r'[A-Za-z][A-Za-z0-9_]*')
#: A scenario's name: part of its default output folder's name.
FILE_NAME = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}')


class ScenarioError(ConfigError):
    """A scenario file, or an override of it, that cannot be used."""


def config_dir() -> Path:
    """The package's config/ folder: ROS share dir, pip's share dir, or the source checkout."""
    candidates = []
    try:
        from ament_index_python.packages import get_package_share_directory
        candidates.append(Path(get_package_share_directory(PACKAGE)) / 'config')
    except Exception:  # noqa: BLE001 - no ROS, or package not in the ament index
        pass
    candidates.append(Path(sys.prefix) / 'share' / PACKAGE / 'config')
    candidates.append(Path(__file__).resolve().parent.parent / 'config')
    for path in candidates:
        if (path / 'scenarios').is_dir():
            return path
    raise FileNotFoundError(f'cannot find the {PACKAGE} config folder; looked in '
                            + ', '.join(map(str, candidates)))


def find_config(kind: str, name_or_path: str | os.PathLike) -> Path:
    """A scenario or map by path, or by name in config/<kind>/ (with or without .yaml), or a
    generated one by name (`generated:N[:SIZE]`: generator/names.py).
    """
    if isinstance(name_or_path, str) and name_or_path.startswith('generated:'):
        from thymio_road.generator.names import resolve
        return resolve(kind, name_or_path, config_dir(), road_capacity)
    path = Path(name_or_path)
    if path.suffix in ('.yaml', '.yml') or path.exists():
        return path
    shipped = config_dir() / kind / f'{name_or_path}.yaml'
    if shipped.exists():
        return shipped
    known = sorted(p.stem for p in (config_dir() / kind).glob('*.yaml'))
    raise ScenarioError(f"no {kind[:-1]} named '{name_or_path}' (shipped: {', '.join(known)})")


@dataclass(frozen=True)
class RobotEntry:
    name: str
    road: str
    s: float
    controller: dict[str, Any]
    #: Locations to visit in order ("3,1,5"); empty: the report's random decisions.
    mission: str = ''


@dataclass(frozen=True)
class Scenario:
    name: str
    source: Path
    road_map: RoadMap
    duration: float
    seed: int
    world: dict[str, Any]
    robots: tuple[RobotEntry, ...]
    controller: dict[str, Any] = field(default_factory=dict)
    #: IR medium settings (`ir:` key: model, collisions); None: no ir_medium node.
    ir: dict[str, Any] | None = None
    #: Traffic-light Thymios (`lights:` key): static bodies in the world, one traffic_light node each.
    lights: tuple['LightEntry', ...] = ()
    #: The ROS 2 distro whose message definitions an embedded recording uses (`ros_distro:` key).
    ros_distro: str = 'jazzy'


@dataclass(frozen=True)
class LightEntry:
    """A traffic light of the scenario: its place on the map, its timing and its battery."""

    name: str
    place: Any  # traffic.LightPlace
    timing: Timing
    battery: Battery


@lru_cache(maxsize=8)
def _cached_map(path: str, mtime: float) -> RoadMap:
    """Maps by resolved path and modification time: nodes of one process share the raster; a
    map checked by an earlier run is read back (map/map_cache.py).
    """
    return load_checked_map(path)


#: The key by which a scenario file names the scenario it changes (`extends: final_traffic`).
EXTENDS = 'extends'
#: Most scenarios one `extends:` chain may go through (a longer one is surely a mistake).
MAX_EXTENDS = 8
#: Keys whose value is a file named relative to the scenario that gives it (a base's `map:`
#: names a file beside the base, not beside the scenario that extends it).
_FILE_KEYS = (('map',), ('robots', 'calibration'))


def _read_scenario(path: Path, chain: tuple[Path, ...] = ()) -> Any:
    """A scenario file's mapping, laid over the one it `extends:` (read the same way): mappings
    merge key by key, lists and scalars replace, and `name:` is not inherited.
    """
    data = load_yaml(path, ScenarioError)
    if not isinstance(data, dict) or EXTENDS not in data:
        return data
    chain = (*chain, path.resolve())
    ref = data[EXTENDS]
    where = f'{path}: scenario.{EXTENDS}'
    if not isinstance(ref, str) or not ref:
        raise ScenarioError(f'{where}: must name a shipped scenario or a file relative to this one, got {show(ref)}')
    base_path = _base_scenario(path, ref)
    shown = ' → '.join(str(p) for p in (*chain, base_path.resolve()))
    if base_path.resolve() in chain:
        raise ScenarioError(f'{where}: {show(ref)} closes a cycle: {shown}')
    if len(chain) >= MAX_EXTENDS:
        raise ScenarioError(f'{where}: more than {MAX_EXTENDS} scenarios extend one another: {shown}')
    base = _read_scenario(base_path, chain)
    if not isinstance(base, dict):
        raise ScenarioError(f'{base_path}: scenario: must be a mapping (it is extended by {path}), got {show(base)}')
    base = {k: v for k, v in base.items() if k != 'name'}
    for keys in _FILE_KEYS:
        base = _rebased(base, keys, base_path.parent.resolve())
    return _merged(base, {k: v for k, v in data.items() if k != EXTENDS})


def _rebased(data: Any, keys: tuple[str, ...], folder: Path) -> Any:
    """`data` with the file its `keys` name given as a path from `folder`: the map when there is
    such a file (else it is a shipped map's name), a calibration file always.
    """
    if not isinstance(data, dict) or keys[0] not in data:
        return data
    key, value = keys[0], data[keys[0]]
    if len(keys) > 1:
        value = _rebased(value, keys[1:], folder)
    elif isinstance(value, str) and (key == 'calibration' or (folder / value).is_file()):
        value = str(folder / value)
    return {**data, key: value}


def _base_scenario(path: Path, ref: str) -> Path:
    """The scenario `ref` of an `extends:` in `path`: a file beside it (.yaml optional), else a shipped one."""
    for candidate in (path.parent / ref, path.parent / f'{ref}.yaml'):
        if candidate.is_file():
            return candidate
    shipped = sorted(p.stem for p in (config_dir() / 'scenarios').glob('*.yaml'))
    if ref in shipped:
        return config_dir() / 'scenarios' / f'{ref}.yaml'
    raise ScenarioError(f'{path}: scenario.{EXTENDS}: no scenario {show(ref)}: not a file beside this one '
                        f"({path.parent / ref}) and not a shipped scenario ({', '.join(shipped)})")


def _merged(base: Any, over: Any) -> Any:
    """`over` laid on `base`: mappings key by key (recursively), anything else replaced."""
    if not isinstance(base, dict) or not isinstance(over, dict):
        return over
    return {**base, **{k: _merged(base[k], v) if k in base else v for k, v in over.items()}}


def load_scenario(name_or_path: str | os.PathLike, robots: int | None = None, seed: int | None = None,
                  duration: float | None = None, controller: dict[str, Any] | None = None,
                  ros_distro: str | None = None) -> Scenario:
    """Read and validate a scenario; the keyword arguments override the file (CLI options)."""
    path = find_config('scenarios', name_or_path)
    source = str(path)
    top = Fields(_read_scenario(path), source, 'scenario', ScenarioError)
    top.seen.add(EXTENDS)
    name = top.optional('name', str, path.stem)
    if not FILE_NAME.fullmatch(name):
        top.fail('name', f'names the output folder runs/<name>-<time>: letters, digits, _ . or -, got {show(name)}')
    map_ref = top.require('map', str)
    file_duration = top.optional('duration', float, 60.0)
    file_seed = top.optional('seed', int, 0)
    world = top.optional('world', dict, {})
    defaults = top.optional('controller', dict, {})
    robots_data = top.require('robots', dict)
    ir_data = top.optional('ir', dict, None)
    lights_data = top.optional('lights', dict, None)
    file_distro = top.optional('ros_distro', str, ROS_DISTROS[-1])
    distro = file_distro if ros_distro is None else ros_distro
    top.done()
    if distro not in ROS_DISTROS:
        top.fail('ros_distro', f"must be one of {', '.join(ROS_DISTROS)}, got {distro!r}")

    if not 0 <= file_seed <= MAX_SEED:
        top.fail('seed', f'must be in 0..{MAX_SEED}, got {file_seed}')
    if duration is None and not 0 < file_duration <= MAX_DURATION:
        top.fail('duration', f'must be in (0, {MAX_DURATION:g}] s, got {file_duration}')
    map_path = path.parent / map_ref
    if not map_path.is_file():
        try:
            map_path = find_config('maps', map_ref)
        except ScenarioError:
            map_path = None
        if map_path is None or not map_path.is_file():
            shipped = ', '.join(sorted(p.stem for p in (config_dir() / 'maps').glob('*.yaml')))
            top.fail('map', f"no map named '{map_ref}': not a file beside the scenario ({path.parent / map_ref}) "
                            f'and not a shipped map ({shipped})')
    road_map = _cached_map(str(map_path.resolve()), map_path.stat().st_mtime)

    duration = file_duration if duration is None else duration
    if not 0 < duration <= MAX_DURATION:
        raise ScenarioError(f'duration: must be in (0, {MAX_DURATION:g}] s, got {duration}')
    _check_fields(world, WorldParams, f'{source}: scenario.world')
    _check_world(world, source)
    try:
        road_map.cell_factor(world_params_of(world).map_resolution)
    except ValueError as exc:
        raise ScenarioError(f'{source}: scenario.world.map_resolution: {exc}') from None
    defaults = {**defaults, **(controller or {})}
    _check_fields(defaults, ControllerParams, f'{source}: scenario.controller')
    seed = file_seed if seed is None else int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f'seed: must be in 0..{MAX_SEED}, got {seed}')
    ir = None if ir_data is None else _ir(ir_data, source)
    lights = () if lights_data is None else _lights(lights_data, source, road_map)
    entries = _robots(robots_data, source, road_map, defaults, robots, seed, world, len(lights))
    if lights and ir is None:
        raise ScenarioError(f'{source}: scenario.lights: traffic lights talk by IR: the scenario needs the '
                            "IR medium too (add 'ir: {}')")
    names = {e.name for e in entries}
    for light in lights:
        if light.name in names:
            raise ScenarioError(f"{source}: scenario.lights: light '{light.name}' has a robot's name")
    return Scenario(name, path.resolve(), road_map, float(duration), seed, world, entries, defaults, ir, lights,
                    distro)


#: The keys of `lights:` (and of each of its overrides) that set Timing's fields and Battery's.
_LIGHT_KEYS = (*setting_types(Timing), BATTERY_KEY)
#: A crossroad's all-red must outlast its slowest crossing: a robot that passed its first mark at
#: the end of a green, then turned left, leaves 15.5 s later at the lowest speed (measured on the
#: final map; straight 12 s, right 3 s). `crossroad_clearance` sets it apart from the locations'.
_CROSSROAD_KEY = 'crossroad_clearance'
#: The Timing field a crossroad's lights must share: they pre-empt together, as one signal group.
_GROUP_KEY = 'priority_preemption'


def _setting_changes(f: Fields, cls: type) -> dict[str, Any]:
    """The fields of `cls` (Timing or Battery) that the mapping of `f` gives, typed as declared."""
    changes = {}
    for key, kind in setting_types(cls).items():
        value = f.optional(key, kind, None)
        if value is not None:
            changes[key] = value
    return changes


def _light_settings(data: dict, source: str, where: str, timing: Timing,
                    battery: Battery) -> tuple[Timing, Battery]:
    """`timing` and `battery` with the fields that `lights:` (or one of its overrides) gives."""
    f = Fields(data, source, where, ScenarioError)
    changes = _setting_changes(f, Timing)
    battery_data = f.optional(BATTERY_KEY, dict, None)
    if battery_data is not None:
        b = Fields(battery_data, source, f'{where}.{BATTERY_KEY}', ScenarioError)
        battery_changes = _setting_changes(b, Battery)
        b.done()
        try:
            battery = dataclasses.replace(battery, **battery_changes)
        except ValueError as exc:
            b.fail(None, str(exc))
    f.done()
    try:
        timing = dataclasses.replace(timing, **changes)
    except ValueError as exc:
        f.fail(None, str(exc))
    return timing, battery


def _lights(data: dict, source: str, road_map: RoadMap) -> tuple[LightEntry, ...]:
    """The `lights:` key: which of the map's light places get a light (`at`: 'all' or intersection
    ids), Timing's fields (s), `battery` (Battery's fields), `crossroad_clearance`, and per-light
    `overrides` of Timing's and Battery's fields.
    """
    from thymio_road.map.lights import light_places
    from thymio_road.map.road_graph import RoadGraph
    where = 'scenario.lights'
    common = {k: v for k, v in data.items() if k in _LIGHT_KEYS}
    f = Fields({k: v for k, v in data.items() if k not in _LIGHT_KEYS}, source, where, ScenarioError)
    at = f.optional('at', object, 'all')
    overrides = f.optional('overrides', dict, {})
    crossroad_clearance = f.optional(_CROSSROAD_KEY, float, None)
    f.seen.update(_LIGHT_KEYS)
    f.done()
    base = _light_settings(common, source, where, Timing(), Battery())
    # A crossroad's lights do not extend an all red: every arm's robots announce the same role,
    # so a light cannot tell that a robot it hears drives in the lane it closed. They pre-empt for
    # a priority vehicle, as one signal group (control/traffic_light.py).
    crossroad_base = (dataclasses.replace(base[0], **{key: 0.0 for key in LOCATION_ONLY}), base[1])
    if crossroad_clearance is not None:
        crossroad_base = _light_settings({'clearance': crossroad_clearance}, source, f'{where}.{_CROSSROAD_KEY}',
                                         *crossroad_base)
    places = light_places(RoadGraph.build(road_map)) if road_map.intersections else []
    known = sorted({p.intersection for p in places})
    if at == 'all':
        chosen = places
    elif isinstance(at, list) and all(isinstance(a, str) for a in at):
        missing = [a for a in at if a not in known]
        if missing:
            f.fail('at', f"no light place at '{missing[0]}' in {road_map.source} (places at: "
                         f"{', '.join(known) or 'none: give a location light: true'})")
        chosen = [p for p in places if p.intersection in at]
    else:
        f.fail('at', f"must be 'all' or a list of intersection ids, got {show(at)}")
    if not chosen:
        f.fail('at', f'the map {road_map.source} has no light places (a location gets one with light: true)')
    names = {p.name for p in chosen}
    for name in overrides:
        if name not in names:
            f.fail('overrides', f"no light '{name}' (lights: {', '.join(sorted(names))})")
    entries = []
    for place in chosen:
        settings = crossroad_base if place.kind == 'crossroad' else base
        if place.name in overrides:
            if not isinstance(overrides[place.name], dict):
                f.fail(f'overrides.{place.name}', f'must be a mapping, got {show(overrides[place.name])}')
            for key in LOCATION_ONLY:
                if place.kind == 'crossroad' and overrides[place.name].get(key):
                    f.fail(f'overrides.{place.name}.{key}',
                           "only a location's light is actuated (a crossroad's robots all announce the same "
                           f'role), got {show(overrides[place.name][key])}')
            if place.kind == 'crossroad' and _GROUP_KEY in overrides[place.name]:
                # A member that pre-empted differently from the others would open conflicting arms.
                f.fail(f'overrides.{place.name}.{_GROUP_KEY}',
                       "a crossroad's lights pre-empt together, so set it under lights: for all of them, "
                       f'got {show(overrides[place.name][_GROUP_KEY])}')
            settings = _light_settings(overrides[place.name], source, f'{where}.overrides.{place.name}', *settings)
        entries.append(LightEntry(place.name, place, *settings))
    return tuple(entries)


def _ir(data: dict, source: str) -> dict[str, Any]:
    """The `ir:` key: the IR medium's channel model and whether simultaneous pulses collide."""
    from swarm_comm.prox_comm import MODELS
    f = Fields(data, source, 'scenario.ir', ScenarioError)
    model = f.optional('model', str, 'enki_doc')
    collisions = f.optional('collisions', bool, False)
    f.done()
    if model not in MODELS:
        f.fail('model', f"unknown model '{model}' (known: {', '.join(MODELS)})")
    return {'model': model, 'collisions': collisions}


def _check_fields(values: dict, cls: type, where: str) -> None:
    """Names, types, finiteness and ranges of `values` as parameters of `cls` (its schema,
    map/schema.py), each refused as 'file: section.field: value: why'.
    """
    check_values(cls, values, where, ScenarioError)


def _check_world(world: dict, source: str) -> None:
    try:
        WorldParams(**world)
    except ValueError as exc:
        raise ScenarioError(f'{source}: scenario.world: {exc}') from None


def _robots(data: dict, source: str, road_map: RoadMap, defaults: dict,
            count_override: int | None, calibration_seed: int = 0,
            calibration_world: dict | None = None, light_count: int = 0) -> tuple[RobotEntry, ...]:
    f = Fields(data, source, 'scenario.robots', ScenarioError)
    count = f.optional('count', int, 1)
    count = count if count_override is None else count_override
    road_ref = f.require('road', object)
    start = f.optional('start', float, 0.0)
    prefix = f.optional('name_prefix', str, 'thymio')
    overrides = f.optional('overrides', dict, {})
    calibration_file = f.optional('calibration', str, '')
    auto_calibrate = f.optional('calibrate', bool, False)
    missions = f.optional('missions', dict, {})
    #: Arc lengths on `road` for named robots, instead of the even spacing (e.g. two robots
    #: timed to meet at an intersection).
    positions = f.optional('positions', dict, {})
    f.done()
    own_overrides = overrides
    if calibration_file:
        # Per-robot parameters measured by `thymio-road calibrate` (report §10); explicit
        # overrides in the scenario win over them.
        path = Path(source).parent / calibration_file
        calibrated = load_yaml(path, ScenarioError) or {}
        if not isinstance(calibrated, dict):
            raise ScenarioError(f'{path}: must map robot names to controller parameters, got {show(calibrated)}')
        for name, params in calibrated.items():
            if not isinstance(params, dict):
                raise ScenarioError(f'{path}: {show(name)}: must be a mapping of controller parameters '
                                    f'(speed_factor, wheel_balance), got {show(params)}')
            _check_fields(params, ControllerParams, f'{path}: {name}')
        overrides = {name: {**calibrated.get(name, {}), **overrides.get(name, {})}
                     for name in set(calibrated) | set(overrides)}
    if not 1 <= count <= MAX_ROBOTS:
        f.fail('count', f'must be 1..{MAX_ROBOTS}, got {count}')
    if not ROS_NAME.fullmatch(prefix):
        f.fail('name_prefix', f'robot names are ROS namespaces (/<name>/cmd_vel): a letter, then letters, '
                              f'digits or _, got {show(prefix)}')
    where = f'--robots {count_override}' if count_override is not None else f'{source}: scenario.robots.count'
    spread = _spread_roads(road_ref, road_map, source, f)
    if spread is not None:
        # Over several roads (issue #28): each road's share of the robots, placed as on one road.
        if positions:
            f.fail('positions', f'arc lengths name a place on one road; with road {show(road_ref)} the robots '
                                'are spread over several')
        placed, fit = _place_spread(road_map, spread, count)
        if placed is None:
            length = sum(road_map.road(r).length for r in spread)
            raise ScenarioError(f'{where}: {count} robots do not fit on the {len(spread)} roads of road '
                                f'{show(road_ref)} ({length:.2f} m) with room to move ({MIN_SPACING} m apart, off '
                                f'barcodes and intersections): at most {fit}')
        road_id = road = spans = None
    else:
        road_id = road_ref
        road = _start_road(road_map, road_id, source)
        if not 0 <= start < road.length:
            f.fail('start', f"must be an arc length in [0, {road.length:.3f}) m on road '{road_id}', got {start}")
        spans = starts.forbidden(road_map, road_id)
        on_road = _place(road, start, count, spans)
        if on_road is None:
            fit = next((n for n in range(count - 1, 0, -1) if _place(road, start, n, spans) is not None), 0)
            raise ScenarioError(f"{where}: {count} robots do not fit on road '{road_id}' "
                                f'({road.length:.2f} m) with room to move ({MIN_SPACING} m apart, off barcodes and '
                                f'intersections): at most {fit}')
        placed = [(road_id, s) for s in on_road]
    names = [f'{prefix}{k + 1}' for k in range(count)]
    for key, given in (('overrides', own_overrides), ('positions', positions), ('missions', missions)):
        for name in given:
            if not _robot_of_run(name, names, prefix, count_override):
                f.fail(f'{key}.{name}' if isinstance(name, str) else key,
                       f'no robot {show(name)} (robots: {names[0]}..{names[-1]})')
    for name, params in overrides.items():
        if name not in names:
            continue  # an override for a robot beyond --robots N is simply unused
        if not isinstance(params, dict):
            raise ScenarioError(f'{source}: scenario.robots.overrides.{name}: must be a mapping, '
                                f'got {show(params)}')
        _check_fields(params, ControllerParams, f'{source}: scenario.robots.overrides.{name}')
    locations = map_locations(road_map)
    # Everything the file says is checked before the robots calibrate (seconds of simulation).
    plans = []
    for k, name in enumerate(names):
        params = _with_id({**defaults, **overrides.get(name, {})}, k)
        try:
            ControllerParams(**params)
        except ValueError as exc:
            raise ScenarioError(f'{source}: controller parameters of {name}: {exc}') from None
        try:
            numbers = parse_mission(missions.get(name, ''), locations, f'the map {road_map.source}')
        except MissionError as exc:
            raise ScenarioError(f'{source}: scenario.robots.missions.{name}: {exc}') from None
        road_k, s = placed[k]
        if name in positions:
            s = positions[name]
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s < road.length:
                raise ScenarioError(f'{source}: scenario.robots.positions.{name}: must be an arc length in '
                                    f"[0, {road.length:.3f}) m on road '{road_id}', got {show(s)}")
            span = starts.blocked_by(spans, s)
            if span is not None:
                raise ScenarioError(f'{source}: scenario.robots.positions.{name}: {s} m on road {road_id!r} is on '
                                    f'{span.what} ({span.start:.2f}..{span.end:.2f} m); robots start off barcodes '
                                    'and intersections')
        plans.append((name, road_k, float(s), ','.join(map(str, numbers))))
    if road is not None:
        _refuse_overlaps([(name, s, mission) for name, _, s, mission in plans], positions, road, f)
    calibration_world = calibration_world or {}
    measured: dict[int, dict] = {}
    if auto_calibrate:
        # The report calibrated every robot before a run (§10); do it on the simulated ones.
        # The world draws its bodies' wheel gains in order, robots first, then the lights
        # (robot_specs): the calibration world must hold as many bodies to give each robot its own.
        measured = _calibration(count, calibration_seed, WorldParams(**calibration_world), light_count)
    entries = []
    for k, (name, road_k, s, mission) in enumerate(plans):
        params = _with_id({**defaults, **measured.get(k, {}), **overrides.get(name, {})}, k)
        try:
            ControllerParams(**params)
        except ValueError as exc:
            raise ScenarioError(f'{source}: controller parameters of {name}: {exc}') from None
        entries.append(RobotEntry(name, road_k, s, params, mission))
    return tuple(entries)


def _start_road(road_map: RoadMap, road_id: Any, source: str) -> Any:
    """The road robots may start on (one between intersections), or ScenarioError naming it."""
    try:
        road = road_map.road(road_id)
    except KeyError:
        known = ', '.join(r.id for r in road_map.roads)
        raise ScenarioError(f'{source}: scenario.robots.road: no road {show(road_id)} in '
                            f'{road_map.source} (roads: {known})') from None
    inside = starts.owner(road_map, road_id)
    if inside is not None:
        raise ScenarioError(f"{source}: scenario.robots.road: road '{road_id}' is inside intersection "
                            f"'{inside.id}' ({inside.kind}); robots start on a road between intersections")
    return road


#: `robots: {road: all}` spreads the robots over every road between intersections.
ALL_ROADS = 'all'


def _spread_roads(ref: Any, road_map: RoadMap, source: str, f: Fields) -> list[str] | None:
    """The roads of `robots.road` when it spreads robots over several (ALL_ROADS, unless the map
    has a road of that name, or a list of road ids); None for one road's id.
    """
    if isinstance(ref, str):
        if ref != ALL_ROADS or any(r.id == ALL_ROADS for r in road_map.roads):
            return None
        return [r.id for r in road_map.roads if starts.owner(road_map, r.id) is None]
    if not isinstance(ref, list) or not ref or not all(isinstance(r, str) for r in ref):
        f.fail('road', f"must be a road's id, '{ALL_ROADS}' or a list of road ids, got {show(ref)}")
    if len(set(ref)) != len(ref):
        f.fail('road', f'names a road twice: {show(ref)}')
    for road_id in ref:
        _start_road(road_map, road_id, source)
    return list(ref)


def _spread_start(road: Any) -> float:
    """Where robots start on a road of a spread: an open road's first robot half a spacing in, so
    that it keeps MIN_SPACING from one at the end of the road before it.
    """
    return 0.0 if road.closed else MIN_SPACING / 2


def _spread_spans(road_map: RoadMap, road: Any) -> list:
    """The road's forbidden spans, and on an open road its last half spacing (see _spread_start)."""
    spans = starts.forbidden(road_map, road.id)
    if not road.closed:
        spans = sorted([*spans, starts.Span(road.length - MIN_SPACING / 2, road.length + 1.0, "the road's end")],
                       key=lambda span: span.start)
    return spans


def _place_spread(road_map: RoadMap, road_ids: list[str], count: int) -> tuple[list[tuple[str, float]] | None, int]:
    """`count` robots over the roads, each road's share in proportion to how many it holds (its
    capacity by `_place`'s rules; largest remainders, first roads first on ties), placed on it as
    `_place` places them. Returns the (road, arc length) of each robot in road order, or None and
    the largest count that fits.
    """
    roads = [road_map.road(r) for r in road_ids]
    spans = [_spread_spans(road_map, road) for road in roads]
    capacity = [_capacity(road, _spread_start(road), spans_k, MAX_ROBOTS) for road, spans_k in zip(roads, spans)]
    total = sum(capacity)
    if count > total:
        return None, min(total, MAX_ROBOTS)
    share = [count * c // total for c in capacity]
    rest = sorted(range(len(roads)), key=lambda k: (-(count * capacity[k] % total), k))
    for k in rest[:count - sum(share)]:
        share[k] += 1
    placed = []
    for road, spans_k, n in zip(roads, spans, share):
        if n:
            placed += [(road.id, s) for s in _place(road, _spread_start(road), n, spans_k)]
    return placed, total


def _capacity(road: Any, start: float, spans: list, most: int) -> int:
    """How many robots `_place` puts on the road from `start`, up to `most`."""
    low, high = 0, most
    while low < high:
        mid = (low + high + 1) // 2
        if _place(road, start, mid, spans) is not None:
            low = mid
        else:
            high = mid - 1
    return low


def _calibration(count: int, seed: int, params: WorldParams, parked: int = 0) -> dict[int, dict]:
    """calibrate()'s measurements, a fresh copy each time: a pure function of its arguments, and
    the embedded runtime reads a scenario twice (the command, then the world node from its file):
    calibrating once saves half a second of a short run's start.
    """
    return {k: dict(v) for k, v in _calibrated(count, seed, params, parked).items()}


@lru_cache(maxsize=8)
def _calibrated(count: int, seed: int, params: WorldParams, parked: int) -> dict[int, dict]:
    from thymio_road.calibration import calibrate
    return calibrate(count, seed, params, parked=parked)


def _robot_of_run(name: Any, names: list[str], prefix: str, count_override: int | None) -> bool:
    """Whether `name` (a key of robots.overrides, positions or missions) is a robot of the run; with
    --robots N, a robot the file has beyond N is too (its entry is then unused).
    """
    if name in names:
        return True
    if count_override is None or not isinstance(name, str) or not name.startswith(prefix):
        return False
    number = name[len(prefix):]
    return number.isascii() and number.isdigit() and 1 <= int(number) <= MAX_ROBOTS


#: Closest two robots' follow sensors may start along a road: a Thymio's body is this long
#: (front arc 8 cm ahead of the centre, rear 3 cm behind), so closer ones start inside each other.
BODY_LENGTH = round(rm.HULL_FRONT_RADIUS - rm.HULL_REAR_X, 3)


def _refuse_overlaps(plans: list[tuple[str, float, str]], positions: dict, road: Any, f: Fields) -> None:
    """Robots given `positions` must not start inside another robot (two at the same arc length
    drove on top of each other: 107 contacts).
    """
    placed = sorted((s, name) for name, s, _ in plans)
    pairs = list(zip(placed, placed[1:]))
    if road.closed and len(placed) >= 2:
        pairs.append((placed[-1], (placed[0][0] + road.length, placed[0][1])))
    for (s1, a), (s2, b) in pairs:
        if s2 - s1 < BODY_LENGTH:
            name, other = (b, a) if b in positions else (a, b)
            here = positions.get(name)
            f.fail(f'positions.{name}', f'{show(here)}: {abs(s2 - s1):.3f} m from {other} on road {road.id!r}: '
                                        f'their bodies would overlap (robots start at least {BODY_LENGTH} m apart)')


def _with_id(params: dict[str, Any], k: int) -> dict[str, Any]:
    """The k-th robot's parameters with the id it announces under the improved traffic rules
    (1..63, repeating beyond 63 robots) unless the file gives one.
    """
    if params.get('traffic_rules') != 'improved' or 'robot_id' in params:
        return params
    return {**params, 'robot_id': k % MAX_ID + 1}


def _place(road: Any, start: float, count: int, spans: list) -> list[float] | None:
    """Starts on `road` from `start`, off barcodes and intersections and at least MIN_SPACING apart:
    evenly spaced where the road allows, else packed one after the other; None when `count` robots
    do not fit (the greedy packing is the tightest there is on a line).
    """
    length = road.length
    room = length - MIN_SPACING if road.closed else length - 0.05 - start
    for spacing in ((length if road.closed else length - start) / count, MIN_SPACING):
        placed: list[float] = []
        for k in range(count):
            wanted = start + k * spacing
            if placed:
                wanted = max(wanted, placed[-1] + MIN_SPACING)
            turn = (wanted // length) * length if road.closed else 0.0   # laps already gone round
            s = turn + starts.free_from(spans, wanted - turn)
            if s - start > room + 1e-9:
                break
            placed.append(s)
        else:
            return [s % length for s in placed] if road.closed else placed
    return None


def road_capacity(road_map: RoadMap, road_id: str, start: float = 0.0, most: int = MAX_ROBOTS) -> int:
    """How many robots a scenario may start on `road_id` from `start` (the placement of `robots:`:
    MIN_SPACING apart, off barcodes and intersections), up to `most`.
    """
    return _capacity(road_map.road(road_id), start, starts.forbidden(road_map, road_id), most)


def robot_specs(scenario: Scenario) -> list[RobotSpec]:
    """Start poses: each robot's follow sensor on its road at its arc length."""
    specs = []
    for entry in scenario.robots:
        x, y, th = start_pose_on_road(scenario.road_map, entry.road, entry.s)
        specs.append(RobotSpec(entry.name, x, y, th))
    # Traffic lights are Thymios too: bodies the others see and touch, that never move.
    for light in scenario.lights:
        x, y, th = light.place.pose
        specs.append(RobotSpec(light.name, x, y, th, static=True))
    return specs


def world_params(scenario: Scenario) -> WorldParams:
    return world_params_of(scenario.world)


def world_params_of(world: dict[str, Any]) -> WorldParams:
    return WorldParams(**world)


@dataclass(frozen=True)
class NodeSpec:
    """One node of the graph, as both runtimes start it."""

    executable: str
    name: str
    namespace: str
    parameters: dict[str, Any]
    remappings: tuple[tuple[str, str], ...] = ()


def _typed(params: Any) -> dict[str, Any]:
    """A parameter dataclass as a dict whose values have the declared types (a YAML `0` for a
    float field becomes 0.0), since rclpy refuses a value of another type than its default.
    """
    out = {}
    for f in dataclasses.fields(params):
        value = getattr(params, f.name)
        default = getattr(type(params)(), f.name)
        out[f.name] = float(value) if isinstance(default, float) and not isinstance(value, bool) else value
    return out


def node_specs(scenario: Scenario) -> list[NodeSpec]:
    """The node graph of a scenario: the world, one controller per robot namespace, then the
    IR medium when the scenario has an `ir:` key.
    """
    specs = [NodeSpec('thymio_world', 'world', '/', {
        'scenario_file': str(scenario.source),
        'robot_count': len(scenario.robots),
        'seed': scenario.seed,
        **_typed(world_params(scenario)),
    })]
    graph = _road_graph(scenario.road_map)
    crossroad_timeout = crossroad_light_timeout(scenario)
    for k, entry in enumerate(scenario.robots):
        controller = dict(entry.controller)
        if controller.get('light_timeout') and not controller.get('light_timeout_crossroad'):
            controller['light_timeout_crossroad'] = crossroad_timeout
        # Each robot's random decisions get their own seed, derived from the scenario's.
        controller.setdefault('seed', scenario.seed * 1000 + k)
        params = {**_typed(ControllerParams(**controller)), 'use_sim_time': True,
                  # the map for the robot's navigation (its road graph), and its mission
                  'map_file': scenario.road_map.source, 'mission': entry.mission,
                  # where it comes from, when its start road says so: a crossroad's lights address
                  # a robot by the node it came from, and one that did not know it ignored them
                  # and drove into a red (issue #27: a generated map whose start road leads into X1)
                  'start_node': graph.node_before(entry.road, entry.s) if graph is not None else '',
                  'start_road': entry.road}
        specs.append(NodeSpec('thymio_controller', 'controller', f'/{entry.name}', params))
    if scenario.ir is not None:
        specs.append(NodeSpec('thymio_ir_medium', 'ir_medium', '/', {
            'scenario_file': str(scenario.source), 'robot_count': len(scenario.robots),
            'seed': scenario.seed, **scenario.ir, 'use_sim_time': True}))
    for light in scenario.lights:
        specs.append(NodeSpec('thymio_traffic_light', 'traffic_light', f'/{light.name}', {
            'scenario_file': str(scenario.source), 'robot_count': len(scenario.robots),
            'seed': scenario.seed, 'light': light.name,
            **node_parameters(light.timing, light.battery), 'use_sim_time': True}))
    return specs


#: How much longer than its light's longest red a robot held at a crossroad waits in silence.
CROSSROAD_TIMEOUT_MARGIN = 5.0


def has_priority_vehicle(scenario: Scenario) -> bool:
    """Whether a robot of the scenario is a priority vehicle (`kind: priority`): the lights
    pre-empt for it, so their greens may be held and their reds last longer.
    """
    return any({**scenario.controller, **robot.controller}.get('kind') == 'priority' for robot in scenario.robots)


def crossroad_light_timeout(scenario: Scenario) -> int:
    """A robot's timeout at a crossroad's light, in events of 0.1 s: the longest red of the
    scenario's crossroad lights and a margin, so that silence there is taken for a dead light,
    never for a green (X1's lights of final_traffic give 45 s). With a priority vehicle about,
    the red as a pre-emption lengthens it (the other arms' green held for it), so that a robot
    held there does not drive into the crossing lanes' held green (105 s in priority). 0 when
    the scenario has no crossroad light.
    """
    priority = has_priority_vehicle(scenario)
    reds = [light.timing.longest_red(light.place.phases, priority) for light in scenario.lights
            if light.place.kind == 'crossroad']
    return math.ceil((max(reds) + CROSSROAD_TIMEOUT_MARGIN) * 10) if reds else 0


def _road_graph(road_map: RoadMap) -> RoadGraph | None:
    """The map's road graph, or None for a map without intersections (nothing to navigate)."""
    if not road_map.intersections:
        return None
    try:
        return RoadGraph.build(road_map)
    except ValueError:
        return None


def laps(scenario: Scenario, distance: float) -> float | None:
    """Distance in laps of the robots' road, when robots can only go round it (a closed road on
    a map without intersections); None on a network, where a lap means nothing.
    """
    road = scenario.road_map.road(scenario.robots[0].road)
    if scenario.road_map.intersections or not road.closed or road.length <= 0 or \
            any(entry.road != road.id for entry in scenario.robots):
        return None
    return distance / road.length
