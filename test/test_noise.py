# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""NoiseStream: however the samples are taken (take, pair, reserve/advance), a stream gives the same
sequence, across buffer refills, so that the compiled sensors draw what the numpy ones drew.
"""
import numpy as np

from thymio_road.sim.noise import BLOCK, NoiseStream


def test_pair_and_reserve_take_what_take_takes_across_refills():
    a, b = NoiseStream(np.random.SeedSequence(3)), NoiseStream(np.random.SeedSequence(3))
    for k in range(3 * BLOCK // 7):
        assert a.pair() == tuple(float(v) for v in b.take(2))
        buffer, at = a.reserve(7)
        assert np.array_equal(buffer[at:at + 7], b.take(7))
        if k % 2:  # a sensor that saw something used its reserved samples
            a.advance(7)
        else:      # one that saw nothing did not: the next reserve hands out the same samples
            b._next -= 7
