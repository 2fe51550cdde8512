# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The recorder: what reaches the file before the bag is closed, what it leaves behind, and the one
ROS 2 distro whose message definitions a bag carries (the ones the nodes filled).
"""
from __future__ import annotations

from pathlib import Path

from mcap.records import Chunk, Message
from mcap.stream_reader import StreamReader
import pytest
from rosbags.rosbag2 import Reader
from rosbags.typesys import get_typestore, Stores
import yaml

from thymio_road.nodes import msgs
from thymio_road.runtime.recorder import BagRecorder, CHUNK_PERIOD_NS
from thymio_road.runtime.run import Graph, run_scenario
from thymio_road.scenario import load_scenario, ScenarioError


def _record(folder: Path, duration: float, seed: int = 1, close: bool = True) -> BagRecorder:
    recorder = BagRecorder(folder / 'bag')
    Graph(load_scenario('oval', robots=2, seed=seed), recorder).run(duration)
    if close:
        recorder.close()
    return recorder


def _chunks(mcap: Path) -> list[Chunk]:
    with mcap.open('rb') as f:
        return [r for r in StreamReader(f, emit_chunks=True).records if isinstance(r, Chunk)]


def _complete_messages(mcap: Path) -> list[Message]:
    """Messages of the complete chunks of a file that may be cut (as a SIGKILL leaves it)."""
    out = []
    with mcap.open('rb') as f:
        try:
            for record in StreamReader(f).records:
                if isinstance(record, Message):
                    out.append(record)
        except Exception:  # noqa: BLE001 - the end of what was written
            pass
    return out


def test_a_chunk_holds_at_most_half_a_simulated_second(tmp_path):
    recorder = _record(tmp_path, 3.2)
    chunks = _chunks(tmp_path / 'bag' / 'bag.mcap')
    # One chunk per half second up to 3.2 s (the latched /map at 5 mm shares the first one).
    assert len(chunks) == 7
    for chunk in chunks:
        first = chunk.message_start_time // CHUNK_PERIOD_NS
        assert chunk.message_end_time // CHUNK_PERIOD_NS == first  # never across a boundary
    assert sum(recorder.counts.values()) == len(_complete_messages(tmp_path / 'bag' / 'bag.mcap'))


def test_what_ran_is_in_the_file_before_the_bag_is_closed(tmp_path):
    # What a SIGKILL would leave: the file as it is while the writer is still open.
    recorder = _record(tmp_path, 4.3, close=False)
    try:
        stamps = [m.log_time / 1e9 for m in _complete_messages(tmp_path / 'bag' / 'bag.mcap')]
        assert stamps and max(stamps) >= 4.3 - CHUNK_PERIOD_NS / 1e9
        assert len(stamps) < sum(recorder.counts.values())  # the pending chunk is not there yet
    finally:
        recorder.close()


def test_the_same_run_gives_the_same_bytes(tmp_path):
    for name in ('a', 'b', 'c'):
        (tmp_path / name).mkdir()
    _record(tmp_path / 'a', 2.6, seed=4)
    _record(tmp_path / 'b', 2.6, seed=4)
    _record(tmp_path / 'c', 2.6, seed=5)
    a, b, c = ((tmp_path / n / 'bag' / 'bag.mcap').read_bytes() for n in 'abc')
    assert a == b and a != c
    assert (tmp_path / 'a' / 'bag' / 'metadata.yaml').read_text() == \
        (tmp_path / 'b' / 'bag' / 'metadata.yaml').read_text()


def test_a_bag_without_messages_is_removed_when_closed(tmp_path):
    recorder = BagRecorder(tmp_path / 'bag')
    recorder.add_topic('/clock', msgs.Clock, msgs.DEFAULT)
    recorder.close()
    assert recorder.removed and not (tmp_path / 'bag').exists()


def test_a_bag_is_never_overwritten(tmp_path):
    (tmp_path / 'bag').mkdir()
    with pytest.raises(FileExistsError, match='already exists'):
        BagRecorder(tmp_path / 'bag')


@pytest.fixture
def _restore_distro():
    yield
    msgs.use_distro(msgs.DEFAULT_DISTRO)


@pytest.mark.parametrize('distro,store,has_variance', [
    ('jazzy', Stores.ROS2_JAZZY, True), ('humble', Stores.ROS2_HUMBLE, False)])
def test_range_messages_decode_with_the_recorded_distro(tmp_path, distro, store, has_variance, _restore_distro):
    scenario = load_scenario('oval', robots=2, duration=1.0, ros_distro=distro)
    run_scenario(scenario, tmp_path, progress=False, picture=False)
    meta = yaml.safe_load((tmp_path / 'bag' / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert meta['ros_distro'] == distro and meta['version'] == 8
    typestore = get_typestore(store)
    ranges = 0
    with Reader(tmp_path / 'bag') as reader:
        for conn in reader.connections:
            if conn.msgtype == 'sensor_msgs/msg/Range':
                assert ('float32 variance' in conn.msgdef.data) is has_variance
        for conn, _, raw in reader.messages():
            if conn.topic.startswith('/thymio1/proximity/'):
                msg = typestore.deserialize_cdr(raw, conn.msgtype)  # raises on the other distro's layout
                assert hasattr(msg, 'variance') is has_variance
                assert msg.max_range > 0
                ranges += 1
    assert ranges >= 7 * 9


def test_unknown_distro_is_refused():
    with pytest.raises(ScenarioError, match="scenario.ros_distro: must be one of humble, jazzy, got 'iron'"):
        load_scenario('oval', ros_distro='iron')


@pytest.mark.parametrize('compression', ['zstd', 'none'])
def test_chunks_carry_their_crc_and_both_readers_check_it(tmp_path, compression):
    recorder = BagRecorder(tmp_path / 'bag', compression=compression)
    Graph(load_scenario('oval', robots=2, seed=1), recorder).run(1.2)
    recorder.close()
    mcap = tmp_path / 'bag' / 'bag.mcap'
    chunks = _chunks(mcap)
    assert len(chunks) == 3
    assert all(c.compression == ('' if compression == 'none' else 'zstd') for c in chunks)
    assert all(c.uncompressed_crc != 0 for c in chunks)
    assert all((len(c.data) < c.uncompressed_size / 3) == (compression == 'zstd') for c in chunks)
    with Reader(tmp_path / 'bag') as reader:
        assert sum(1 for _ in reader.messages()) == recorder.message_count
    # A flipped byte inside a chunk: rosbags refuses it (the checksum; zstd may notice first).
    data = bytearray(mcap.read_bytes())
    first = chunks[1]
    at = data.find(first.data) + len(first.data) // 2
    data[at] ^= 0xFF
    mcap.write_bytes(bytes(data))
    expected = 'Chunk checksum mismatch' if compression == 'none' else '(?i)checksum|corrupt|zstd|size mismatch'
    with pytest.raises(Exception, match=expected):
        with Reader(tmp_path / 'bag') as reader:
            for _ in reader.messages():
                pass


def test_an_analysis_profile_registers_only_what_it_records(tmp_path):
    recorder = BagRecorder(tmp_path / 'bag', profile='analysis')
    graph = Graph(load_scenario('oval', robots=2, seed=1), recorder)
    graph.run(0.5)
    recorder.close()
    assert '/thymio1/ground_truth' in recorder.counts and '/thymio1/proximity/center' not in recorder.counts
    topic = graph.executor.topics['/thymio1/proximity/center']
    # Nobody subscribes to the Range cones and they are not recorded: no message is built for them.
    assert not topic.recorded and graph.executor.subscriber_count(topic) == 0
    assert recorder.records('/thymio1/ground_truth') and not recorder.records('/thymio1/proximity/center')
    with pytest.raises(ValueError, match="unknown recording profile 'some'"):
        BagRecorder(tmp_path / 'other', profile='some')


def test_an_analysis_recording_is_byte_deterministic_too(tmp_path):
    paths = []
    for name in ('a', 'b'):
        recorder = BagRecorder(tmp_path / name / 'bag', profile='analysis')
        Graph(load_scenario('oval', robots=2, seed=3), recorder).run(1.6)
        recorder.close()
        paths.append(tmp_path / name / 'bag' / 'bag.mcap')
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert b'zstd' in paths[0].read_bytes()


@pytest.mark.parametrize('compression', ['zstd', 'none'])
def test_the_recorders_mcap_writer_writes_the_librarys_bytes(tmp_path, compression):
    """recorder._McapWriter.add_message against the mcap library's: messages on several channels,
    out-of-order times, chunks closed by size and by flush, with the summary and its indexes.
    """
    import io
    import random

    from mcap.writer import CompressionType, Writer

    from thymio_road.runtime.recorder import _McapWriter

    kind = {'zstd': CompressionType.ZSTD, 'none': CompressionType.NONE}[compression]
    files = []
    for cls in (Writer, _McapWriter):
        rng = random.Random(4)
        out = io.BytesIO()
        writer = cls(out, compression=kind, enable_crcs=True, chunk_size=4000)
        writer.start(profile='ros2')
        schema = writer.register_schema('a/msg/B', 'ros2msg', b'int32 x')
        channels = [writer.register_channel(f'/t{k}', 'cdr', schema, {'q': str(k)}) for k in range(4)]
        t = 1000
        for k in range(600):
            t += rng.choice([0, 0, 5, 10_000_000])
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 90)))
            writer.add_message(rng.choice(channels), t - rng.choice([0, 0, 3]), memoryview(data), t)
            if k % 97 == 0:
                writer.flush()
        writer.add_metadata('m', {'k': 'v'})
        writer.finish()
        files.append(out.getvalue())
    assert files[0] == files[1]
