# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Misread codes acted on (analysis/misreads.py): a read against the printed code under it."""
from thymio_road.analysis.misreads import MisreadMonitor


def test_a_speed_code_read_on_an_intersections_barcode_is_a_misread_acted_on():
    m = MisreadMonitor()
    m.world_event({'kind': 'barcode_enter', 'robot': 'thymio2', 't': 10.0, 'barcode': 'r2', 'code': 7, 'bits': 4})
    m.read('thymio2', 12.2, 3)
    assert m.summary()['list'] == [{'robot': 'thymio2', 't': 12.2, 'barcode': 'r2', 'printed': 7, 'read': 3,
                                    'acted_on': True}]


def test_right_reads_zero_reads_and_false_triggers_are_not_counted_as_acted_on():
    m = MisreadMonitor()
    for t, code in ((10.0, 7), (30.0, 2)):
        m.entered('thymio1', t, f'b{t:.0f}', code)
    m.entered('thymio1', 50.0, 'mark', 0, bits=1)  # a mark is not a code
    m.read('thymio1', 12.0, 7)   # right
    m.read('thymio1', 32.0, 0)   # no black sample: the robot does nothing with it
    m.read('thymio1', 51.0, 5)   # nothing printed under it within the window: a false trigger
    s = m.summary()
    assert (s['reads'], s['misreads'], s['acted_on']) == (3, 1, 0)


def test_each_barcode_entry_explains_one_read_only_and_order_does_not_matter():
    m = MisreadMonitor()
    m.read('thymio3', 13.0, 6)
    m.read('thymio3', 12.0, 5)
    m.entered('thymio3', 10.0, 'x1', 5)
    assert m.summary()['misreads'] == 0  # the second read has no barcode of its own
