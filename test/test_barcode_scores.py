# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

from thymio_road.experiments.barcode_scores import score


def world(t, barcode, code, robot='r', bits=4):
    return {'kind': 'barcode_enter', 't': t, 'robot': robot, 'barcode': barcode, 'code': code, 'bits': bits}


def test_passes_are_matched_to_triggers_and_reads():
    world_events = [world(1.0, 'a', 3), world(1.2, 'a', 3),  # weaving: the same pass
                    world(5.0, 'b', 6), world(9.0, 'c', 2), world(9.5, 'x', 2, robot='other'),
                    world(12.0, 'm', 0, bits=1)]             # marks are not barcode passes
    robot_events = [{'kind': 'trigger', 't': 1.1}, {'kind': 'barcode', 't': 2.0, 'code': 3},
                    {'kind': 'trigger', 't': 5.05}, {'kind': 'barcode', 't': 6.0, 'code': 4},
                    {'kind': 'trigger', 't': 7.5}, {'kind': 'barcode', 't': 8.0, 'code': 1}]
    s = score(world_events, robot_events, 'r')
    assert [p.barcode for p in s.passes] == ['a', 'b', 'c']
    assert [p.triggered for p in s.passes] == [True, True, False]
    assert [p.read for p in s.passes] == [3, 4, None]
    assert s.false_triggers == [7.5]
    assert s.trigger_rate == 2 / 3 and s.success_rate == 1 / 3
