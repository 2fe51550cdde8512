# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Colours shared by the report's pictures and the run animation, so a state looks the same in both."""
from __future__ import annotations

#: One colour per controller state (report §3), legible over the grey road.
STATE_COLOURS = {
    'ROAD': '#1f77b4',
    'READ': '#ffbf00',
    'ACTION': '#9467bd',
    'CONTINUE': '#17becf',
    'EXIT': '#2ca02c',
    'BACK': '#e377c2',
    'STOP': '#d62728',
}
UNKNOWN_STATE = '#7f7f7f'
TRAFFIC_LIGHT = '#000000'
IR_LINK = '#ff7f0e'


def state_colour(state: str) -> str:
    return STATE_COLOURS.get(state, UNKNOWN_STATE)
