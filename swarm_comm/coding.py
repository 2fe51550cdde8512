# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Binary BCH block codes of length 15: [15,15], [15,11] and [15,1] (paper Sect. 4.3).

A narrow-sense BCH code of length n = 2^4 − 1 correcting t errors has as generator the least common
multiple of the minimal polynomials of α, α^2, …, α^2t over GF(2), where α is a root of the primitive
polynomial x^4 + x + 1. For t = 1 this is x^4 + x + 1 itself ([15,11], a Hamming code); for t = 7 it is
1 + x + … + x^14 ([15,1], the repetition code); t = 0 is no coding ([15,15]).

Encoding is systematic: polynomial bit i (coefficient of x^i) is array element i; the k data bits are
the high coefficients x^(n−k) … x^(n−1) and the parity the remainder of x^(n−k)·d(x) mod g(x).
Decoding uses a syndrome → coset-leader table over all patterns of at most t errors; both coded
variants are perfect codes, so every syndrome has exactly one such leader.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

BLOCK_LENGTH = 15
PRIMITIVE_POLYNOMIAL = 0b10011  # x^4 + x + 1


def _gf16_powers() -> list[int]:
    """α^0 … α^14 in GF(16) as 4-bit integers, with α a root of x^4 + x + 1."""
    powers, value = [], 1
    for _ in range(BLOCK_LENGTH):
        powers.append(value)
        value <<= 1
        if value & 0b10000:
            value ^= PRIMITIVE_POLYNOMIAL
    return powers


def _gf16_mul(a: int, b: int, log: dict[int, int], powers: list[int]) -> int:
    if a == 0 or b == 0:
        return 0
    return powers[(log[a] + log[b]) % BLOCK_LENGTH]


def _poly_mul_gf16(p: list[int], q: list[int], log: dict[int, int], powers: list[int]) -> list[int]:
    out = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] ^= _gf16_mul(a, b, log, powers)
    return out


def _minimal_polynomial(exponent: int, powers: list[int], log: dict[int, int]) -> int:
    """Minimal polynomial over GF(2) of α^exponent: product of (x − α^e) over its cyclotomic coset."""
    coset, e = [], exponent % BLOCK_LENGTH
    while e not in coset:
        coset.append(e)
        e = (2 * e) % BLOCK_LENGTH
    poly = [1]  # coefficients in GF(16), lowest degree first
    for e in coset:
        poly = _poly_mul_gf16(poly, [powers[e], 1], log, powers)
    if any(c not in (0, 1) for c in poly):  # a minimal polynomial has binary coefficients
        raise ArithmeticError(f'minimal polynomial of α^{exponent} is not binary: {poly}')
    return sum(c << i for i, c in enumerate(poly))


def _poly_mul_gf2(a: int, b: int) -> int:
    out = 0
    while b:
        if b & 1:
            out ^= a
        a <<= 1
        b >>= 1
    return out


def _poly_mod_gf2(value: int, modulus: int) -> int:
    degree = modulus.bit_length() - 1
    while value.bit_length() - 1 >= degree:
        value ^= modulus << (value.bit_length() - 1 - degree)
    return value


def bch_generator(correctable: int) -> int:
    """Generator polynomial (bit i = coefficient of x^i) of the length-15 BCH code correcting ``correctable`` errors."""
    if not 0 <= correctable <= 7:
        raise ValueError(f'correctable must be in 0..7 for length-15 BCH codes, got {correctable!r}')
    powers = _gf16_powers()
    log = {v: i for i, v in enumerate(powers)}
    generator, used = 1, set()
    for exponent in range(1, 2 * correctable + 1):
        poly = _minimal_polynomial(exponent, powers, log)
        if poly not in used:  # lcm of distinct irreducible factors is their product
            used.add(poly)
            generator = _poly_mul_gf2(generator, poly)
    return generator


def _to_int(bits: np.ndarray) -> np.ndarray:
    weights = 1 << np.arange(bits.shape[-1], dtype=np.int64)
    return (np.asarray(bits, dtype=np.int64) * weights).sum(axis=-1)


def _to_bits(values: np.ndarray, width: int) -> np.ndarray:
    return ((np.asarray(values, dtype=np.int64)[..., None] >> np.arange(width)) & 1).astype(np.uint8)


@dataclass(frozen=True)
class BCHCode:
    """A systematic [15, k] BCH code; vectorised over leading axes of bit arrays."""

    correctable: int
    """t, the number of bit errors per block the code corrects (0, 1 or 7)."""
    generator: int = field(init=False)
    data_bits: int = field(init=False)
    _parity_of_data_bit: np.ndarray = field(init=False, repr=False)
    _syndrome_of_bit: np.ndarray = field(init=False, repr=False)
    _leader: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        generator = bch_generator(self.correctable)
        parity_bits = generator.bit_length() - 1
        data_bits = BLOCK_LENGTH - parity_bits
        # Linearity: the parity (= syndrome) of a word is the XOR of those of its set bits.
        syndrome_of_bit = np.array([_poly_mod_gf2(1 << i, generator) for i in range(BLOCK_LENGTH)], dtype=np.int64)
        parity_of_data_bit = syndrome_of_bit[parity_bits:]
        leader = np.full(1 << parity_bits, -1, dtype=np.int64)
        leader[0] = 0
        for weight in range(1, self.correctable + 1):
            for positions in combinations(range(BLOCK_LENGTH), weight):
                syndrome = 0
                for p in positions:
                    syndrome ^= int(syndrome_of_bit[p])
                if leader[syndrome] < 0:
                    leader[syndrome] = sum(1 << p for p in positions)
        object.__setattr__(self, 'generator', generator)
        object.__setattr__(self, 'data_bits', data_bits)
        object.__setattr__(self, '_parity_of_data_bit', parity_of_data_bit)
        object.__setattr__(self, '_syndrome_of_bit', syndrome_of_bit)
        object.__setattr__(self, '_leader', leader)

    @property
    def name(self) -> str:
        return f'[{BLOCK_LENGTH},{self.data_bits}]'

    @property
    def parity_bits(self) -> int:
        return BLOCK_LENGTH - self.data_bits

    def _xor_reduce(self, bits: np.ndarray, table: np.ndarray) -> np.ndarray:
        selected = np.where(np.asarray(bits, dtype=bool), table, 0)
        if selected.shape[-1]:
            return np.bitwise_xor.reduce(selected, axis=-1)
        return np.zeros(selected.shape[:-1], np.int64)

    def encode(self, data: np.ndarray) -> np.ndarray:
        """Codewords (..., 15) of data words (..., k) of 0/1 values."""
        data = np.asarray(data)
        if data.shape[-1:] != (self.data_bits,):
            raise ValueError(
                f'data must end with an axis of {self.data_bits} bits for {self.name}, got shape {data.shape}')
        if data.size and not np.all((data == 0) | (data == 1)):
            raise ValueError(f'data must hold only 0 and 1, got values {np.unique(data)}')
        parity = self._xor_reduce(data, self._parity_of_data_bit)
        return np.concatenate([_to_bits(parity, self.parity_bits), data.astype(np.uint8)], axis=-1)

    def syndrome(self, received: np.ndarray) -> np.ndarray:
        """r(x) mod g(x) as an integer; 0 for a codeword."""
        return self._xor_reduce(received, self._syndrome_of_bit)

    def decode(self, received: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Data words (..., k) and the number of bits corrected per block (..., ) from blocks (..., 15)."""
        received = np.asarray(received)
        if received.shape[-1:] != (BLOCK_LENGTH,):
            raise ValueError(f'received must end with an axis of {BLOCK_LENGTH} bits, got shape {received.shape}')
        error = self._leader[self.syndrome(received)]
        error = np.where(error < 0, 0, error)  # unreachable for these perfect codes; kept for safety
        error_bits = _to_bits(error, BLOCK_LENGTH)
        corrected = (received.astype(np.uint8) ^ error_bits)
        return corrected[..., self.parity_bits:], error_bits.sum(axis=-1)


#: The three codes SwarmCom offers: no coding, 1-error and 7-error correcting (Sect. 4.3).
CODES: dict[str, BCHCode] = {'15,15': BCHCode(0), '15,11': BCHCode(1), '15,1': BCHCode(7)}


def code_by_name(name: str) -> BCHCode:
    """``'15,15'``, ``'15,11'`` or ``'15,1'`` (brackets and spaces are ignored)."""
    key = name.replace('[', '').replace(']', '').replace(' ', '')
    if key not in CODES:
        raise ValueError(f'code must be one of {sorted(CODES)}, got {name!r}')
    return CODES[key]


def bits_to_words(bits: np.ndarray, word_bits: int) -> np.ndarray:
    """Split a bit vector into rows of ``word_bits``, zero-padding the last one."""
    bits = np.asarray(bits, dtype=np.uint8).ravel()
    if word_bits <= 0:
        raise ValueError(f'word_bits must be positive, got {word_bits!r}')
    padded = np.zeros(-(-bits.size // word_bits) * word_bits, dtype=np.uint8)
    padded[:bits.size] = bits
    return padded.reshape(-1, word_bits)


def int_to_bits(values: np.ndarray, width: int) -> np.ndarray:
    """Little-endian bits (..., width) of non-negative integers."""
    values = np.asarray(values, dtype=np.int64)
    if np.any(values < 0) or np.any(values >= (1 << width)):
        raise ValueError(f'values must be in 0..{(1 << width) - 1} to fit {width} bits, got {values}')
    return _to_bits(values, width)


def bits_to_int(bits: np.ndarray) -> np.ndarray:
    """Integers of little-endian bit rows (..., width)."""
    return _to_int(np.asarray(bits))
