# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Where robots may start: never on a barcode or mark, never inside an intersection (nor between an
intersection and the code that announces it), and far enough apart to move (issue #13).
"""
from __future__ import annotations

import pytest
import yaml

from thymio_road.map import starts
from thymio_road.scenario import load_scenario, MIN_SPACING, ScenarioError


def test_forbidden_spans_cover_barcodes_and_intersections_from_their_code():
    road_map = load_scenario('final').road_map
    spans = starts.forbidden(road_map, 'north')
    l1 = next(s for s in spans if s.what == "intersection 'L1' (location)")
    code = next(b for b in road_map.barcodes if b.id == 'north_l1')
    assert l1.start == pytest.approx(code.at - starts.BEFORE)
    merge = next(i for i in road_map.intersections if i.id == 'L1').extra['merge_at']
    assert l1.end == pytest.approx(merge + starts.AFTER)
    assert starts.blocked_by(spans, code.at + 0.01) is not None
    # L2's code comes right after L1's merge, so the first free start is past L2.
    l2 = next(s for s in spans if s.what == "intersection 'L2' (location)")
    assert l2.start < l1.end
    assert starts.free_from(spans, code.at) == pytest.approx(l2.end, abs=1e-5)


def test_roads_of_an_intersection_belong_to_it():
    road_map = load_scenario('final').road_map
    assert starts.owner(road_map, 'R2.ring').id == 'R2'
    assert starts.owner(road_map, 'X1.in.s').id == 'X1'
    assert starts.owner(road_map, 'north') is None


@pytest.mark.parametrize('count', [10, 15])
def test_traffic_robots_start_off_barcodes_and_intersections_with_room(count):
    """With the old even spacing, 15 robots put one on L3's code barcode and one inside L3."""
    scenario = load_scenario('final_traffic', robots=count)
    road_map = scenario.road_map
    spans = starts.forbidden(road_map, 'north')
    length = road_map.road('north').length
    positions = sorted(r.s for r in scenario.robots)
    assert all(starts.blocked_by(spans, s) is None for s in positions)
    gaps = [b - a for a, b in zip(positions, positions[1:])] + [positions[0] + length - positions[-1]]
    assert min(gaps) >= MIN_SPACING - 1e-9


def _scenario(tmp_path, **robots):
    path = tmp_path / 's.yaml'
    path.write_text(yaml.safe_dump({'name': 's', 'map': 'final', 'robots': {'count': 1, 'road': 'north', **robots}}))
    return path


def test_a_position_on_a_barcode_or_inside_an_intersection_is_refused(tmp_path):
    with pytest.raises(ScenarioError, match=r"positions.thymio1: 0.35 m on road 'north' is on barcode 'north_l3'"):
        load_scenario(_scenario(tmp_path, positions={'thymio1': 0.35}))
    with pytest.raises(ScenarioError, match=r"positions.thymio1: 7.0 m on road 'north' is on intersection 'L1'"):
        load_scenario(_scenario(tmp_path, positions={'thymio1': 7.0}))
    with pytest.raises(ScenarioError, match=r"road 'R2.ring' is inside intersection 'R2' \(roundabout\)"):
        load_scenario(_scenario(tmp_path, road='R2.ring'))


def test_the_oval_refuses_23_robots_and_names_the_largest_count():
    with pytest.raises(ScenarioError, match=r'23 robots do not fit on road .loop. .* at most 14'):
        load_scenario('oval', robots=23)
    assert len(load_scenario('oval', robots=14).robots) == 14


def test_the_largest_count_the_oval_accepts_drives(tmp_path):
    """23 robots on the oval used to be accepted, and every one drove 0.00 m."""
    from thymio_road.runtime.run import run_scenario
    result = run_scenario(load_scenario('oval', robots=14, duration=60.0), tmp_path, record=False,
                          progress=False, picture=False, stall_time=20.0)
    distances = [r['distance_m'] for r in result.summary['robots']]
    assert min(distances) > 1.0, distances
    assert not result.summary['stalls']['gridlock'] and result.summary['stalls']['stall_count'] == 0
