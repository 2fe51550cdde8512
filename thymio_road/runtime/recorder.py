"""Record every topic of the embedded runtime to a rosbag2 directory (MCAP, metadata version 8).

Version 8 metadata is what Humble, Iron and Jazzy's rosbag2 read; each topic's offered QoS is
written so that ``ros2 bag play`` re-offers latched topics (``/map``, ``/tf_static``) as latched.
A bag holds one distro's message definitions (Jazzy's Range has a field Humble's lacks): the
recorder uses that distro's typestore, and metadata.yaml names it in ``ros_distro``.

A process killed outright (SIGKILL, power loss) cannot close its bag: the MCAP file has no
summary and there is no ``metadata.yaml`` (``thymio-road bag repair`` rebuilds both). What it
loses is what was not yet in the file. rosbags' MCAP writer keeps a chunk in memory until it
holds 1 MiB, about 11 simulated seconds of the three-robot oval, so the recorder closes a chunk
and hands it to the operating system every :data:`CHUNK_PERIOD_NS` of simulated time. The
boundaries are simulated times, so the same run still gives the same bytes.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from rosbags.interfaces import (Qos, QosDurability, QosHistory, QosLiveliness, QosReliability,
                                QosTime)
from rosbags.rosbag2 import StoragePlugin, Writer

from thymio_road.nodes import msgs

_ZERO = QosTime(0, 0)
#: Simulated time per MCAP chunk: a SIGKILL loses at most this much of the recording.
CHUNK_PERIOD_NS = 500_000_000


def rosbag_qos(qos: msgs.QoS) -> Qos:
    return Qos(QosHistory.KEEP_LAST, qos.depth,
               QosReliability.RELIABLE if qos.reliable else QosReliability.BEST_EFFORT,
               QosDurability.TRANSIENT_LOCAL if qos.transient_local else QosDurability.VOLATILE,
               _ZERO, _ZERO, QosLiveliness.AUTOMATIC, _ZERO, False)


def open_writer(path: Path) -> Writer:
    """The writer of every bag this package writes (recordings and repairs): MCAP, version 8.

    Its close() writes the MCAP summary and ``metadata.yaml``; the MCAP file is locked while it
    is open, so that ``bag repair`` can tell a bag still being written from one cut short.
    """
    writer = Writer(path, version=8, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    _lock(writer.storage.bio)
    return writer


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
    """Close the writer's pending MCAP chunk and push it to the OS; False when nothing is pending.

    Uses rosbags' McapWriter internals (``storage.chunk``, ``close_chunk``, ``bio``), checked by
    test/test_recorder.py against the installed rosbags.
    """
    storage = writer.storage
    if storage is None or not storage.chunk.msgs:
        return False
    storage.close_chunk()
    storage.bio.flush()
    return True


class BagRecorder:
    """A rosbag2 writer fed by the executor; close() must run even on interruption."""

    def __init__(self, path: Path, ros_distro: str = msgs.DEFAULT_DISTRO) -> None:
        if path.exists():
            raise FileExistsError(f'{path} already exists; choose another --out or remove it')
        self.path = path
        self.ros_distro = ros_distro
        self.typestore = msgs.typestore_for(ros_distro)
        self.writer = open_writer(path)
        self.connections: dict[str, tuple[Any, str]] = {}
        self.counts: dict[str, int] = {}
        self.closed = False
        #: True once close() found no message and removed the empty bag folder.
        self.removed = False
        self._chunk_end_ns = CHUNK_PERIOD_NS

    def add_topic(self, name: str, msg_type: Any, qos: msgs.QoS) -> None:
        typename = msgs.type_name(msg_type)
        conn = self.writer.add_connection(name, typename, typestore=self.typestore,
                                          offered_qos_profiles=[rosbag_qos(qos)])
        self.connections[name] = (conn, typename)
        self.counts[name] = 0

    def write(self, topic: str, msg: Any, time_ns: int) -> None:
        if time_ns >= self._chunk_end_ns:
            seal_chunk(self.writer)
            self._chunk_end_ns = (time_ns // CHUNK_PERIOD_NS + 1) * CHUNK_PERIOD_NS
        conn, typename = self.connections[topic]
        self.writer.write(conn, time_ns, self.typestore.serialize_cdr(msg, typename))
        self.counts[topic] += 1

    @property
    def message_count(self) -> int:
        return sum(self.counts.values())

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


def write_distro(metadata: Path, distro: str) -> None:
    """Name the distro in metadata.yaml's ``ros_distro`` (rosbags writes 'rosbags' there), as a
    line of text so that the rest of the file stays as rosbags wrote it."""
    text = metadata.read_text()
    if re.search(r'^  ros_distro: .*$', text, flags=re.M):
        text = re.sub(r'^  ros_distro: .*$', f'  ros_distro: {distro}', text, count=1, flags=re.M)
    else:
        head = 'rosbag2_bagfile_information:\n'
        text = text.replace(head, f'{head}  ros_distro: {distro}\n', 1)
    metadata.write_text(text)
