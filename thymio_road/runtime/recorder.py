"""Record every topic of the embedded runtime to a rosbag2 directory (MCAP, metadata version 8).

Version 8 metadata is what Humble, Iron and Jazzy's rosbag2 read; each topic's offered QoS is
written so that ``ros2 bag play`` re-offers latched topics (``/map``, ``/tf_static``) as latched.
A bag holds one distro's message definitions (Jazzy's Range has a field Humble's lacks): the
recorder uses that distro's typestore, and metadata.yaml names it in ``ros_distro``.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rosbags.interfaces import (Qos, QosDurability, QosHistory, QosLiveliness, QosReliability,
                                QosTime)
from rosbags.rosbag2 import StoragePlugin, Writer

from thymio_road.nodes import msgs

_ZERO = QosTime(0, 0)


def rosbag_qos(qos: msgs.QoS) -> Qos:
    return Qos(QosHistory.KEEP_LAST, qos.depth,
               QosReliability.RELIABLE if qos.reliable else QosReliability.BEST_EFFORT,
               QosDurability.TRANSIENT_LOCAL if qos.transient_local else QosDurability.VOLATILE,
               _ZERO, _ZERO, QosLiveliness.AUTOMATIC, _ZERO, False)


class BagRecorder:
    """A rosbag2 writer fed by the executor; close() must run even on interruption."""

    def __init__(self, path: Path, ros_distro: str = msgs.DEFAULT_DISTRO) -> None:
        if path.exists():
            raise FileExistsError(f'{path} already exists; choose another --out or remove it')
        self.path = path
        self.ros_distro = ros_distro
        self.typestore = msgs.typestore_for(ros_distro)
        self.writer = Writer(path, version=8, storage_plugin=StoragePlugin.MCAP)
        self.writer.open()
        self.connections: dict[str, tuple[Any, str]] = {}
        self.counts: dict[str, int] = {}
        self.closed = False

    def add_topic(self, name: str, msg_type: Any, qos: msgs.QoS) -> None:
        typename = msgs.type_name(msg_type)
        conn = self.writer.add_connection(name, typename, typestore=self.typestore,
                                          offered_qos_profiles=[rosbag_qos(qos)])
        self.connections[name] = (conn, typename)
        self.counts[name] = 0

    def write(self, topic: str, msg: Any, time_ns: int) -> None:
        conn, typename = self.connections[topic]
        self.writer.write(conn, time_ns, self.typestore.serialize_cdr(msg, typename))
        self.counts[topic] += 1

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.close()
            _write_distro(self.path / 'metadata.yaml', self.ros_distro)


def _write_distro(metadata: Path, distro: str) -> None:
    """Name the distro in metadata.yaml's ``ros_distro`` (rosbags writes 'rosbags' there), as a
    line of text so that the rest of the file stays as rosbags wrote it."""
    text = metadata.read_text()
    if re.search(r'^  ros_distro: .*$', text, flags=re.M):
        text = re.sub(r'^  ros_distro: .*$', f'  ros_distro: {distro}', text, count=1, flags=re.M)
    else:
        head = 'rosbag2_bagfile_information:\n'
        text = text.replace(head, f'{head}  ros_distro: {distro}\n', 1)
    metadata.write_text(text)
