# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The shipped Foxglove / Lichtblick layout (ros/foxglove_layout.py): what it reads exists.

Neither app runs here: the layout is checked as the JSON document it is, its topics against an
embedded oval graph, and its message paths against the ROS 2 message definitions.
"""
from __future__ import annotations

import json
from pathlib import Path

from rosbags.typesys import get_typestore, Stores

from thymio_road.ros import foxglove_layout
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / 'config' / 'foxglove' / 'thymio_road.json'


def test_the_shipped_layout_is_the_generated_one():
    """`python -m thymio_road.ros.foxglove_layout > config/foxglove/thymio_road.json` made it."""
    assert SHIPPED.read_text() == foxglove_layout.layout_for()


def test_every_panel_is_placed_and_every_placed_panel_configured():
    document = json.loads(SHIPPED.read_text())
    placed = []

    def walk(node):
        if isinstance(node, str):
            placed.append(node)
        else:
            assert node['direction'] in ('row', 'column') and 0 < node['splitPercentage'] < 100
            walk(node['first'])
            walk(node['second'])
    walk(document['layout'])
    assert sorted(placed) == sorted(document['configById'])
    kinds = {panel.split('!')[0] for panel in placed}
    assert kinds == {'3D', 'Plot', 'StateTransitions', 'RawMessages'}


def test_the_layout_reads_topics_and_fields_an_oval_run_publishes():
    document = json.loads(SHIPPED.read_text())
    graph = Graph(load_scenario('oval'))
    published = {name: topic.msg_type for name, topic in graph.executor.topics.items() if topic.publishers}
    read = foxglove_layout.topics(document)
    # the IR links come with an IR medium (a scenario with `ir:`), which the oval has not
    assert read - {'/world/ir_links'} <= set(published), read - set(published)
    assert {'/map', '/world/markers', '/thymio1/ground_truth', '/thymio3/controller/state',
            '/thymio1/proximity/rear_right'} <= read
    store = get_typestore(Stores.ROS2_JAZZY)
    from thymio_road.nodes import msgs
    for config in document['configById'].values():
        for series in config.get('paths', []):
            topic, path = series['value'].split('.', 1)
            typename = msgs.type_name(published[topic])
            for field in path.split('.'):  # each field exists in its message type
                names = dict(store.fielddefs[typename][1])
                assert field in names, (series['value'], field, typename)
                kind, detail = names[field]
                typename = detail if kind.value == 2 else None
            assert typename is None, series['value']  # ends on a number or a string
