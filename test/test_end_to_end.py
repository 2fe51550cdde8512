# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""End-to-end: the oval scenario through the whole node graph, recorded and read back."""
from collections import Counter
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

import pytest
from rosbags.highlevel import AnyReader

from thymio_road.runtime.run import Graph, run_scenario
from thymio_road.scenario import load_scenario
from thymio_road.sim import robot_model as rm
from thymio_road.sim.collision import overlapping_pairs

ROOT = Path(__file__).resolve().parent.parent

#: The interface contract's topics (docs/design.md) the foundation provides, with their types.
ROBOT_TOPICS = {
    'cmd_vel': 'geometry_msgs/msg/Twist',
    'prox/horizontal': 'std_msgs/msg/Int16MultiArray',
    'prox/ground/delta': 'std_msgs/msg/Int16MultiArray',
    'led/body/top': 'std_msgs/msg/ColorRGBA',
    'odom': 'nav_msgs/msg/Odometry',
    **{f'proximity/{name}': 'sensor_msgs/msg/Range' for name in rm.PROX_NAMES},
}
WORLD_TOPICS = {
    '/map': 'nav_msgs/msg/OccupancyGrid',
    '/tf': 'tf2_msgs/msg/TFMessage',
    '/tf_static': 'tf2_msgs/msg/TFMessage',
    '/world/markers': 'visualization_msgs/msg/MarkerArray',
    '/clock': 'rosgraph_msgs/msg/Clock',
}


@pytest.mark.parametrize('speed', [150, 260, 410])
def test_one_robot_drives_ten_laps_without_losing_the_road(speed):
    scenario = load_scenario('oval', robots=1, controller={'speed': speed})
    lap = scenario.road_map.road('loop').length
    graph = Graph(scenario)
    graph.run(10 * lap / rm.wheel_speed_scalar(speed) / 0.9)
    row = graph.world_node.world.summary()[0]
    assert row['distance_m'] / lap >= 10
    assert row['road_losses'] == 0
    assert row['time_on_road_s'] == pytest.approx(row['time_s'])


@pytest.mark.slow
def test_five_robots_never_overlap_even_when_they_push():
    # Mixed speeds and no avoidance: the fast ones catch up and push the slow ones.
    scenario = load_scenario('oval', robots=5, duration=120, controller={'avoidance': 'off'})
    speeds = [410, 150, 410, 150, 260]
    entries = tuple(e.__class__(e.name, e.road, e.s, {**e.controller, 'speed': v})
                    for e, v in zip(scenario.robots, speeds))
    scenario = scenario.__class__(**{**scenario.__dict__, 'robots': entries})
    graph = Graph(scenario)
    world = graph.world_node.world
    worst = []

    def check():
        t = graph.executor.now_ns / 1e9
        worst.extend(overlapping_pairs(world.snapshot(t), tolerance=1e-6))
    graph.executor.add_timer(int(world.params.physics_dt * 1e9), check)
    graph.run(scenario.duration)
    assert world.contacts.sum() > 0, 'the scenario should make robots touch'
    assert worst == []


@pytest.fixture(scope='module')
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp('run')
    scenario = load_scenario('oval', robots=2, duration=15)
    result = run_scenario(scenario, out, progress=False)
    return out, result


def read_with_rosbags(bag: Path):
    with AnyReader([bag]) as reader:
        types = {c.topic: c.msgtype for c in reader.connections}
        rows = [(c.topic, t, bytes(raw)) for c, t, raw in reader.messages()]
    return types, rows


def test_bag_has_the_interface_topics_and_both_readers_agree(recorded):
    out, result = recorded
    bag = out / 'bag'
    types, rows = read_with_rosbags(bag)
    for robot in ('thymio1', 'thymio2'):
        for topic, msgtype in ROBOT_TOPICS.items():
            assert types[f'/{robot}/{topic}'] == msgtype
    for topic, msgtype in WORLD_TOPICS.items():
        assert types[topic] == msgtype
    rosbags_counts = Counter(topic for topic, _, _ in rows)

    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    mcap_counts = Counter()
    (mcap_file,) = bag.glob('*.mcap')
    with open(mcap_file, 'rb') as f:
        for _, channel, _, decoded in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages():
            mcap_counts[channel.topic] += 1
    assert mcap_counts == rosbags_counts
    assert rosbags_counts['/thymio1/prox/horizontal'] == 150  # 10 Hz for 15 s
    assert rosbags_counts['/map'] == 1 and rosbags_counts['/tf_static'] == 1
    recorded_counts = {k: v for k, v in result.summary['bag']['messages'].items() if v}
    assert recorded_counts == dict(rosbags_counts)


def test_bag_metadata_is_version_8_with_latched_qos(recorded):
    import yaml
    out, _ = recorded
    info = yaml.safe_load((out / 'bag' / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert info['version'] == 8 and info['storage_identifier'] == 'mcap'
    qos = {t['topic_metadata']['name']: yaml.safe_load(t['topic_metadata']['offered_qos_profiles'])[0]
           for t in info['topics_with_message_count']}
    assert qos['/map']['durability'] == 1 and qos['/tf_static']['durability'] == 1  # transient local
    assert qos['/tf']['durability'] == 2  # volatile


def test_summary_and_picture(recorded):
    out, result = recorded
    summary = json.loads((out / 'summary.json').read_text())
    assert summary['simulated_s'] == pytest.approx(15.0)
    assert [r['robot'] for r in summary['robots']] == ['thymio1', 'thymio2']
    for row in summary['robots']:
        assert row['road_losses'] == 0 and row['distance_m'] > 0.5
    png = (out / 'trajectories.png').read_bytes()
    assert png[:8] == b'\x89PNG\r\n\x1a\n' and len(png) > 10_000


def test_the_same_seed_gives_the_same_recording(tmp_path):
    def record(name, seed):
        out = tmp_path / name
        run_scenario(load_scenario('oval', robots=3, duration=8, seed=seed), out, progress=False,
                     picture=False)
        return read_with_rosbags(out / 'bag')[1]
    first, second, other = record('a', 5), record('b', 5), record('c', 6)
    assert first == second
    assert first != other


def test_odometry_drifts_from_ground_truth_but_tf_joins_them(recorded):
    out, _ = recorded
    with AnyReader([out / 'bag']) as reader:
        conns = [c for c in reader.connections if c.topic in ('/thymio1/odom', '/thymio1/ground_truth')]
        last = {}
        for c, _, raw in reader.messages(connections=conns):
            last[c.topic] = reader.deserialize(raw, c.msgtype)
    odom, truth = last['/thymio1/odom'], last['/thymio1/ground_truth']
    assert odom.header.frame_id == 'thymio1/odom' and truth.header.frame_id == 'map'
    assert odom.pose.pose.position.x != pytest.approx(truth.pose.pose.position.x, abs=1e-6)


@pytest.mark.slow
def test_sigint_leaves_a_bag_both_readers_open(tmp_path):
    out = tmp_path / 'interrupted'
    env = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', '')}
    proc = subprocess.Popen([sys.executable, '-m', 'thymio_road.cli', 'run', '--duration', '100000',
                             '--robots', '2', '--out', str(out), '--quiet'], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not any((out / 'bag').glob('*.mcap')):
        time.sleep(0.2)
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr.decode()
    types, rows = read_with_rosbags(out / 'bag')
    assert len(rows) > 100
    from mcap.reader import make_reader
    (mcap_file,) = (out / 'bag').glob('*.mcap')
    with open(mcap_file, 'rb') as f:
        assert sum(1 for _ in make_reader(f).iter_messages()) == len(rows)
    summary = json.loads((out / 'summary.json').read_text())
    assert summary['interrupted'] is True and 0 < summary['simulated_s'] < 100000
