"""The acceptance table of issue #13 (experiments/traffic_table.py, `thymio-road traffic`)."""
import json

import pytest

from thymio_road.cli.main import main
from thymio_road.cli.traffic import seeds
from thymio_road.experiments import traffic_table
from thymio_road.experiments.traffic_table import judge


def _summary(**traffic):
    base = {'passages': 100, 'throughput_per_robot_minute': 0.8, 'hull_contacts': 0,
            'wrong_way': {'episodes': 0}, 'throughput_windows': {'first': 40, 'last': 38, 'ratio': 0.95}}
    return {'robots_count': 10, 'seed': 1, 'simulated_s': 3600.0, 'traffic': {**base, **traffic},
            'stalls': {'stalls': []}}


def _stall(since, until, held_by):
    return {'robot': 'thymio2', 'since_s': since, 'until_s': until, 'held_by': held_by}


def test_a_clean_run_passes_and_each_failure_fails_it():
    assert judge(_summary(), 26.0)['ok']
    assert not judge(_summary(hull_contacts=3), 26.0)['ok']
    assert not judge(_summary(wrong_way={'episodes': 1}), 26.0)['ok']
    assert not judge(_summary(throughput_windows={'first': 40, 'last': 20, 'ratio': 0.5}), 26.0)['ok']
    stalled = _summary()
    stalled['stalls']['stalls'] = [_stall(100.0, None, 'robot thymio3 ahead (17 cm)')]
    row = judge(stalled, 26.0)
    assert not row['ok'] and row['stalls'] == 1 and row['longest_stall_s'] == 3500


def test_a_hold_at_a_light_counts_only_beyond_the_light_cycle():
    held = _summary()
    held['stalls']['stalls'] = [_stall(100.0, 125.0, 'a traffic light')]
    assert judge(held, 26.0)['ok'] and judge(held, 26.0)['longest_light_hold_s'] == 25
    assert not judge(held, 20.0)['ok']


def test_seed_lists():
    assert seeds('1-5') == [1, 2, 3, 4, 5] and seeds('2,7') == [2, 7] and seeds('1-2,9') == [1, 2, 9]
    with pytest.raises(Exception, match='seeds'):
        seeds('one')


def test_traffic_command_runs_each_seed_and_prints_the_table(tmp_path, capsys):
    code = main(['traffic', '--robots', '2', '3', '--seeds', '1', '--duration', '20', '--out', str(tmp_path),
                 '--workers', '1'])
    out = capsys.readouterr().out
    rows = json.loads((tmp_path / 'table.json').read_text())
    assert [(r['robots'], r['seed']) for r in rows] == [(2, 1), (3, 1)]
    assert (tmp_path / 'r3-s1' / 'summary.json').exists()
    assert '\n| 2 | 1 | ' in out and '\n| 3 | 1 | ' in out
    assert code == (0 if all(r['ok'] for r in rows) else 1)


def test_a_run_that_raises_is_a_row_with_its_seed_and_error_and_the_command_fails(tmp_path, capsys, monkeypatch):
    """A run given a parameter it cannot use at run time (here 1000 robots on the simple map)
    does not take the table with it (issue #28)."""
    real = traffic_table.run_job

    def run_job(job):
        return real(traffic_table.TrafficJob(job.scenario, 1000, job.seed, job.duration) if job.seed == 2 else job)

    monkeypatch.setattr(traffic_table, 'run_job', run_job)
    code = main(['traffic', '--scenario', 'simple', '--robots', '2', '--seeds', '1-3', '--duration', '5',
                 '--out', str(tmp_path), '--workers', '1'])
    captured = capsys.readouterr()
    rows = json.loads((tmp_path / 'table.json').read_text())
    assert code == 1 and [r['seed'] for r in rows] == [1, 2, 3]
    assert [r.get('error') is None for r in rows] == [True, False, True] and not rows[1]['ok']
    assert rows[1]['error'].startswith('ScenarioError: --robots 1000: 1000 robots do not fit')
    assert not (tmp_path / 'r2-s2').exists() and (tmp_path / 'r2-s3' / 'summary.json').exists()
    assert '\n| 2 | 2 | – | ' in captured.out and '1 run failed:\n- 2 robots, seed 2: ScenarioError' in captured.out
    assert '[2/3] 2 robots, seed 2: ERROR: ScenarioError' in captured.err


def test_an_earlier_run_in_out_is_refused_before_the_first_run(tmp_path, capsys):
    (tmp_path / 'r2-s3').mkdir()
    (tmp_path / 'r2-s3' / 'summary.json').write_text('{}')
    code = main(['traffic', '--scenario', 'simple', '--robots', '2', '--seeds', '1-3', '--duration', '5',
                 '--out', str(tmp_path), '--workers', '1'])
    assert code == 2 and 'r2-s3 holds an earlier run' in capsys.readouterr().err
    assert not (tmp_path / 'r2-s1').exists()
