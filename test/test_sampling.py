# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The samples the run's probes and `analyze` both take (analysis/sampling.py, runtime/truth_sampler.py):
built from a bag's stream and from the world node's log of the same poses, they are the same bits.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from thymio_road.analysis import sampling
from thymio_road.runtime.truth_sampler import TruthSampler


def _stream(phase_ns, n=40, seed=0):
    """A robot publishing every 0.1 s from phase_ns: (stamps ns, poses with headings near ±π)."""
    rng = np.random.default_rng(seed)
    ns = phase_ns + np.arange(n, dtype=np.int64) * 100_000_000
    poses = np.column_stack([np.cumsum(rng.uniform(0, 0.01, n)), rng.uniform(0, 1, n),
                             (3.1 + np.arange(n) * 0.05 + math.pi) % (2 * math.pi) - math.pi])
    return ns, poses


def test_stamps_and_yaws_as_a_bag_gives_them_back():
    ns = np.array([370_000_000, 3_600_010_000_000], dtype=np.int64)
    assert sampling.seconds(ns).tolist() == [0.0 + 370000000.0 * 1e-9, 3600.0 + 10000000.0 * 1e-9]
    theta = [3.14159, -3.14159, 0.5]
    assert np.allclose(sampling.recorded_yaw(theta), theta, atol=1e-12)


def test_grid_names_whole_periods():
    assert sampling.grid(0.0, 1.0, sampling.INTERPOLATED_PERIOD_NS).tolist() == [k * 100_000_000 for k in range(1, 11)]
    assert sampling.grid(0.05, 3.5, sampling.HELD_PERIOD_NS).tolist() == [10 ** 9, 2 * 10 ** 9, 3 * 10 ** 9]


def test_held_is_the_last_pose_before_and_interpolated_lies_between():
    stamps = np.array([0.1, 0.2, 0.3])
    poses = np.array([[0.0, 0.0, 3.1], [0.1, 0.0, -3.1], [0.2, 0.0, -3.0]])
    times = np.array([0.05, 0.1, 0.15, 0.3, 0.35])
    held = sampling.held(stamps, poses, times)
    assert np.isnan(held[0]).all() and np.isnan(held[1]).all()        # nothing before 0.1 s
    assert held[2].tolist() == poses[0].tolist() and held[3].tolist() == poses[1].tolist()
    inter = sampling.interpolated(stamps, poses, times)
    assert np.isnan(inter[0]).all() and np.isnan(inter[4]).all()
    assert inter[1].tolist() == poses[0].tolist()                      # exactly the first stamp
    assert inter[2][0] == pytest.approx(0.05) and abs(abs(inter[2][2]) - math.pi) < 1e-9   # the short way round ±π
    assert sampling.value_before([1.0, 2.0], ['a', 'b'], np.array([0.5, 1.0, 1.5, 2.5])) == [None, None, 'a', 'b']


def test_the_runs_log_gives_the_bags_samples_bit_for_bit():
    streams = [_stream(10_000_000 * (k + 1), seed=k) for k in range(3)]
    node = SimpleNamespace(truth_log=[(math.nan,) * 10] * 3)
    sampler = TruthSampler(node)
    bag = [(sampling.seconds(ns), np.column_stack([p[:, :2], sampling.recorded_yaw(p[:, 2].tolist())]))
           for ns, p in streams]
    published = 0
    # the world ticks every 10 ms; the probe samples t - 0.1 s before the tick of t
    for tick in range(1, 400):
        now = tick * 10_000_000
        if now % 100_000_000 == 0 and now > 100_000_000:
            t_ns = now - 100_000_000
            live = sampler.interpolated(t_ns)
            t = sampling.seconds(t_ns)
            from_bag = np.stack([sampling.interpolated(s, p, np.array([t]))[0] for s, p in bag])
            assert np.array_equal(live, from_bag, equal_nan=True), t_ns
            held = sampler.held()
            from_bag = np.stack([sampling.held(s, p, np.array([sampling.seconds(now)]))[0] for s, p in bag])
            assert np.array_equal(held, from_bag, equal_nan=True), now
            published += 1
        for k, (ns, p) in enumerate(streams):
            hit = np.flatnonzero(ns == now)
            if len(hit):
                x, y, th = p[hit[0]].tolist()   # as WorldNode._prox_event logs it
                node.truth_log[k] = (*node.truth_log[k][5:], int(now), x, y, math.sin(th / 2), math.cos(th / 2))
    assert published > 30
