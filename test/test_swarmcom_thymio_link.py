# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""SwarmCom framing over Thymio 10-bit payloads: round trip, losses, duplicates, corrupted bits."""
from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from swarm_comm.coding import CODES
from swarm_comm.thymio_link import PAYLOAD_BITS, ThymioLinkDecoder, ThymioLinkEncoder


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=1, max_size=12), st.sampled_from(['15,15', '15,11', '15,1']))
def test_round_trip_and_payloads_are_nonzero_10_bit(words, code):
    payloads = ThymioLinkEncoder(CODES[code]).encode_words(words, 8)
    assert all(0 < p < 1 << PAYLOAD_BITS for p in payloads)
    messages = ThymioLinkDecoder(CODES[code]).feed_all(payloads)
    assert len(messages) == 1
    assert messages[0].words(8)[:len(words)] == words


def test_repeated_polls_and_repeated_messages_are_dropped():
    payloads = ThymioLinkEncoder(repeats=3).encode_words([20, 41], 8)
    doubled = [p for p in payloads for _ in range(2)] + [None]
    decoder = ThymioLinkDecoder()
    assert [m.words(8)[:2] for m in decoder.feed_all(doubled)] == [[20, 41]]
    assert decoder.duplicates > 0


def test_a_lost_payload_breaks_the_message_and_a_repeat_recovers_it():
    payloads = ThymioLinkEncoder(repeats=2).encode_words([7, 9, 11], 8)
    single = len(payloads) // 2
    payloads[3] = None
    decoder = ThymioLinkDecoder()
    messages = decoder.feed_all(payloads)
    assert decoder.broken == 1
    assert [m.words(8)[:3] for m in messages] == [[7, 9, 11]]
    assert messages[0].period == 2 * single


def test_hamming_code_corrects_a_flipped_bit_in_a_payload():
    payloads = ThymioLinkEncoder(CODES['15,11']).encode_words([300, 5], 10)
    payloads[1] ^= 0b100   # one data bit of the first fragment
    (message,) = ThymioLinkDecoder(CODES['15,11']).feed_all(payloads)
    assert message.corrected == 1 and message.words(10)[:2] == [300, 5]


def test_new_message_start_abandons_a_partial_one():
    encoder = ThymioLinkEncoder()
    first, second = encoder.encode_words([1, 2, 3], 8), encoder.encode_words([4], 8)
    decoder = ThymioLinkDecoder()
    messages = decoder.feed_all(first[:2] + second)
    assert decoder.broken == 1 and [m.words(8)[0] for m in messages] == [4]


def test_bad_input():
    with pytest.raises(ValueError, match='payload'):
        ThymioLinkDecoder().feed(1 << 10)
    with pytest.raises(ValueError, match='repeats'):
        ThymioLinkEncoder(repeats=0)
    with pytest.raises(ValueError, match='fit 8 bits'):
        ThymioLinkEncoder().encode_words([256], 8)
