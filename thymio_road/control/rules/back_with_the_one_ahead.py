# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Back up with the robot ahead when it asks (``BACK_UP + id``): it makes way for one that
outranks it but cannot back, because this robot stands close behind it. Without this, an entering
robot asked to make way by a ring robot could not back with the next robot 17 cm behind it, and
the three stood for minutes. Asked first, even while this robot holds after making way; never a
priority vehicle's duty; only as far as this robot came (its trail).
"""
from __future__ import annotations

from thymio_road.control.events import DRIVING
from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import Reason, register


@register
class BackWithTheOneAhead(Reason):
    name = 'asked_back'
    precedence = 0
    interrupts = True

    def fires(self, ctl, role: Role, percept) -> int | None:
        if self.row.asked_back is None:
            return None
        make_way = self.policy.make_way
        if (self.row.asked_back is not None and make_way.making_way is None and role is not Role.PRIORITY
                and make_way.trail and ctl.state in DRIVING):
            return self.row.ahead() or 0
        return None
