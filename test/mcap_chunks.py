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
