"""The front door: --version, and help text for every command and option a user sees."""
import importlib.metadata

import pytest

from thymio_road.cli.main import build_parser, main


def test_version_prints_the_installed_package_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(['--version'])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"thymio-road {importlib.metadata.version('thymio_road')}"


def _subparsers(parser):
    for action in parser._actions:
        if action.__class__.__name__ == '_SubParsersAction':
            return action.choices
    return {}


@pytest.mark.parametrize('command', ['run', 'calibrate', 'passages'])
def test_every_option_has_help_and_the_command_a_description(command):
    parser = _subparsers(build_parser())[command]
    assert parser.description, f'{command} --help has no description'
    for action in parser._actions:
        if action.option_strings and action.dest != 'help':
            assert action.help, f'{command} {action.option_strings[0]} has no help'


def test_run_help_describes_the_outputs(capsys):
    with pytest.raises(SystemExit):
        main(['run', '--help'])
    out = capsys.readouterr().out
    assert 'summary.json' in out and 'trajectories.png' in out and '--quiet' in out
