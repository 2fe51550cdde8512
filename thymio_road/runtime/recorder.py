# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Record the embedded runtime's topics (all, or a profile's) to a rosbag2 folder (MCAP, version 8).

Version 8 metadata is what Humble, Iron and Jazzy's rosbag2 read; each topic's offered QoS is
written so that ``ros2 bag play`` re-offers latched topics (``/map``, ``/tf_static``) as latched.
A bag holds one distro's message definitions (Jazzy's Range has a field Humble's lacks): the
recorder uses that distro's typestore, and metadata.yaml names it in ``ros_distro``.

A process killed outright (SIGKILL, power loss) cannot close its bag: the MCAP file has no
summary and there is no ``metadata.yaml`` (``thymio-road bag repair`` rebuilds both). What it
loses is what was not yet in the file. An MCAP writer keeps a chunk in memory until it
holds 1 MiB, about 11 simulated seconds of the three-robot oval, so the recorder closes a chunk
and hands it to the operating system every :data:`CHUNK_PERIOD_NS` of simulated time. The
boundaries are simulated times, so the same run still gives the same bytes.

Chunks are written by the ``mcap`` library (:class:`McapStorage`, a storage plugin for rosbags'
Writer, which keeps writing ``metadata.yaml``): zstd-compressed by default at zstandard's fixed
level 3 (the same input gives the same bytes), each with the CRC-32 of its uncompressed records,
which rosbags' and mcap's readers check. ``compression='none'`` writes them uncompressed.

A recording *profile* says which topics are recorded (:data:`PROFILES`): ``full`` every topic,
``analysis`` only what ``thymio-road analyze`` and ``render`` read (:func:`analysis_topic`).
The executor asks :meth:`BagRecorder.records` before it registers a topic, so a topic that is
neither recorded nor subscribed has no subscriber and its publisher builds no message.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path
import re
import shutil
import struct
from typing import Any

from mcap.opcode import Opcode
from mcap.records import MessageIndex
from mcap.writer import CompressionType
from mcap.writer import Writer as McapWriter
from rosbags.interfaces import (Connection, MessageDefinitionFormat, Qos, QosDurability, QosHistory, QosLiveliness,
                                QosReliability, QosTime)
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.rosbag2.metadata import dump_qos_v8
import yaml

from thymio_road.analysis.bag import ROBOT_TOPICS, WORLD_TOPICS
from thymio_road.map import atomic
from thymio_road.nodes import msgs
from thymio_road.runtime import cdr

_ZERO = QosTime(0, 0)
#: Simulated time per MCAP chunk: a SIGKILL loses at most this much of the recording.
CHUNK_PERIOD_NS = 500_000_000
#: Recording profiles (``thymio-road run --record``); the first is the default.
PROFILES = ('full', 'analysis', 'none')
#: Chunk compressions (``thymio-road run --compression``); the first is the default.
COMPRESSIONS = ('zstd', 'none')
_MCAP_COMPRESSION = {'zstd': CompressionType.ZSTD, 'none': CompressionType.NONE}
#: Besides the topics analysis/bag.py reads: the clock, the latched transforms between the
#: map's frames and the traffic lights' phases (a few messages a minute).
_ANALYSIS_EXTRA_WORLD = ('/clock', '/tf_static')
_ANALYSIS_EXTRA_ROBOT = ('traffic_light/phase',)
#: Per-robot topics that analysis/bag.py reads but ``analysis`` leaves out: wheel odometry is
#: only its fallback for a robot without ground truth, and the runtime records ground truth.
_ANALYSIS_SKIPPED_ROBOT = ('odom',)
#: Topics ``analysis`` records at a lower rate than they are published (ns between messages):
#: no analysis reads /clock, which the world publishes every 10 ms tick (the bag's log times
#: are the simulated time); 10 Hz keeps it for players and ``bag repair``'s last stamp.
ANALYSIS_PERIOD_NS = {'/clock': 100_000_000}


def analysis_topic(name: str) -> bool:
    """True for the topics ``--record analysis`` keeps: what ``analyze`` and ``render`` read
    (analysis/bag.py's ROBOT_TOPICS and WORLD_TOPICS, at their full rate), /clock (at
    :data:`ANALYSIS_PERIOD_NS`), /tf_static and the lights' phases; not the Range cones, ground
    sensors, odometry, /tf, markers or cmd_vel.
    """
    if name in WORLD_TOPICS or name in _ANALYSIS_EXTRA_WORLD:
        return True
    parts = name.strip('/').split('/', 1)
    if len(parts) != 2:
        return False
    suffix = parts[1]
    return ((suffix in ROBOT_TOPICS and suffix not in _ANALYSIS_SKIPPED_ROBOT)
            or suffix in _ANALYSIS_EXTRA_ROBOT)


def rosbag_qos(qos: msgs.QoS) -> Qos:
    return Qos(QosHistory.KEEP_LAST, qos.depth,
               QosReliability.RELIABLE if qos.reliable else QosReliability.BEST_EFFORT,
               QosDurability.TRANSIENT_LOCAL if qos.transient_local else QosDurability.VOLATILE,
               _ZERO, _ZERO, QosLiveliness.AUTOMATIC, _ZERO, False)


def open_writer(path: Path, compression: str = COMPRESSIONS[0]) -> Writer:
    """The writer of every bag this package writes (recordings and repairs): MCAP, version 8.

    Its close() writes the MCAP summary and ``metadata.yaml``; the MCAP file is locked while it
    is open, so that ``bag repair`` can tell a bag still being written from one cut short.
    """
    if compression not in _MCAP_COMPRESSION:
        raise ValueError(f'unknown chunk compression {compression!r}; known: {", ".join(COMPRESSIONS)}')
    writer = _BagWriter(path, version=8, storage_plugin=StoragePlugin.MCAP)
    # rosbags' own MCAP plugin writes chunks without CRCs: this instance uses the mcap library's.
    writer.STORAGE_PLUGINS = {StoragePlugin.MCAP: lambda p, _mode: McapStorage(p, compression)}
    writer.open()
    _lock(writer.storage.bio)
    return writer


class _BagWriter(Writer):
    """rosbags' Writer whose close() writes the same metadata.yaml (version 8) faster: each
    distinct QoS is dumped once and the YAML goes through PyYAML's C emitter. rosbags' close()
    dumps every topic's QoS with ruamel, 3-5 s for final_traffic's 370 topics.
    """

    def close(self) -> None:
        storage = self.storage
        assert storage is not None
        qos_text: dict[tuple, str] = {}

        def qos(profiles: Any) -> str:
            key = tuple(profiles)
            if key not in qos_text:
                qos_text[key] = dump_qos_v8(list(profiles))
            return qos_text[key]

        duration = max(0, self.max_timestamp - self.min_timestamp)
        start = self.min_timestamp
        count = sum(self.counts.values())
        name = storage.path.name
        info = {
            'version': self.version,
            'storage_identifier': 'mcap',
            'relative_file_paths': [name],
            'duration': {'nanoseconds': duration},
            'starting_time': {'nanoseconds_since_epoch': start},
            'message_count': count,
            'topics_with_message_count': [
                {'topic_metadata': {'name': c.topic, 'type': c.msgtype,
                                    'serialization_format': c.ext.serialization_format,
                                    'offered_qos_profiles': qos(c.ext.offered_qos_profiles),
                                    'type_description_hash': c.digest},
                 'message_count': self.counts[c.id]}
                for c in self.connections],
            'compression_format': '',
            'compression_mode': '',
            'files': [{'path': name, 'starting_time': {'nanoseconds_since_epoch': start},
                       'duration': {'nanoseconds': duration}, 'message_count': count}],
            'custom_data': self.custom_data or None,
            'ros_distro': 'rosbags',
        }
        dumper = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)
        storage.close(self.version, yaml.dump(info, Dumper=dumper, default_flow_style=False).strip())
        self.storage = None
        atomic.write_text(self.metapath, yaml.dump({'rosbag2_bagfile_information': info}, Dumper=dumper,
                                                   default_flow_style=False))


#: An MCAP Message record's opcode, length, channel, sequence, log and publish times.
_MESSAGE_RECORD = struct.Struct('<BQHIQQ')


class _MessageIndex(MessageIndex):
    """A chunk's index of one channel, written with one pack for all its entries (the library
    writes two 8-byte integers at a time): the same record.
    """

    def write(self, stream: Any) -> None:
        records = self.records
        stream.start_record(Opcode.MESSAGE_INDEX)
        stream.write(struct.pack(f'<HI{2 * len(records)}Q', self.channel_id, 16 * len(records),
                                 *[value for record in records for value in record]))
        stream.finish_record()


class _McapWriter(McapWriter):
    """The mcap library's writer whose add_message writes the same records and indexes with
    less work: one pack for the record's head instead of a Message object and six writes, and
    the statistics updated in place. test/test_recorder.py compares its files with the library's.
    """

    def add_message(self, channel_id: int, log_time: int, data: Any, publish_time: int,
                    sequence: int = 0) -> None:
        # The library's private state, by its mangled names: should a release rename it, the
        # library's own add_message writes the message (the same records, more slowly).
        chunk = getattr(self, '_Writer__chunk_builder', None)
        stats = getattr(self, '_Writer__statistics', None)
        if chunk is None or stats is None or not hasattr(chunk, 'record_writer'):
            super().add_message(channel_id, log_time, data, publish_time, sequence)
            return
        if stats.message_count == 0 or log_time < stats.message_start_time:
            stats.message_start_time = log_time
        if log_time > stats.message_end_time:
            stats.message_end_time = log_time
        stats.channel_message_counts[channel_id] += 1
        stats.message_count += 1
        if chunk.num_messages == 0 or log_time < chunk.message_start_time:
            chunk.message_start_time = log_time
        if log_time > chunk.message_end_time:
            chunk.message_end_time = log_time
        index = chunk.message_indices.get(channel_id)
        if index is None:
            index = chunk.message_indices[channel_id] = _MessageIndex(channel_id=channel_id, records=[])
        buffer = chunk.record_writer._buffer
        index.records.append((log_time, buffer.tell()))
        chunk.num_messages += 1
        buffer.write(_MESSAGE_RECORD.pack(Opcode.MESSAGE, 22 + len(data), channel_id, sequence, log_time,
                                          publish_time))
        buffer.write(data)
        if buffer.tell() > self._Writer__chunk_size:
            self._Writer__finalize_chunk()


class McapStorage:
    """rosbags' MCAP storage plugin interface written with the ``mcap`` library: chunks
    compressed (zstd) or not, each with its CRC, schemas and channels inside the chunks (so a
    stream reader of a cut file finds them), and the full summary and rosbag2 metadata record
    on close.
    """

    def __init__(self, path: Path, compression: str) -> None:
        self.path = path / f'{path.name}.mcap'
        self.bio = self.path.open('xb')
        self.mcap = _McapWriter(self.bio, compression=_MCAP_COMPRESSION[compression], enable_crcs=True)
        self.mcap.start(profile='ros2')
        self.schemas: dict[str, int] = {}
        self.channels: dict[int, int] = {}  # rosbags connection id -> MCAP channel id
        #: Messages not yet in a chunk that was handed to the operating system.
        self.pending = 0

    def add_msgtype(self, connection: Connection) -> None:
        encoding = 'ros2msg' if connection.msgdef.format == MessageDefinitionFormat.MSG else 'ros2idl'
        self.schemas[connection.msgtype] = self.mcap.register_schema(
            connection.msgtype, encoding, connection.msgdef.data.encode())

    def add_connection(self, connection: Connection, offered_qos_profiles: str) -> None:
        self.channels[connection.id] = self.mcap.register_channel(
            connection.topic, connection.ext.serialization_format, self.schemas[connection.msgtype],
            {'offered_qos_profiles': offered_qos_profiles})

    def write(self, connection: Connection, timestamp: int, data: bytes | memoryview) -> None:
        # The CDR buffer as it is (a memoryview): mcap copies it into the chunk, once.
        self.mcap.add_message(self.channels[connection.id], timestamp, data, timestamp)
        self.pending += 1

    def seal(self) -> bool:
        """Close the pending chunk and hand it to the OS; False when no message was pending."""
        if not self.pending:
            return False
        self.mcap.flush()
        self.pending = 0
        return True

    def close(self, version: int, metadata: str) -> None:
        del version
        self.mcap.flush()  # the last chunk before the metadata record, as rosbags writes it
        self.mcap.add_metadata('rosbag2', {'serialized_metadata': metadata})
        self.mcap.finish()
        self.bio.close()

    def abort(self) -> None:
        self.bio.close()


def _lock(f: Any) -> None:
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, repair cannot see a live recording
        return
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # a file system without locks: the same
        pass


def seal_chunk(writer: Writer) -> bool:
    """Close the writer's pending MCAP chunk and push it to the OS; False when nothing is pending."""
    storage = writer.storage
    return storage is not None and storage.seal()


class BagRecorder:
    """A rosbag2 writer fed by the executor; close() must run even on interruption.

    `profile` is 'full' (every topic) or 'analysis' (:func:`analysis_topic`); `compression` is
    'zstd' or 'none' (the MCAP chunks).
    """

    def __init__(self, path: Path, ros_distro: str = msgs.DEFAULT_DISTRO, *,
                 profile: str = PROFILES[0], compression: str = COMPRESSIONS[0]) -> None:
        if profile not in PROFILES[:2]:
            raise ValueError(f'unknown recording profile {profile!r}; known: full, analysis')
        if path.exists():
            raise FileExistsError(f'{path} already exists; choose another --out or remove it')
        self.path = path
        self.ros_distro = ros_distro
        self.profile = profile
        self.compression = compression
        self.typestore = msgs.typestore_for(ros_distro)
        self.writer = open_writer(path, compression)
        #: Per topic: the rosbags connection, its CDR serialiser and the period kept (0: every message).
        self.connections: dict[str, tuple[Any, Any, int]] = {}
        self.counts: dict[str, int] = {}
        self.closed = False
        #: True once close() wrote the summary and metadata.yaml.
        self.closed_whole = False
        #: True once close() found no message and removed the empty bag folder.
        self.removed = False
        self._chunk_end_ns = CHUNK_PERIOD_NS

    def records(self, topic: str) -> bool:
        """Whether this recorder's profile keeps `topic` (ask before add_topic: a topic it does
        not keep need not be registered, nor its messages built).
        """
        return self.profile == 'full' or analysis_topic(topic)

    def add_topic(self, name: str, msg_type: Any, qos: msgs.QoS) -> None:
        typename = msgs.type_name(msg_type)
        conn = self.writer.add_connection(name, typename, typestore=self.typestore,
                                          offered_qos_profiles=[rosbag_qos(qos)])
        period = self.period(name)
        self.connections[name] = (conn, serializer_for(self.typestore, typename), period)
        self.counts[name] = 0

    def period(self, topic: str) -> int:
        """Simulated ns between the messages of `topic` that are kept (0: every message); the
        others are dropped by write(), and the executor need not build them.
        """
        return ANALYSIS_PERIOD_NS.get(topic, 0) if self.profile == 'analysis' else 0

    def write(self, topic: str, msg: Any, time_ns: int) -> None:
        if time_ns >= self._chunk_end_ns:
            seal_chunk(self.writer)
            self._chunk_end_ns = (time_ns // CHUNK_PERIOD_NS + 1) * CHUNK_PERIOD_NS
        conn, serialize, period = self.connections[topic]
        if period and time_ns % period:
            return
        self._store(conn, topic, serialize(msg), time_ns)

    def write_cdr(self, topic: str, data: bytes, time_ns: int) -> None:
        """write() of a message already serialised (by :func:`serializer_for`: the live view
        serialises each message once for its clients and the bag).
        """
        if time_ns >= self._chunk_end_ns:
            seal_chunk(self.writer)
            self._chunk_end_ns = (time_ns // CHUNK_PERIOD_NS + 1) * CHUNK_PERIOD_NS
        conn, _, period = self.connections[topic]
        if period and time_ns % period:
            return
        self._store(conn, topic, data, time_ns)

    def _store(self, conn: Any, topic: str, data: bytes, time_ns: int) -> None:
        # What rosbags' Writer.write does (its metadata.yaml counts and times), without its
        # check that `conn` is one of its connections: a list search per message, with hundreds
        # of topics; add_topic made it one. test_recorder.py compares metadata.yaml.
        writer = self.writer
        writer.storage.write(conn, time_ns, data)
        writer.counts[conn.id] += 1
        if time_ns < writer.min_timestamp:
            writer.min_timestamp = time_ns
        if time_ns > writer.max_timestamp:
            writer.max_timestamp = time_ns
        self.counts[topic] += 1

    @property
    def bytes(self) -> int:
        """Size of the MCAP file on disk (once closed: the whole file with its summary)."""
        return self.writer.storage.path.stat().st_size if self.writer.storage is not None \
            else (self.path / f'{self.path.name}.mcap').stat().st_size

    @property
    def message_count(self) -> int:
        return sum(self.counts.values())

    @property
    def storage_path(self) -> Path:
        """The MCAP file."""
        return self.path / f'{self.path.name}.mcap'

    def close(self) -> None:
        """Write the summary and metadata.yaml; a bag without a message is removed, not left."""
        if not self.closed:
            self.closed = True
            self.writer.close()
            if not self.message_count:
                shutil.rmtree(self.path, ignore_errors=True)
                self.removed = True
            else:
                write_distro(self.path / 'metadata.yaml', self.ros_distro)
            self.closed_whole = True

    def abort(self) -> None:
        """Close the MCAP file without its summary, after a close() that could not write (a full
        disk): the bag is left cut, as SIGKILL leaves it, and `bag repair` recovers it.
        """
        self.closed = True
        storage = self.writer.storage
        if storage is not None:
            try:
                storage.abort()
            except OSError:
                pass  # the buffered tail could not be written either; the file is closed


_SERIALIZERS: dict[tuple[int, str], Any] = {}


def serializer_for(store: Any, typename: str) -> Any:
    """The CDR serialiser of a type: generated (runtime/cdr.py, the same bytes) or rosbags' own."""
    key = (id(store), typename)
    if key not in _SERIALIZERS:
        _SERIALIZERS[key] = cdr.serializer(store, typename) or partial(store.serialize_cdr, typename=typename)
    return _SERIALIZERS[key]


def write_distro(metadata: Path, distro: str) -> None:
    """Name the distro in metadata.yaml's ``ros_distro`` (rosbags writes 'rosbags' there), as a
    line of text so that the rest of the file stays as rosbags wrote it.
    """
    text = metadata.read_text()
    if re.search(r'^  ros_distro: .*$', text, flags=re.M):
        text = re.sub(r'^  ros_distro: .*$', f'  ros_distro: {distro}', text, count=1, flags=re.M)
    else:
        head = 'rosbag2_bagfile_information:\n'
        text = text.replace(head, f'{head}  ros_distro: {distro}\n', 1)
    atomic.write_text(metadata, text)
