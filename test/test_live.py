# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The live view (runtime/live.py, cli/live.py): a Foxglove WebSocket client's view of a live run
and of a played bag, the pace, and the refusals.

The client is the `websockets` package speaking the protocol (subprotocol foxglove.sdk.v1) as
Foxglove does: it reads the server's advertisements, subscribes, and decodes the CDR payloads
with rosbags. The Foxglove app itself is not run here (no GUI).
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip('foxglove', reason="the live view needs foxglove-sdk (pip install '.[live]')")
websockets_sync = pytest.importorskip('websockets.sync.client')
websockets_exceptions = pytest.importorskip('websockets.exceptions')

from rosbags.highlevel import AnyReader  # noqa: E402
from rosbags.typesys import get_typestore, Stores  # noqa: E402

from thymio_road.cli.main import main  # noqa: E402
from thymio_road.runtime import live  # noqa: E402

TYPESTORE = get_typestore(Stores.ROS2_JAZZY)
ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Client:
    """A Foxglove WebSocket client: channels by topic, subscriptions, messages and server times."""

    def __init__(self, port: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:  # the server starts once the command has imported and checked its options
            try:
                self._connection = websockets_sync.connect(f'ws://127.0.0.1:{port}',
                                                           subprotocols=[live.SUBPROTOCOL], open_timeout=5)
                self.ws = self._connection.__enter__()
                break
            except (OSError, EOFError, websockets_exceptions.InvalidHandshake):
                # refused, or reset when the command's reserved port becomes the server's
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.server_info = json.loads(self.ws.recv(timeout=10))
        self.channels: dict[str, dict] = {}
        self.subscriptions: dict[int, str] = {}
        #: (topic, log time ns, payload, wall time) of each message, in arrival order.
        self.messages: list[tuple[str, int, bytes, float]] = []
        #: (server time ns, wall time) of each time announcement.
        self.times: list[tuple[int, float]] = []
        #: True once the server closed the connection (its command ended).
        self.closed = False

    def poll(self, timeout: float) -> None:
        """Read the frames that arrive until none comes for `timeout` seconds."""
        while self._read(timeout):
            pass

    def _read(self, timeout: float) -> bool:
        if self.closed:
            time.sleep(timeout)
            return False
        try:
            frame = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return False
        except websockets_exceptions.ConnectionClosed:
            self.closed = True
            return False
        now = time.monotonic()
        if isinstance(frame, str):
            op = json.loads(frame)
            if op['op'] == 'advertise':
                for channel in op['channels']:
                    self.channels[channel['topic']] = channel
        elif frame[0] == 1:  # message data: subscription id, log time, payload
            sub, stamp = struct.unpack_from('<IQ', frame, 1)
            self.messages.append((self.subscriptions[sub], stamp, bytes(frame[13:]), now))
        elif frame[0] == 2:  # time
            self.times.append((struct.unpack_from('<Q', frame, 1)[0], now))
        return True

    def wait_for(self, condition, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, 'timed out waiting'
            assert not self.closed, 'the server closed the connection first'
            self._read(0.2)

    def subscribe(self, *topics: str) -> None:
        subs = []
        for topic in topics:
            sid = len(self.subscriptions) + 1
            self.subscriptions[sid] = topic
            subs.append({'id': sid, 'channelId': self.channels[topic]['id']})
        self.ws.send(json.dumps({'op': 'subscribe', 'subscriptions': subs}))

    def first(self, topic: str) -> tuple[int, bytes]:
        for name, stamp, data, _ in self.messages:
            if name == topic:
                return stamp, data
        raise AssertionError(f'no message on {topic}')

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


def decode(channel: dict, data: bytes):
    return TYPESTORE.deserialize_cdr(data, channel['schemaName'])


def thymio_road(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED='1')
    return subprocess.Popen([sys.executable, '-m', 'thymio_road.cli.main', *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def start_pose(robot: int = 0):
    from thymio_road.scenario import load_scenario, robot_specs
    spec = robot_specs(load_scenario('oval'))[robot]
    return spec.x, spec.y


# --- a live run ---------------------------------------------------------------------------------

def test_a_live_run_serves_every_topic_with_its_definition_and_the_bag_s_bytes(tmp_path):
    """A client of `run --live` sees the run's topics advertised with their ROS 2 definitions,
    gets the latched map although it subscribes after t = 0, and a ground truth that rosbags
    decodes to thymio1 near its start; the payloads are the bag's bytes, at the bag's times.
    """
    port = free_port()
    out = tmp_path / 'run'
    proc = thymio_road('run', '--live', '--port', str(port), '--pace', '1', '--duration', '3',
                       '--out', str(out), '--no-picture', '--quiet')
    try:
        client = Client(port)
        client.wait_for(lambda: '/thymio1/ground_truth' in client.channels and '/map' in client.channels)
        truth = client.channels['/thymio1/ground_truth']
        assert truth['encoding'] == 'cdr' and truth['schemaEncoding'] == 'ros2msg'
        assert truth['schemaName'] == 'nav_msgs/msg/Odometry'
        assert 'MSG: geometry_msgs/PoseWithCovariance' in truth['schema']  # with its dependencies
        assert client.server_info['capabilities'] == ['time']
        client.subscribe('/thymio1/ground_truth', '/map', '/clock')
        client.wait_for(lambda: {'/thymio1/ground_truth', '/map', '/clock'}
                        <= {m[0] for m in client.messages} and client.times)
        stamp, data = client.first('/thymio1/ground_truth')
        odom = decode(truth, data)
        x0, y0 = start_pose(0)
        pose = odom.pose.pose.position
        assert math.hypot(pose.x - x0, pose.y - y0) < 0.1, (pose, x0, y0)  # 260 units: 8 cm/s
        assert odom.header.frame_id == 'map' and odom.child_frame_id.endswith('base_link')
        assert abs(odom.header.stamp.sec + odom.header.stamp.nanosec / 1e9 - stamp / 1e9) < 1e-6
        grid = decode(client.channels['/map'], client.first('/map')[1])
        assert grid.info.width * grid.info.height == len(grid.data) > 0
        clock = decode(client.channels['/clock'], client.first('/clock')[1])
        assert clock.clock.sec * 10**9 + clock.clock.nanosec == client.first('/clock')[0]
        served = {(t, d) for name, t, d, _ in client.messages if name == '/thymio1/ground_truth'}
        while proc.poll() is None:
            client.poll(0.2)
    finally:
        proc.kill() if proc.poll() is None else None
        stdout, stderr = proc.communicate()
    assert proc.returncode == 0, stderr
    assert f'live view on ws://localhost:{port}' in stderr
    with AnyReader([out / 'bag']) as reader:
        conns = [c for c in reader.connections if c.topic == '/thymio1/ground_truth']
        recorded = {(t, bytes(d)) for _, t, d in reader.messages(connections=conns)}
        topics = {c.topic for c in reader.connections}
    assert served and served <= recorded
    assert topics <= set(client.channels)  # every recorded topic was served


def test_a_live_run_records_the_same_bag(tmp_path):
    """--live changes nothing in what a run records (full and analysis profiles): the MCAP files
    are the same bytes.
    """
    from thymio_road.runtime.run import run_scenario
    from thymio_road.scenario import load_scenario
    for profile in ('full', 'analysis'):
        scenario = load_scenario('oval', duration=1.5)
        run_scenario(scenario, tmp_path / f'plain-{profile}', record=profile, progress=False, picture=False)
        server = live.LiveServer(free_port())
        try:
            tap = lambda recorder, stopping: live.LiveTap(server, recorder, scenario.ros_distro)  # noqa: E731
            result = run_scenario(scenario, tmp_path / f'live-{profile}', record=profile, progress=False,
                                  picture=False, tap=tap)
        finally:
            server.close()
        plain = (tmp_path / f'plain-{profile}' / 'bag' / 'bag.mcap').read_bytes()
        assert (tmp_path / f'live-{profile}' / 'bag' / 'bag.mcap').read_bytes() == plain
        recorded = result.summary['bag']['messages']
        assert server.counts['/thymio1/ground_truth'] == recorded['/thymio1/ground_truth'] == 15  # 10 Hz
        if profile == 'full':
            assert server.counts == recorded  # every message of every topic
        else:  # every topic and message served: the Range cones too, /clock at every 10 ms tick
            assert set(server.counts) > set(recorded) and server.counts['/thymio1/proximity/center'] == 15
            assert recorded['/clock'] == 15 and server.counts['/clock'] == 150


@pytest.mark.slow
def test_pace_1_runs_10_simulated_seconds_in_10_wall_seconds(tmp_path):
    """Issue #30's acceptance: with --pace 1, 10 simulated seconds take 10 ± 0.5 s of wall time,
    measured by the run (summary.json) and by a client from the clock it receives.
    """
    port = free_port()
    proc = thymio_road('run', '--live', '--port', str(port), '--pace', '1', '--duration', '10',
                       '--out', str(tmp_path / 'run'), '--record', 'none', '--no-picture', '--quiet')
    try:
        client = Client(port)
        client.wait_for(lambda: '/clock' in client.channels)
        client.subscribe('/clock')
        while proc.poll() is None:
            client.poll(0.2)
    finally:
        proc.kill() if proc.poll() is None else None
        _, stderr = proc.communicate()
    assert proc.returncode == 0, stderr
    summary = json.loads((tmp_path / 'run' / 'summary.json').read_text())
    assert summary['simulated_s'] == 10.0
    assert 9.5 <= summary['wall_time_s'] <= 10.5, summary['wall_time_s']
    clocks = [(t, wall) for name, t, _, wall in client.messages if name == '/clock']
    (t0, w0), (t1, w1) = clocks[0], clocks[-1]
    assert t1 - t0 > 8e9  # the client connected within the first two seconds
    assert abs((w1 - w0) - (t1 - t0) / 1e9) < 0.5, (w1 - w0, (t1 - t0) / 1e9)
    # the server's time announcements follow the clock too
    assert client.times and abs(client.times[-1][0] - t1) <= 0.05e9


# --- a played bag --------------------------------------------------------------------------------

def test_play_serves_a_bag_with_its_clock(tmp_path):
    """`play BAG --live`: the bag's topics with their recorded definitions, the latched map sent
    to a client that subscribes late, messages at their log times, the server's time following
    them, paced (a 2 s bag at --pace 2 takes about a second).
    """
    from thymio_road.runtime.run import run_scenario
    from thymio_road.scenario import load_scenario
    run_scenario(load_scenario('oval', duration=2.0), tmp_path / 'run', record='analysis', progress=False,
                 picture=False)
    bag = tmp_path / 'run' / 'bag'
    server = live.LiveServer(free_port())
    results = []
    started = threading.Event()

    def play():
        started.wait(30)
        results.append(live.play_bag(bag, server, pace=2.0))
    player = threading.Thread(target=play)
    player.start()
    try:
        # play_bag advertises the channels first; subscribe to the map before it plays on
        client = None
        t0 = time.monotonic()
        started.set()
        client = Client(server.port)
        client.wait_for(lambda: '/map' in client.channels and '/thymio2/ground_truth' in client.channels)
        client.subscribe('/map', '/thymio2/ground_truth', '/clock')
        player.join(30)
        wall = time.monotonic() - t0
        client.wait_for(lambda: '/map' in {m[0] for m in client.messages}, timeout=5)
        client.poll(0.3)
    finally:
        player.join(30)
        server.close()
    result = results[0]
    assert result.messages > 0 and not result.interrupted and not result.skipped
    assert 0.8 < wall < 3.0, wall
    with AnyReader([bag]) as reader:
        defs = {c.topic: c.msgdef.data for c in reader.connections}
    assert client.channels['/thymio2/ground_truth']['schema'] == defs['/thymio2/ground_truth']
    stamp, data = client.first('/thymio2/ground_truth')
    odom = decode(client.channels['/thymio2/ground_truth'], data)
    x0, y0 = start_pose(1)
    assert math.hypot(odom.pose.pose.position.x - x0, odom.pose.pose.position.y - y0) < 0.2
    assert client.first('/map')[0] == 0  # the latched map, as recorded at t = 0
    assert client.times and client.times[-1][0] == result.end_ns


# --- refusals ------------------------------------------------------------------------------------

def test_a_port_in_use_is_refused_before_the_run_starts(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(['run', '--live', '--port', str(port), '--duration', '1', '--out', str(tmp_path / 'run')])
    err = capsys.readouterr().err
    assert code == 2
    assert f'--port {port}' in err and 'in use' in err and 'Traceback' not in err
    assert not (tmp_path / 'run').exists()  # nothing ran, nothing written


@pytest.mark.parametrize('args, message', [
    (['run', '--live', '--pace', '0'], "argument --pace: must be a number in [0.01, 1000], got '0'"),
    (['run', '--live', '--pace', '-1'], 'argument --pace: must be a number'),
    (['run', '--live', '--pace', 'nan'], 'argument --pace: must be a number'),
    (['run', '--live', '--port', '70000'], 'argument --port: must be an integer in 1..65535'),
    (['run', '--pace', '1'], 'argument --pace: only with --live'),
    (['run', '--port', '9000'], 'argument --port: only with --live'),
    (['play', 'nowhere', '--live'], 'nowhere: no such file or folder'),
    (['play', 'nowhere'], 'nothing to do without --live'),
])
def test_bad_live_options_are_refused(tmp_path, capsys, args, message):
    try:
        code = main(args + (['--out', str(tmp_path / 'run')] if args[0] == 'run' else []))
    except SystemExit as exc:  # argparse's refusals
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert 'Traceback' not in err and not (tmp_path / 'run').exists()


def test_without_the_sdk_the_command_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, 'foxglove', None)  # import foxglove raises ImportError
    with pytest.raises(live.LiveError, match=r"pip install foxglove-sdk \(or pip install 'thymio_road\[live\]'\)"):
        live.LiveServer(free_port())


def test_the_pacer_holds_simulated_time_to_wall_time():
    pacer = live.Pacer(4.0)
    t0 = time.perf_counter()
    for step in range(0, 1_000_000_001, 100_000_000):  # 1 simulated second in 0.1 s steps
        pacer.wait(step)
    assert 0.24 <= time.perf_counter() - t0 < 0.4
    stopped = live.Pacer(0.01, stopping=lambda: True)
    t0 = time.perf_counter()
    stopped.wait(0)
    stopped.wait(10**9)  # would wait 100 s
    assert time.perf_counter() - t0 < 0.05
    with pytest.raises(ValueError):
        live.Pacer(0)
