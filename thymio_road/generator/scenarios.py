# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The scenarios that come with a generated map: traffic (the shipped `final_traffic`'s settings)
and one robot for the passage check (the shipped `final`'s settings).

The scenario layer sits above this package, so what comes from it is passed in: the shipped
config folder and its rule for how many robots a road holds (scenario.road_capacity).

The settings are copied from the shipped scenario files, not referred to with `extends:`, so a
written scenario reads on its own and stays what it was (a folder that holds a file named like a
shipped scenario would otherwise be taken for it). Robots start together on the road that holds
the most of them; when that road holds fewer than :data:`SPREAD_BELOW`, they are spread over every
road between intersections (``road: all``), so that the traffic tables' 15 robots
(``--robots 15``) fit on every generated map. When even that holds fewer than asked, the scenario
says so and places as many as fit.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import yaml

from thymio_road.map import starts
from thymio_road.map.road_map import RoadMap

#: Robots in a generated traffic scenario, as in final_traffic.
TRAFFIC_ROBOTS = 10
#: Robots start this far into their road, clear of the hub they leave.
START = 0.2
#: A traffic scenario whose best road holds fewer robots than this spreads them over every road:
#: the traffic tables of issue #27 run 10 and 15 robots on each generated map.
SPREAD_BELOW = 15
#: `robots.road` of a spread (scenario.ALL_ROADS; the scenario layer sits above this package).
ALL_ROADS = 'all'

#: How many robots a road holds from an arc length: (road_map, road_id, start, most) → count.
Capacity = Callable[..., int]


@dataclass(frozen=True)
class Placement:
    road: str
    start: float
    capacity: int


def best_road(road_map: RoadMap, capacity: Capacity) -> Placement:
    """The road between intersections that holds the most robots (the first such, in file order)."""
    best = None
    for road in road_map.roads:
        if starts.owner(road_map, road.id) is not None or road.length <= START:
            continue
        count = capacity(road_map, road.id, START, most=64)
        if best is None or count > best.capacity:
            best = Placement(road.id, START, count)
    if best is None:
        raise ValueError(f'{road_map.source}: no road between intersections to start robots on')
    return best


def shipped(config: Path, name: str) -> dict:
    """A shipped scenario's mapping (config/scenarios/<name>.yaml)."""
    return yaml.safe_load((config / 'scenarios' / f'{name}.yaml').read_text(encoding='utf-8'))


def _dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, width=100)


def traffic_text(road_map: RoadMap, name: str, map_file: str, config: Path, capacity: Capacity,
                 robots: int = TRAFFIC_ROBOTS) -> tuple[str, int]:
    """The traffic scenario's text and the number of robots it places."""
    base = shipped(config, 'final_traffic')
    place = best_road(road_map, capacity)
    spread = place.capacity < SPREAD_BELOW
    holds = sum(capacity(road_map, road.id, 0.0, most=64) for road in road_map.roads
                if starts.owner(road_map, road.id) is None) if spread else place.capacity
    count = min(robots, holds)
    has_lights = any(i.extra.get('lights') for i in road_map.intersections)
    header = [f'Traffic on the generated map {name} (docs/generated_maps.md): the settings of the shipped',
              'final_traffic scenario (config/scenarios/final_traffic.yaml says why each is what it is):',
              'lights at every light place of the map, IR, avoidance v2, the improved traffic rules.']
    if spread:
        header.append(f'The road that holds the most, {place.road}, holds {place.capacity} robots {0.25:g} m apart '
                      f'off its barcodes and intersections, fewer than {SPREAD_BELOW}: the robots are spread over '
                      'every road.')
    if count < robots:
        header.append(f'The roads hold at most {holds} robots {0.25:g} m apart off their barcodes and '
                      f'intersections: {count} robots, not {robots}.')
    where = {'road': ALL_ROADS} if spread else {'road': place.road, 'start': place.start}
    data = {'name': name, 'map': map_file, 'duration': base['duration'], 'seed': base['seed'],
            'controller': base['controller'],
            'robots': {'count': count, **where, 'calibrate': base['robots'].get('calibrate', True)},
            'ir': base['ir']}
    if has_lights:
        data['lights'] = base['lights']
    return ''.join(f'# {line}\n' for line in header) + _dump(data), count


def passages_text(road_map: RoadMap, name: str, map_file: str, config: Path, capacity: Capacity) -> str:
    """One robot with random decisions (for `thymio-road passages` and the generator's tests)."""
    base = shipped(config, 'final')
    place = best_road(road_map, capacity)
    header = [f'One robot on the generated map {name}, with the settings of the shipped final scenario:',
              'its intersection passages are checked against ground truth (thymio-road passages).']
    data = {'name': f'{name}_passages', 'map': map_file, 'duration': base['duration'], 'seed': base['seed'],
            'controller': base['controller'],
            'robots': {'count': 1, 'road': place.road, 'start': place.start,
                       'calibrate': base['robots'].get('calibrate', True)}}
    return ''.join(f'# {line}\n' for line in header) + _dump(data)
