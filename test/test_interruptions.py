# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""End to end, the real CLI as a subprocess: interrupted runs leave bags both readers open (issue #16)."""
from __future__ import annotations

import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

from mcap.reader import make_reader
import pytest
from rosbags.highlevel import AnyReader
import yaml

from thymio_road.analysis import read_recording
from thymio_road.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', '')}
RUN = ['run', '--duration', '100000', '--robots', '2', '--quiet']


def _start(out: Path, *, prelude: str | None = None) -> subprocess.Popen:
    if prelude is None:
        cmd = [sys.executable, '-m', 'thymio_road.cli', *RUN, '--out', str(out)]
    else:
        args = [*RUN, '--out', str(out)]
        cmd = [sys.executable, '-c', f'{prelude}\nimport sys\nfrom thymio_road.cli.main import main\n'
                                     f'sys.exit(main({args!r}))']
    return subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, f'{path} did not appear'
        time.sleep(0.02)


def _wait_for_the_run(bag: Path, proc: subprocess.Popen) -> None:
    """Until the first chunk (t = 0 with the /map raster) is in the file: the simulation runs."""
    mcap = bag / 'bag.mcap'
    _wait_for(mcap, proc)
    deadline = time.time() + 60
    while mcap.stat().st_size < 1_000_000:
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, 'the run did not start'
        time.sleep(0.02)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'thymio_road.cli', *args], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=120)


def _both_readers(bag: Path) -> tuple[int, float]:
    """Message count, read by rosbags' AnyReader and by mcap's indexed reader (they must agree),
    and the last /clock stamp (s).
    """
    with AnyReader([bag]) as reader:
        count = sum(1 for _ in reader.messages())
        clock = [c for c in reader.connections if c.topic == '/clock']
        stamps = [reader.deserialize(d, c.msgtype).clock for c, _, d in reader.messages(connections=clock)]
    (mcap_file,) = bag.glob('*.mcap')
    with mcap_file.open('rb') as f:
        assert sum(1 for _ in make_reader(f).iter_messages()) == count
    info = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert info['version'] == 8 and info['message_count'] == count
    last = max((s.sec + s.nanosec * 1e-9 for s in stamps), default=0.0)
    return count, last


@pytest.mark.slow
def test_two_sigints_03_s_apart_leave_every_output(tmp_path):
    out = tmp_path / 'run'
    proc = _start(out)
    _wait_for_the_run(out / 'bag', proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    # The second one as soon as closing starts, at most 0.3 s later: the outputs are written in
    # about 0.2 s now (the picture no longer imports matplotlib), which a fixed 0.3 s missed.
    began, said = time.time(), []
    while 'closing the bag…\n' not in said and time.time() - began < 0.3:
        said.append(proc.stderr.readline())
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    stderr = ''.join(said) + stderr
    assert proc.returncode == 130, stderr
    assert 'closing the bag…' in stderr
    assert 'SIGINT: closing the bag… (ignored' in stderr  # the second one landed while closing
    assert 'Traceback' not in stderr
    assert 'interrupted after' in stdout
    count, last_clock = _both_readers(out / 'bag')
    summary = json.loads((out / 'summary.json').read_text())
    assert summary['interrupted'] is True and count > 100
    assert sum(summary['bag']['messages'].values()) == count
    assert last_clock == pytest.approx(summary['simulated_s'], abs=0.011)
    assert (out / 'trajectories.png').read_bytes()[:4] == b'\x89PNG'


def test_an_early_sigterm_leaves_a_readable_bag_and_a_refusal_to_reuse_it(tmp_path, capsys):
    out = tmp_path / 'run'
    proc = _start(out)
    _wait_for(out / 'bag', proc)  # the recorder has just opened the bag: the nodes are not built
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert 'SIGTERM: stopping the run once its nodes are built' in stderr
    assert 'closing the bag…' in stderr
    count, _ = _both_readers(out / 'bag')
    summary = json.loads((out / 'summary.json').read_text())
    assert summary['interrupted'] is True and summary['simulated_s'] < 1.0
    assert count > 0  # the latched /map, map description and /tf_static of t = 0
    rec = read_recording(out / 'bag')  # what analyze reads: no negative duration any more
    assert 0 <= rec.duration < 0.02 and rec.robots == ['thymio1', 'thymio2']
    assert main(['run', '--duration', '1', '--out', str(out), '--quiet']) == 2
    assert f'{out} holds an earlier run' in capsys.readouterr().err


#: Kills the CLI's own process with SIGKILL at a known simulated time (the CLI is otherwise real).
KILL_AT = """
import os, signal
from thymio_road.runtime import run
_run = run.Graph.run
def run_until_killed(self, duration, on_second=None, check=None):
    def kill(now_ns):
        if now_ns >= {kill_ns}:
            os.kill(os.getpid(), signal.SIGKILL)
        if check is not None:
            check(now_ns)
    _run(self, duration, on_second, kill)
run.Graph.run = run_until_killed
"""


@pytest.mark.parametrize('kill_at', [7.73])
def test_sigkill_then_bag_repair_recovers_all_but_the_last_half_second(tmp_path, kill_at):
    out = tmp_path / 'run'
    proc = _start(out, prelude=KILL_AT.format(kill_ns=int(kill_at * 1e9)))
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    bag = out / 'bag'
    assert not (bag / 'metadata.yaml').exists()
    with pytest.raises(Exception):
        AnyReader([bag]).open()
    assert b'zstd' in (bag / 'bag.mcap').read_bytes()[:100_000]  # the chunks cut are compressed
    repaired = _cli('bag', 'repair', str(bag))
    assert repaired.returncode == 0, repaired.stderr
    assert 'repaired' in repaired.stdout and (bag / 'bag.mcap.cut').exists()
    count, last_clock = _both_readers(bag)
    # The simulated time reached was kill_at; chunks are sealed every 0.5 s of simulated time.
    assert kill_at - 0.5 <= last_clock < kill_at
    assert count > 1000


@pytest.mark.slow
def test_sigkill_at_any_moment_then_bag_repair(tmp_path):
    out = tmp_path / 'run'
    proc = _start(out)
    _wait_for_the_run(out / 'bag', proc)
    time.sleep(0.5)
    proc.kill()
    proc.communicate(timeout=60)
    repaired = _cli('bag', 'repair', str(out / 'bag'))
    assert repaired.returncode == 0, repaired.stderr
    count, last_clock = _both_readers(out / 'bag')
    assert count > 0 and last_clock > 0
    assert f'{last_clock:.3f} s' in repaired.stdout  # it says how far the recording goes


def test_sigterm_during_analyze_leaves_the_earlier_report_and_no_partial_one(tmp_path):
    """Issue #29: SIGTERM during `analyze` left a partial report without a word. The report is
    built in a folder beside --out and moved in whole; a SIGTERM while it is built says so,
    exits 130, and leaves --out as it was.
    """
    bag = tmp_path / 'run'
    assert _cli('run', '--scenario', 'final_traffic', '--robots', '4', '--duration', '60', '--quiet',
                '--no-picture', '--out', str(bag)).returncode == 0
    report = tmp_path / 'report'
    report.mkdir()
    (report / 'mine.txt').write_text('earlier')
    proc = subprocess.Popen([sys.executable, '-m', 'thymio_road.cli', 'analyze', str(bag / 'bag'), '--out',
                             str(report)], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    staged = tmp_path / f'.report.tmp{proc.pid}'
    _wait_for(staged, proc)      # the report is being built
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert f'interrupted: no report written; {report} is as it was' in stderr
    assert 'Traceback' not in stderr
    assert sorted(p.name for p in report.iterdir()) == ['mine.txt'] and not staged.exists()
