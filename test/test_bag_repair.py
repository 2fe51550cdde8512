# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`bag repair`: a cut MCAP recording becomes one both readers open, with what was intact in it."""
from __future__ import annotations

from pathlib import Path
import shutil

from mcap.reader import make_reader
import pytest
from rosbags.highlevel import AnyReader
import yaml

from mcap_chunks import chunk_offsets, middle_of_chunk
from thymio_road.cli.main import main
from thymio_road.runtime.bag_repair import damage, repair, RepairError
from thymio_road.runtime.recorder import BagRecorder
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario

DURATION = 6.0


@pytest.fixture(scope='module')
def recorded(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp('repair')
    recorder = BagRecorder(folder / 'bag')
    try:
        Graph(load_scenario('oval', robots=2, duration=DURATION), recorder).run(DURATION)
    finally:
        recorder.close()
    return folder / 'bag'


def _messages_mcap(mcap: Path) -> list[tuple[str, int, bytes]]:
    with mcap.open('rb') as f:
        return [(c.topic, m.log_time, m.data) for _, c, m in make_reader(f).iter_messages(log_time_order=False)]


def _messages_rosbags(bag: Path) -> list[tuple[str, int, bytes]]:
    with AnyReader([bag]) as reader:
        return [(c.topic, t, bytes(d)) for c, t, d in reader.messages()]


def _topics(bag: Path) -> dict[str, dict]:
    info = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    return {t['topic_metadata']['name']: t['topic_metadata'] for t in info['topics_with_message_count']}


def _cut(recorded: Path, tmp_path: Path, chunk: int) -> tuple[Path, bytes]:
    """A copy of the recording as a SIGKILL leaves it: no metadata.yaml, the file cut in a chunk."""
    bag = tmp_path / 'bag'
    shutil.copytree(recorded, bag)
    (bag / 'metadata.yaml').unlink()
    data = (bag / 'bag.mcap').read_bytes()
    cut = data[:middle_of_chunk(data, chunk)]
    (bag / 'bag.mcap').write_bytes(cut)
    return bag, cut


def test_a_cut_bag_is_rebuilt_with_every_complete_message(recorded, tmp_path):
    bag, cut = _cut(recorded, tmp_path, 8)
    with pytest.raises(Exception):
        AnyReader([bag]).open()  # what the issue found: no reader opens it
    assert 'no summary' in damage(bag)
    result = repair(bag)
    assert result.repaired and result.backup == bag / 'bag.mcap.cut'
    assert result.backup.read_bytes() == cut  # the original is kept as it was
    original = _messages_mcap(recorded / 'bag.mcap')
    recovered = _messages_mcap(bag / 'bag.mcap')
    # Every message of the complete chunks, in order; the incomplete last chunk is left out.
    assert recovered == original[:len(recovered)]
    assert 0 < len(recovered) < len(original)
    # Chunk k holds the k-th half second (the latched /map is small enough to share chunk 0):
    # chunk 8 (4..4.5 s) is cut, so the last message recovered is of the last tick before 4 s.
    assert recovered[-1][1] == 3_990_000_000
    assert _messages_rosbags(bag) == recovered
    assert result.messages == len(recovered)
    assert result.end_s == pytest.approx(recovered[-1][1] / 1e9)
    assert result.last_clock_s == pytest.approx(max(t for topic, t, _ in recovered if topic == '/clock') / 1e9)
    # metadata.yaml as the recorder writes it: version 8, the same types, QoS and type hashes.
    info = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert info['version'] == 8 and info['storage_identifier'] == 'mcap'
    assert info['relative_file_paths'] == ['bag.mcap'] and info['message_count'] == len(recovered)
    assert _topics(bag) == _topics(recorded)
    assert damage(bag) is None
    assert not repair(bag).repaired  # a second repair has nothing to do


def test_a_bag_missing_only_its_metadata_keeps_every_message(recorded, tmp_path):
    bag = tmp_path / 'bag'
    shutil.copytree(recorded, bag)
    (bag / 'metadata.yaml').unlink()
    assert damage(bag) == 'the folder has no metadata.yaml'
    repair(bag)
    assert _messages_rosbags(bag) == _messages_rosbags(recorded)
    assert (bag / 'metadata.yaml').read_text() == (recorded / 'metadata.yaml').read_text()


def test_an_intact_bag_is_left_alone(recorded, tmp_path):
    bag = tmp_path / 'bag'
    shutil.copytree(recorded, bag)
    result = repair(bag)
    assert not result.repaired and 'nothing to repair' in result.describe()
    assert sorted(p.name for p in bag.iterdir()) == ['bag.mcap', 'metadata.yaml']
    assert (bag / 'bag.mcap').read_bytes() == (recorded / 'bag.mcap').read_bytes()


def test_a_bare_mcap_file_is_repaired_in_place(recorded, tmp_path):
    data = (recorded / 'bag.mcap').read_bytes()
    bare = tmp_path / 'run.mcap'
    bare.write_bytes(data[:chunk_offsets(data)[-1] + 100])
    result = repair(bare)
    assert result.repaired and (tmp_path / 'run.mcap.cut').exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['run.mcap', 'run.mcap.cut']
    assert _messages_rosbags(bare) == _messages_mcap(bare) and result.messages > 0


def test_nothing_recoverable_is_an_error_that_changes_nothing(recorded, tmp_path):
    bag, cut = _cut(recorded, tmp_path, 0)  # inside the first chunk (the /map raster)
    with pytest.raises(RepairError, match='no complete message'):
        repair(bag)
    assert sorted(p.name for p in bag.iterdir()) == ['bag.mcap']
    assert (bag / 'bag.mcap').read_bytes() == cut


def test_a_bag_still_being_written_is_refused(tmp_path):
    recorder = BagRecorder(tmp_path / 'bag')
    try:
        Graph(load_scenario('oval', robots=1), recorder).run(1.2)
        with pytest.raises(RepairError, match='still writing'):
            repair(tmp_path / 'bag')
    finally:
        recorder.close()
    assert not repair(tmp_path / 'bag').repaired


def test_what_cannot_be_repaired_is_named(tmp_path):
    with pytest.raises(RepairError, match='missing: no such file'):
        repair(tmp_path / 'missing')
    (tmp_path / 'sq').mkdir()
    (tmp_path / 'sq' / 'sq_0.db3').write_bytes(b'')
    with pytest.raises(RepairError, match=r'sq: no \.mcap file in this folder \(found \.db3\)'):
        repair(tmp_path / 'sq')


def test_cli_bag_repair(recorded, tmp_path, capsys):
    bag, _ = _cut(recorded, tmp_path, 8)
    assert main(['bag', 'repair', str(bag)]) == 0
    out = capsys.readouterr().out
    assert f'{bag}: repaired' in out and 'bag.mcap.cut' in out
    assert main(['bag', 'repair', str(bag)]) == 0
    assert 'nothing to repair' in capsys.readouterr().out
    assert main(['bag', 'repair', str(tmp_path / 'nope')]) == 2
    err = capsys.readouterr().err
    assert 'nope: no such file' in err and 'Traceback' not in err


def test_analyze_repairs_a_cut_bag_first_and_says_so(recorded, tmp_path, capsys):
    bag, _ = _cut(recorded, tmp_path, 8)
    assert main(['analyze', str(bag), '--out', str(tmp_path / 'report')]) == 0
    captured = capsys.readouterr()
    assert 'repairing it first' in captured.err and 'repaired' in captured.err
    assert 'warning' not in captured.err  # read as a whole recording, not salvaged
    assert (bag / 'metadata.yaml').exists() and (tmp_path / 'report' / 'index.html').exists()


def test_render_repairs_a_cut_bag_first(recorded, tmp_path, capsys):
    bag, _ = _cut(recorded, tmp_path, 8)
    assert main(['render', str(bag), '--out', str(tmp_path / 'frame.png'), '--at', '3']) == 0
    assert 'repairing it first' in capsys.readouterr().err
    assert (bag / 'metadata.yaml').exists() and (tmp_path / 'frame.png').exists()


@pytest.mark.parametrize('compression', ['none', 'zstd'])
def test_a_repaired_bag_keeps_its_compression(tmp_path, compression):
    from mcap.records import Chunk
    from mcap.stream_reader import StreamReader
    bag = tmp_path / 'bag'
    recorder = BagRecorder(bag, compression=compression)
    try:
        Graph(load_scenario('oval', robots=2, duration=2.0), recorder).run(2.0)
    finally:
        recorder.close()
    (bag / 'metadata.yaml').unlink()
    data = (bag / 'bag.mcap').read_bytes()
    (bag / 'bag.mcap').write_bytes(data[:middle_of_chunk(data, 3)])
    assert repair(bag).messages > 0
    with (bag / 'bag.mcap').open('rb') as f:
        chunks = [r for r in StreamReader(f, emit_chunks=True).records if isinstance(r, Chunk)]
    assert chunks and {c.compression for c in chunks} == {'' if compression == 'none' else 'zstd'}
