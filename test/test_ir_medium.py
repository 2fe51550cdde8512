# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The ir_medium node in the embedded runtime, fed by a stand-in world that publishes ground truth.

The stand-in publishes each robot's ``ground_truth`` every 0.1 s at the robot's own phase, as the
world node does at each "prox" event, so the robots can be placed exactly.
"""
import logging
import math

import numpy as np
import pytest

from swarm_comm import prox_comm as pc
from thymio_road.nodes import msgs
from thymio_road.nodes.ir_medium_node import IrMediumNode
from thymio_road.real.driver import COMM_RX_LABEL, parse_comm
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario, node_specs, ScenarioError
from thymio_road.sim import robot_model as rm

NS = 1_000_000  # ns per ms
GAP = 0.10  # m between the two centre sensors
FACE_TO_FACE = [(0.0, 0.0, 0.0), (GAP + 2 * 0.0795, 0.0, math.pi)]


class Bench:
    """An executor with a stand-in world, the medium under test and a recording test node."""

    def __init__(self, poses, phases=None, **params):
        self.ex = Executor()
        self.poses = [tuple(p) for p in poses]
        self.phases = phases or [3 * i % 10 for i in range(len(poses))]  # 10 ms ticks in 0.1 s
        world = EmbeddedNode(self.ex, 'world')
        names = [f'thymio{i + 1}' for i in range(len(poses))]
        self.truth = [world.create_publisher(msgs.Odometry, f'/{n}/ground_truth', msgs.SENSOR) for n in names]
        self.tick = 0
        world.create_timer(0.01, self._world_tick)  # created first: fires before the medium's tick
        handle = EmbeddedNode(self.ex, 'ir_medium', '/', {'scenario_file': 'oval', 'robot_count': len(poses),
                                                          'seed': 1, **params})
        self.medium = IrMediumNode(handle)
        assert self.medium.names == names
        self.test = EmbeddedNode(self.ex, 'test')
        self.rx = {n: [] for n in names}
        self.enable_pubs = {n: self.test.create_publisher(msgs.Bool, f'/{n}/comm/enable', msgs.DEFAULT) for n in names}
        self.tx_pubs = {n: self.test.create_publisher(msgs.Int16, f'/{n}/comm/tx', msgs.DEFAULT) for n in names}
        for n in names:
            self.test.create_subscription(msgs.Int16MultiArray, f'/{n}/comm/rx',
                                          lambda m, n=n: self.rx[n].append((self.ex.now_ns, m)), msgs.DEFAULT)
        # Until its first ground truth the medium does not know where a robot is: it can
        # neither send nor receive. One period makes every robot known.
        self.run(0.1)
        assert self.medium.known.all()

    def _world_tick(self):
        self.tick += 1
        for i, phase in enumerate(self.phases):
            if self.tick % 10 == phase:
                x, y, th = self.poses[i]
                odom = msgs.Odometry(header=msgs.Header(stamp=msgs.stamp(self.ex.now_ns / 1e9), frame_id='map'))
                odom.pose.pose.position = msgs.Point(x=x, y=y, z=0.0)
                odom.pose.pose.orientation = msgs.quaternion_from_yaw(th)
                self.truth[i].publish(odom)

    def comm(self, robot, enable=True, tx=None):
        self.enable_pubs[robot].publish(msgs.Bool(data=enable))
        if tx is not None:
            self.tx_pubs[robot].publish(msgs.Int16(data=tx))

    def run(self, seconds):
        self.ex.run_until(self.ex.now_ns + int(round(seconds * 1e9)))

    def values(self, robot):
        return [(t, parse_comm(list(m.data))) for t, m in self.rx[robot]]


def test_two_robots_face_to_face_exchange_every_tenth_of_a_second():
    bench = Bench(FACE_TO_FACE, phases=[2, 7])
    bench.comm('thymio1', tx=5)
    bench.comm('thymio2', tx=1000)
    bench.run(1.0)
    got1, got2 = bench.values('thymio1'), bench.values('thymio2')
    assert len(got1) == len(got2) == 10
    # Each message is published at its sender's event: thymio1 sends at 120, 220, ... ms.
    assert [t // NS for t, _ in got2] == list(range(120, 1100, 100))
    assert [t // NS for t, _ in got1] == list(range(170, 1100, 100))
    for (_, a), (_, b) in zip(got1, got2):
        assert a.value == 1000 and b.value == 5
        # Centre LED → centre sensor at 10 cm: 3083 (test_prox_comm has the arithmetic).
        assert a.intensities == b.intensities == (0, 2959, 3083, 2959, 0, 0, 0)
        assert a.payloads == (0, 1000, 1000, 1000, 0, 0, 0)


def test_a_weak_battery_shrinks_the_range_and_a_charged_one_restores_it():
    """The medium keeps the known robots' gains between ticks: a battery message must reach them."""
    bench = Bench(FACE_TO_FACE, phases=[2, 7])
    battery = bench.test.create_publisher(msgs.BatteryState, '/thymio2/battery_state', msgs.DEFAULT)
    bench.comm('thymio1')
    bench.comm('thymio2', tx=1000)
    bench.run(0.5)
    heard = len(bench.values('thymio1'))
    assert heard == 5
    # At 10 % the range is x0 + √0.1·(ρ − x0), 7.3 cm: the sensors 10 cm apart no longer hear.
    battery.publish(msgs.BatteryState(percentage=0.1))
    bench.run(0.5)
    assert len(bench.values('thymio1')) == heard
    battery.publish(msgs.BatteryState(percentage=1.0))
    bench.run(0.5)
    assert len(bench.values('thymio1')) == heard + 5


def test_rx_layout_is_the_drivers():
    bench = Bench(FACE_TO_FACE)
    bench.comm('thymio1', tx=9)
    bench.comm('thymio2')
    bench.run(0.2)
    msg = bench.rx['thymio2'][0][1]
    (dim,) = msg.layout.dim
    assert (dim.label, dim.size, dim.stride) == (COMM_RX_LABEL, 15, 15)
    assert 'payloads' in dim.label and 'intensities' in dim.label
    assert len(msg.data) == 15 and msg.data.dtype == np.int16
    assert list(msg.data[:8]) == [9, 0, 9, 9, 9, 0, 0, 0]


def test_disabled_comm_neither_sends_nor_receives():
    bench = Bench(FACE_TO_FACE)
    bench.tx_pubs['thymio1'].publish(msgs.Int16(data=5))  # tx set, never enabled
    bench.comm('thymio2', tx=6)
    bench.run(0.5)
    assert bench.rx['thymio2'] == []  # thymio1 does not send until enabled
    assert bench.rx['thymio1'] == []  # ... nor receive
    bench.comm('thymio1')
    bench.run(0.5)
    assert len(bench.rx['thymio1']) == 5 and len(bench.rx['thymio2']) == 5
    bench.comm('thymio2', enable=False)
    bench.run(0.5)
    assert len(bench.rx['thymio1']) == 5 and len(bench.rx['thymio2']) == 5


def test_zero_sends_nothing():
    bench = Bench(FACE_TO_FACE)
    bench.comm('thymio1', tx=0)
    bench.comm('thymio2')
    bench.run(0.5)
    assert bench.rx['thymio2'] == []


def test_a_third_robot_between_blocks():
    middle = (FACE_TO_FACE[1][0] / 2, 0.0, math.pi / 2)  # 11 cm wide across the line of sight
    bench = Bench([*FACE_TO_FACE, middle])
    bench.comm('thymio1', tx=5)
    bench.comm('thymio2', tx=6)
    bench.run(1.0)
    assert bench.rx['thymio1'] == [] and bench.rx['thymio2'] == []
    assert bench.medium.sent == 20


def test_tx_beyond_eleven_bits_is_clipped_with_one_warning(caplog):
    bench = Bench(FACE_TO_FACE)
    with caplog.at_level(logging.WARNING):
        bench.comm('thymio1', tx=5000)
        bench.comm('thymio2')
        bench.run(0.3)
    assert [v.value for _, v in bench.values('thymio2')] == [pc.PAYLOAD_MAX] * 3
    warnings = [r for r in caplog.records if 'comm/tx' in r.getMessage()]
    assert len(warnings) == 1 and '5000' in warnings[0].getMessage()


def test_simultaneous_senders_one_message_each_or_collision():
    # Two senders on the same tick, both in front of thymio1 (one front-left, one front-right).
    def bench(collisions):
        r = 0.25
        poses = [(0.0, 0.0, 0.0),
                 (r * math.cos(0.5), r * math.sin(0.5), math.pi + 0.5),
                 (r * math.cos(-0.5), r * math.sin(-0.5), math.pi - 0.5)]
        b = Bench(poses, phases=[0, 4, 4], collisions=collisions)
        b.comm('thymio1')
        b.comm('thymio2', tx=2)
        b.comm('thymio3', tx=3)
        b.run(0.3)
        return b
    plain = bench(False)
    got = plain.values('thymio1')
    assert [v.value for _, v in got] == [2, 3, 2, 3, 2, 3]  # scenario order within a tick
    assert got[0][0] == got[1][0]
    clashing = bench(True)
    assert clashing.rx['thymio1'] == [] and clashing.medium.collided == 6


def test_links_are_published_only_when_subscribed():
    bench = Bench(FACE_TO_FACE)
    bench.comm('thymio1', tx=5)
    bench.comm('thymio2', tx=6)
    bench.run(0.3)
    assert bench.medium._period_links == []  # nobody listens: nothing is built
    markers = []
    bench.test.create_subscription(msgs.MarkerArray, '/world/ir_links', markers.append, msgs.DEFAULT)
    bench.run(0.3)
    assert len(markers) == 3
    (marker,) = markers[-1].markers
    assert (marker.ns, marker.type, marker.action, marker.header.frame_id) == ('ir_links', 5, 0, 'map')
    # Both directions, three LED→sensor paths each (centre → centre-left, centre, centre-right).
    assert len(marker.points) == 2 * 2 * 3
    start = marker.points[0]
    centre1 = (rm.PROX_SENSORS[2][0], 0.0)
    assert (start.x, start.y) in [pytest.approx(centre1), pytest.approx((FACE_TO_FACE[1][0] - 0.0795, 0.0))]


def test_real_robots_are_left_out():
    handle = EmbeddedNode(Executor(), 'ir_medium', '/', {'scenario_file': 'oval', 'robot_count': 3,
                                                         'real_robots': 'thymio2, thymio3'})
    medium = IrMediumNode(handle)
    assert medium.names == ['thymio1']
    assert '/thymio2/comm/rx' not in handle.executor.topics and '/thymio1/comm/rx' in handle.executor.topics
    with pytest.raises(ValueError, match="real_robots: no robot 'thymio9'"):
        IrMediumNode(EmbeddedNode(Executor(), 'ir_medium', '/', {'scenario_file': 'oval', 'real_robots': 'thymio9'}))


def test_model_parameter_is_checked():
    with pytest.raises(ValueError, match="ir_medium: parameter model: unknown prox comm model 'enki'"):
        Bench(FACE_TO_FACE, model='enki')


# --- in the whole graph, from a scenario's `ir:` key --------------------------------------------

def write_scenario(tmp_path, ir_text, count=12):
    path = tmp_path / 'ir.yaml'
    path.write_text(f'name: ir\nmap: oval\nduration: 3\nseed: 4\n'
                    f'robots: {{count: {count}, road: loop, start: 0.1}}\n{ir_text}')
    return path


def test_scenario_ir_key_adds_the_medium_to_the_graph(tmp_path):
    without = load_scenario(write_scenario(tmp_path, ''))
    assert without.ir is None and all(s.executable != 'thymio_ir_medium' for s in node_specs(without))
    scenario = load_scenario(write_scenario(tmp_path, 'ir: {model: enki_code}\n'))
    spec = node_specs(scenario)[-1]
    assert (spec.executable, spec.name, spec.namespace) == ('thymio_ir_medium', 'ir_medium', '/')
    assert spec.parameters['model'] == 'enki_code' and spec.parameters['robot_count'] == 12
    graph = Graph(scenario)
    medium = graph.nodes['/ir_medium']
    assert medium.channel.params is pc.ENKI_CODE
    test = EmbeddedNode(graph.executor, 'test')
    heard = []
    for i, name in enumerate(medium.names):
        test.create_publisher(msgs.Bool, f'/{name}/comm/enable', msgs.DEFAULT).publish(msgs.Bool(data=True))
        test.create_publisher(msgs.Int16, f'/{name}/comm/tx', msgs.DEFAULT).publish(msgs.Int16(data=i + 1))
        test.create_subscription(msgs.Int16MultiArray, f'/{name}/comm/rx',
                                 lambda m, i=i: heard.append((i, int(m.data[0]))), msgs.DEFAULT)
    graph.run(1.0)
    assert medium.known.all()  # the world's ground truth reached the medium for every robot
    assert medium.sent == 12 * 10
    # Robots 31 cm apart on the loop: each hears the one behind it (and possibly the one ahead).
    assert {(i, v) for i, v in heard} >= {(i, (i - 1) % 12 + 1) for i in range(12)}


@pytest.mark.parametrize('text, message', [
    ('ir: {model: enki}\n', "scenario.ir.model: unknown model 'enki' (known: enki_doc, enki_code)"),
    ('ir: {modle: enki_doc}\n', "scenario.ir: unknown field 'modle'"),
    ('ir: {collisions: 3}\n', 'scenario.ir.collisions: must be true or false'),
    ('ir: enki_doc\n', 'scenario.ir: must be a mapping'),
])
def test_scenario_ir_key_errors_name_the_file_and_field(tmp_path, text, message):
    path = write_scenario(tmp_path, text)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(path) in str(err.value) and message in str(err.value)
