# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""CSMA: listen before talking, random back-off when busy."""
import numpy as np
import pytest

from swarm_comm.mac import Csma


def test_free_channel_transmits_at_once_busy_channel_backs_off():
    rng = np.random.default_rng(0)
    mac = Csma(2, window=8)
    start = mac.step(np.array([True, True]), np.array([False, True]), rng)
    assert start.tolist() == [True, False]
    assert 1 <= mac.backoff[1] <= 8


def test_backoff_counts_down_then_retries():
    rng = np.random.default_rng(1)
    mac = Csma(1, window=4)
    mac.backoff[0] = 3
    starts = [bool(mac.step(np.array([True]), np.array([False]), rng)[0]) for _ in range(4)]
    assert starts == [False, False, False, True]


def test_initial_backoff_desynchronises_forwarders():
    rng = np.random.default_rng(2)
    mac = Csma(50, window=32)
    mac.queued(np.arange(50), rng)
    assert len(set(mac.backoff.tolist())) > 10


def test_bad_window():
    with pytest.raises(ValueError, match='window'):
        Csma(2, window=0)
