# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

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


@pytest.mark.parametrize('command', ['run', 'calibrate', 'passages', 'traffic', 'priority', 'recovery'])
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


@pytest.mark.parametrize('command', ['traffic', 'priority', 'recovery'])
@pytest.mark.parametrize('flags,message', [
    (['--workers', '0'], "argument --workers: must be an integer in 1..256, got '0'"),
    (['--workers', 'many'], "argument --workers: must be an integer in 1..256, got 'many'"),
    (['--scheduler', 'localhost'], 'argument --scheduler: must be a dask scheduler address such as '
                                   "tcp://host:8786, got 'localhost'"),
    (['--workers', '2', '--scheduler', 'tcp://127.0.0.1:8786'],
     'argument --scheduler: not allowed with argument --workers'),
])
def test_sweep_flags_are_checked_naming_the_flag_and_value(command, flags, message, capsys):
    """Issue #28: the experiments that run many simulations take --workers N or --scheduler ADDRESS."""
    with pytest.raises(SystemExit) as exit_:
        main([command, *flags])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
