# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The acceptance table of issue #13 (experiments/traffic_table.py, `thymio-road traffic`)."""
import json

import pytest

from thymio_road.cli.main import main
from thymio_road.cli.traffic import scenario_list, seeds
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
    does not take the table with it (issue #28).
    """
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
    assert '\n| 2 | 2 | – | ' in captured.out
    assert '1 run failed:\n- simple, 2 robots, seed 2: ScenarioError' in captured.out
    assert '[2/3] 2 robots, seed 2: ERROR: ScenarioError' in captured.err


def test_an_earlier_run_in_out_is_refused_before_the_first_run(tmp_path, capsys):
    (tmp_path / 'r2-s3').mkdir()
    (tmp_path / 'r2-s3' / 'summary.json').write_text('{}')
    code = main(['traffic', '--scenario', 'simple', '--robots', '2', '--seeds', '1-3', '--duration', '5',
                 '--out', str(tmp_path), '--workers', '1'])
    assert code == 2 and 'r2-s3 holds an earlier run' in capsys.readouterr().err
    assert not (tmp_path / 'r2-s1').exists()


def test_resume_keeps_an_interrupted_sweeps_runs_and_runs_only_the_others(tmp_path, capsys, monkeypatch):
    """An acceptance sweep is hours of runs: stopped part-way, `--resume` judges the runs it left
    from their summaries (the same rows as running them again) and runs the rest; a summary of
    another run in their place is refused before anything runs.
    """
    args = ['traffic', '--scenario', 'simple', '--robots', '2', '--seeds', '1-3', '--duration', '5',
            '--out', str(tmp_path / 'all'), '--workers', '1']
    main(args)
    whole = json.loads((tmp_path / 'all' / 'table.json').read_text())
    part = tmp_path / 'part'
    part.mkdir()
    for seed in (1, 3):  # what an interrupted sweep left: two runs of three
        (part / f'r2-s{seed}').mkdir()
        summary = (tmp_path / 'all' / f'r2-s{seed}' / 'summary.json').read_text()
        (part / f'r2-s{seed}' / 'summary.json').write_text(summary)
    ran = []
    real = traffic_table.run_job
    monkeypatch.setattr(traffic_table, 'run_job', lambda job: ran.append(job.seed) or real(job))
    capsys.readouterr()
    main(args[:-4] + ['--out', str(part), '--workers', '1', '--resume'])
    assert ran == [2] and json.loads((part / 'table.json').read_text()) == whole
    other = json.loads((part / 'r2-s1' / 'summary.json').read_text())
    other['seed'] = 7
    (part / 'r2-s1' / 'summary.json').write_text(json.dumps(other))
    (part / 'r2-s2' / 'summary.json').unlink()
    assert main(args[:-4] + ['--out', str(part), '--workers', '1', '--resume']) == 2
    assert "a run of 2 robots, seed 7, 5 s, not this sweep's 2 robots, seed 1, 5 s" in capsys.readouterr().err
    assert ran == [2] and not (part / 'r2-s2' / 'summary.json').exists()


def test_each_failure_class_is_named():
    """Issue #27's classes: each failure shows in `failures`, a clean run has none."""
    assert judge(_summary(), 26.0)['failures'] == []
    cases = {'contact': _summary(hull_contacts=3), 'wrong way': _summary(wrong_way={'episodes': 2}),
             'crossroad conflict': _summary(crossroad_conflict_episodes=1),
             'misread acted on': _summary(misreads={'acted_on': 1}),
             'lost flow': _summary(throughput_windows={'first': 40, 'last': 20, 'ratio': 0.5})}
    for cls, summary in cases.items():
        assert judge(summary, 26.0)['failures'] == [cls]
    confined = _summary()
    confined['progress'] = {'stuck': [], 'confined': [{'robot': 'thymio3', 'intersection': 'X1'}]}
    assert judge(confined, 26.0)['failures'] == ['stuck']


def test_stuck_is_judged_by_progress_where_the_run_measured_it():
    """A robot that crept (no stall by the 1 cm rule) but made no progress is stuck; a progress
    block without stuck robots overrides the older stall list.
    """
    crept = _summary()
    crept['progress'] = {'stuck': [_stall(100.0, 230.0, 'robot thymio3 ahead (17 cm)')], 'confined': []}
    row = judge(crept, 26.0)
    assert row['failures'] == ['stuck'] and row['longest_stall_s'] == 130
    fine = _summary()
    fine['stalls']['stalls'] = [_stall(100.0, None, 'robot thymio3 ahead (17 cm)')]
    fine['progress'] = {'stuck': [], 'confined': []}
    assert judge(fine, 26.0)['ok']


def test_scenario_lists_expand_generated_ranges():
    assert scenario_list('generated:1-3,final_traffic') == ['generated:1', 'generated:2', 'generated:3',
                                                            'final_traffic']
    with pytest.raises(Exception, match='generated:1-30'):
        scenario_list('generated:x')
    # Seeds after a generated part are generated maps too, as in --seeds (not scenarios named '12').
    assert scenario_list('generated:4,9,12-13,final') == ['generated:4', 'generated:9', 'generated:12',
                                                          'generated:13', 'final']


def test_the_class_table_lists_the_worst_runs_and_how_to_replay_them():
    rows = [judge(_summary(hull_contacts=n), 26.0) for n in (0, 5, 50)]
    for row, seed in zip(rows, (1, 2, 3)):
        row['seed'], row['scenario'] = seed, 'generated:4'
    text = traffic_table.classes(rows, 1800.0)
    assert '| contact | 2 | 67 % | generated:4, 10 robots, seed 3; generated:4, 10 robots, seed 2 |' in text
    assert '1 of 3 runs (33 %) meet every criterion.' in text
    assert '`thymio-road run --scenario generated:4 --robots 10 --seed 2 --duration 1800` (contact)' in text


def test_several_scenarios_each_get_a_folder_and_a_lone_robot(tmp_path, capsys):
    code = main(['traffic', '--maps', 'simple,oval', '--robots', '2', '--seeds', '1', '--duration', '5',
                 '--out', str(tmp_path), '--workers', '1'])
    out = capsys.readouterr().out
    rows = json.loads((tmp_path / 'table.json').read_text())
    assert [(r['scenario'], r['robots']) for r in rows] == [('simple', 2), ('oval', 2)]
    for name in ('simple', 'oval'):
        assert (tmp_path / name / 'r2-s1' / 'summary.json').exists()
        assert json.loads((tmp_path / name / 'alone' / 'summary.json').read_text())['robots_count'] == 1
    assert all(r['relative_speed'] is not None and 0.3 < r['relative_speed'] < 1.5 for r in rows)
    assert '| scenario | robots | runs | passages per robot-minute |' in out and '| failure class |' in out
    assert code == (0 if all(r['ok'] for r in rows) else 1)
    # Another seed into the same folder: the lone robots' runs (seed 1) are the reference still.
    main(['traffic', '--maps', 'simple,oval', '--robots', '2', '--seeds', '2', '--duration', '5',
          '--out', str(tmp_path), '--workers', '1', '--resume'])
    assert (tmp_path / 'simple' / 'r2-s2' / 'summary.json').exists()
    assert json.loads((tmp_path / 'oval' / 'alone' / 'summary.json').read_text())['seed'] == 1
