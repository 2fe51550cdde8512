# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The road graph of the first map, and the maps check_graph must reject."""
import dataclasses
from pathlib import Path

import pytest
import yaml

from thymio_road.map.intersections import Intersection
from thymio_road.map.loader import load_map, parse_map
from thymio_road.map.road_graph import check_graph, RoadGraph
from thymio_road.map.road_map import MapError

ROOT = Path(__file__).resolve().parent.parent
SIMPLE = ROOT / 'config' / 'maps' / 'simple.yaml'

# Approaches of the simple map: R1 entered from `outer` (its west entry) first meets the east
# exit; entered from `inner` (east entry) it first meets the west exit.
FROM_OUTER, FROM_INNER, AT_L1 = 'R1@R1.exit_mark.e', 'R1@R1.exit_mark.w', 'L1@L1.entry_mark'


@pytest.fixture(scope='module')
def simple():
    return load_map(SIMPLE)


@pytest.fixture(scope='module')
def graph(simple):
    return check_graph(simple)


def simple_data():
    return yaml.safe_load(SIMPLE.read_text())


def test_nodes_and_approaches(graph):
    assert {(n.id, n.kind, n.number) for n in graph.nodes.values()} == {('R1', 'roundabout', None),
                                                                        ('L1', 'location', 1)}
    assert set(graph.approaches) == {FROM_OUTER, FROM_INNER, AT_L1}
    # The ring's marks in the order met from the outer road's entry: exit e, entry e, exit w, entry w.
    assert [m for m, _, _ in graph.approaches[FROM_OUTER].marks] == [
        'R1.exit_mark.e', 'R1.entry_mark.e', 'R1.exit_mark.w', 'R1.entry_mark.w']


def test_next_node_table(graph):
    assert graph.next_nodes() == {
        (FROM_OUTER, 'exit 0'): 'L1', (FROM_OUTER, 'exit 2'): 'R1',
        (FROM_INNER, 'exit 0'): 'R1', (FROM_INNER, 'exit 2'): 'L1',
        (AT_L1, 'exit 0'): 'R1', (AT_L1, 'through'): 'R1',
    }
    targets = {(o.approach, o.label): o.target for o in graph.all_options}
    assert targets[(FROM_OUTER, 'exit 2')] == FROM_INNER  # out by inner, back in by the east entry
    assert targets[(AT_L1, 'through')] == FROM_OUTER


def test_codes_and_roads_on_edges(graph):
    by = {(o.approach, o.label): o for o in graph.all_options}
    to_l1 = by[(FROM_OUTER, 'exit 0')]
    assert to_l1.codes == (2, 6)  # medium speed, then "location ahead"
    assert to_l1.roads == ('R1.exit.e', 'outer')
    assert by[(FROM_INNER, 'exit 0')].codes == (7,)
    assert by[(FROM_INNER, 'exit 0')].roads == ('R1.exit.w', 'inner', 'R1.entry.e', 'R1.ring')
    into_siding = by[(AT_L1, 'exit 0')]
    assert into_siding.names == (1,) and into_siding.codes == (7,)
    assert into_siding.roads[:3] == ('L1.siding', 'L1.siding_exit', 'outer')  # the siding rejoins
    assert by[(AT_L1, 'through')].names == ()
    # Lengths: the drive follows the roads' arc lengths (exit and outer up to L1's entry mark).
    simple = graph.road_map
    expected = simple.road('R1.exit.e').length + next(b.at for b in simple.barcodes if b.id == 'L1.entry_mark')
    assert to_l1.length == pytest.approx(expected, abs=1e-6)


def test_shortest_route_to_location(graph):
    dist = graph.distances_to_location(1)
    assert dist[AT_L1][0] == 0 and dist[AT_L1][1].exit_at == 0
    assert dist[FROM_OUTER][1].label == 'exit 0'
    # From the inner road the west exit (0) loops through inner again: 2.04 m of ring to the east exit wins.
    assert dist[FROM_INNER][1].label == 'exit 2'
    assert dist[FROM_INNER][0] < dist[FROM_OUTER][0] + 5.8
    with pytest.raises(ValueError, match='no location 4'):
        graph.distances_to_location(4)


def test_a_map_without_intersections_has_an_empty_graph():
    assert check_graph(load_map(ROOT / 'config' / 'maps' / 'oval.yaml')).nodes == {}


def _parse(data):
    # check_graph may already run inside parse_map; either way the MapError must come.
    return check_graph(parse_map(data, 'bad.yaml'))


def test_rejects_a_location_without_its_barcode():
    data = simple_data()
    data['barcodes'] = [b for b in data['barcodes'] if b['code'] != 6]
    with pytest.raises(MapError, match=r"bad.yaml: intersection 'L1' \(location\): no barcode 6 announces it"):
        _parse(data)


def test_rejects_a_location_without_its_name(simple):
    stripped = dataclasses.replace(simple, barcodes=tuple(b for b in simple.barcodes if b.id != 'L1.name'))
    with pytest.raises(MapError, match=r"intersection 'L1' \(location\): no barcode 1 names it"):
        check_graph(stripped)


def test_rejects_a_disconnected_graph():
    data = simple_data()
    data['size'] = [4.0, 5.0]
    data['roads'].append({'id': 'island', 'start': [0.6, 3.9, 0], 'closed': True, 'pieces': [
        {'straight': 2.6}, {'arc': {'radius': 0.3, 'angle_deg': 180}},
        {'straight': 2.6}, {'arc': {'radius': 0.3, 'angle_deg': 180}}]})
    data['intersections'].append({'location': {'id': 'L2', 'number': 2, 'road': 'island', 'at': 1.2}})
    data['barcodes'].append({'id': 'island_location', 'road': 'island', 'at': 0.8, 'code': 6})
    with pytest.raises(MapError, match=r"intersection 'L2' \(location\) cannot be reached from "
                                       r"intersection 'L1' entered at mark 'L1.entry_mark'.*disconnected"):
        _parse(data)


def test_rejects_a_road_that_ends_nowhere():
    data = simple_data()
    inner = next(r for r in data['roads'] if r['id'] == 'inner')
    del inner['to']
    with pytest.raises(MapError, match=r"road 'inner': ends at \(.*\) m, heading .* where no road continues"):
        _parse(data)


def _with(simple, inter_id, **changes):
    inters = tuple(dataclasses.replace(i, **changes) if i.id == inter_id else i for i in simple.intersections)
    return dataclasses.replace(simple, intersections=inters)


@pytest.mark.parametrize('change, message', [
    ({'number': None}, r"'L1' \(location\): a location needs a number 1..7"),
    ({'marks': {}}, r"'L1' \(location\): has no marks"),
    ({'marks': {'nowhere': [('L1.entry_mark', 'L1.siding')]}}, r"marks on road 'nowhere', which is not on the map"),
    ({'marks': {'outer': [('L1.entry_mark', 'L1.siding'), ('L1.name', None)]}}, r"mark 'L1.name' is not a one-bit"),
    ({'marks': {'outer': [('L1.entry_mark', 'L1.nowhere'), ('L1.merge_mark', None)]}},
     r"exits onto road 'L1.nowhere'"),
    ({'marks': {'outer': [('L1.entry_mark', None), ('L1.merge_mark', 'L1.siding')]}},
     r"entered at mark 'L1.entry_mark' on road 'outer': expected its exit mark then one mark to cross"),
    ({'kind': 'bridge'}, r"'L1' \(bridge\): unknown kind"),
])
def test_rejects_malformed_locations(simple, change, message):
    with pytest.raises(MapError, match=message):
        check_graph(_with(simple, 'L1', **change))


def test_rejects_a_roundabout_exit_on_an_odd_count(simple):
    r1 = next(i for i in simple.intersections if i.id == 'R1')
    ring, marks = next(iter(r1.marks.items()))
    # Swap the branches of the east exit and entry marks: the exit would come after one mark.
    swapped = [(marks[0][0], None), (marks[1][0], marks[0][1])] + marks[2:]
    with pytest.raises(MapError, match=r"'R1' \(roundabout\) entered at .* exit mark 'R1.entry_mark.e' comes "
                                       'after an odd number of marks'):
        check_graph(_with(simple, 'R1', marks={ring: swapped}))


def test_rejects_a_mark_shared_by_two_intersections(simple):
    extra = Intersection('X', 'location', {'outer': [('L1.entry_mark', 'L1.siding')]}, number=3)
    bad = dataclasses.replace(simple, intersections=simple.intersections + (extra,))
    with pytest.raises(MapError, match=r"'X' \(location\): mark 'L1.entry_mark' also belongs to 'L1'"):
        RoadGraph.build(bad)


def test_graph_is_deterministic(simple):
    a, b = RoadGraph.build(simple), RoadGraph.build(simple)
    assert a.all_options == b.all_options


def test_the_node_a_robot_put_down_on_a_road_comes_from():
    """A crossroad's lights address a robot by the node it came from; put down on a road, the
    map tells it where possible (issue #27: a generated map's robots started on a road into X1
    and, not knowing, ignored X1's lights).
    """
    final = RoadGraph.build(load_map(ROOT / 'config' / 'maps' / 'final.yaml'))
    assert final.node_before('north', 3.3) == 'B1'       # past the branching's marks
    assert final.node_before('north', 0.1) == 'L2'       # a closed road: the last node round the loop
    assert final.node_before('west_loop', 0.2) == 'X1'   # the loop out of X1's north exit
    # B1's link joins south_top further on: drives from two nodes share the road, so the map
    # does not say (the robot learns it at its first location or intersection, as before)
    assert final.node_before('south_top', 0.1) == ''
    assert final.node_before('south', 1.0) == 'R2'
