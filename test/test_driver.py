# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The real-Thymio driver without a robot: conversions, calibration, watchdog, reconnection.

DriverCore and DriverNode run against FakeLink, a fake of the narrow ThymioLink interface.
TdmLink (the tdmclient adapter) is checked name by name against the installed tdmclient,
and end to end against tdmclient's own TDM protocol server on the loopback interface.
"""
from __future__ import annotations

import importlib
import inspect
import math
import queue
import socket
import threading
import time

import pytest

from thymio_road.nodes import msgs
from thymio_road.real import driver as d
from thymio_road.real.driver import (Calibration, DriverCore, DriverParams, LinkError, LinkLost, Odometry,
                                     ReconnectPolicy, Watchdog)
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.sim import robot_model as rm


class FakeLink:
    """Records what the driver sends; the test scripts what the robot emits and how links fail."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list[int]]] = []
        self.inbox: list[tuple[str, list[int]]] = []
        self.connects = self.closes = 0
        self.refuse = 0          # the next `refuse` connection attempts fail
        self.lost: str | None = None
        self.send_fails = False
        self.program = None

    def connect(self, program: d.AsebaProgram) -> str:
        self.connects += 1
        if self.refuse:
            self.refuse -= 1
            raise LinkError('TDM not found')
        self.program, self.lost = program, None
        return "'Fake' (0000)"

    def poll(self) -> list[tuple[str, list[int]]]:
        if self.lost:
            raise LinkLost(self.lost)
        events, self.inbox = self.inbox, []
        return events

    def send(self, event: str, values) -> None:
        if self.send_fails:
            raise LinkLost('broken pipe')
        assert len(values) == d.EVENTS[event], (event, values)
        self.sent.append((event, list(values)))

    def close(self) -> None:
        self.closes += 1

    def motors(self) -> list[list[int]]:
        return [v for e, v in self.sent if e == d.EVENT_SET_MOTORS]

    def emit_sensors(self, horizontal=(0,) * 7, ground=(500, 600), speeds=(0, 0)) -> None:
        self.inbox.append((d.EVENT_SENSORS, [*horizontal, *ground, *speeds]))


def test_fake_and_tdm_link_have_the_interface():
    from thymio_road.real.tdm_link import TdmLink
    for method in ('connect', 'poll', 'send', 'close'):
        expected = inspect.signature(getattr(d.ThymioLink, method))
        for cls in (FakeLink, TdmLink):
            got = inspect.signature(getattr(cls, method))
            assert list(got.parameters) == list(expected.parameters), (cls, method)


# --- conversions -------------------------------------------------------------------------------

@pytest.mark.parametrize('left,right', [(0, 0), (260, 260), (150, -150), (410, 86), (-500, 500), (1, 2)])
def test_uncalibrated_targets_invert_the_controllers_twist(left, right):
    """Integer commands survive controller → cmd_vel → driver, exactly as in the world."""
    v, w = rm.units_to_twist(left, right)
    assert d.twist_to_targets(v, w) == (left, right) == rm.twist_to_units(v, w)


def test_calibration_scales_each_wheel_and_clips():
    cal = Calibration(speed_factor=1.1, gain_left=1.0, gain_right=0.9)
    v, w = rm.units_to_twist(200, 200)
    assert d.twist_to_targets(v, w, cal) == (220, 198)
    assert d.twist_to_targets(*rm.units_to_twist(480, 480), cal) == (500, 475)   # clipped at 500
    assert d.twist_to_targets(*rm.units_to_twist(-480, -480), cal) == (-500, -475)
    with pytest.raises(ValueError, match='cmd_vel must be finite'):
        d.twist_to_targets(math.nan, 0.0)


def test_measured_speeds_undo_the_calibration():
    cal = Calibration(1.25, 0.8, 1.2)
    left, right = d.twist_to_targets(0.05, 0.3, cal)
    vl, vr, v, w = d.measured_twist(left, right, cal)
    assert v == pytest.approx(0.05, abs=2e-4) and w == pytest.approx(0.3, abs=5e-3)
    assert d.measured_twist(8, -9, cal, deadband=10)[2:] == (0.0, 0.0)


@pytest.mark.parametrize('field,value', [('speed_factor', 0.2), ('gain_left', 2.5), ('gain_right', 'x'),
                                         ('speed_factor', True)])
def test_bad_calibration_names_the_field(field, value):
    with pytest.raises(ValueError, match=f'{field} must be a number in .*got {value!r}'):
        Calibration(**{field: value})
    with pytest.raises(ValueError, match="unknown calibration field.*'grey'"):
        Calibration.from_mapping({'grey': 500}, 'robots.yaml: thymio1')


def test_led_comm_and_event_parsing():
    assert d.led_to_aseba(1.0, 0.5, 0.0) == [32, 16, 0]
    assert d.led_to_aseba(2.0, -1.0, 0.01) == [32, 0, 0]
    with pytest.raises(ValueError, match=r'led/body/top\.g must be finite'):
        d.led_to_aseba(0, math.inf, 0)
    assert d.comm_tx_value(2047) == 2047
    for bad in (-1, 2048, True):
        with pytest.raises(ValueError, match=r'comm/tx must be in 0\.\.2047'):
            d.comm_tx_value(bad)
    reading = d.parse_sensors(list(range(11)))
    assert reading.horizontal == (0, 1, 2, 3, 4, 5, 6) and reading.ground == (7, 8) and reading.speeds == (9, 10)
    comm = d.parse_comm(list(range(15)))
    assert comm.value == 0 and comm.payloads == tuple(range(1, 8)) and comm.intensities == tuple(range(8, 15))
    assert comm.as_array() == list(range(15))
    with pytest.raises(ValueError, match='ros_sensors: expected 11 values, got 3'):
        d.parse_sensors([1, 2, 3])


def test_odometry_integrates_arcs_and_skips_gaps():
    odom = Odometry()
    odom.update(0.0, 0.1, 0.0)
    odom.update(1.0, 0.2 * math.pi / 2, math.pi / 2)   # gap of 1 s > MAX_GAP: not integrated
    assert (odom.x, odom.y) == (0.0, 0.0)
    for k in range(1, 11):       # a quarter circle of radius 0.2 m in 10 steps of 0.1 s
        odom.update(1.0 + 0.1 * k, 0.2 * math.pi / 2, math.pi / 2)
    odom.update(3.0, 0.0, 0.0)   # > MAX_GAP again
    assert (odom.x, odom.y, odom.theta) == pytest.approx((0.2, 0.2, math.pi / 2), abs=1e-9)


def test_watchdog_and_reconnect_policy():
    dog = Watchdog(0.5)
    assert dog.stale(0.0)
    dog.feed(1.0)
    assert not dog.stale(1.5) and dog.stale(1.51)
    with pytest.raises(ValueError, match='cmd_timeout must be > 0'):
        Watchdog(0)
    policy = ReconnectPolicy(0.5, 10.0)
    assert policy.ready(0.0)
    assert [policy.failed(0.0) for _ in range(7)] == [0.5, 1, 2, 4, 8, 10, 10]
    assert not policy.ready(9.9) and policy.ready(10.0)
    policy.succeeded()
    assert policy.failed(20.0) == 0.5
    with pytest.raises(ValueError, match='keepalive must be shorter'):
        DriverParams(keepalive=1.0)


# --- DriverCore against the fake link ---------------------------------------------------------

@pytest.fixture
def program() -> d.AsebaProgram:
    return d.load_program()


def make_core(program, link=None, **params) -> tuple[DriverCore, FakeLink, list[str]]:
    link = link or FakeLink()
    log: list[str] = []
    core = DriverCore(link, program, Calibration(1.0, 1.0, 0.9), DriverParams(**params), log=log.append)
    return core, link, log


def test_connects_loads_the_program_and_sets_comm(program):
    core, link, log = make_core(program)
    result = core.step(0.0)
    assert link.connects == 1 and link.program is program and result.connected
    # Comm starts off, as on the robot and in the simulated medium, until comm/enable.
    assert link.sent == [(d.EVENT_ENABLE_COMM, [0]), (d.EVENT_SET_MOTORS, [0, 0])]
    assert "connected to 'Fake' (0000)" in log[-1]


def test_cmd_vel_keepalive_and_watchdog(program):
    core, link, log = make_core(program, cmd_timeout=0.5)
    core.step(0.0)
    core.on_cmd_vel(*rm.units_to_twist(200, 200), now=0.0)
    assert link.motors()[-1] == [200, 180]                 # right wheel gain 0.9, sent at once
    for k in range(1, 6):                                  # 10 Hz keepalive while fresh
        link.emit_sensors()
        core.step(0.1 * k)
    assert link.motors()[1:] == [[200, 180]] * 6
    for k in range(6, 12):                                 # stale after 0.5 s: one stop, then quiet
        link.emit_sensors()
        core.step(0.1 * k)
    assert link.motors()[-1] == [0, 0] and link.motors().count([0, 0]) == 2
    assert any('stopping the motors' in line for line in log)
    core.on_cmd_vel(0.01, 0.0, now=1.2)                    # fresh again: drives
    assert link.motors()[-1] == [31, 28]


def test_sensor_and_comm_events_become_readings(program):
    core, link, log = make_core(program)
    core.step(0.0)
    link.emit_sensors(horizontal=(1, 2, 3, 4, 5, 6, 7), ground=(900, 100), speeds=(50, -50))
    link.inbox.append((d.EVENT_COMM_RX, [21, 0, 0, 21, 0, 0, 0, 0, 0, 0, 3000, 0, 0, 0, 0]))
    link.inbox.append((d.EVENT_SENSORS, [1, 2]))           # malformed: logged, not fatal
    link.inbox.append(('someone_elses_event', [1]))         # not ours: ignored
    result = core.step(0.1)
    assert [r.horizontal for r in result.sensors] == [(1, 2, 3, 4, 5, 6, 7)]
    assert result.sensors[0].ground == (900, 100) and result.sensors[0].speeds == (50, -50)
    assert result.comm[0].value == 21 and result.comm[0].intensities[2] == 3000
    assert any('malformed' in line for line in log)


def test_silent_robot_is_a_lost_link_and_reconnects_with_back_off(program):
    core, link, log = make_core(program, link_timeout=1.0)
    core.step(0.0)
    core.on_comm_tx(42)
    core.on_led_top(0.0, 1.0, 0.0)
    core.on_comm_enable(False)
    core.step(0.5)
    assert core.connected
    core.step(1.1)                                         # no sensor event for 1.1 s > 1.0 s
    assert not core.connected and link.closes == 1
    assert any('no sensor event' in line and 'reconnecting in 0.5 s' in line for line in log)
    link.refuse = 2
    core.step(1.2)                                         # too early: back-off
    assert link.connects == 1
    core.step(1.6)                                         # attempt 2 refused → 1 s
    core.step(2.6)                                         # attempt 3 refused → 2 s
    assert link.connects == 3 and not core.connected
    core.step(4.5)
    assert link.connects == 3
    link.sent.clear()
    core.step(4.6)                                         # attempt 4 succeeds, state restored
    assert core.connected and core.connections == 2
    assert link.sent == [(d.EVENT_ENABLE_COMM, [0]), (d.EVENT_SET_COMM_TX, [42]),
                         (d.EVENT_SET_LED_TOP, [0, 32, 0]), (d.EVENT_SET_MOTORS, [0, 0])]
    assert core.policy.failures == 0


def test_poll_and_send_failures_are_lost_links(program):
    core, link, log = make_core(program)
    core.step(0.0)
    link.lost = 'the TDM reports robot disconnected'
    core.step(0.1)
    assert not core.connected and 'disconnected' in log[-1]
    core.step(0.6)
    assert core.connected
    link.send_fails = True
    core.on_cmd_vel(0.05, 0.0, now=0.7)                   # callback stays cheap and quiet
    assert core.connected
    link.send_fails = False
    core.step(0.75)
    assert not core.connected and 'sending ros_set_motors failed' in log[-1]


def test_close_stops_the_motors_then_releases(program):
    core, link, _ = make_core(program)
    core.step(0.0)
    core.on_cmd_vel(0.1, 0.0, now=0.0)
    core.close()
    assert link.motors()[-1] == [0, 0] and link.closes == 1 and not core.connected
    core2, link2, _ = make_core(program)
    link2.refuse = 1
    core2.step(0.0)
    core2.close()                                          # never connected: nothing sent
    assert link2.sent == [] and link2.closes == 2


def test_load_program_rejects_foreign_programs(tmp_path):
    bad = tmp_path / 'p.aesl'
    bad.write_text('<network><event size="2" name="x"/><node name="thymio-II">var a</node></network>')
    with pytest.raises(ValueError, match='events .* differ'):
        d.load_program(bad)
    bad.write_text('<network><constant value="1" name="C"/><node name="t">var a</node></network>')
    with pytest.raises(ValueError, match='<constant> is not supported'):
        d.load_program(bad)
    with pytest.raises(ValueError, match='not a readable .aesl file'):
        d.load_program(tmp_path / 'missing.aesl')


# --- DriverNode on the embedded implementation of the rclpy subset ---------------------------------

class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make_node(parameters=None):
    from thymio_road.nodes.driver_node import DriverNode
    executor = Executor()
    handle = EmbeddedNode(executor, 'driver', '/thymio1', {'initial_x': 0.5, 'initial_y': 0.2,
                                                           'initial_theta': 1.0, **(parameters or {})})
    link, clock = FakeLink(), Clock()
    node = DriverNode(handle, link=link, monotonic=clock)
    return executor, node, link, clock


def test_driver_node_publishes_the_world_topics(program):
    executor, node, link, clock = make_node({'gain_left': 1.1})
    got: dict[str, list] = {}
    for topic, kind in (('/thymio1/prox/horizontal', msgs.Int16MultiArray),
                        ('/thymio1/prox/ground/delta', msgs.Int16MultiArray),
                        ('/thymio1/proximity/center', msgs.Range), ('/thymio1/comm/rx', msgs.Int16MultiArray),
                        ('/thymio1/odom', msgs.Odometry), ('/tf', msgs.TFMessage), ('/tf_static', msgs.TFMessage),
                        ('/world/markers', msgs.MarkerArray)):
        executor.subscribe(topic, kind, lambda m, t=topic: got.setdefault(t, []).append(m), msgs.qos(100))
    cmd = executor.advertise('/thymio1/cmd_vel', msgs.Twist, msgs.DEFAULT)
    led = executor.advertise('/thymio1/led/body/top', msgs.ColorRGBA, msgs.DEFAULT)
    tx = executor.advertise('/thymio1/comm/tx', msgs.Int16, msgs.DEFAULT)
    twist = msgs.Twist()
    twist.linear.x, twist.angular.z = rm.units_to_twist(100, 100)
    for k in range(12):
        clock.t = 0.05 * k
        link.emit_sensors(horizontal=(0, 0, 2000, 0, 0, 0, 0), ground=(300, 700), speeds=(110, 100))
        if k == 2:
            executor.publish(cmd, twist)
            executor.publish(led, msgs.ColorRGBA(r=1.0, g=0.0, b=0.0, a=1.0))
            executor.publish(tx, msgs.Int16(data=21))
            link.inbox.append((d.EVENT_COMM_RX, [21] + [0] * 14))
        executor.run_until(int(0.05 * (k + 1) * 1e9))
    assert link.motors()[-1] == [110, 100]
    assert (d.EVENT_SET_LED_TOP, [32, 0, 0]) in link.sent and (d.EVENT_SET_COMM_TX, [21]) in link.sent
    assert list(got['/thymio1/prox/horizontal'][-1].data) == [0, 0, 2000, 0, 0, 0, 0]
    assert list(got['/thymio1/prox/ground/delta'][-1].data) == [300, 700]
    cone = got['/thymio1/proximity/center'][-1]
    assert cone.header.frame_id == 'thymio1/proximity_center_link'
    assert cone.range == pytest.approx(float(rm.prox_distance(2000)))
    rx = got['/thymio1/comm/rx'][-1]
    assert list(rx.data) == [21] + [0] * 14 and rx.layout.dim[0].label == d.COMM_RX_LABEL
    odom = got['/thymio1/odom'][-1]
    assert odom.header.frame_id == 'thymio1/odom' and odom.child_frame_id == 'thymio1/base_link'
    assert odom.twist.twist.linear.x == pytest.approx(rm.SPEED_PER_UNIT * 100, rel=1e-9)
    assert odom.pose.pose.position.x > 0
    static = {t.child_frame_id: t for t in got['/tf_static'][0].transforms}
    assert static['thymio1/odom'].header.frame_id == 'map'
    assert static['thymio1/odom'].transform.translation.x == 0.5
    assert static['thymio1/odom'].transform.rotation.z == pytest.approx(math.sin(0.5))
    assert set(static) >= {f'thymio1/proximity_{n}_link' for n in rm.PROX_NAMES}
    marker = got['/world/markers'][-1].markers[0]
    assert marker.header.frame_id == 'thymio1/base_link' and marker.color.r == 1.0
    node.close()
    assert link.motors()[-1] == [0, 0] and link.closes == 1


@pytest.mark.parametrize('name,value,message', [
    ('speed_factor', 3.0, 'speed_factor must be a number in'),
    ('cmd_timeout', 0.0, 'cmd_timeout must be > 0'),
    ('period', 0.5, 'period must be in'),
    ('program', '/nonexistent.aesl', 'not a readable .aesl file'),
])
def test_driver_node_bad_parameters_name_the_parameter(name, value, message):
    with pytest.raises(ValueError, match=f'/thymio1/driver: bad parameter: .*{message}'):
        make_node({name: value})


def test_driver_node_default_link_is_tdmclient():
    from thymio_road.nodes.driver_node import DriverNode
    from thymio_road.real.tdm_link import TdmLink
    handle = EmbeddedNode(Executor(), 'driver', '/thymio2', {'tdm_host': '127.0.0.1', 'tdm_port': 8596,
                                                             'robot_name': 'Thymio 7'})
    node = DriverNode(handle)
    link = node.core.link
    assert isinstance(link, TdmLink)
    assert (link.host, link.port, link.robot_name) == ('127.0.0.1', 8596, 'Thymio 7')


# --- TdmLink and the installed tdmclient ----------------------------------------------------------

def test_every_tdmclient_name_used_exists_in_the_installed_tdmclient():
    from thymio_road.real import tdm_link as thymio_link
    source = inspect.getsource(thymio_link)
    for module_name, dotted in thymio_link.TDMCLIENT_API:
        module = importlib.import_module(module_name)
        owner_name, _, attribute = dotted.partition('.')
        owner = getattr(module, owner_name)
        if attribute and not hasattr(owner, attribute):
            # An instance attribute: assigned in one of the class's (or its bases') methods.
            sources = ''.join(inspect.getsource(c) for c in owner.__mro__ if c.__module__.startswith('tdmclient'))
            assert f'self.{attribute} =' in sources, f'{module_name}.{dotted} not in tdmclient'
        # ... and the adapter really uses each listed name.
        assert (attribute or owner_name) in source, dotted
    # Coroutine methods are generator functions that TdmLink steps itself.
    from tdmclient import ClientAsyncCacheNode
    for name in ('lock', 'register_events', 'compile', 'watch', 'run', 'set_variables', 'unlock'):
        assert inspect.isgeneratorfunction(getattr(ClientAsyncCacheNode, name)), name


def test_tdm_link_refuses_bad_parameters_and_unreachable_tdm(program):
    from thymio_road.real.tdm_link import TdmLink
    with pytest.raises(ValueError, match='tdm_port must be in 0..65535, got 70000'):
        TdmLink('localhost', 70000)
    with socket.socket() as probe:                     # a free loopback port with nobody listening
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    link = TdmLink('127.0.0.1', port, timeout=0.5)
    with pytest.raises(LinkError, match=f'cannot reach the Thymio Device Manager \\(127.0.0.1:{port}\\)'):
        link.connect(program)
    link.close()
    with pytest.raises(LinkLost):
        link.poll()


class LoopbackTdm:
    """tdmclient's own TDM protocol server with one robot, on 127.0.0.1 only."""

    def __init__(self, robot_name: str = 'Thymio 7') -> None:
        from tdmclient import Server, ServerNode, ThymioFB
        from tdmclient.server import ServerHandler, ServerThread

        class Robot(ServerNode):
            def __init__(self) -> None:
                super().__init__(type=ThymioFB.NODE_TYPE_THYMIO2, name=robot_name,
                                 variables={'motor.left.target': [0], 'motor.right.target': [0]})
                self.programs: list[str] = []

            def compile_and_load(self, language, program, options):
                self.programs.append(program)
                return None

        class Connection(ServerThread):
            """tdmclient's connection thread, ending when the client closes (it would spin)."""

            def read_uint32(self) -> int:
                if self.socket.recv(4, socket.MSG_PEEK) == b'':
                    raise ConnectionResetError('client closed')
                return super().read_uint32()

        self.robot = Robot()
        self.server = Server(port=0)
        self.server.nodes.add(self.robot)
        self.out: queue.Queue = queue.Queue()
        self.listener = socket.socket()
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.received: list[tuple[str, list[int]]] = []
        self.connection: threading.Thread | None = None
        original = ServerHandler.process_message
        received = self.received

        def recording(handler, msg, connection_data=None):
            from tdmclient import FlatBuffer, Union
            fb = FlatBuffer()
            fb.parse(msg, ThymioFB.SCHEMA)
            if type(fb.root) is Union and fb.root.union_type == ThymioFB.MESSAGE_TYPE_SEND_EVENTS:
                for v in fb.root.union_data[0].fields[2][0]:
                    value = v.fields[1][0]
                    received.append((v.fields[0][0], value if isinstance(value, list) else [value]))
            return original(handler, msg, connection_data)

        self._patch = (ServerHandler, original)
        ServerHandler.process_message = recording

        def accept() -> None:
            try:
                sock, address = self.listener.accept()
            except OSError:
                return  # closed before anyone connected
            self.connection = Connection(self.server, sock, address, output_packet_queue=self.out)
            self.connection.start()
        self.thread = threading.Thread(target=accept, daemon=True)
        self.thread.start()

    def emit(self, name: str, values: list[int]) -> None:
        from tdmclient import ThymioFB
        msg = ThymioFB.create_message((ThymioFB.MESSAGE_TYPE_EVENTS_EMITTED, (
            (ThymioFB.id_str_to_bytes(self.robot.id),), [(name, values)])), ThymioFB.SCHEMA)
        self.out.put(msg)

    def close(self) -> None:
        self._patch[0].process_message = self._patch[1]
        self.listener.close()
        self.thread.join(1.0)
        if self.connection is not None:
            self.connection.join(2.0)
            assert not self.connection.is_alive(), 'the TDM connection thread did not end'


def test_tdm_link_end_to_end_with_tdmclients_protocol_server(program):
    """The real TdmLink and tdmclient client against tdmclient's TDM server (loopback only)."""
    from thymio_road.real.tdm_link import TdmLink
    tdm = LoopbackTdm('Thymio 7')
    link = TdmLink('127.0.0.1', tdm.port, robot_name='Thymio 7', timeout=5.0)
    try:
        described = link.connect(program)
        assert "'Thymio 7'" in described
        assert tdm.robot.programs == [program.source]
        assert {key[0]: value[0] for key, value in tdm.robot.events.items()} == program.events
        assert tdm.robot.watch_flags & 0x2                       # events watched
        assert tdm.robot.execution_state == 1                    # VM running
        core = DriverCore(link, program)
        core.connected, core.robot = True, described             # already connected above
        core.on_cmd_vel(*rm.units_to_twist(120, -80), now=0.0)
        tdm.emit(d.EVENT_SENSORS, [1, 2, 3, 4, 5, 6, 7, 800, 900, 100, 101])
        t0, readings = time.monotonic(), []
        while not readings and time.monotonic() < t0 + 3.0:
            readings = core.step(time.monotonic() - t0).sensors
            time.sleep(0.02)
        assert readings and readings[0].ground == (800, 900) and readings[0].speeds == (100, 101)
        deadline = time.monotonic() + 3.0
        while (d.EVENT_SET_MOTORS, [120, -80]) not in tdm.received and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (d.EVENT_SET_MOTORS, [120, -80]) in tdm.received
        core.close()                                             # stops the motors, unlocks
        deadline = time.monotonic() + 3.0
        while tdm.robot.status != 2 and time.monotonic() < deadline:  # NODE_STATUS_AVAILABLE again
            time.sleep(0.02)
        assert (d.EVENT_SET_MOTORS, [0, 0]) in tdm.received
        assert tdm.robot.status == 2
        assert tdm.robot.variables['motor.left.target'] == [0]
        from tdmclient.tcp import InputThread  # the reader thread ended with the link
        deadline = time.monotonic() + 2.0
        while any(isinstance(t, InputThread) for t in threading.enumerate()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not any(isinstance(t, InputThread) for t in threading.enumerate())
    finally:
        link.close()
        tdm.close()


@pytest.mark.parametrize('wanted,status,message', [
    ('Thymio 9', 2, r"no free robot named 'Thymio 9'.*robots seen: 'Thymio 7' \(.*\) \(status 2\)"),
    ('', 3, r"no free robot at all.*robots seen: 'Thymio 7' \(.*\) \(status 3\)"),   # busy: locked by another
])
def test_tdm_link_refuses_a_missing_or_busy_robot(program, wanted, status, message):
    from thymio_road.real.tdm_link import TdmLink
    tdm = LoopbackTdm('Thymio 7')
    tdm.robot.status = status
    link = TdmLink('127.0.0.1', tdm.port, robot_name=wanted, timeout=0.6)
    try:
        with pytest.raises(LinkError, match=message):
            link.connect(program)
    finally:
        link.close()
        tdm.close()


def test_driver_publishes_the_ground_sensors_as_ranges_like_the_simulated_robot():
    executor, node, link, clock = make_node({'ground_threshold': 500})
    got: dict[str, list] = {}
    for topic in ('/thymio1/ground/left', '/thymio1/ground/right'):
        executor.subscribe(topic, msgs.Range, lambda m, t=topic: got.setdefault(t, []).append(m), msgs.qos(100))
    static = []
    executor.subscribe('/tf_static', msgs.TFMessage, static.append, msgs.LATCHED)
    link.emit_sensors(horizontal=(0,) * 7, ground=(300, 700), speeds=(0, 0))
    executor.run_until(int(0.05e9))
    left, right = got['/thymio1/ground/left'][-1], got['/thymio1/ground/right'][-1]
    assert left.range == math.inf and right.range == -math.inf  # 300 < 500 <= 700
    assert left.header.frame_id == 'thymio1/ground_left_link' and left.radiation_type == msgs.Range.INFRARED
    assert left.min_range == pytest.approx(0.009) and left.max_range == pytest.approx(0.03)
    frames = {t.child_frame_id for t in static[0].transforms}
    assert {'thymio1/ground_left_link', 'thymio1/ground_right_link'} <= frames
