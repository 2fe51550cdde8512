# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import math
from pathlib import Path

import pytest
import yaml

from thymio_road.map.loader import load_map
from thymio_road.map.road_map import MapError

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
    from thymio_road.map.intersections import advance, branching
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
    ({'crossroad': {'id': 'X', 'center': [1.5, 1.5], 'arms': ['a', 'b', 'c']}}, "crossroad 'X'.arms: must name four"),
    ({'crossroad': {'id': 'X', 'center': [1.5, 1.5], 'arms': ['a', 'b', 'c', 'd'], 'leave_angle_deg': 'x'}},
     "crossroad.leave_angle_deg: must be a number, got 'x'"),
])
def test_malformed_intersections_are_rejected(tmp_path, element, expected):
    data = {'size': [3.0, 3.0], 'roads': [{'id': 'r', 'start': [0.2, 0.2, 0], 'pieces': [{'straight': 2.5}]}],
            'intersections': [element]}
    with pytest.raises(MapError) as info:
        load_map(write(tmp_path, data))
    assert expected in str(info.value)


def test_a_road_from_an_unknown_arm_is_rejected(tmp_path):
    data = {'size': [3.0, 3.0],
            'intersections': [{'roundabout': {'id': 'R', 'center': [1.5, 1.5], 'arms': ['a', 'b']}}],
            'roads': [{'id': 'x', 'from': 'R.exit.c', 'pieces': [{'straight': 0.2}]}]}
    with pytest.raises(MapError, match=r"roads\[0\] 'x'.from: no arm 'R.exit.c'"):
        load_map(write(tmp_path, data))


CROSS_MAP = {
    'name': 'crossroad test', 'size': [3.2, 3.2],
    'intersections': [{'crossroad': {'id': 'X1', 'center': [1.6, 1.6], 'arms': ['s', 'e', 'n', 'w'],
                                     'heading_deg': 90, 'lights': False}}],
    # each exit turns back into the next arm's entry through a loop
    'roads': [{'id': f'loop_{a}', 'from': f'X1.out.{b}', 'to': f'X1.in.{a}', 'radius': 0.1,
               'pieces': [{'straight': 0.2}, {'arc': {'radius': 0.108, 'angle_deg': 180}}]}
              for a, b in (('n', 's'), ('e', 'w'), ('s', 'n'), ('w', 'e'))],
    'barcodes': [{'road': f'X1.in.{a}', 'at': 0.05, 'code': 5} for a in 'senw'],
}


@pytest.fixture(scope='module')
def cross(tmp_path_factory):
    path = tmp_path_factory.mktemp('cross') / 'cross.yaml'
    path.write_text(yaml.safe_dump(CROSS_MAP))
    return load_map(path)


def test_crossroad_lanes_circle_marks_and_blind_square(cross):
    from thymio_road.map.intersections import ROAD_WIDTH
    (x1,) = cross.intersections
    r = x1.extra['radius']
    assert r == pytest.approx(0.108)  # the report's 10.8 cm (§7.4): CONTINUE lands on the circle
    # The south in-lane heads north on x = 1.6 + r and stops where the circle's band meets it.
    lane = cross.road('X1.in.s')
    x, y, h = lane.pose_at(lane.length)
    assert (x, h) == pytest.approx((1.6 + r, math.pi / 2)) and y == pytest.approx(1.6 - math.sqrt(2 * r * ROAD_WIDTH))
    # Its out-lane (straight on) starts beyond the blind square.
    out = cross.road('X1.out.s')
    assert out.pose_at(0.0)[:2] == pytest.approx((1.6 + r, 1.6 + r + ROAD_WIDTH + 0.01))
    # Three marks in driving order: the right turn's split, onto the circle, off the circle.
    assert [m for m, _ in x1.marks['X1.in.s']] == ['X1.turn_mark.s', 'X1.cross_mark.s']
    circle_mark = next(b for b in cross.barcodes if b.id == x1.extra['circle_marks']['s'])
    assert circle_mark.road == 'X1.circle' and math.degrees(circle_mark.end / r) == pytest.approx(22.0)
    # The square is ground truth "on the road" (driven blind), the approach is not.

    def blind(px, py):
        row, col = cross.pixel_scalar(px, py)
        return bool(cross.blind_area[row, col])
    assert blind(1.6, 1.6) and blind(1.6 + r - 0.05, 1.6 - r + 0.02)
    assert not blind(1.6 + r - 0.05, 1.0) and not blind(1.2, 1.2)


def test_crossroad_options_in_the_road_graph(cross):
    from thymio_road.map.road_graph import check_graph
    graph = check_graph(cross)
    options = {o.label: o for o in graph.options['X1@X1.turn_mark.s']}
    assert set(options) == {'exit 0', 'through', 'exit 2'}
    assert options['exit 0'].branch == 'X1.right.s'        # right: the east exit
    assert options['through'].branch == 'X1.out.s'         # straight on: north
    assert options['exit 2'].branch == 'X1.out.e'          # left: the west exit
    assert options['through'].roads[0] == 'X1.circle'


@pytest.mark.parametrize('way,out', [('right', 'X1.out.w'), ('straight', 'X1.out.s'), ('left', 'X1.out.e')])
def test_a_robot_takes_each_way_through_the_crossroad(cross, way, out):
    """Right, straight and left from the south arm end on their out-lanes, with no road loss."""
    from thymio_road.calibration import calibrate
    from thymio_road.control.controller import ControllerParams, RoadController
    from thymio_road.sim.world import RobotSpec, start_pose_on_road, World, WorldParams
    params = WorldParams()
    world = World(cross, [RobotSpec('r', *start_pose_on_road(cross, 'loop_s', 0.1))], params, seed=3)
    controller = RoadController(ControllerParams(speed=150, trigger_security='strict', bias_crossroad=100,
                                                 bias_crossroad_left=80, **calibrate(1, 3, params)[0]))
    controller.choose_direction = lambda: way
    t, left_at, roads = 0.0, None, []
    while t < 45.0 and (left_at is None or t < left_at + 3.0):
        t += 0.1
        world.sync(0, t)
        ground, prox = world.read_ground(0), world.read_prox(0)
        world.record_road_truth(0)
        world.command(0, *controller.step(ground, prox), at=t)
        for e in controller.drain_events():
            if e.kind == 'left' and e.data['action'] == 'crossroad':
                left_at = t
        roads.append(world.road_under(0))
    assert left_at is not None, 'never left the crossroad'
    assert roads[-1] == out
    assert world.road_losses[0] == 0
