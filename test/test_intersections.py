import math
from pathlib import Path

import pytest
import yaml

from thymio_road.map import MapError, load_map

SIMPLE = Path(__file__).resolve().parent.parent / 'config' / 'maps' / 'simple.yaml'


@pytest.fixture(scope='module')
def simple():
    return load_map(SIMPLE)


def test_roundabout_ring_exits_and_entries(simple):
    ring = simple.road('R1.ring')
    assert ring.closed and ring.length == pytest.approx(2 * math.pi * 0.65)
    assert simple.road('R1.exit.e').layer == 1 and simple.road('R1.entry.e').layer == -1
    (r1,) = [i for i in simple.intersections if i.id == 'R1']
    marks = r1.marks['R1.ring']
    # Around the ring: exit e, entry e, exit w, entry w; only exit marks lead somewhere.
    assert [m for m, _ in marks] == ['R1.exit_mark.e', 'R1.entry_mark.e', 'R1.exit_mark.w', 'R1.entry_mark.w']
    assert [b for _, b in marks] == ['R1.exit.e', None, 'R1.exit.w', None]


def test_roads_join_the_arms_they_name(simple):
    outer, entry = simple.road('outer'), simple.road('R1.entry.w')
    end, start = outer.pose_at(outer.length), entry.pose_at(0.0)
    assert end[:2] == pytest.approx(start[:2], abs=1e-6)
    assert math.remainder(end[2] - start[2], 2 * math.pi) == pytest.approx(0, abs=1e-6)


def test_location_siding_rejoins_its_road_and_names_the_place(simple):
    exit_road, outer = simple.road('L1.siding_exit'), simple.road('outer')
    (loc,) = [i for i in simple.intersections if i.kind == 'location']
    end = exit_road.pose_at(exit_road.length)
    merge = outer.pose_at(loc.extra['merge_at'])
    assert end[:2] == pytest.approx(merge[:2], abs=1e-6)
    names = [b for b in simple.barcodes if b.road == 'L1.siding']
    assert [b.code for b in names] == [1] and loc.number == 1


def test_marks_are_printed_black_on_the_right(simple):
    mark = next(b for b in simple.barcodes if b.id == 'R1.exit_mark.e')
    assert mark.bits == 1 and mark.bit_values == (1,)


def test_branching_links_leave_over_and_arrive_under():
    from thymio_road.intersections import advance, branching
    road_a = lambda s: (0.2 + s, 0.7, 0.0)  # noqa: E731 - a straight road heading east
    road_b = lambda s: (1.8 - s, 0.5, math.pi)  # noqa: E731 - and one heading west, on its right
    g = branching('B', 'a', 0.6, 'b', 1.0, road_a, road_b)
    roads = {r['id']: r for r in g.roads}
    assert roads['B.a_to_b']['layer'] == 1 and roads['B.a_to_b.join']['layer'] == -1
    join = roads['B.a_to_b.join']
    start = (join['start'][0], join['start'][1], math.radians(join['start'][2]))
    assert advance(start, join['pieces'])[:2] == pytest.approx(road_b(1.0)[:2], abs=1e-6)
    (b,) = g.intersections
    assert [mark for mark, _ in b.marks['a']] == ['B.exit_mark.a', 'B.merge_mark.a']


def write(tmp_path, data):
    path = tmp_path / 'm.yaml'
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize('element,expected', [
    ({'flyover': {'id': 'X'}}, 'intersections[0]: must be one of'),
    ({'roundabout': {'id': 'R', 'center': [1, 1], 'arms': ['a']}}, "roundabout 'R'.arms: must name at least two"),
    ({'roundabout': {'id': 'R', 'center': [1, 1], 'arms': list('abcdefg'), 'radius': 0.3}},
     "roundabout 'R': a ring of radius 0.3 m"),
    ({'location': {'id': 'L', 'number': 9, 'road': 'r', 'at': 0.5}}, "location 'L'.number: locations are named"),
    ({'location': {'id': 'L', 'number': 2, 'road': 'nowhere', 'at': 0.5}}, "no road 'nowhere'"),
])
def test_malformed_intersections_are_rejected(tmp_path, element, expected):
    data = {'size': [3.0, 3.0], 'roads': [{'id': 'r', 'start': [0.2, 0.2, 0], 'pieces': [{'straight': 2.5}]}],
            'intersections': [element]}
    with pytest.raises(MapError) as info:
        load_map(write(tmp_path, data))
    assert expected in str(info.value)


def test_a_road_from_an_unknown_arm_is_rejected(tmp_path):
    data = {'size': [3.0, 3.0], 'intersections': [{'roundabout': {'id': 'R', 'center': [1.5, 1.5], 'arms': ['a', 'b']}}],
            'roads': [{'id': 'x', 'from': 'R.exit.c', 'pieces': [{'straight': 0.2}]}]}
    with pytest.raises(MapError, match=r"roads\[0\] 'x'.from: no arm 'R.exit.c'"):
        load_map(write(tmp_path, data))
