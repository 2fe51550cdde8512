# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The swarmcom command: registration in a host parser and small runs writing CSV/PNG/JSON."""
import argparse
import json

import pytest

from swarm_comm.cli import main, register


def test_register_adds_swarmcom_with_subcommands(tmp_path):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest='command'))
    args = parser.parse_args(['swarmcom', 'static', '--out', str(tmp_path), '--seed', '3', '--messages', '5',
                              '--min-distance', '10', '--max-distance', '20', '--step', '10'])
    assert args.func(args) == 0
    assert (tmp_path / 'static.csv').read_text().count('\n') == 1 + 2 * (14 + 2)
    assert (tmp_path / 'static.png').stat().st_size > 0
    summary = json.loads((tmp_path / 'static_summary.json').read_text())
    assert summary['messages_per_distance'] == 5


@pytest.mark.slow
def test_standalone_main_runs_threshold_and_scalability(tmp_path, capsys):
    assert main(['threshold', '--out', str(tmp_path), '--samples', '20000']) == 0
    assert json.loads((tmp_path / 'threshold_summary.json').read_text())['threshold'] in range(4073, 4078)
    assert main(['scalability', '--out', str(tmp_path), '--trials', '2', '--counts', '1,5']) == 0
    assert (tmp_path / 'scalability.csv').exists()
    assert main(['mobile', '--out', str(tmp_path), '--messages', '2', '--robots', '2,3', '--repetitions', '2']) == 0
    assert (tmp_path / 'mobile.png').exists()
    capsys.readouterr()


def test_scalability_reading_is_selectable_and_recorded(tmp_path, capsys):
    assert main(['scalability', '--out', str(tmp_path), '--trials', '2', '--counts', '1,5']) == 0
    summary = json.loads((tmp_path / 'scalability_summary.json').read_text())
    assert (summary['layout'], summary['channel'], summary['occlusion']) == ('webots-proto', 'range', 'paths')
    assert main(['scalability', '--out', str(tmp_path), '--trials', '2', '--counts', '1', '--layout', 'enki',
                 '--channel', 'detect']) == 0
    summary = json.loads((tmp_path / 'scalability_summary.json').read_text())
    assert (summary['layout'], summary['channel']) == ('enki', 'detect')
    capsys.readouterr()


def test_prints_a_rounded_summary_and_the_files_it_wrote(tmp_path, capsys):
    from pathlib import Path
    import re
    assert main(['scalability', '--out', str(tmp_path), '--trials', '2', '--counts', '1,5']) == 0
    out = capsys.readouterr().out
    assert '{' not in out and '"' not in out                      # not JSON
    decimals = re.findall(r'\d+\.\d+', out.split('written:')[0])
    assert decimals and all(len(d.replace('.', '').lstrip('0')) <= 3 for d in decimals), decimals
    assert 'peak channels:' in out
    written = [Path(line.strip()) for line in out.split('written:')[1].splitlines() if line.strip()]
    assert sorted(p.name for p in written) == ['scalability.csv', 'scalability.png', 'scalability_summary.json']
    assert all(p.exists() and p.parent == tmp_path for p in written)
    # the JSON file keeps every digit
    assert isinstance(json.loads((tmp_path / 'scalability_summary.json').read_text())['peak_density'], float)
