# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Sweeps on worker processes (experiments/sweep.py, issue #28): the same table as the sequential
run, a run that raises reported with its parameters, a worker that dies rerun elsewhere.
"""
from __future__ import annotations

import io
import json
import logging
import os
from pathlib import Path
import socket

import pytest

from thymio_road.cli.main import main
from thymio_road.experiments import sweep
from thymio_road.experiments.recovery import sweep_trials
from thymio_road.experiments.traffic_table import run_table


def _flaky(job: dict) -> int:
    """Seed 1 kills its worker process on the first attempt (the marker file makes it once only);
    seed 2 raises, as a run given a bad parameter does.
    """
    marker = Path(job['marker'])
    if job['seed'] == 1 and not marker.exists():
        marker.write_text(str(os.getpid()))
        os._exit(1)
    if job['seed'] == 2:
        raise ValueError(f"seed {job['seed']}: no such road")
    return job['seed'] * 10


def test_sequential_outcomes_in_job_order_with_the_failed_run_and_its_error():
    stream = io.StringIO()
    jobs = [{'seed': s, 'marker': os.devnull} for s in (0, 2, 3)]
    outcomes = sweep.run(_flaky, jobs, workers=1, progress=True, stream=stream,
                         describe=lambda o: f"seed {o.job['seed']}: {'ok' if o.ok else o.error}")
    assert [o.value for o in outcomes] == [0, None, 30]
    assert [o.ok for o in outcomes] == [True, False, True]
    assert outcomes[1].job['seed'] == 2 and outcomes[1].error == 'ValueError: seed 2: no such road'
    assert 'raise ValueError' in outcomes[1].traceback
    assert stream.getvalue().splitlines() == ['  [1/3] seed 0: ok', '  [2/3] seed 2: ValueError: seed 2: no such road',
                                              '  [3/3] seed 3: ok']


def test_scheduler_addresses():
    for good in ('tcp://127.0.0.1:8786', 'tls://sched.lab:8786', 'host:8786', 'tcp://[::1]:8786'):
        assert sweep.scheduler_address(good) == good
    for bad in ('tcp://host', 'http://host:8786', 'host:0', 'host:70000', 'tcp://a b:1', ''):
        with pytest.raises(Exception, match='dask scheduler address'):
            sweep.scheduler_address(bad)


@pytest.mark.slow
def test_a_worker_that_dies_has_its_run_rerun_and_a_run_that_raises_is_reported(tmp_path):
    """About 5 s: a local cluster of two processes."""
    stream = io.StringIO()
    jobs = [{'seed': s, 'marker': str(tmp_path / 'died')} for s in range(4)]
    outcomes = sweep.run(_flaky, jobs, workers=2, progress=True, stream=stream)
    assert (tmp_path / 'died').exists()                   # seed 1 did kill a worker
    assert [o.job['seed'] for o in outcomes] == [0, 1, 2, 3]
    assert [o.value for o in outcomes] == [0, 10, None, 30]
    assert outcomes[2].error == 'ValueError: seed 2: no such road'
    text = stream.getvalue()
    assert '4 runs on 2 local worker processes' in text and 'a worker process died (1 so far)' in text
    assert text.count('] done') == 4


def _without_wall_time(path: Path) -> dict:
    summary = json.loads(path.read_text())
    del summary['wall_time_s'], summary['real_time_factor']
    return summary


@pytest.mark.slow
def test_the_traffic_table_on_two_worker_processes_is_the_sequential_table(tmp_path):
    """About 10 s: 2 seeds of 40 s on the simple map, here and on a local cluster."""
    one = run_table('simple', [3], [1, 2], 40.0, tmp_path / 'one', workers=1)
    two = run_table('simple', [3], [1, 2], 40.0, tmp_path / 'two', workers=2)
    assert [(r['robots'], r['seed']) for r in one] == [(3, 1), (3, 2)]
    assert two == one
    assert json.loads((tmp_path / 'two' / 'table.json').read_text()) == one
    for seed in (1, 2):
        assert (_without_wall_time(tmp_path / 'two' / f'r3-s{seed}' / 'summary.json')
                == _without_wall_time(tmp_path / 'one' / f'r3-s{seed}' / 'summary.json'))


@pytest.mark.slow
def test_recovery_trials_on_an_existing_scheduler_are_the_sequential_trials():
    """About 8 s: the --scheduler path, on a cluster this test starts."""
    from distributed import LocalCluster
    args = ('oval', 2, 1, ('report', 'both'), ('white', 'across_black'), 10.0)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        remote, failed = sweep_trials(*args, scheduler=cluster.scheduler_address)
    here, _ = sweep_trials(*args, workers=1)
    assert not failed and remote == here
    assert [t.s for t in here['both']['white']] == [t.s for t in here['report']['white']]  # seeds per side


def test_an_unreachable_scheduler_is_refused_naming_the_flag(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sweep, 'CONNECT_TIMEOUT', 1)
    with socket.socket() as s:                            # a port nobody listens on
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    code = main(['traffic', '--scenario', 'simple', '--robots', '2', '--seeds', '1', '--duration', '5',
                 '--out', str(tmp_path / 'runs'), '--scheduler', f'tcp://127.0.0.1:{port}'])
    err = capsys.readouterr().err
    assert code == 2 and f'argument --scheduler: cannot reach the dask scheduler at tcp://127.0.0.1:{port}' in err


def test_without_dask_the_default_runs_here_and_workers_say_what_is_missing(monkeypatch):
    """A ROS install may lack dask (rosdep has no key for it): asked for nothing, the sweep runs
    as before; asked for workers, it says what to install.
    """
    monkeypatch.setattr(sweep, '_have_distributed', lambda: False)
    monkeypatch.setitem(__import__('sys').modules, 'distributed', None)  # `import distributed` fails
    monkeypatch.setattr(sweep, 'default_workers', lambda: 2)
    stream = io.StringIO()
    jobs = [{'seed': s, 'marker': os.devnull} for s in (0, 3)]
    assert [o.value for o in sweep.run(_flaky, jobs, workers=None, progress=True, stream=stream)] == [0, 30]
    assert stream.getvalue().startswith('dask.distributed is not installed: the runs go one after another\n')
    with pytest.raises(sweep.SweepError, match=r"pip install 'dask\[distributed\]'"):
        sweep.run(_flaky, jobs, workers=2)


def test_a_barcode_run_that_raises_is_listed_and_the_others_are_kept(tmp_path, capsys, monkeypatch):
    from thymio_road.experiments import barcodes
    real = barcodes.run_track

    def run_track(map_data, folder, speed, *args, **kwargs):
        if speed == 260:
            raise RuntimeError('the robot left the track')
        return real(map_data, folder, speed, *args, **kwargs)

    monkeypatch.setattr(barcodes, 'run_track', run_track)
    code = main(['barcodes', 'sweep', '--speeds', '150,260', '--laps', '0.2', '--nominal-laps', '0',
                 '--out', str(tmp_path), '--workers', '1'])
    out = capsys.readouterr().out
    assert code == 1 and '1 run failed:\n- speed 260, seed 2: RuntimeError: the robot left the track' in out
    lines = (tmp_path / 'speed_sweep.csv').read_text().splitlines()
    assert len(lines) == 2 and lines[1].startswith('150,')
    assert (tmp_path / 'tracks' / 'barcode_oval_left.yaml').exists()


@pytest.mark.slow
def test_the_barcode_sweep_on_two_worker_processes_is_the_sequential_sweep(tmp_path):
    """About 8 s: two speeds for a fifth of a lap, here and on a local cluster."""
    from thymio_road.experiments.barcodes import speed_sweep
    one = speed_sweep(tmp_path / 'one', [150, 410], 0.2, 1, workers=1)
    two = speed_sweep(tmp_path / 'two', [150, 410], 0.2, 1, workers=2)
    assert one == two and [r['speed'] for r in one] == [150, 410]
    assert (tmp_path / 'one' / 'speed_sweep.csv').read_text() == (tmp_path / 'two' / 'speed_sweep.csv').read_text()
