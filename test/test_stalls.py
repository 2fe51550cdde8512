# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Stalls and gridlock: the detector on synthetic poses, and a deliberate blockage flagged by the run
(summary.json and the console) and by `analyze`, which agree.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
import subprocess
import sys

import numpy as np
import pytest

from thymio_road.analysis.stalls import end_warning, Places, StallDetector, warning
from thymio_road.map.loader import load_map
from thymio_road.scenario import config_dir

ROOT = Path(__file__).resolve().parent.parent


def _feed(detector, seconds, positions):
    """positions(t) -> n×3 poses, one sample a second from t = 1."""
    for t in range(1, seconds + 1):
        detector.update(float(t), np.array(positions(t), dtype=float))


def test_a_robot_that_stops_is_stalled_after_stall_time_and_recovers():
    det = StallDetector(['a', 'b'], stall_time=10)
    # a drives 5 cm/s until 20 s, stands until 45 s, then drives on; b drives all along.

    def poses(t):
        xa = 0.05 * min(t, 20) + 0.05 * max(0, t - 45)
        return [(xa, 0, 0), (0.05 * t, 1.0, 0)]
    _feed(det, 60, poses)
    (stall,) = det.stalls
    assert (stall.robot, stall.since, stall.until) == ('a', 20.0, 46.0)
    assert det.gridlock_at is None
    summary = det.summary()
    assert summary['stall_count'] == 1 and summary['first_stall_s'] == 20.0 and not summary['gridlock']
    assert summary['longest_stall_s'] == 26.0 and summary['stalled_at_end'] == []


def test_moving_less_than_a_centimetre_is_standing_still():
    det = StallDetector(['a'], stall_time=5)
    _feed(det, 10, lambda t: [(0.001 * t, 0, 0)])      # 1 mm/s: 1 cm only after 10 s
    assert [s.since for s in det.stalls] == [1.0]


def test_the_network_stops_when_every_robot_is_stalled():
    det = StallDetector(['a', 'b'], stall_time=10)
    # a stops at 5 s; b drives into the queue behind it and stops at 12 s.
    _feed(det, 40, lambda t: [(1.0, 0, 0), (0.5 + 0.03 * min(t, 12), 0, 0)])
    assert det.gridlock_at == 22.0
    summary = det.summary()
    assert summary['gridlock'] and summary['gridlock_at_s'] == 22.0
    assert sorted(summary['stalled_at_end']) == ['a', 'b']
    b = next(s for s in det.stalls if s.robot == 'b')
    assert b.held_by.startswith('robot a ahead')
    assert 'the network stopped at 22 s: all 2 robots' in warning(summary, 2)


def test_what_holds_a_robot():
    det = StallDetector(['a', 'b', 'c'], stall_time=5)
    poses = [(0.0, 0.0, 0.0), (0.15, 0.0, 0.0), (0.0, 0.15, math.pi)]   # b ahead of a; c beside, facing away
    for t in range(1, 8):
        det.update(float(t), np.array(poses), held=[None, 'a traffic light', None])
    held = {s.robot: s.held_by for s in det.stalls}
    assert held['a'] == 'robot b ahead (15 cm)'
    assert held['b'] == 'a traffic light'
    assert held['c'] == 'nothing in front'


def test_the_timeline_counts_robots_that_moved_in_the_last_ten_seconds():
    det = StallDetector(['a', 'b'], stall_time=60)
    _feed(det, 40, lambda t: [(0.02 * t, 0, 0), (0.02 * min(t, 15), 1, 0)])
    counts = dict(det.timeline)
    assert counts[12.0] == 2 and counts[30.0] == 1 and counts[40.0] == 1


def test_places_name_roads_and_intersections():
    oval = Places(load_map(config_dir() / 'maps' / 'oval.yaml'))
    road = load_map(config_dir() / 'maps' / 'oval.yaml').road('loop')
    x, y, _ = road.pose_at(1.0)
    assert oval.describe(x, y) == 'road loop at 1.00 m'
    assert oval.describe(0.02, 0.02).startswith('off the roads')
    simple = load_map(config_dir() / 'maps' / 'simple.yaml')
    ring = next(r for r in simple.roads if r.id.endswith('.ring'))
    x, y, _ = ring.pose_at(0.1)
    assert Places(simple).describe(x, y).startswith(
        f"intersection {ring.id.split('.')[0]} (roundabout), road {ring.id}")


def test_stall_time_must_be_positive():
    with pytest.raises(ValueError, match='stall_time must be a positive'):
        StallDetector(['a'], stall_time=0)


BLOCKED = """name: blocked
map: oval
duration: 70
seed: 1
robots:
  count: 3
  road: loop
  overrides: {thymio1: {speed: 0}}   # thymio1 never drives: the others queue behind it
"""


@pytest.mark.slow
def test_a_deliberate_blockage_is_flagged_by_the_run_and_by_analyze(tmp_path):
    scenario = tmp_path / 'blocked.yaml'
    scenario.write_text(BLOCKED)
    out = tmp_path / 'run'
    run = subprocess.run([sys.executable, '-m', 'thymio_road.cli', 'run', '--scenario', str(scenario),
                          '--stall-time', '20', '--out', str(out), '--quiet', '--no-picture'],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    stalls = json.loads((out / 'summary.json').read_text())['stalls']
    assert stalls['gridlock'] and stalls['stalled_at_end'] == ['thymio1', 'thymio2', 'thymio3']
    assert 'warning: the network stopped at' in run.stderr and 'all 3 robots stood still for 20 s' in run.stderr
    assert f"the network stopped at {stalls['gridlock_at_s']:.0f} s" in run.stdout
    held = {s['robot']: s['held_by'] for s in stalls['stalls']}
    assert held['thymio1'] == 'nothing in front'
    assert held['thymio2'].startswith('robot thymio3 ahead') and held['thymio3'].startswith('robot thymio1 ahead')

    analyze = subprocess.run([sys.executable, '-m', 'thymio_road.cli', 'analyze', str(out / 'bag'),
                              '--stall-time', '20'], capture_output=True, text=True, timeout=300)
    assert analyze.returncode == 0, analyze.stderr
    assert 'warning: the network stopped at' in analyze.stderr
    metrics = json.loads((out / 'report' / 'metrics.json').read_text())['stalls']
    for key in ('gridlock', 'gridlock_at_s', 'first_stall_s', 'stalled_at_end', 'stall_count'):
        assert metrics[key] == stalls[key], key      # the run and analyze agree
    page = (out / 'report' / 'index.html').read_text()
    assert 'The network stopped at' in page and 'moving.png' in page
    assert (out / 'report' / 'moving.png').is_file()


def test_a_flowing_run_has_no_stalls(tmp_path):
    from thymio_road.runtime.run import run_scenario
    from thymio_road.scenario import load_scenario
    result = run_scenario(load_scenario('oval', duration=40.0), tmp_path, record=False, progress=False,
                          picture=False, stall_time=10.0)
    stalls = result.summary['stalls']
    assert stalls['stall_count'] == 0 and not stalls['gridlock'] and stalls['first_stall_s'] is None


def test_most_of_the_network_standing_still_is_warned_about_without_a_gridlock():
    """Nine robots stalled for good and one circling alone: not a gridlock, but a user must hear it."""
    det = StallDetector([f'r{k}' for k in range(4)], stall_time=10)
    _feed(det, 30, lambda t: [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0.05 * t, 5, 0)])
    summary = det.summary()
    assert not summary['gridlock'] and summary['stalled_at_end'] == ['r0', 'r1', 'r2']
    assert end_warning(summary, 4) == 'warning: 3 of 4 robots stood still at the end (for 10 s or more): r0, r1, r2'
    det = StallDetector(['a', 'b', 'c'], stall_time=10)
    _feed(det, 30, lambda t: [(0, 0, 0), (0.05 * t, 1, 0), (0.05 * t, 2, 0)])
    assert end_warning(det.summary(), 3) is None          # one of three: the network moves
