# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""End to end: `--record analysis` keeps what `analyze` and `render` read, so they give the same
metrics and pictures as on a `full` bag of the same run, in a fraction of the messages.
"""
from __future__ import annotations

import json

import numpy as np
from PIL import Image
import pytest

from thymio_road.analysis import analyze_bag, read_recording
from thymio_road.analysis.render import render
from thymio_road.cli.main import main
from thymio_road.runtime.recorder import analysis_topic
from thymio_road.runtime.run import run_scenario
from thymio_road.scenario import load_scenario

DURATION = 30.0


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    """The same traffic run (4 robots, the 9 traffic lights, IR) recorded full and analysis."""
    folder = tmp_path_factory.mktemp('profiles')
    out = {}
    for profile in ('full', 'analysis'):
        scenario = load_scenario('final_traffic', robots=4, duration=DURATION)
        result = run_scenario(scenario, folder / profile, record=profile, progress=False, picture=False)
        analysis, files = analyze_bag(folder / profile / 'bag', folder / f'{profile}-report')
        out[profile] = (result.summary, analysis, files)
    return folder, out


@pytest.mark.slow
def test_analysis_bag_gives_the_same_metrics_as_the_full_bag(runs):
    _, out = runs
    (full, a_full, f_full), (small, a_small, f_small) = out['full'], out['analysis']
    # The run itself does not depend on what is recorded.
    for key in ('robots', 'stalls', 'traffic', 'simulated_s'):
        assert full[key] == small[key], key
    # The run had what the metrics are about: IR receptions, light phases, controller events.
    counts = small['bag']['messages']
    assert sum(v for k, v in counts.items() if k.endswith('/comm/rx')) > 0
    assert sum(v for k, v in counts.items() if k.endswith('/traffic_light/phase')) > 0
    metrics_full = json.loads(f_full['metrics.json'].read_text())
    metrics_small = json.loads(f_small['metrics.json'].read_text())
    for doc in (metrics_full, metrics_small):
        doc.pop('recording')
    assert metrics_small == metrics_full
    assert a_small.not_computed == a_full.not_computed
    # Every CSV table (index.html and metrics.json also describe the recording: topics, messages).
    assert f_small.keys() == f_full.keys()
    tables = [name for name in f_full if name.endswith('.csv')]
    assert 'robots.csv' in tables
    for name in tables:
        assert f_small[name].read_text() == f_full[name].read_text(), name
    assert out['analysis'][1].recording['robots'] == out['full'][1].recording['robots']


def test_analysis_bag_leaves_out_the_per_event_sensors(runs):
    _, out = runs
    full, small = out['full'][0]['bag'], out['analysis'][0]['bag']
    assert small['profile'] == 'analysis' and full['profile'] == 'full'
    left_out = set(full['messages']) - set(small['messages'])
    assert '/thymio1/proximity/center' in left_out and '/thymio1/odom' in left_out
    assert '/tf' in left_out and '/thymio1/prox/horizontal' in left_out
    assert all(analysis_topic(t) for t in small['messages'])
    assert not any(analysis_topic(t) for t in left_out)
    # /clock at 10 Hz instead of every 10 ms tick.
    assert full['messages']['/clock'] == 100 * DURATION
    assert small['messages']['/clock'] == 10 * DURATION
    # Several times fewer messages and bytes.
    assert sum(small['messages'].values()) * 3 < sum(full['messages'].values())
    assert small['bytes'] * 3 < full['bytes']


@pytest.mark.slow
def test_render_draws_the_same_frame_from_either_bag(runs, tmp_path):
    folder, _ = runs
    frames = {}
    for profile in ('full', 'analysis'):
        out = tmp_path / f'{profile}.png'
        render(folder / profile / 'bag', out, at=DURATION / 2, width_px=400)
        frames[profile] = np.asarray(Image.open(out).convert('RGB'))
    assert np.array_equal(frames['full'], frames['analysis'])


@pytest.mark.slow
def test_recordings_read_alike(runs):
    folder, _ = runs
    full, small = (read_recording(folder / p / 'bag') for p in ('full', 'analysis'))
    assert full.robots == small.robots
    for robot in full.robots:
        assert np.array_equal(full.truth[robot].x, small.truth[robot].x)
        assert full.events.get(robot) == small.events.get(robot)
        assert full.state_msgs.get(robot) == small.state_msgs.get(robot)
    assert full.rx.keys() == small.rx.keys()
    for robot in full.rx:
        assert np.array_equal(full.rx[robot][1], small.rx[robot][1])


def test_cli_record_profiles(tmp_path, capsys):
    assert main(['run', '--duration', '1', '--robots', '1', '--record', 'analysis', '--compression',
                 'none', '--quiet', '--no-picture', '--out', str(tmp_path / 'a')]) == 0
    bag = json.loads((tmp_path / 'a' / 'summary.json').read_text())['bag']
    assert bag['profile'] == 'analysis' and bag['compression'] == 'none'
    assert b'zstd' not in (tmp_path / 'a' / 'bag' / 'bag.mcap').read_bytes()
    assert main(['run', '--duration', '1', '--robots', '1', '--no-record', '--quiet', '--no-picture',
                 '--out', str(tmp_path / 'b')]) == 0
    assert not (tmp_path / 'b' / 'bag').exists()
    with pytest.raises(SystemExit) as exc:
        main(['run', '--record', 'some', '--out', str(tmp_path / 'c')])
    assert exc.value.code == 2
    assert "argument --record: invalid choice: 'some'" in capsys.readouterr().err
