# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Contacts and near misses from hull gaps (analysis/contacts.py): the bound that spares exact gaps,
and the whole-recording pass that `analyze` runs giving the run's sample-by-sample episodes.
"""
from __future__ import annotations

import math

import numpy as np

from thymio_road.analysis.contacts import _reach, ContactDetector
from thymio_road.analysis.metrics import hull_gaps


def test_the_support_bound_never_exceeds_the_exact_gap():
    rng = np.random.default_rng(1)
    n = 20000
    pa = np.column_stack([np.zeros(n), np.zeros(n), rng.uniform(-math.pi, math.pi, n)])
    direction, d = rng.uniform(-math.pi, math.pi, n), rng.uniform(0.05, 0.2, n)
    pb = np.column_stack([d * np.cos(direction), d * np.sin(direction), rng.uniform(-math.pi, math.pi, n)])
    bound = d - _reach(direction - pa[:, 2]) - _reach(direction + math.pi - pb[:, 2])
    assert (bound <= hull_gaps(pa, pb) + 1e-12).all()
    # a queue, 17 cm centre to centre: 6 cm apart, known without the exact gap
    assert _reach(np.array([0.0]))[0] + _reach(np.array([math.pi]))[0] < 0.17 - 0.05


def test_the_whole_recording_at_once_gives_the_same_episodes():
    rng = np.random.default_rng(2)
    m, n = 400, 5
    # five robots wandering in a 40 cm box, now and then without a pose
    poses = np.cumsum(rng.normal(0, 0.01, (m, n, 3)), axis=0) % np.array([0.4, 0.4, 2 * math.pi])
    poses[rng.random((m, n)) < 0.05] = np.nan
    times = np.arange(1, m + 1) * 0.1
    names = [f'r{k}' for k in range(n)]
    live, batch = ContactDetector(names), ContactDetector(names)
    for k in range(m):
        live.update(float(times[k]), poses[k])
    batch.run(times, poses)
    assert len(live.episodes) > 5 and any(e.contact for e in live.episodes)
    assert [e.as_dict() for e in batch.episodes] == [e.as_dict() for e in live.episodes]
    assert batch.summary() == live.summary()
