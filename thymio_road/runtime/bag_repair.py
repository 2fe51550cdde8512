# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Repair a recording whose writer never closed it: the counterpart of ``ros2 bag reindex``.

A process killed outright (SIGKILL, power loss, a full disk) leaves an MCAP file without its
summary and footer, and a rosbag2 folder without ``metadata.yaml``; neither rosbags' AnyReader
nor the ``mcap`` library's indexed reader opens it. The records before the cut are intact, so
they are read front to back with ``mcap``'s stream reader (which does not need the summary), and
every complete chunk's messages are written again through the recorder's own writer
(:func:`~thymio_road.runtime.recorder.open_writer`), which also writes ``metadata.yaml`` (version 8),
with the chunks compressed as the file's first one was (zstd or none).
The new file takes the old one's place; the old one is kept beside it as ``<name>.mcap.cut``.

A file another process still holds open for writing (the recorder locks it) is left alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import os
from pathlib import Path
import shutil
from typing import Any

from thymio_road.runtime.recorder import open_writer, write_distro

_MAGIC = b'\x89MCAP0\r\n'


class RepairError(Exception):
    """A recording that cannot be repaired; the message names the path and the reason."""


@dataclass
class RepairResult:
    """What a repair did (``repaired`` False: the recording needed nothing)."""

    path: Path
    repaired: bool
    reason: str = ''
    storage: Path | None = None
    backup: Path | None = None
    messages: int = 0
    topics: int = 0
    #: Messages left out because their channel had no usable definition.
    skipped: int = 0
    #: Log times (s) of the first and last recovered message.
    start_s: float = 0.0
    end_s: float = 0.0
    #: Bytes of the old file that were read as complete records, and its size.
    bytes_used: int = 0
    bytes_total: int = 0
    #: Last /clock stamp recovered (s), when the recording has /clock.
    last_clock_s: float | None = None
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if not self.repaired:
            return f'{self.path}: nothing to repair ({self.reason})'
        lost = self.bytes_total - self.bytes_used
        return (f'{self.path}: repaired ({self.reason}): {self.messages} messages on {self.topics} '
                f'topics, {self.start_s:.3f}..{self.end_s:.3f} s; {lost} bytes at the end of '
                f'{self.storage.name} were incomplete and left out; the original is kept as '
                f'{self.backup.name}')


def storage_file(path: Path) -> Path:
    """The MCAP file of a rosbag2 folder, or `path` itself when it is an .mcap file."""
    if not path.exists():
        raise RepairError(f'{path}: no such file or folder')
    if path.is_file():
        if path.suffix != '.mcap':
            raise RepairError(f'{path}: not an MCAP file (only MCAP recordings can be repaired)')
        return path
    files = sorted(path.glob('*.mcap'))
    if not files:
        kinds = sorted({p.suffix for p in path.iterdir() if p.is_file()}) or ['nothing']
        raise RepairError(f'{path}: no .mcap file in this folder (found {", ".join(kinds)})')
    if len(files) > 1:
        raise RepairError(f'{path}: {len(files)} .mcap files (a split recording); '
                          f'repair each file on its own')
    return files[0]


def damage(path: Path) -> str | None:
    """Why `path` (a rosbag2 folder or an .mcap file) needs a repair, or None when it does not."""
    try:
        storage = storage_file(path)
    except RepairError:
        return None
    with storage.open('rb') as f:
        head = f.read(8)
        if head != _MAGIC:
            return None  # not MCAP: nothing this module can do
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - 8))
        if size < 16 or f.read(8) != _MAGIC:
            return 'the MCAP file has no summary or footer: its writer never closed it'
    if path.is_dir() and not (path / 'metadata.yaml').exists():
        return 'the folder has no metadata.yaml'
    return None


def being_written(storage: Path) -> bool:
    """True while a recorder holds `storage` open (it locks the file; POSIX only)."""
    try:
        import fcntl
    except ImportError:
        return False
    with storage.open('rb') as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    return False


def repair(path: str | Path) -> RepairResult:
    """Rewrite the intact part of a cut MCAP recording with its summary and metadata.yaml."""
    path = Path(path)
    storage = storage_file(path)
    reason = damage(path)
    if reason is None:
        with storage.open('rb') as f:
            if f.read(8) != _MAGIC:
                raise RepairError(f'{storage}: not an MCAP file (bad magic)')
        return RepairResult(path, False, 'it has its summary'
                            + (' and metadata.yaml' if path.is_dir() else ''), storage)
    if being_written(storage):
        raise RepairError(f'{storage}: a recorder is still writing this file; stop it first '
                          f'(Ctrl-C closes the bag properly)')
    work = storage.parent / f'.{storage.stem}.repair'
    if work.exists():
        shutil.rmtree(work)  # left by a repair that was itself interrupted
    try:
        work.mkdir()
        result = _rewrite(path, storage, work / storage.stem, reason)
        _swap(path, storage, work / storage.stem, result)
    except OSError as exc:  # a full disk, a file-size limit: the cut bag stays as it was
        raise OSError(exc.errno, f'{exc.strerror or exc}: the repaired copy could not be written beside it; '
                                 'the bag is as it was', str(storage)) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


def _rewrite(path: Path, storage: Path, target: Path, reason: str) -> RepairResult:
    """Stream the intact records of `storage` into a new bag folder `target`."""
    from mcap.records import Channel, Message, Schema
    from mcap.stream_reader import StreamReader

    result = RepairResult(path, True, reason, storage, bytes_total=storage.stat().st_size)
    schemas: dict[int, Any] = {}
    hashes: dict[str, str] = {}  # type hash by type name
    profiles: dict[str, Any] = {}  # QoS profiles by their YAML text (parsing YAML is slow)
    connections: dict[int, Any] = {}
    clock_id = None
    writer = open_writer(target, _compression(storage))
    try:
        with storage.open('rb') as f:
            reader = StreamReader(f, record_size_limit=storage.stat().st_size)
            records = reader.records
            while True:
                try:
                    record = next(records)
                except StopIteration:
                    break
                except Exception as exc:  # noqa: BLE001 - the cut: a record that is not complete
                    result.notes.append(f'reading stopped at the first incomplete record '
                                        f'({type(exc).__name__})')
                    break
                if isinstance(record, Schema):
                    schemas[record.id] = record
                elif isinstance(record, Channel):
                    if record.id not in connections:  # the summary repeats the channels
                        connections[record.id] = _connection(writer, record, schemas, hashes, profiles,
                                                             result)
                        if record.topic == '/clock':
                            clock_id = record.id
                elif isinstance(record, Message):
                    conn = connections.get(record.channel_id, False)
                    if conn is False:
                        result.skipped += 1
                        continue
                    writer.write(conn, record.log_time, record.data)
                    if result.messages == 0:
                        result.start_s = record.log_time / 1e9
                    result.messages += 1
                    result.end_s = max(result.end_s, record.log_time / 1e9)
                    if record.channel_id == clock_id:
                        result.last_clock_s = _clock_stamp(record.data, result.last_clock_s)
                result.bytes_used = f.tell()
    except BaseException:
        try:
            writer.close()
        except OSError:
            pass  # the error above says why
        raise
    writer.close()
    # The distro whose definitions the bag carries, as the recorder names it (Jazzy's Range has
    # a `variance` field that Humble's lacks).
    ranges = [bytes(sch.data).decode(errors='replace')
              for sch in schemas.values() if sch.name == 'sensor_msgs/msg/Range']
    if ranges and (target / 'metadata.yaml').is_file():
        write_distro(target / 'metadata.yaml', 'jazzy' if 'variance' in ranges[0] else 'humble')
    result.topics = sum(1 for c in connections.values() if c is not False)
    if not result.messages:
        raise RepairError(f'{path}: nothing to recover: {storage.name} holds no complete message '
                          f'(cut at byte {result.bytes_total}); remove it')
    return result


def _compression(storage: Path) -> str:
    """The compression of the file's first chunk ('zstd' or 'none'), which the repaired file
    keeps; zstd when there is none to see, as the recorder writes by default.
    """
    import struct
    with storage.open('rb') as f:
        data = f.read(1 << 16)
    pos = len(_MAGIC)
    while pos + 9 <= len(data):
        op, length = struct.unpack_from('<BQ', data, pos)
        if op == 0x06:  # chunk: start, end, uncompressed size, crc, then the compression's name
            at = pos + 9 + 28
            if at + 4 > len(data):
                break
            (n,) = struct.unpack_from('<I', data, at)
            return 'none' if n == 0 else 'zstd'
        pos += 9 + length
    return 'zstd'


def _connection(writer: Any, channel: Any, schemas: dict[int, Any], hashes: dict[str, str],
                profiles: dict[str, Any], result: RepairResult) -> Any:
    """The writer's connection for an MCAP channel, with its type, definition and QoS; False if unusable."""
    if channel.schema_id not in schemas:
        result.notes.append(f'{channel.topic} has no message definition; its messages are left out')
        return False
    from rosbags.rosbag2.metadata import parse_qos
    schema = schemas[channel.schema_id]
    msgdef = schema.data.decode()
    if schema.name not in hashes:
        hashes[schema.name] = _rihs01(schema.name, schema.encoding, msgdef)
    qos_text = channel.metadata.get('offered_qos_profiles', '')
    if qos_text not in profiles:
        profiles[qos_text] = parse_qos(qos_text) if qos_text else ()
    return writer.add_connection(channel.topic, schema.name, msgdef=msgdef, rihs01=hashes[schema.name],
                                 serialization_format=channel.message_encoding,
                                 offered_qos_profiles=profiles[qos_text])


def _rihs01(msgtype: str, encoding: str, msgdef: str) -> str:
    """The type hash metadata.yaml records, computed from the definition the file carries."""
    from rosbags.typesys import get_types_from_idl, get_types_from_msg, get_typestore, Stores
    store = get_typestore(Stores.EMPTY)
    if encoding == 'ros2msg':
        store.register(get_types_from_msg(msgdef, msgtype))
    else:
        sep = '=' * 80 + '\n'
        types: dict = {}
        for part in (msgdef.split(sep)[1:] if msgdef.startswith(sep + 'IDL: ') else [msgdef]):
            types.update(get_types_from_idl(part.split('\n', 1)[1] if part.startswith('IDL: ') else part))
        store.register(types)
    return store.hash_rihs01(msgtype)


def _clock_stamp(data: bytes, previous: float | None) -> float:
    """rosgraph_msgs/Clock in little-endian CDR: int32 sec, uint32 nanosec after the 4-byte header."""
    import struct
    if len(data) >= 12 and data[1] == 1:
        sec, nsec = struct.unpack_from('<iI', data, 4)
        stamp = sec + nsec * 1e-9
        return stamp if previous is None else max(previous, stamp)
    return previous if previous is not None else 0.0


def _swap(path: Path, storage: Path, new_bag: Path, result: RepairResult) -> None:
    """Put the new MCAP file (and, for a folder, its metadata.yaml) in place; keep the old file."""
    backup = _free_name(storage.with_name(storage.name + '.cut'))
    new_file = new_bag / f'{new_bag.name}.mcap'
    os.replace(storage, backup)
    os.replace(new_file, storage)
    result.backup = backup
    if path.is_dir():
        old_meta = path / 'metadata.yaml'
        if old_meta.exists():
            os.replace(old_meta, _free_name(path / 'metadata.yaml.cut'))
        os.replace(new_bag / 'metadata.yaml', old_meta)


def _free_name(candidate: Path) -> Path:
    n = 1
    name = candidate.name
    while candidate.exists():
        n += 1
        candidate = candidate.with_name(f'{name}-{n}')
    return candidate
