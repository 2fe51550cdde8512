# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""BCH [15,15], [15,11], [15,1]: generators, systematic encoding and exhaustive error correction."""
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import pytest

from swarm_comm.coding import bch_generator, BCHCode, bits_to_int, bits_to_words, code_by_name, CODES, int_to_bits


def all_words(bits: int) -> np.ndarray:
    return int_to_bits(np.arange(1 << bits), bits)


def test_generators_are_the_bch_polynomials():
    assert bch_generator(0) == 1
    assert bch_generator(1) == 0b10011           # x^4 + x + 1
    assert bch_generator(2) == 0b111010001       # x^8 + x^7 + x^6 + x^4 + 1 (the [15,7] code)
    assert bch_generator(7) == (1 << 15) - 1     # 1 + x + ... + x^14


def test_dimensions():
    assert [CODES[n].data_bits for n in ('15,15', '15,11', '15,1')] == [15, 11, 1]
    assert code_by_name('[15, 11]') is CODES['15,11']
    with pytest.raises(ValueError, match='code must be one of'):
        code_by_name('15,7x')
    with pytest.raises(ValueError, match='correctable'):
        BCHCode(8)


def test_uncoded_passes_data_through():
    code = CODES['15,15']
    words = all_words(15)
    np.testing.assert_array_equal(code.encode(words), words)
    decoded, corrected = code.decode(words)
    np.testing.assert_array_equal(decoded, words)
    assert not corrected.any()


def test_hamming_codewords_are_multiples_of_generator_and_systematic():
    code = CODES['15,11']
    words = all_words(11)
    codewords = code.encode(words)
    assert np.all(code.syndrome(codewords) == 0)
    np.testing.assert_array_equal(codewords[:, 4:], words)
    # minimum distance 3: every non-zero codeword has weight >= 3
    assert codewords.sum(axis=1)[1:].min() == 3


def test_hamming_corrects_every_single_error_exhaustively():
    code = CODES['15,11']
    words = all_words(11)
    codewords = code.encode(words)
    for position in range(15):
        received = codewords.copy()
        received[:, position] ^= 1
        decoded, corrected = code.decode(received)
        np.testing.assert_array_equal(decoded, words)
        assert np.all(corrected == 1)


def test_repetition_code_corrects_every_pattern_of_up_to_seven_errors_exhaustively():
    code = CODES['15,1']
    patterns = [np.zeros(15, np.uint8)]
    for weight in range(1, 8):
        for positions in combinations(range(15), weight):
            pattern = np.zeros(15, np.uint8)
            pattern[list(positions)] = 1
            patterns.append(pattern)
    patterns = np.array(patterns)
    assert len(patterns) == 1 << 14  # perfect code: every syndrome is a pattern of weight <= 7
    for bit in (0, 1):
        codeword = code.encode(np.array([bit]))
        decoded, corrected = code.decode(codeword ^ patterns)
        assert np.all(decoded[:, 0] == bit)
        np.testing.assert_array_equal(corrected, patterns.sum(axis=1))


def test_repetition_code_fails_at_eight_errors():
    code = CODES['15,1']
    received = code.encode(np.array([0]))
    received[:8] ^= 1
    assert code.decode(received)[0][0] == 1


@given(st.integers(0, (1 << 11) - 1), st.integers(0, 14), st.integers(0, 14))
def test_hamming_double_error_is_never_silently_accepted_as_sent(data, a, b):
    code = CODES['15,11']
    word = int_to_bits(np.array(data), 11)
    received = code.encode(word)
    received[a] ^= 1
    received[b] ^= 1
    decoded, _ = code.decode(received)
    if a == b:
        np.testing.assert_array_equal(decoded, word)
    else:
        assert code.syndrome(received) != 0  # detected, even though miscorrected


def test_encode_rejects_bad_input():
    with pytest.raises(ValueError, match='11 bits'):
        CODES['15,11'].encode(np.zeros(10))
    with pytest.raises(ValueError, match='only 0 and 1'):
        CODES['15,11'].encode(np.full(11, 2))


def test_bit_helpers_round_trip():
    values = np.array([0, 5, 1023])
    np.testing.assert_array_equal(bits_to_int(int_to_bits(values, 10)), values)
    assert bits_to_words(np.ones(12), 5).shape == (3, 5)
    with pytest.raises(ValueError, match='fit 3 bits'):
        int_to_bits(np.array([8]), 3)
