# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import math
from pathlib import Path

import numpy as np
import pytest

from thymio_road.map.loader import load_map, parse_map
from thymio_road.map.road_map import MapError

ROOT = Path(__file__).resolve().parent.parent
OVAL = ROOT / 'config' / 'maps' / 'oval.yaml'


def straight_map(**extra):
    data = {'name': 't', 'size': [1.0, 0.5],
            'roads': [{'id': 'r', 'start': [0.1, 0.25, 0], 'pieces': [{'straight': 0.8}]}]}
    data.update(extra)
    return data


def test_oval_closes_and_has_expected_length():
    m = load_map(OVAL)
    road = m.road('loop')
    assert road.closed
    assert road.length == pytest.approx(2 * 0.6 + 2 * math.pi * 0.4)
    x0, y0, h0 = road.pose_at(0.0)
    x1, y1, h1 = road.pose_at(road.length - 1e-9)
    assert (x0, y0) == pytest.approx((x1, y1), abs=1e-6)


def test_gradient_runs_white_left_to_black_right_on_a_straight():
    m = parse_map(straight_map(), 'inline')
    col = int(0.5 / m.resolution)
    profile = m.grey[:, col]
    on_road = np.flatnonzero(m.road_index[:, col] >= 0)
    # 3 cm wide at 1 mm per pixel
    assert len(on_road) == pytest.approx(30, abs=1)
    # Driving along +x, left is +y: grey rises from the right (low y, black) to the left (white).
    values = profile[on_road]
    assert np.all(np.diff(values) > 0)
    assert values[0] < 0.05 and values[-1] > 0.95
    assert profile[0] == 1.0  # paper is white


def test_arc_gradient_is_radial_black_outside_on_a_left_turn():
    m = load_map(OVAL)
    # Right half-circle of the oval: centre (1.2, 0.55), radius 0.4, driven counter-clockwise.
    row = int(0.55 / m.resolution)
    inner = m.grey[row, int((1.2 + 0.4 - 0.012) / m.resolution)]
    outer = m.grey[row, int((1.2 + 0.4 + 0.012) / m.resolution)]
    assert inner > 0.85 and outer < 0.15


def test_pose_at_is_continuous_across_pieces():
    road = load_map(OVAL).road('loop')
    pts = road.sample(0.002)
    steps = np.hypot(*np.diff(pts[:, :2], axis=0).T)
    assert steps.max() < 0.0021


BAD_MAPS = {
    'missing roads': ({'size': [1, 1]}, "missing required field 'roads'"),
    'unknown field': (straight_map(colour='red'), "unknown field 'colour'"),
    'unknown piece': (straight_map(roads=[{'id': 'r', 'start': [0.1, 0.25, 0],
                                           'pieces': [{'spiral': 1}]}]), "pieces[0]: unknown piece type 'spiral'"),
    'negative length': (straight_map(roads=[{'id': 'r', 'start': [0.1, 0.25, 0],
                                             'pieces': [{'straight': -0.2}]}]), "'r' pieces[0]: straight length"),
    'radius too small': (straight_map(roads=[{'id': 'r', 'start': [0.1, 0.25, 0],
                                              'pieces': [{'arc': {'radius': 0.01, 'angle_deg': 90}}]}]),
                         "'r' pieces[0] arc.radius"),
    'does not close': (straight_map(roads=[{'id': 'r', 'start': [0.1, 0.25, 0], 'closed': True,
                                            'pieces': [{'straight': 0.5}]}]), "'r': closed road does not close"),
    'off the sheet': (straight_map(roads=[{'id': 'r', 'start': [0.1, 0.25, 0],
                                           'pieces': [{'straight': 2.0}]}]), "'r': the road leaves the"),
    'bad number': (straight_map(resolution='fine'), 'map.resolution: must be a number'),
    'too coarse': (straight_map(resolution=0.005), 'map.resolution: must be in'),
    'duplicate id': (straight_map(roads=[{'id': 'r', 'start': [0.1, 0.1, 0], 'pieces': [{'straight': 0.2}]},
                                         {'id': 'r', 'start': [0.1, 0.3, 0], 'pieces': [{'straight': 0.2}]}]),
                     "roads[1]: duplicate road id 'r'"),
    'barcode code 0': (straight_map(barcodes=[{'road': 'r', 'at': 0.1, 'code': 0}]),
                       "barcodes[0] 'barcode0'.code: must be 1..7"),
    'barcode code 9': (straight_map(barcodes=[{'road': 'r', 'at': 0.1, 'code': 9}]), '.code: must be 1..7'),
    'barcode overlap': (straight_map(barcodes=[{'id': 'a', 'road': 'r', 'at': 0.1, 'code': 1},
                                               {'id': 'b', 'road': 'r', 'at': 0.15, 'code': 2}]),
                        "barcodes 'b': overlaps 'a'"),
    'barcode on left side': (straight_map(barcodes=[{'road': 'r', 'at': 0.1, 'code': 3, 'side': 'left'}]),
                             "must be on the road's right side"),
    'barcode off the road end': (straight_map(barcodes=[{'road': 'r', 'at': 0.75, 'code': 3}]),
                                 'must lie within road'),
    'barcode not under the sensor': (straight_map(barcodes=[{'road': 'r', 'at': 0.1, 'code': 3, 'gap': 0.015}]),
                                     'right ground sensor runs 24.8 mm'),
    'barcode on another road': (straight_map(roads=[
        {'id': 'r', 'start': [0.1, 0.25, 0], 'pieces': [{'straight': 0.8}]},
        {'id': 'q', 'start': [0.1, 0.225, 0], 'pieces': [{'straight': 0.8}]}],
        barcodes=[{'road': 'r', 'at': 0.1, 'code': 3}]), "overlaps road 'q'"),
    'mark with a code': (straight_map(marks=[{'road': 'r', 'at': 0.1, 'code': 2}]), 'carries no code'),
    'barcode on a tight arc': (straight_map(size=[1.2, 1.2], roads=[
        {'id': 'r', 'start': [0.6, 0.1, 0], 'closed': True, 'pieces': [{'arc': {'radius': 0.3, 'angle_deg': 360}}]}],
        barcodes=[{'road': 'r', 'at': 0.5, 'code': 3}]),
        "barcodes[0] 'barcode0'.at: 0.5..0.608 m lies on an arc of radius 0.3 m (0.000..1.885 m of road 'r')"),
    'barcode min arc radius': (straight_map(barcode_min_arc_radius=-1), 'map.barcode_min_arc_radius: must be in'),
    'closed road aside': (straight_map(size=[1.2, 1.2], roads=[
        {'id': 'r', 'start': [0.6, 0.1, 0], 'closed': True,
         'pieces': [{'arc': {'radius': 0.3, 'angle_deg': 180}}, {'straight': 0.1},
                    {'arc': {'radius': 0.29, 'angle_deg': 180}}]}]),
        "'r': closed road does not close: it ends 102.0 mm and 0.0° away from its start, and not pointing at it"),
    'bad start': (straight_map(roads=[{'id': 'r', 'start': [0.1, 0.25], 'pieces': [{'straight': 0.2}]}]),
                  "'r'.start: must be [x, y, heading_deg]"),
}


@pytest.mark.parametrize('case', sorted(BAD_MAPS))
def test_malformed_maps_are_rejected_naming_file_and_element(tmp_path, case):
    import yaml
    data, expected = BAD_MAPS[case]
    path = tmp_path / f'{case.replace(" ", "_")}.yaml'
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(MapError) as info:
        load_map(path)
    message = str(info.value)
    assert message.startswith(str(path) + ':')
    assert expected in message


def test_a_closed_road_gets_its_last_straight():
    """`closed: true` adds the straight from where the pieces end to the start, if they end pointing at it."""
    m = parse_map(straight_map(size=[1.2, 1.0], roads=[
        {'id': 'r', 'start': [0.6, 0.2, 0], 'closed': True,
         'pieces': [{'arc': {'radius': 0.2, 'angle_deg': 180}}, {'straight': 0.3},
                    {'arc': {'radius': 0.2, 'angle_deg': 180}}]}]),
        'inline')
    road = m.road('r')
    assert road.length == pytest.approx(0.6 + 2 * math.pi * 0.2)
    assert road.pose_at(road.length - 1e-9)[:2] == pytest.approx((0.6, 0.2), abs=1e-6)
    assert [type(p).__name__ for p in road.pieces] == ['Arc', 'Straight', 'Arc', 'Straight']


def test_a_barcode_may_lie_on_a_wide_arc_or_where_the_map_allows_it():
    road = {'id': 'r', 'start': [0.6, 0.1, 0], 'closed': True, 'pieces': [{'arc': {'radius': 0.5, 'angle_deg': 360}}]}
    wide = parse_map(straight_map(size=[1.2, 1.2], roads=[road], barcodes=[{'road': 'r', 'at': 0.5, 'code': 3}]),
                     'inline')
    assert len(wide.barcodes) == 1
    tight = dict(road, pieces=[{'arc': {'radius': 0.3, 'angle_deg': 360}}])
    allowed = parse_map(straight_map(size=[1.2, 1.2], roads=[tight], barcode_min_arc_radius=0.2,
                                     barcodes=[{'road': 'r', 'at': 0.5, 'code': 3}]), 'inline')
    assert len(allowed.barcodes) == 1


def test_yaml_syntax_error_names_line(tmp_path):
    path = tmp_path / 'broken.yaml'
    path.write_text('size: [1, 1\nroads: []\n')
    with pytest.raises(MapError, match=r'broken.yaml: not valid YAML at line \d+'):
        load_map(path)


def test_missing_file(tmp_path):
    with pytest.raises(MapError, match='cannot read'):
        load_map(tmp_path / 'nope.yaml')


def test_barcodes_are_printed_black_where_bits_are_one():
    m = parse_map(straight_map(barcodes=[{'id': 'b', 'road': 'r', 'at': 0.2, 'code': 6}],
                               marks=[{'road': 'r', 'at': 0.5}]), 'inline')
    row = int((0.25 - 0.026) / m.resolution)
    bits = [m.grey[row, int((0.1 + 0.2 + (k + 0.5) * 0.027) / m.resolution)] for k in range(4)]
    assert bits == [0.0, 1.0, 0.0, 0.0]  # trigger black, then 6 = 0b110 LSB first
    assert m.grey[row, int((0.1 + 0.5 + 0.01) / m.resolution)] == 0.0  # the mark
    footprint = m.barcode_index == 0
    cols = np.flatnonzero(footprint.any(axis=0))
    assert (cols[-1] - cols[0] + 1) * m.resolution == pytest.approx(0.108, abs=0.0015)


def _blind_area_whole_sheet(road_map):
    """The former blind_area: every rectangle tested at every pixel of the sheet (in bands of rows,
    which computes the same values per pixel with less memory).
    """
    rows, cols = road_map.shape
    area = np.zeros((rows, cols), dtype=bool)
    xs = (np.arange(cols) + 0.5) * road_map.resolution
    ys_all = (np.arange(rows) + 0.5) * road_map.resolution
    for r0 in range(0, rows, 500):
        ys = ys_all[r0:r0 + 500]
        for inter in road_map.intersections:
            for cx, cy, heading, half_along, half_across in inter.extra.get('blind', ()):
                gx, gy = np.meshgrid(xs - cx, ys - cy)
                c, s = math.cos(heading), math.sin(heading)
                area[r0:r0 + 500] |= (np.abs(c * gx + s * gy) <= half_along) & (np.abs(-s * gx + c * gy) <= half_across)
    return area


def test_blind_area_on_bounding_boxes_is_the_whole_sheet_mask():
    """On the final map's crossroad (square and out-lane starts, rotated rectangles)."""
    from thymio_road.scenario import load_scenario
    road_map = load_scenario('final').road_map
    assert any(inter.extra.get('blind') for inter in road_map.intersections)
    fast = road_map.blind_area
    assert fast.sum() > 1000
    assert np.array_equal(fast, _blind_area_whole_sheet(road_map))


def test_loading_a_map_renders_no_raster():
    """Controllers, traffic lights and the IR medium load the map for its geometry only: the map
    checks must not build the 1 mm raster (0.5 GB and seconds on the final map).
    """
    road_map = load_map(Path(__file__).parent.parent / 'config/maps/final.yaml')
    assert not {'_layers', '_index_layers', 'grey', 'blind_area'} & set(road_map.__dict__)


def test_a_window_of_the_road_index_is_the_same_as_the_whole_raster():
    road_map = load_map(Path(__file__).parent.parent / 'config/maps/simple.yaml')
    rows, cols = road_map.shape
    for r0, r1, c0, c1 in ((0, rows, 0, cols), (100, 420, 37, 901), (rows - 5, rows, cols - 300, cols)):
        assert np.array_equal(road_map.road_index_window(r0, r1, c0, c1), road_map.road_index[r0:r1, c0:c1])


def test_occupancy_is_the_mean_darkness_of_each_cell():
    road_map = load_map(Path(__file__).parent.parent / 'config/maps/oval.yaml')
    grey = road_map.grey
    assert np.array_equal(road_map.occupancy(), np.rint((1.0 - grey) * 100).astype(np.int8))
    rows, cols = road_map.shape
    coarse = road_map.occupancy(0.005)
    means = grey.astype(np.float64).reshape(rows // 5, 5, cols // 5, 5).mean(axis=(1, 3))
    assert coarse.shape == (rows // 5, cols // 5)
    assert np.abs(coarse - np.rint((1.0 - means) * 100)).max() == 0
    assert coarse.max() >= 90 and coarse.min() == 0
    with pytest.raises(ValueError, match='whole multiple of the map resolution 0.001 m, got 0.0025'):
        road_map.occupancy(0.0025)
