# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Test helper: where the chunks of an MCAP file start (to cut a file as SIGKILL would)."""
import struct


def chunk_offsets(data: bytes) -> list[int]:
    """Start of each top-level chunk record of an MCAP file."""
    pos, out = 8, []
    while pos + 9 <= len(data):
        op, length = struct.unpack_from('<BQ', data, pos)
        if op == 0x06:
            out.append(pos)
        if op in (0x02, 0x0F):
            break
        pos += 9 + length
    return out


def middle_of_chunk(data: bytes, k: int) -> int:
    """An offset halfway through the k-th chunk record (with compressed chunks, the midpoint
    between two chunk starts may fall in the first one's message indexes, after it is complete).
    """
    start = chunk_offsets(data)[k]
    (length,) = struct.unpack_from('<Q', data, start + 1)
    return start + (9 + length) // 2
