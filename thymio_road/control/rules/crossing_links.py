# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Make way on a branching's link, after ``crossing_give_up_count`` events blocked, for the robot
heard in front when it outranks this one, without waiting to be asked; or, hearing none, a
stagger later (2 events per rank of id, as ``give_up``'s), for the one it cannot hear.

A branching's two links cross nearly head-on in their middle (B1: 25 cm of the two lanes within
10 cm of each other), so robots on them meet nose to nose, about 21 cm apart, at angles where the
IR cones may reach one robot and not the other: the "blocked by" request then never arrives,
and both stood until ``give_up`` (docs/traffic_log.md, session 19). The rank decides as
``outranked`` does; only the request is not needed. A priority vehicle never makes way here.
"""
from __future__ import annotations

from thymio_road.control.messages import MAX_ID
from thymio_road.control.right_of_way import outranks, Role
from thymio_road.control.rules import Reason, register


@register
class CrossingLinks(Reason):
    name = 'crossing_links'
    precedence = 32

    def fires(self, ctl, role: Role, percept) -> int | None:
        p, row = self.params, self.row
        if row.blocked < p.crossing_give_up_count or role is Role.PRIORITY:
            return None
        if not self.policy.merge_watch.on_link(ctl):
            return None
        other = row.ahead()
        if other is None:
            return 0 if row.blocked >= p.crossing_give_up_count + 2 * (MAX_ID - p.robot_id) else None
        heard = row.heard[other]
        return other if outranks(heard.role, other, role, p.robot_id) else None
