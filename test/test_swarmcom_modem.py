# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""OOK framing with an s1 prefix per 15-bit block, and the sample-by-sample receiver."""
import numpy as np
import pytest

from swarm_comm.coding import CODES
from swarm_comm.detector import DetectorConfig
from swarm_comm.modem import decode_blocks, encode_message, frame_symbols, Receiver


def levels(symbols, on=3000.0, off=4080.0):
    return np.where(np.asarray(symbols) == 1, on, off)


def run(receiver, stream):
    out = []
    for value in stream:
        out += receiver.step(np.array([value]))
    return out + receiver.flush()


def test_frame_has_a_prefix_before_each_block():
    blocks = np.zeros((2, 15), np.uint8)
    symbols = frame_symbols(blocks)
    assert symbols.size == 32 and symbols[0] == 1 and symbols[16] == 1 and symbols[1:16].sum() == 0


@pytest.mark.parametrize('code', ['15,15', '15,11', '15,1'])
def test_encode_decode_round_trip(code):
    data = np.random.default_rng(0).integers(0, 2, 40).astype(np.uint8)
    blocks = encode_message(data, CODES[code])
    decoded, corrected = decode_blocks(blocks, CODES[code])
    np.testing.assert_array_equal(decoded[:40], data)
    assert corrected == 0


@pytest.mark.parametrize('dynamic', [False, True])
def test_receiver_recovers_a_clean_multi_block_message(dynamic):
    blocks = np.random.default_rng(1).integers(0, 2, (3, 15)).astype(np.uint8)
    stream = np.concatenate([levels([0] * 5), levels(frame_symbols(blocks)), levels([0] * 5)])
    messages = run(Receiver(1, DetectorConfig(5, dynamic=dynamic)), stream)
    assert len(messages) == 1
    assert messages[0].start_sample == 5
    np.testing.assert_array_equal(messages[0].blocks, blocks)


def test_dynamic_threshold_rejects_weak_interference_a_fixed_one_takes_as_ones():
    blocks = np.zeros((1, 15), np.uint8)
    stream = levels(frame_symbols(blocks), on=1000.0)
    stream[5] = 4060.0          # a weak stray signal during a 0 bit
    fixed = run(Receiver(1, DetectorConfig(5, dynamic=False)), stream)
    dynamic = run(Receiver(1, DetectorConfig(5, dynamic=True)), stream)
    assert fixed[0].blocks[0, 4] == 1
    assert dynamic[0].blocks[0, 4] == 0


def test_threshold_returns_to_default_after_a_message():
    receiver = Receiver(1, DetectorConfig(5, dynamic=True))
    run(receiver, levels(frame_symbols(np.ones((1, 15), np.uint8)), on=500.0))
    assert receiver.threshold[0] == 4075


def test_receivers_are_independent_and_validated():
    receiver = Receiver(2)
    receiver.step(np.array([3000.0, 4080.0]))
    assert receiver.busy.tolist() == [True, False]
    with pytest.raises(ValueError, match='count'):
        Receiver(0)
