# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Count a siding's light lane in distance driven, not in time: a robot queued in the siding
counted its ``light_siding_count`` events standing still, stopped obeying the light and drove out
beside a road robot; backing to make way and holding after it bring it no closer either.
"""
from __future__ import annotations

from thymio_road.control.rules import register, Rule


@register
class SidingDistance(Rule):
    name = 'siding_distance'

    def advances(self, ctl) -> bool:
        make_way = self.policy.make_way
        return not (ctl._last_obstructed or make_way.making_way is not None or make_way.holding is not None)
