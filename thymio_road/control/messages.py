# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The robots' IR messages: one table of kinds (base, span, meaning), one encode, one decode.

A Thymio sends one 11-bit value per 0.1 s period (prox.comm.tx). The traffic lights use 20..79
(:mod:`thymio_road.map.lights`); the robots' kinds below start at 128 and never overlap them, so
lights and robots share the channel. Every base and span is a multiple of 64, so a received value
is decoded by one table look-up on ``code >> 6`` (a robot hears its neighbours every period).
The rules that send and act on each kind are in :mod:`thymio_road.control.right_of_way`.
"""
from __future__ import annotations

from dataclasses import dataclass

#: Robot ids are 1..63 (0: nobody, or no id); an announcement packs the role above the id.
MAX_ID = 63
ID_SPAN = 64


@dataclass(frozen=True)
class MessageKind:
    name: str
    base: int
    #: How many values the kind takes, from `base`.
    span: int
    meaning: str


BLOCKED_BY = MessageKind('blocked_by', 128, ID_SPAN,
                         'the sender has stood blocked `blocked_count` events by the robot with this id')
ANNOUNCE = MessageKind('announce', 256, 4 * ID_SPAN,
                       "the sender's role (the rank of its lane) times 64 plus its id")
WAITING = MessageKind('waiting', 512, ID_SPAN,
                      'the sender (this id) waits in a queue at a traffic light')
BACK_UP = MessageKind('back_up', 576, ID_SPAN,
                      'the sender makes way but cannot back: the robot with this id (0: none heard) '
                      'behind it should back up')
PRIORITY_BEHIND = MessageKind('priority_behind', 640, ID_SPAN,
                              'the sender (this id) waits at a light with a priority vehicle behind it')
KINDS = (BLOCKED_BY, ANNOUNCE, WAITING, BACK_UP, PRIORITY_BEHIND)

#: The kind of each block of 64 values (None: no robot's message), for decode's one look-up.
_BY_BLOCK: list[MessageKind | None] = [None] * (max(k.base + k.span for k in KINDS) // ID_SPAN)
for _kind in KINDS:
    assert _kind.base % ID_SPAN == 0 and _kind.span % ID_SPAN == 0, _kind
    for _block in range(_kind.base // ID_SPAN, (_kind.base + _kind.span) // ID_SPAN):
        assert _BY_BLOCK[_block] is None, f'{_kind.name} overlaps {_BY_BLOCK[_block].name}'
        _BY_BLOCK[_block] = _kind
_BLOCKS = len(_BY_BLOCK)


def encode(kind: MessageKind, value: int) -> int:
    """The value to send for `kind` carrying `value` (an id, or role·64 + id for ANNOUNCE)."""
    if not 0 <= value < kind.span:
        raise ValueError(f'{kind.name} carries 0..{kind.span - 1}, got {value}')
    return kind.base + value


def decode(code: int) -> tuple[MessageKind, int] | None:
    """A received value → (kind, value carried), or None when it is no robot's message."""
    block = code >> 6
    kind = _BY_BLOCK[block] if 0 <= block < _BLOCKS else None
    return None if kind is None else (kind, code - kind.base)
