# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import json

import pytest

from thymio_road.experiments import fundamental
from thymio_road.experiments.fundamental import counts, peak, Point, points


def test_counts_run_from_one_robot_to_the_capacity():
    assert counts(26) == [1, 4, 7, 9, 12, 15, 18, 20, 23, 26]
    assert counts(3) == [1, 2, 3]
    assert counts(1) == [1]
    with pytest.raises(ValueError):
        counts(0)


def _row(robots, seed, passages, speed, relative=None, ok=True, s=600.0):
    return {'robots': robots, 'seed': seed, 'simulated_s': s, 'passages': passages, 'speed_m_s': speed,
            'relative_speed': relative, 'ok': ok}


def test_points_average_the_seeds_of_a_count_and_leave_out_failed_runs():
    rows = [_row(1, 1, 10, 0.08, 1.0), _row(4, 1, 36, 0.07, 0.875, ok=False), _row(4, 2, 44, 0.09, 1.125),
            {'robots': 8, 'seed': 1, 'simulated_s': None, 'error': 'boom', 'ok': False}]
    curve = points(rows, length=20.0)
    assert [p.robots for p in curve] == [1, 4]
    four = curve[1]
    assert four.density == 0.2                      # 4 robots on 20 m of road
    assert four.passages_per_min == 4.0             # (36 + 44) / 2 passages in 10 minutes
    assert four.metres_per_min == pytest.approx(60 * 4 * 0.08)
    assert four.relative_speed == 1.0 and (four.ok, four.runs) == (1, 2)


def test_a_lone_robots_passages_are_not_measured_not_zero():
    # A run counts passages only with two robots or more: a lone robot's point has none, and
    # the table says so rather than showing a flow of 0.
    curve = points([_row(1, 1, None, 0.08, 1.0), _row(4, 1, 40, 0.08, 1.0)], length=20.0)
    assert curve[0].passages_per_min is None and curve[1].passages_per_min == 4.0
    assert '| 1 | 0.050 | – |' in fundamental.markdown(curve)


def test_the_peak_is_the_density_of_maximum_flow_past_which_flow_falls():
    curve = [Point(n, n / 10, 1, q, m, 0.0, None, 1)
             for n, q, m in [(1, 1.0, 5.0), (5, 4.0, 20.0), (10, 5.0, 24.0), (20, 3.0, 12.0)]]
    assert peak(curve).robots == 10
    assert 'with 10 robots, a density of 1.000 robots per metre' in fundamental.markdown(curve)


def test_the_command_draws_the_diagram_of_a_scenario(tmp_path, capsys):
    from thymio_road.cli.main import main
    out = tmp_path / 'fd'
    assert main(['traffic', '--fundamental', '--scenario', 'oval', '--robots', '1', '3',
                 '--duration', '30', '--workers', '1', '--out', str(out)]) == 0
    data = json.loads((out / 'fundamental.json').read_text())
    assert [p['robots'] for p in data['points']] == [1, 3]
    one, three = data['points']
    assert three['density'] == pytest.approx(3 * one['density'])
    # On the oval nobody hinders anybody: three robots drive three times the metres of one.
    assert three['metres_per_min'] == pytest.approx(3 * one['metres_per_min'], rel=0.05)
    assert (out / 'fundamental.png').stat().st_size > 10_000
    assert 'Maximum flow' in capsys.readouterr().out


def test_fundamental_takes_one_scenario(capsys):
    from thymio_road.cli.main import main
    assert main(['traffic', '--fundamental', '--maps', 'oval,final']) == 2
    assert '--fundamental' in capsys.readouterr().err
