# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import itertools

import numpy as np
import pytest

from thymio_road.map.barcode import (Barcode, BIT_LENGTH, decode, decode_matched, encode, predicted_samples,
                                     RIGHT_SENSOR_OFFSET)


def test_bits_are_trigger_then_code_lsb_first():
    assert encode(1) == (1, 1, 0, 0)
    assert encode(6) == (1, 0, 1, 1)
    assert all(decode(encode(c)[1:]) == c for c in range(1, 8))


def test_a_barcode_is_four_bits_of_2_7_cm():
    bar = Barcode('b', 'r', 0.5, 5)
    assert bar.length == pytest.approx(0.108)
    assert Barcode('m', 'r', 0.5, 0, bits=1).length == pytest.approx(BIT_LENGTH)


def test_bits_lie_under_the_right_sensor():
    inner, outer = Barcode('b', 'r', 0, 3).lateral_span(0.03)
    assert inner == pytest.approx(0.017) and outer == pytest.approx(0.035)
    assert inner < RIGHT_SENSOR_OFFSET < outer


@pytest.mark.parametrize('speed', [150, 260, 410])
def test_matched_decoding_is_right_for_every_code_and_trigger_phase(speed):
    step = speed * 0.032 * 0.1
    count = 1 + int(np.ceil((10.8 + 0.11) / step))
    for code, phase in itertools.product(range(1, 8), np.linspace(0.0, 1.0, 11)):
        offset = 0.11 + phase * step * 0.999
        samples = predicted_samples(code, offset, step, count)
        assert decode_matched(samples, step) == code, (code, phase)


def test_matched_decoding_tolerates_a_wrong_sample():
    step = 260 * 0.032 * 0.1
    samples = predicted_samples(6, 0.5, step, 15)
    samples[7] = not samples[7]
    assert decode_matched(samples, step) == 6
