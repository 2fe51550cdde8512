# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Progress of a run where stderr is not a terminal: a line every 10 % (no silent 12-minute runs)."""
import io
import re

from thymio_road.cli.main import main
from thymio_road.runtime.progress import LineProgress, progress_reporter

LINE = re.compile(r'^\s*(\d+) %: (\d+)/(\d+) simulated s, ([\d.]+) s wall, ([\d.]+)x real time$')


def test_a_line_at_every_tenth_with_simulated_time_wall_time_and_real_time_factor():
    now = [0.0]
    stream = io.StringIO()
    bar = LineProgress(100.0, stream, clock=lambda: now[0])
    for t in range(1, 101):
        now[0] = t / 2            # twice as fast as real time
        bar.update_to(float(t))   # the runner calls this once per simulated second
    lines = stream.getvalue().splitlines()
    assert [int(LINE.match(line).group(1)) for line in lines] == list(range(10, 101, 10))
    first = LINE.match(lines[0]).groups()
    assert first[1:3] == ('10', '100') and float(first[3]) == 5.0 and float(first[4]) == 2.0


def test_a_pipe_gets_lines_and_quiet_gets_nothing():
    assert isinstance(progress_reporter(10.0, True, io.StringIO()), LineProgress)
    assert progress_reporter(10.0, False, io.StringIO()) is None


def test_run_without_a_terminal_prints_a_line_every_10_percent(tmp_path, capsys):
    assert main(['run', '--robots', '1', '--duration', '20', '--no-record', '--no-picture',
                 '--out', str(tmp_path / 'run')]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if LINE.match(line)]
    assert [int(LINE.match(line).group(1)) for line in lines] == list(range(10, 101, 10))
    assert [int(LINE.match(line).group(2)) for line in lines] == list(range(2, 21, 2))


def test_quiet_run_prints_no_progress(tmp_path, capsys):
    assert main(['run', '--robots', '1', '--duration', '5', '--no-record', '--no-picture', '--quiet',
                 '--out', str(tmp_path / 'run')]) == 0
    assert capsys.readouterr().err == ''
