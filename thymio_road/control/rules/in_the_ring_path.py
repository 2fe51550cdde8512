# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Make way, at once, when yielding at a roundabout's entry with the ring robot it yields to
closing in on its nose: the entry joins the ring tangentially, so a robot that heard the ring
robot only at the end of its entry (IR reaches about 23 cm) stands with its nose in the ring's
lane, and the ring robot, crossing the entry blind, passes it on its right flank, where its own
sensors do not look: standing still, the entering robot is pushed until the ring robot's
crossing rule backs it (``crossing_give_up_count``; docs/traffic.md has the run). The yield counts as standing blocked
once something in front is as
close as a stop (``obs_threshold_max``, rules/yield_at_entry.py); this rule then backs the
robot the way it came, and it holds until the ring robot has passed. A robot leaving a
location's siding yields too (the ENTERING role), and the siding joins the road at its merge the
same way, tangentially from the right: the rule applies there alike.
"""
from __future__ import annotations

from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import Reason, register


@register
class InTheRingPath(Reason):
    name = 'in_the_ring_path'
    precedence = 35

    def fires(self, ctl, role: Role, percept) -> int | None:
        yielding = self.policy.yield_at_entry
        if role is not Role.ENTERING or not yielding.yielding or not self.row.blocked:
            return None
        if percept.front <= self.params.obs_threshold_max:
            return None
        return yielding.to if yielding.to in self.row.heard else self.row.ahead() or 0
