"""The swarmcom command: registration in a host parser and small runs writing CSV/PNG/JSON."""
import argparse
import json

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
