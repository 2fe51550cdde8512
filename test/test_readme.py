# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The README's examples work as shown: every `thymio-road` command and every YAML block.

A fenced block may be preceded by an HTML comment that says how it is exercised:
``<!-- readme-test: skip (why) -->`` (e.g. needs ROS 2), ``<!-- readme-test: help -->`` (each
command runs with --help: a full run is too long) or ``<!-- readme-test: synopsis -->`` (each
line's --options must be in its command's --help). Unmarked blocks run. A --duration over
MAX_DURATION s becomes SHORT_DURATION, and a run without one gets SHORT_DURATION.
"""
from __future__ import annotations

from pathlib import Path
import re
import shlex
import subprocess
import sys

import pytest
import yaml

from thymio_road.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / 'README.md').read_text(encoding='utf-8')
MAX_DURATION = 60.0
SHORT_DURATION = '5'
FENCE = re.compile(r'(?:<!--\s*readme-test:\s*(\w+)[^>]*-->\s*\n)?```(\w*)\n(.*?)```', re.S)


def _blocks() -> list[tuple[str, str, str, int]]:
    """(marker, language, text, line) of every fenced block."""
    return [(m.group(1) or 'run', m.group(2), m.group(3), README.count('\n', 0, m.start()) + 1)
            for m in FENCE.finditer(README)]


def _commands(text: str) -> list[list[str]]:
    """The commands of a shell block, one per `&&` segment; comments dropped."""
    out = []
    for line in text.replace('\\\n', ' ').splitlines():
        words = shlex.split(line, comments=True)
        segment: list[str] = []
        for word in words + ['&&']:
            if word == '&&':
                if segment:
                    out.append(segment)
                segment = []
            else:
                segment.append(word)
    return out


def _short(argv: list[str]) -> list[str]:
    argv = list(argv)
    if argv[:1] == ['run'] or argv[:1] == ['passages']:
        if '--duration' in argv:
            k = argv.index('--duration') + 1
            if float(argv[k]) > MAX_DURATION:
                argv[k] = SHORT_DURATION
        else:
            argv += ['--duration', SHORT_DURATION]
    return argv


def _thymio_road(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit_:  # --help, --version
        return int(exit_.code or 0)


YAML_BLOCKS = [(text, line) for marker, lang, text, line in _blocks() if lang == 'yaml']
SHELL_BLOCKS = [(marker, text, line) for marker, lang, text, line in _blocks() if lang in ('', 'bash', 'sh')]


def test_the_readme_has_what_this_test_expects():
    assert len(YAML_BLOCKS) >= 3
    assert {m for m, _, _ in SHELL_BLOCKS} <= {'run', 'skip', 'help', 'synopsis'}
    assert 'synopsis' in {m for m, _, _ in SHELL_BLOCKS}


@pytest.mark.parametrize('text,line', YAML_BLOCKS, ids=[f'line{line}' for _, line in YAML_BLOCKS])
def test_yaml_block(text, line, tmp_path, capsys):
    data = yaml.safe_load(text)
    path = tmp_path / f'readme_line{line}.yaml'
    path.write_text(text)
    if 'roads' in data:                                   # a map: through `map check`
        assert main(['map', 'check', str(path)]) == 0, capsys.readouterr().err
        assert ': ok: ' in capsys.readouterr().out
    elif 'map' in data:                                   # a scenario: loaded and run briefly
        from thymio_road.runtime.run import run_scenario
        from thymio_road.scenario import load_scenario
        scenario = load_scenario(path, duration=2.0)
        result = run_scenario(scenario, tmp_path / 'run', record=False, progress=False, picture=False)
        assert result.summary['robots_count'] == data['robots']['count']
        assert all(row['distance_m'] > 0 for row in result.summary['robots'])
    else:
        pytest.fail(f'README line {line}: a YAML block that is neither a map nor a scenario')


RUN_BLOCKS = [(text, line) for marker, text, line in SHELL_BLOCKS if marker == 'run']


@pytest.mark.parametrize('text,line', RUN_BLOCKS, ids=[f'line{line}' for _, line in RUN_BLOCKS])
def test_shell_block_runs(text, line, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for argv in _commands(text):
        if argv[0] != 'thymio-road':
            continue                                      # venv, pip, cd: the environment, not ours
        code = _thymio_road(_short(argv[1:]))
        assert code == 0, f'README line {line}: {shlex.join(argv)} exited {code}: {capsys.readouterr().err}'
        ran += 1
    assert ran, f'README line {line}: a block without a thymio-road command must be marked'


HELP_BLOCKS = [(text, line) for marker, text, line in SHELL_BLOCKS if marker == 'help']


@pytest.mark.parametrize('text,line', HELP_BLOCKS, ids=[f'line{line}' for _, line in HELP_BLOCKS])
def test_help_block(text, line, capsys):
    for argv in _commands(text):
        if argv[0] == 'thymio-road':
            assert _thymio_road(argv[1:] + ['--help']) == 0
        else:
            assert argv[0] in ('python', 'python3'), argv
            done = subprocess.run([sys.executable, *argv[1:], '--help'], cwd=ROOT, capture_output=True,
                                  text=True, timeout=60)
            assert done.returncode == 0 and 'usage' in done.stdout, done.stderr


def _synopsis_lines() -> list[str]:
    text = '\n'.join(t for m, t, _ in SHELL_BLOCKS if m == 'synopsis')
    lines: list[str] = []
    for raw in text.splitlines():
        raw = raw.split('#')[0].rstrip()
        if raw.startswith('thymio-road'):
            lines.append(raw)
        elif raw.strip():
            lines[-1] += ' ' + raw.strip()               # a continuation line
    return lines


@pytest.mark.parametrize('line', _synopsis_lines())
def test_synopsis_options_exist(line, capsys):
    words = line.split()[1:]
    command = []
    for word in words:
        if word.startswith(('[', '-')) or word.isupper() or word in ('...', '…'):
            break
        command.append(word.split('|'))
    options = set(re.findall(r'--[a-z][a-z-]*', line))
    last = command[-1] if command else ['']
    for leaf in last:                                     # `swarmcom threshold|static|…`: each one
        argv = [c[0] for c in command[:-1]] + ([leaf] if leaf else [])
        assert _thymio_road(argv + ['--help']) == 0, argv
        help_text = capsys.readouterr().out
        missing = {o for o in options if o not in help_text}
        assert not missing, f'{" ".join(argv)} --help lacks {missing}'


INLINE = sorted({m for m in re.findall(r'`(thymio-road[^`]*)`', FENCE.sub('', README))
                 if not re.search(r'…|\.\.\.|\b[A-Z]{2,}\b', m)})


@pytest.mark.parametrize('command', INLINE)
def test_inline_command(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _thymio_road(_short(shlex.split(command)[1:])) == 0, capsys.readouterr().err
