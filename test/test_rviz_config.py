# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The shipped RViz config, and what an embedded recording offers to RViz, ros2 bag play and Foxglove.

RViz itself is not installed here: the .rviz file is checked as the rviz2 YAML it is (classes,
topics, QoS), its topics are checked against a live embedded recording (names, types and QoS
that the displays can subscribe to), and the recording's metadata and MCAP encodings are
checked against what Humble's and Jazzy's rosbag2 and Foxglove read.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from thymio_road.ros.rviz_config import (IR_LINKS_TOPIC, MARKER_NAMESPACES, rviz_config_path, rviz_for_scenario,
                                         shipped_rviz_path, SHIPPED_RVIZ_SCENARIO)
from thymio_road.scenario import load_scenario
from thymio_road.sim import robot_model as rm

ROOT = Path(__file__).resolve().parent.parent
RVIZ = ROOT / 'config' / 'rviz' / 'road_network.rviz'
#: rviz2 display classes → the message type each subscribes to.
DISPLAY_TYPES = {
    'rviz_default_plugins/Map': 'nav_msgs/msg/OccupancyGrid',
    'rviz_default_plugins/MarkerArray': 'visualization_msgs/msg/MarkerArray',
    'rviz_default_plugins/Range': 'sensor_msgs/msg/Range',
    'rviz_default_plugins/Odometry': 'nav_msgs/msg/Odometry',
}
OTHER_CLASSES = {'rviz_default_plugins/Grid', 'rviz_default_plugins/TF', 'rviz_common/Group'}


def displays(items):
    for item in items:
        yield item
        yield from displays(item.get('Displays', []))


@pytest.fixture(scope='module')
def config() -> dict:
    return yaml.safe_load(RVIZ.read_text())


@pytest.fixture(scope='module')
def robots() -> list[str]:
    return [r.name for r in load_scenario(SHIPPED_RVIZ_SCENARIO).robots]


def test_shipped_config_is_the_generated_one_for_the_oval():
    scenario = load_scenario(SHIPPED_RVIZ_SCENARIO)
    assert RVIZ.read_text() == rviz_for_scenario(scenario), \
        'regenerate: python -m thymio_road.ros.rviz_config > config/rviz/road_network.rviz'
    # The launch files find the shipped config where the package is installed (the checkout's
    # config/ or an install's share/): the same file either way.
    assert shipped_rviz_path().read_text() == RVIZ.read_text()
    chosen = rviz_config_path([r.name for r in scenario.robots], (scenario.road_map.width, scenario.road_map.height))
    assert chosen == shipped_rviz_path()


def test_config_is_rviz2_yaml(config):
    manager = config['Visualization Manager']
    assert manager['Global Options']['Fixed Frame'] == 'map'
    assert manager['Views']['Current']['Class'] == 'rviz_default_plugins/TopDownOrtho'
    assert {p['Class'] for p in config['Panels']} >= {'rviz_common/Displays'}
    for display in displays(manager['Displays']):
        assert display['Class'] in set(DISPLAY_TYPES) | OTHER_CLASSES, display['Class']
        assert isinstance(display['Name'], str) and isinstance(display['Enabled'], bool)
        topic = display.get('Topic')
        if topic is not None:
            assert topic['Value'].startswith('/')
            assert topic['Reliability Policy'] in ('Reliable', 'Best Effort')
            assert topic['Durability Policy'] in ('Volatile', 'Transient Local')
            assert topic['History Policy'] == 'Keep Last' and topic['Depth'] >= 1


def test_config_shows_map_markers_tf_and_every_robots_cones(config, robots):
    shown = {d['Topic']['Value']: d for d in displays(config['Visualization Manager']['Displays']) if 'Topic' in d}
    assert shown['/map']['Class'] == 'rviz_default_plugins/Map'
    assert shown['/map']['Topic']['Durability Policy'] == 'Transient Local'   # latched map
    markers = shown['/world/markers']
    assert set(markers['Namespaces']) == {'robots', 'lights'} == set(MARKER_NAMESPACES)
    assert shown[IR_LINKS_TOPIC]['Class'] == 'rviz_default_plugins/MarkerArray'
    assert set(shown[IR_LINKS_TOPIC]['Namespaces']) == {'ir_links'}
    tf = [d for d in displays(config['Visualization Manager']['Displays']) if d['Class'] == 'rviz_default_plugins/TF']
    assert len(tf) == 1 and all(tf[0]['Frames'][f'{r}/base_link']['Value'] for r in robots)
    assert robots == ['thymio1', 'thymio2', 'thymio3']
    for robot in robots:
        for name in rm.PROX_NAMES:
            cone = shown[f'/{robot}/proximity/{name}']
            assert cone['Class'] == 'rviz_default_plugins/Range' and cone['Enabled']


def test_generated_config_for_more_robots():
    text = rviz_for_scenario(load_scenario('oval', robots=6))
    config = yaml.safe_load(text)
    topics = {d['Topic']['Value'] for d in displays(config['Visualization Manager']['Displays']) if 'Topic' in d}
    assert {f'/thymio{k}/proximity/{n}' for k in range(1, 7) for n in rm.PROX_NAMES} <= topics


# --- an embedded recording: what RViz, ros2 bag play and Foxglove get ---------------------------------

@pytest.fixture(scope='module')
def bag(tmp_path_factory) -> Path:
    """One simulated second of the oval with the IR medium (an `ir:` key), recorded."""
    from thymio_road.runtime.recorder import BagRecorder
    from thymio_road.runtime.run import Graph
    folder = tmp_path_factory.mktemp('rviz')
    shipped = load_scenario(SHIPPED_RVIZ_SCENARIO)
    text = shipped.source.read_text()
    scenario_file = folder / 'oval_ir.yaml'
    scenario_file.write_text(text.replace(next(line for line in text.splitlines() if line.startswith('map:')),
                                          f'map: {shipped.road_map.source}') + '\nir: {}\n')
    scenario = load_scenario(scenario_file)
    assert [r.name for r in scenario.robots] == [r.name for r in shipped.robots]
    recorder = BagRecorder(folder / 'bag')
    try:
        Graph(scenario, recorder).run(1.0)
    finally:
        recorder.close()
    return folder / 'bag'


@pytest.fixture(scope='module')
def metadata(bag) -> dict:
    return yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']


def _qos(topic_metadata: dict) -> dict:
    return yaml.safe_load(topic_metadata['offered_qos_profiles'])[0]


def test_recording_offers_every_displayed_topic_with_compatible_qos(config, metadata):
    """The rmw QoS values: reliability 1 reliable / 2 best effort, durability 1 transient local / 2 volatile."""
    recorded = {t['topic_metadata']['name']: t for t in metadata['topics_with_message_count']}
    for display in displays(config['Visualization Manager']['Displays']):
        if display['Class'] not in DISPLAY_TYPES:
            continue
        name = display['Topic']['Value']
        entry = recorded.get(name)
        assert entry is not None, f'{name} shown by RViz but not recorded'
        assert entry['topic_metadata']['type'] == DISPLAY_TYPES[display['Class']], name
        assert entry['message_count'] > 0, name
        offered = _qos(entry['topic_metadata'])
        if display['Topic']['Reliability Policy'] == 'Reliable':
            assert offered['reliability'] == 1, f'{name}: a reliable display needs a reliable publisher'
        if display['Topic']['Durability Policy'] == 'Transient Local':
            assert offered['durability'] == 1, f'{name}: a transient-local display needs a latched publisher'
    assert '/tf' in recorded and '/tf_static' in recorded
    assert _qos(recorded['/tf_static']['topic_metadata'])['durability'] == 1


def test_metadata_is_what_humble_and_jazzy_read(metadata):
    """Version 8 with integer QoS policies: Humble's reader parses it (newer keys are ignored), and
    Jazzy reads version <= 8 QoS as integers (version 9 switched to names, which Humble cannot parse).
    """
    assert metadata['version'] == 8
    assert metadata['storage_identifier'] == 'mcap'
    for topic in metadata['topics_with_message_count']:
        meta = topic['topic_metadata']
        assert meta['serialization_format'] == 'cdr'
        qos = _qos(meta)
        for policy in ('history', 'reliability', 'durability', 'liveliness'):
            assert isinstance(qos[policy], int), (meta['name'], policy)
        for duration in ('deadline', 'lifespan', 'liveliness_lease_duration'):
            assert set(qos[duration]) == {'sec', 'nsec'}
    assert sum(t['message_count'] for t in metadata['topics_with_message_count']) == metadata['message_count']


def test_mcap_is_what_foxglove_reads(bag):
    """Foxglove opens MCAP whose channels are ros2msg schemas with CDR messages; markers decode."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    [mcap_file] = bag.glob('*.mcap')
    with mcap_file.open('rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        assert {s.encoding for s in summary.schemas.values()} == {'ros2msg'}
        assert {c.message_encoding for c in summary.channels.values()} == {'cdr'}
        markers = [m for _, _, _, m in reader.iter_decoded_messages(topics=['/world/markers'])]
    assert markers
    robots = [m for m in markers[-1].markers if m.ns == 'robots']
    assert len(robots) == 3 and all(m.header.frame_id == 'map' and m.scale.x > 0 for m in robots)


def test_marker_namespaces_are_the_ones_the_world_publishes(config):
    """The config's RViz displays show a marker namespace only if it is the one the nodes use: record what an embedded
    run with traffic lights publishes on /world/markers.
    """
    from thymio_road.nodes import msgs
    from thymio_road.runtime.run import Graph
    graph = Graph(load_scenario('final_traffic', robots=1))
    published = set()
    graph.world_node.node.create_subscription(
        msgs.MarkerArray, '/world/markers', lambda m: published.update(k.ns for k in m.markers), msgs.DEFAULT)
    graph.run(0.3)
    shown = {d['Topic']['Value']: d for d in displays(config['Visualization Manager']['Displays']) if 'Topic' in d}
    assert published == set(shown['/world/markers']['Namespaces']) == {'robots', 'lights'}
