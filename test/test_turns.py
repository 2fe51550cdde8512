# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The loader refuses turns tighter than a robot follows at its speed there (map/turns.py), and the
experiment behind the limits reads its table right (experiments/turns.py).
"""
import pytest

from thymio_road.experiments.turns import smallest_without_loss, track
from thymio_road.map.loader import parse_map
from thymio_road.map.road_map import MapError


def road_map(radius, angle=90, codes=(), other_codes=()):
    """A straight, a turn, a straight; speed barcodes on it before the turn, and on a second road."""
    data = {'name': 't', 'size': [1.4, 1.4],
            'roads': [{'id': 'r', 'start': [0.1, 0.3, 0],
                       'pieces': [{'straight': 0.6}, {'arc': {'radius': radius, 'angle_deg': angle}},
                                  {'straight': 0.2}]},
                      {'id': 'q', 'start': [0.1, 1.2, 0], 'pieces': [{'straight': 0.8}]}],
            'barcodes': [{'road': 'r', 'at': 0.05 + 0.15 * k, 'code': c} for k, c in enumerate(codes)]
            + [{'road': 'q', 'at': 0.1 + 0.15 * k, 'code': c} for k, c in enumerate(other_codes)]}
    return parse_map(data, 'inline.yaml')


def test_a_tight_left_turn_after_a_medium_speed_barcode_is_refused():
    with pytest.raises(MapError) as info:
        road_map(0.1, codes=[2])
    assert str(info.value) == (
        "inline.yaml: road 'r' pieces[1]: a 90° left turn of radius 0.1 m at 0.600 m is tighter than a "
        'robot follows at medium speed (260 units; after the speed barcode at 0.05 m): the radius must be '
        'at least 0.12 m (docs/maps.md, "Turns"); widen it, or slow robots down before it with a speed barcode')


def test_the_same_turn_after_a_low_speed_barcode_is_followed():
    assert road_map(0.1, codes=[2, 1]).road('r').length > 0.9


def test_before_any_speed_barcode_the_fastest_on_the_map_counts():
    assert road_map(0.1).road('r')  # no speed barcode anywhere: robots drive at low speed
    with pytest.raises(MapError, match=r'at high speed \(410 units; the fastest speed'):
        road_map(0.1, other_codes=[3])


def test_long_turns_need_more_room_than_short_ones():
    road_map(0.06)  # a 90° left turn at low speed: 5 cm measured
    with pytest.raises(MapError, match='a 180° left turn of radius 0.06 m .* at least 0.09 m'):
        road_map(0.06, angle=180)
    road_map(0.03, angle=-90)  # short right turns: no limit of their own
    with pytest.raises(MapError, match='a 180° right turn of radius 0.05 m .* at least 0.07 m'):
        road_map(0.05, angle=-180)


def test_the_shipped_maps_pass():
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import config_dir
    for name in ('final', 'simple', 'oval'):
        load_map(config_dir() / 'maps' / f'{name}.yaml')


def test_measurement_tracks_lower_the_limits_and_carry_no_barcode():
    data = track('square', 0.04, 'left')
    assert data['turn_limits'] is False and data['barcodes'] == []
    assert parse_map(data, 'track.yaml').road('loop').closed


def test_the_smallest_radius_is_the_one_from_which_every_larger_one_had_no_loss():
    rows = [{'radius_cm': r, 'road_losses': n} for r, n in ((5, 3), (6, 0), (8, 2), (10, 0), (12, 0))]
    assert smallest_without_loss(rows) == 10
    assert smallest_without_loss([{'radius_cm': 5, 'road_losses': 1}]) is None
