# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The live view: a run's topics, or a recorded bag's, served over the Foxglove WebSocket protocol.

``thymio-road run --live`` and ``thymio-road play BAG --live`` start a server of the Foxglove SDK
(``foxglove-sdk``, imported only here) that Foxglove and Lichtblick connect to
(``ws://localhost:8765``). Each topic is a channel with the ROS 2 message definition the bag
records (schema encoding ``ros2msg``, rosbags' ``generate_msgdef``) and CDR payloads, serialised
by the recorder's own serialisers (runtime/recorder.py), so a panel that opens the bag opens the
live run. Messages carry their simulated time (the bag's log time) and the server announces the
simulated clock (the protocol's ``time`` capability) besides the ``/clock`` topic, so the app's
timeline follows simulated time.

This layer does not change what a run records: :class:`LiveTap` stands between the executor and
the recorder, serialises each message once, serves it, and hands the recorder exactly the
messages (and the topics, in the same order) it would have got (test_live.py compares the
bags). It asks for every topic, as a full recording does, so a run with ``--live`` builds every
message; one with ``--record analysis`` or ``none`` is then slower than without ``--live``.

Latched topics (``/map``, ``/tf_static``: transient local) are sent again to all subscribers
when a client subscribes to them, so a client that connects after the start still gets them (the
protocol has no per-client latching; a second copy of the map is harmless).

:class:`Pacer` holds the run (or the playback) to ``pace`` times real time; without it a run goes
as fast as it can.
"""
from __future__ import annotations

from collections import deque
from pathlib import Path
import socket
import threading
import time
from typing import Any, Callable, Iterable

from thymio_road.map.validation import ConfigError
from thymio_road.nodes import msgs
from thymio_road.runtime.recorder import serializer_for

DEFAULT_PORT = 8765
DEFAULT_HOST = '127.0.0.1'
#: The WebSocket subprotocol the SDK's server speaks (older clients offer only foxglove.websocket.v1).
SUBPROTOCOL = 'foxglove.sdk.v1'
#: Wall seconds between two announcements of the simulated time (the /clock topic has every tick).
TIME_PERIOD = 0.02
#: How to get the SDK when it is missing.
INSTALL_HINT = "pip install foxglove-sdk (or pip install 'thymio_road[live]')"


class LiveError(ConfigError):
    """The live view cannot start (the SDK is missing, the port is taken): exit code 2, no run."""


def _foxglove() -> Any:
    try:
        import foxglove
    except ImportError as exc:
        raise LiveError(f'--live needs the Foxglove SDK, which is not installed ({exc}): {INSTALL_HINT}') from None
    return foxglove


class LiveServer:
    """A Foxglove WebSocket server with one channel per topic, fed from one thread.

    Two steps: the constructor takes the port (a plain listening socket holds it, so that a
    port in use is refused before anything runs) and the channels are added; :meth:`start` then
    starts the SDK's server on it. A client that connects sees every channel in the server's
    first advertisement: the SDK refuses a subscription that follows a channel's advertisement
    too closely ("unknown channel"), which a client subscribing while a run's nodes were being
    built ran into. Messages logged before the start reach no client, except the latched ones,
    which :meth:`on_subscribe` sends again (the SDK's own threads call it; they are kept under
    a lock).
    """

    def __init__(self, port: int = DEFAULT_PORT, host: str = DEFAULT_HOST, name: str = 'thymio_road') -> None:
        foxglove = _foxglove()
        # The SDK's warnings (a client dropped, a bad subscription) on stderr through logging;
        # FOXGLOVE_LOG_LEVEL overrides the level. Only a process's first call counts.
        foxglove.set_log_level('WARNING')
        self._foxglove = foxglove
        self.name = name
        self.host = host
        self._reserved = _reserve(host, port)
        self.port = self._reserved.getsockname()[1]
        # A context of its own: channels of another server in the same process stay apart.
        self.context = foxglove.Context()
        self.server: Any = None
        self.channels: dict[str, Any] = {}
        #: Per latched topic: its last messages (CDR, log time), as many as its QoS depth.
        self.latched: dict[str, deque] = {}
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._last_time_wall = 0.0
        self.closed = False

    def start(self) -> None:
        """Serve the channels added so far (and those added later) on the reserved port."""
        if self.server is not None or self.closed:
            return
        from foxglove.websocket import Capability
        self._reserved.close()
        try:
            self.server = self._foxglove.start_server(
                name=self.name, host=self.host, port=self.port, context=self.context,
                capabilities=[Capability.Time], server_listener=self)
        except RuntimeError as exc:  # taken in between: FoxgloveError: Failed to bind port: …
            raise LiveError(_port_taken(self.host, self.port, str(exc).split(': ', 1)[-1])) from None

    @property
    def url(self) -> str:
        host = 'localhost' if self.host in ('127.0.0.1', '0.0.0.0', '::', '::1') else self.host
        return f'ws://{host}:{self.port}'

    def add_channel(self, topic: str, typename: str, msgdef: str, encoding: str = 'ros2msg',
                    latched_depth: int = 0) -> None:
        """A channel of CDR messages of `typename` (`msgdef`: its ROS 2 definition with its
        dependencies, as MCAP stores it); `latched_depth` > 0 for a transient-local topic.
        """
        schema = self._foxglove.Schema(name=typename, encoding=encoding, data=msgdef.encode())
        self.channels[topic] = self._foxglove.Channel(topic, schema=schema, message_encoding='cdr',
                                                      context=self.context)
        self.counts[topic] = 0
        if latched_depth:
            self.latched[topic] = deque(maxlen=latched_depth)

    def log(self, topic: str, data: bytes, time_ns: int) -> None:
        latched = self.latched.get(topic)
        if latched is not None:
            with self._lock:
                latched.append((data, time_ns))
        if self.server is not None:
            self.channels[topic].log(bytes(data), log_time=time_ns)
        self.counts[topic] += 1

    def set_time(self, time_ns: int, force: bool = False) -> None:
        """Announce the simulated time to the clients (at most every TIME_PERIOD wall seconds)."""
        now = time.perf_counter()
        if self.server is not None and (force or now - self._last_time_wall >= TIME_PERIOD):
            self._last_time_wall = now
            self.server.broadcast_time(time_ns)

    # --- the SDK's ServerListener (called from its threads) ------------------------------------
    def on_subscribe(self, client: Any, channel: Any) -> None:
        latched = self.latched.get(channel.topic)
        if latched is None:
            return
        with self._lock:
            kept = list(latched)
        for data, time_ns in kept:
            self.channels[channel.topic].log(bytes(data), log_time=time_ns)

    def on_unsubscribe(self, client: Any, channel: Any) -> None:
        pass

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._reserved.close()
            if self.server is not None:
                self.server.stop()


def _reserve(host: str, port: int) -> socket.socket:
    """A socket listening on the port, which holds it until the server starts.

    With SO_REUSEADDR, as the SDK's listener binds: the bind fails while another program listens
    on the port (another live view, even one still building its nodes), not for the closed
    connections of an earlier one (TIME_WAIT). A client that connects before the start waits in
    its backlog and is reset when it closes; Foxglove and Lichtblick then connect again.
    """
    sock = socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(8)
    except OSError as exc:
        sock.close()
        raise LiveError(_port_taken(host, port, exc.strerror or str(exc))) from None
    return sock


def _port_taken(host: str, port: int, reason: str) -> str:
    return (f'--port {port}: cannot serve the live view on {host}:{port} ({reason}); another live '
            f'view or program may hold it: choose another --port')


class Pacer:
    """Holds simulated time to `pace` times real time (1: real time); the origin is the first
    step's. A step that comes late is not made up by sleeping less later on (no drift either:
    each step waits for its own wall time). `stopping()` is asked between sleeps of at most
    0.1 s, so a long wait (a slow pace) still stops at once on Ctrl-C.
    """

    def __init__(self, pace: float, stopping: Callable[[], bool] = lambda: False) -> None:
        if not pace > 0:
            raise ValueError(f'pace must be positive, got {pace}')
        self.pace = pace
        self.stopping = stopping
        self._origin: float | None = None
        self._first_ns = 0
        #: Wall seconds slept in all.
        self.slept = 0.0

    def wait(self, sim_ns: int) -> None:
        now = time.perf_counter()
        if self._origin is None:
            self._origin, self._first_ns = now, sim_ns
            return
        due = self._origin + (sim_ns - self._first_ns) / 1e9 / self.pace
        while now < due and not self.stopping():
            time.sleep(min(due - now, 0.1))
            self.slept += min(due - now, 0.1)
            now = time.perf_counter()


class LiveTap:
    """What the executor records to in a run with ``--live``: every topic is served, and the
    recorder (if any) gets exactly what it would get alone.

    The executor calls :meth:`records`, :meth:`period`, :meth:`add_topic` and :meth:`write` as it
    calls a recorder's; :meth:`step` runs at each simulated time step (pace, clock).
    """

    def __init__(self, server: LiveServer, recorder: Any | None, ros_distro: str,
                 pacer: Pacer | None = None) -> None:
        self.server = server
        self.recorder = recorder
        self.pacer = pacer
        self.typestore = msgs.typestore_for(ros_distro)
        #: Per topic: its serialiser and whether the recorder records it.
        self._topics: dict[str, tuple[Callable[[Any], bytes], bool]] = {}
        self._time_ns = -1

    def records(self, topic: str) -> bool:
        return True

    def period(self, topic: str) -> int:
        return 0  # every message is served; the recorder drops what its profile does not keep

    def add_topic(self, name: str, msg_type: Any, qos: msgs.QoS) -> None:
        typename = msgs.type_name(msg_type)
        recorded = self.recorder is not None and self.recorder.records(name)
        if recorded:
            self.recorder.add_topic(name, msg_type, qos)
        msgdef, _ = self.typestore.generate_msgdef(typename, ros_version=2)
        self.server.add_channel(name, typename, msgdef,
                                latched_depth=qos.depth if qos.transient_local else 0)
        self._topics[name] = (serializer_for(self.typestore, typename), recorded)

    def write(self, topic: str, msg: Any, time_ns: int) -> None:
        serialize, recorded = self._topics[topic]
        data = serialize(msg)
        if recorded:
            self.recorder.write_cdr(topic, data, time_ns)
        self.server.log(topic, data, time_ns)

    def step(self, now_ns: int) -> None:
        if self.server.server is None:  # the nodes are built and their topics advertised
            self.server.start()
        if self.pacer is not None:
            self.pacer.wait(now_ns)
        self.server.set_time(now_ns)
        self._time_ns = now_ns


# --- playing a bag -------------------------------------------------------------------------------

class PlayResult:
    def __init__(self) -> None:
        self.messages = 0
        self.topics = 0
        self.start_ns = 0
        self.end_ns = 0
        self.interrupted = False
        self.skipped: list[str] = []


def play_bag(path: Path, server: LiveServer, pace: float | None = 1.0,
             stopping: Callable[[], bool] = lambda: False,
             on_time: Callable[[int], None] | None = None) -> PlayResult:
    """Serve a recording's messages in their log-time order, `pace` times real time (None: as
    fast as it goes), announcing their log times as the server's clock. Topics that are not
    ROS 2 CDR (a ROS 1 bag's) are skipped and listed. Returns what was served.
    """
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import get_typestore, Stores
    result = PlayResult()
    pacer = Pacer(pace, stopping) if pace else None
    with AnyReader([Path(path)], default_typestore=get_typestore(Stores.LATEST)) as reader:
        served = []
        for conn in reader.connections:
            ext = conn.ext
            if getattr(ext, 'serialization_format', None) != 'cdr':
                result.skipped.append(conn.topic)
                continue
            if conn.topic in server.channels:
                served.append(conn)  # a second connection of a topic (a split recording)
                continue
            encoding = 'ros2idl' if conn.msgdef.format.name == 'IDL' else 'ros2msg'
            server.add_channel(conn.topic, conn.msgtype, conn.msgdef.data, encoding,
                               latched_depth=_latched_depth(getattr(ext, 'offered_qos_profiles', ())))
            served.append(conn)
        result.topics = len(server.channels)
        result.start_ns = reader.start_time
        server.start()
        last = -1
        for conn, timestamp, data in _messages(reader, served):
            if stopping():
                result.interrupted = True
                break
            if timestamp != last:
                if pacer is not None:
                    pacer.wait(timestamp)
                server.set_time(timestamp)
                if on_time is not None:
                    on_time(timestamp)
                last = timestamp
            server.log(conn.topic, data, timestamp)
            result.messages += 1
            result.end_ns = timestamp
        if last >= 0:
            server.set_time(last, force=True)
    return result


def _messages(reader: Any, connections: list) -> Iterable[tuple[Any, int, bytes]]:
    return reader.messages(connections=connections) if connections else iter(())


def _latched_depth(profiles: Any) -> int:
    """The depth of a transient-local offered QoS (0: volatile), from rosbags' Qos objects."""
    for qos in profiles or ():
        durability = getattr(qos, 'durability', None)
        if durability is not None and getattr(durability, 'name', '') == 'TRANSIENT_LOCAL':
            return max(1, int(getattr(qos, 'depth', 1) or 1))
    return 0
