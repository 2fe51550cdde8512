# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A mission is checked by one function (control/navigation.parse_mission) for the scenario, the
controller node and the Navigator: ASCII digits, and locations the map has (no literal bound).
"""
from __future__ import annotations

import pytest

from thymio_road.control.navigation import map_locations, MissionError, Navigator, parse_mission
from thymio_road.map.loader import load_map
from thymio_road.map.road_graph import RoadGraph
from thymio_road.scenario import config_dir


@pytest.fixture(scope='module')
def final_map():
    return load_map(config_dir() / 'maps' / 'final.yaml')


def test_the_locations_come_from_the_map(final_map):
    assert map_locations(final_map) == {1, 2, 3, 4, 5}
    assert map_locations(load_map(config_dir() / 'maps' / 'oval.yaml')) == set()


@pytest.mark.parametrize('mission,numbers', [
    ('3, 1,5', [3, 1, 5]), ('', []), (' , ', []), (4, [4]), ([3, '1'], [3, 1]), ((), []), ('007', [7])])
def test_texts_numbers_and_lists(mission, numbers):
    assert parse_mission(mission) == numbers


@pytest.mark.parametrize('mission', ['²', '٣', '3 1', '-1', '+2', '1.0', '3;1', True, 2.0, None, [True], [[1]]])
def test_only_ascii_digits(mission):
    with pytest.raises(MissionError, match='mission must be location numbers') as info:
        parse_mission(mission)
    assert info.value.location is None


def test_bounded_by_the_map_not_by_7(final_map):
    locations = map_locations(final_map)
    assert parse_mission('5,1', locations) == [5, 1]
    with pytest.raises(MissionError, match=r'^no location 6 on the map \(locations: 1, 2, 3, 4, 5\)$') as info:
        parse_mission('1,6', locations)
    assert info.value.location == 6
    with pytest.raises(MissionError, match=r"no location 1 on map 'oval' \(locations: none\)"):
        parse_mission([1], set(), "map 'oval'")
    assert parse_mission('12', {12}) == [12]          # a bigger map would simply have more


def test_the_navigator_checks_with_it(final_map):
    graph = RoadGraph.build(final_map)
    assert Navigator(graph, mission='5, 2').mission == [5, 2]
    with pytest.raises(MissionError, match=r'mission location 6 is not on map .* \(locations: \[1, 2, 3, 4, 5\]\)'):
        Navigator(graph, mission=[6])
    with pytest.raises(MissionError, match="got '²'"):
        Navigator(graph).set_mission('²')
