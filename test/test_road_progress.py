# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Progress along the roads (analysis/progress.py): stuck and confined robots on synthetic pose
streams built from the maps' own lanes, and runs of the embedded runtime that flag nothing.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from thymio_road.analysis.progress import ADVANCE, CONFINE_LAPS, Lanes, ProgressDetector, report_lines
from thymio_road.map.loader import load_map
from thymio_road.scenario import config_dir

#: Line following keeps a robot's centre about 1.3 cm right of its lane's centre line.
OFFSET = 0.013


@pytest.fixture(scope='module')
def final():
    return load_map(config_dir() / 'maps' / 'final.yaml')


@pytest.fixture(scope='module')
def oval():
    return load_map(config_dir() / 'maps' / 'oval.yaml')


def path(road_map, legs, step=0.005):
    """Poses every `step` m along legs (road id, from s, to s), driven forward (to < from on a
    closed road goes round through its start), the centre OFFSET right of the lane.
    """
    out = []
    for road_id, s0, s1 in legs:
        road = road_map.road(road_id)
        if s1 < s0:
            s1 += road.length
        for s in np.arange(s0, s1, step):
            x, y, h = road.pose_at(float(s))
            out.append((x + OFFSET * math.sin(h), y - OFFSET * math.cos(h), h))
    return np.array(out)


def drive(detector, poses, speed, start=1.0, held=None, step=0.005):
    """Feed one robot's poses at `speed` m/s, one sample a second; returns the last time."""
    per_second = speed / step
    t, k = start, 0.0
    while k < len(poses):
        detector.update(t, poses[[int(k)]], held=[held] if held else None)
        t += 1.0
        k += per_second
    return t - 1.0


def stand(detector, pose, seconds, start, held=None):
    for t in range(seconds):
        detector.update(start + t, np.array([pose]), held=[held] if held else None)
    return start + seconds - 1


def test_lanes_name_the_intersection_a_road_belongs_to(final):
    lanes = Lanes(final)
    owner = {road.id: lanes.owner[k] for k, road in enumerate(lanes.roads)}
    assert owner['X1.circle'] == 'X1' and owner['R2.ring'] == 'R2' and owner['L1.siding'] == 'L1'
    assert owner['north'] is None and owner['balloon'] is None
    rings = {lanes.roads[k].id for k in range(len(lanes.roads)) if lanes.ring(k)}
    assert rings == {'X1.circle', 'R2.ring'}
    # the lane driven the right way, not the one beside it the other way
    x, y, h = path(final, [('north', 2.0, 2.01)])[0]
    (k, s), = lanes.project(np.array([[x, y, h]]))
    assert lanes.roads[k].id == 'north' and s == pytest.approx(2.0, abs=0.01)
    assert lanes.project(np.array([[x, y, h + math.pi]])) == [None]       # against it: on no lane
    assert lanes.project(np.array([[0.01, 0.01, 0.0], [np.nan, np.nan, np.nan]])) == [None, None]


def test_a_creeping_robot_is_stuck(oval):
    """5 cm in 70 s: it moves (more than the stall rule's 1 cm), it does not advance."""
    det = ProgressDetector(['a'], oval, stall_time=60)
    end = drive(det, path(oval, [('loop', 1.0, 1.05)]), speed=0.05 / 70)
    assert end >= 70
    (stuck,) = det.stuck
    assert (stuck.robot, stuck.since, stuck.until) == ('a', 1.0, None)
    assert stuck.where.startswith('road loop at 1.0') and stuck.held_by == 'nothing in front'
    summary = det.summary()
    assert summary['stuck_count'] == 1 and summary['stuck_at_end'] == ['a'] and summary['confined'] == []


def test_driving_round_a_closed_road_is_progress(oval):
    """The oval's loop is closed: its arc length wraps, and lap after lap gains."""
    loop = oval.road('loop')
    det = ProgressDetector(['a'], oval, stall_time=20)
    drive(det, path(oval, [('loop', 0.0, loop.length)] * 4), speed=0.05)
    assert det.stuck == [] and det.confined == []


def test_backing_up_and_driving_the_same_stretch_again_is_no_progress(oval):
    """A robot making way again and again (15 cm back, 15 cm forward) moves all the time."""
    det = ProgressDetector(['a'], oval, stall_time=60)
    fwd = path(oval, [('loop', 1.0, 1.15)])
    t = 1.0
    for _ in range(12):
        for pose in list(fwd[::-10]) + list(fwd[::10]):   # back 15 cm, then forward again, 5 cm/s
            det.update(t, np.array([pose]))
            t += 1.0
    (stuck,) = det.stuck
    assert stuck.since <= 5.0 and stuck.until is None


def test_a_light_that_holds_a_robot_is_named(oval):
    det = ProgressDetector(['a'], oval, stall_time=60)
    pose = path(oval, [('loop', 1.0, 1.01)])[0]
    stand(det, pose, 55, 1.0, held='a traffic light')
    assert det.stuck == []                       # within the light's cycle: not stuck
    stand(det, pose, 10, 56.0, held='a traffic light')
    (stuck,) = det.stuck
    assert stuck.held_by == 'a traffic light' and stuck.since == 1.0
    # it drives on: the episode ends at its next advance
    drive(det, path(oval, [('loop', 1.0, 1.5)]), speed=0.05, start=66.0)
    assert stuck.until == pytest.approx(68.0, abs=1.0)
    assert det.summary()['stuck_at_end'] == []


def _circle_legs(final, laps):
    """Into X1 from the west in-lane, then round its circle `laps` times."""
    circle = final.road('X1.circle')
    end = final.road('X1.in.w').pose_at(final.road('X1.in.w').length)
    pts = circle.sample(0.005)
    s_in = float(np.argmin(np.hypot(pts[:, 0] - end[0], pts[:, 1] - end[1]))) * circle.length / (len(pts) - 1)
    return [('west_loop', 3.0, final.road('west_loop').length), ('X1.in.w', 0.0, final.road('X1.in.w').length)] + \
        [('X1.circle', s_in, s_in - 1e-9)] * laps


def test_circling_a_crossroad_is_stuck_and_confined(final):
    """Issue #27's trap: a robot that drives X1's circle for good keeps moving, never advances."""
    det = ProgressDetector(['a'], final, stall_time=120)
    end = drive(det, path(final, _circle_legs(final, 40)), speed=0.06)
    (stuck,) = det.stuck
    (confined,) = det.confined
    assert confined.intersection == 'X1' and confined.kind == 'crossroad' and confined.until is None
    assert confined.laps >= 30 and confined.since < confined.flagged
    # confined after CONFINE_LAPS laps of the 0.68 m circle at 6 cm/s (plus the in-lane)
    assert confined.flagged - confined.since == pytest.approx(
        CONFINE_LAPS * final.road('X1.circle').length / 0.06 + 11, abs=8)
    # stuck from its last advance, one lap after it got onto the circle, for good
    assert stuck.until is None and stuck.since < confined.flagged and end - stuck.since > 300
    assert stuck.where.startswith('intersection X1 (crossroad)')
    summary = det.summary()
    assert summary['confined'][0]['intersection'] == 'X1' and summary['stuck'][0]['robot'] == 'a'
    lines = report_lines(summary)
    assert any('confined: a in X1 (crossroad)' in line for line in lines)


def test_round_a_roundabout_once_to_an_exit_is_progress_and_so_is_a_balloon_loop(final):
    """Into R2 from the link (south-east entry), round the ring to the west exit, the balloon loop
    and back into R2 by the west entry, three times: each passage goes most of the way round.
    """
    ring = final.road('R2.ring')
    pts = ring.sample(0.005)

    def ring_s(point):
        return float(np.argmin(np.hypot(pts[:, 0] - point[0], pts[:, 1] - point[1]))) * ring.length / (len(pts) - 1)
    s_in_se = ring_s(final.road('R2.entry.se').pose_at(final.road('R2.entry.se').length))
    s_in_w = ring_s(final.road('R2.entry.w').pose_at(final.road('R2.entry.w').length))
    s_out_w = ring_s(final.road('R2.exit.w').pose_at(0.0))
    loop = [('R2.exit.w', 0.0, 0.257), ('balloon', 0.0, final.road('balloon').length),
            ('R2.entry.w', 0.0, 0.257), ('R2.ring', s_in_w, s_out_w)]
    legs = [('link', 1.0, final.road('link').length), ('R2.entry.se', 0.0, 0.257), ('R2.ring', s_in_se, s_out_w)]
    det = ProgressDetector(['a'], final, stall_time=60)
    drive(det, path(final, legs + loop * 3), speed=0.07)
    assert det.stuck == [] and det.confined == []
    # the same ring driven on instead of taken to the exit: confined to R2
    det = ProgressDetector(['a'], final, stall_time=60)
    drive(det, path(final, legs + [('R2.ring', s_out_w, s_out_w - 1e-9)] * 3), speed=0.07)
    assert [c.intersection for c in det.confined] == ['R2'] and det.stuck


def test_leaving_a_ring_onto_the_balloon_it_came_by_is_an_exit_after_standing_at_the_entry(final):
    """Held-out generated:7155 (15 robots seed 1): a robot stood at the ring's entry at the
    balloon's end (its nearest lane changed while it stood), went round and out onto the same
    balloon: that was taken for the road it came from, so the visit never ended, and visits with
    the balloon between them added up to 2.4 laps: confined.
    """
    ring = final.road('R2.ring')
    pts = ring.sample(0.005)

    def ring_s(point):
        return float(np.argmin(np.hypot(pts[:, 0] - point[0], pts[:, 1] - point[1]))) * ring.length / (len(pts) - 1)
    s_in_w = ring_s(final.road('R2.entry.w').pose_at(final.road('R2.entry.w').length))
    s_out_w = ring_s(final.road('R2.exit.w').pose_at(0.0))
    balloon = final.road('balloon').length
    # standing 6 mm before the balloon's end, then 2 mm on: there the nearest lane is the entry's
    end_of_balloon = path(final, [('balloon', balloon - 0.006, balloon - 0.005)])[0]
    at_the_entry = path(final, [('balloon', balloon - 0.004, balloon - 0.003)])[0]
    almost_a_lap = [('R2.entry.w', 0.0, 0.257), ('R2.ring', s_in_w, s_out_w), ('R2.exit.w', 0.0, 0.257)]
    det = ProgressDetector(['a'], final, stall_time=600)
    t = drive(det, path(final, [('balloon', 1.0, balloon - 0.03)]), speed=0.07)
    for _ in range(3):
        t = stand(det, end_of_balloon, 3, start=t + 1)
        t = stand(det, at_the_entry, 3, start=t + 1)
        t = drive(det, path(final, almost_a_lap + [('balloon', 0.0, balloon - 0.03)]), speed=0.07, start=t + 1)
    assert det.confined == [] and det.stuck == []


def test_coming_back_to_a_road_at_an_earlier_place_and_driving_on_is_progress(final):
    """Issue #27 (generated:2019): a robot that came back to a balloon road it had left 2.6 m
    further on owed those 2.6 m before it gained again, and was found stuck for 123 s while it
    drove the balloon and the ring. A jump along a road between two samples is a new place.
    """
    det = ProgressDetector(['a'], final, stall_time=10)
    t = drive(det, path(final, [('north', 2.0, 3.0)]), speed=0.07)
    drive(det, path(final, [('north', 0.5, 1.6)]), speed=0.07, start=t + 1)
    assert det.stuck == []


def test_several_robots_and_a_missing_pose(oval):
    det = ProgressDetector(['a', 'b'], oval, stall_time=10)
    moving = path(oval, [('loop', 0.0, 2.0)])
    still = path(oval, [('loop', 3.0, 3.01)])[0]
    for t in range(1, 31):
        b = still if t > 3 else (np.nan, np.nan, np.nan)     # b publishes nothing for 3 s
        det.update(float(t), np.array([moving[min(len(moving) - 1, t * 10)], b]))
    assert [(s.robot, s.since) for s in det.stuck] == [('b', 4.0)]


def test_stall_time_must_be_positive(oval):
    with pytest.raises(ValueError, match='stall_time must be a positive'):
        ProgressDetector(['a'], oval, stall_time=0)


def test_an_advance_is_ten_centimetres():
    assert ADVANCE == 0.10


def _run(name, duration, stall_time, **kwargs):
    from pathlib import Path
    import tempfile

    from thymio_road.runtime.run import run_scenario
    from thymio_road.scenario import load_scenario
    with tempfile.TemporaryDirectory() as folder:
        return run_scenario(load_scenario(name, duration=duration, **kwargs), Path(folder) / 'run', record=False,
                            progress=False, picture=False, stall_time=stall_time).summary


def test_a_normal_run_on_the_oval_flags_nothing():
    progress = _run('oval', 90.0, 20.0)['progress']
    assert progress['stuck_count'] == 0 and progress['confined_count'] == 0 and progress['stall_time_s'] == 20.0


@pytest.mark.slow
def test_a_normal_run_on_the_final_map_flags_nothing():
    """Ten robots with lights for ten minutes: queues at lights, yields, passages, no one stuck."""
    summary = _run('final_traffic', 600.0, 120.0, seed=1)
    assert summary['traffic']['passages'] > 50
    assert summary['progress']['stuck'] == [] and summary['progress']['confined'] == []
