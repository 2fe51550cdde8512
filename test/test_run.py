"""run_scenario's output folder: an earlier run is never overwritten, a failed start leaves nothing."""
from __future__ import annotations

import json

import pytest

from thymio_road.cli.main import main
from thymio_road.runtime import run as run_module
from thymio_road.runtime.run import OutputExists, run_scenario
from thymio_road.scenario import load_scenario


def _scenario(duration: float = 1.0):
    return load_scenario('oval', robots=1, duration=duration)


@pytest.mark.parametrize('record', [True, False])
def test_a_folder_with_an_earlier_run_is_refused(tmp_path, record):
    run_scenario(_scenario(), tmp_path, record=False, progress=False, picture=False)
    before = (tmp_path / 'summary.json').read_bytes()
    with pytest.raises(OutputExists, match=f'{tmp_path} holds an earlier run \\(summary.json\\)'):
        run_scenario(_scenario(2.0), tmp_path, record=record, progress=False, picture=False)
    assert (tmp_path / 'summary.json').read_bytes() == before
    assert not (tmp_path / 'bag').exists()


def test_cli_no_record_into_an_earlier_run_exits_2_naming_the_folder(tmp_path, capsys):
    out = tmp_path / 'earlier'
    assert main(['run', '--duration', '1', '--robots', '1', '--out', str(out), '--quiet']) == 0
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    capsys.readouterr()
    assert main(['run', '--duration', '2', '--out', str(out), '--no-record', '--quiet']) == 2
    err = capsys.readouterr().err
    assert f'error: {out} holds an earlier run (bag/, summary.json, trajectories.png)' in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files
    assert json.loads(files['summary.json'])['simulated_s'] == 1.0


def test_an_unclosed_bag_is_named_with_the_repair_command(tmp_path):
    (tmp_path / 'bag').mkdir()
    (tmp_path / 'bag' / 'bag.mcap').write_bytes(b'\x89MCAP0\r\n')
    with pytest.raises(OutputExists, match='bag repair'):
        run_scenario(_scenario(), tmp_path, progress=False, picture=False)


def test_a_run_that_fails_to_start_leaves_no_bag_and_no_folder(tmp_path, monkeypatch):
    class Broken(run_module.Graph):
        def __init__(self, scenario, recorder=None):
            super().__init__(scenario, recorder)  # the nodes publish their latched messages
            raise RuntimeError('a node failed')

    out = tmp_path / 'new'
    monkeypatch.setattr(run_module, 'Graph', Broken)
    with pytest.raises(RuntimeError, match='a node failed'):
        run_scenario(_scenario(), out, progress=False, picture=False)
    # The bag holds a few latched messages: it is closed (readable), not left open.
    assert (out / 'bag' / 'metadata.yaml').exists()

    class Empty(run_module.Graph):
        def __init__(self, scenario, recorder=None):
            raise RuntimeError('no node started')

    monkeypatch.setattr(run_module, 'Graph', Empty)
    with pytest.raises(RuntimeError, match='no node started'):
        run_scenario(_scenario(), tmp_path / 'other', progress=False, picture=False)
    assert not (tmp_path / 'other').exists()  # an empty bag is removed, and the empty folder


def test_an_empty_bag_of_an_earlier_version_is_named_as_such(tmp_path):
    from rosbags.rosbag2 import StoragePlugin, Writer
    writer = Writer(tmp_path / 'bag', version=8, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    writer.close()
    with pytest.raises(OutputExists, match='its bag holds no messages: remove it'):
        run_scenario(_scenario(), tmp_path, progress=False, picture=False)
