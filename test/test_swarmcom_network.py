# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Packets, headers and flooding's forward-once rule."""
import numpy as np
import pytest

from swarm_comm.coding import CODES
from swarm_comm.network import blocks_to_packet, header_blocks, Packet, packet_to_blocks, Router


@pytest.mark.parametrize('code', ['15,15', '15,11', '15,1'])
def test_packet_round_trip(code):
    payload = np.random.default_rng(0).integers(0, 2, 20).astype(np.uint8)
    packet = Packet(5, 1234, payload)
    blocks = packet_to_blocks(packet, CODES[code])
    got = blocks_to_packet(blocks, CODES[code], payload.size)
    assert got == packet
    np.testing.assert_array_equal(got.payload, payload)
    assert header_blocks(CODES[code]) == {'15,15': 1, '15,11': 2, '15,1': 15}[code]


def test_flooding_forwards_each_message_once_broadcast_never():
    packet = Packet(1, 2, np.zeros(3, np.uint8))
    flood, broadcast = Router('flooding'), Router('broadcast')
    assert flood.receive(packet) == (True, True)
    assert flood.receive(packet) == (False, False)
    assert broadcast.receive(packet) == (True, False)
    origin = Router('flooding')
    origin.originate(packet)
    assert origin.receive(packet) == (False, False)


def test_bad_input():
    with pytest.raises(ValueError, match='origin'):
        Packet(16, 0, np.zeros(1))
    with pytest.raises(ValueError, match='mode'):
        Router('gossip')
